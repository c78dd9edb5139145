"""Castle rules with known answers (chosen faces through the handler) and seeded statistics.

Known answers: the ride-out chance by distance, the type die, the disposition with its two
exceptions, the tolls' ranges, the tithe, the rolled joust and the pursuit chance by disposition.
Statistics: 20,000 committed d6 rolls read by the castle table's own rules give the ride-out rate at
each distance and the dispositions of castles met unknown, against the exact chances (binomial and
chi-square, p > 0.001).
"""

from __future__ import annotations

import functools
from typing import Any

import attrs
import pytest
from scipy.stats import binomtest, chisquare

from hexlog.events import castle as ev
from hexlog.events.chain import reseal
from hexlog.events.errors import UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.pursuit import PursuitStarted
from hexlog.machine import castle as k
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine import ruleset as rulesets
from hexlog.machine.castle.rules import CastleTables
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit.commands import StartPursuit
from hexlog.machine.rolls import KeyRoller, Rolls, ScriptedRoller
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, read_export
from hexlog.service import render

CAMPAIGN = "kr"
RUNS = 20_000
P_MIN = 0.001
SECRET = bytes.fromhex("6b" * 32)


def campaign(faces: list[int], overrides: dict[str, Any] | None = None) -> Handler:
    """Explore rules, Ann and Bo, meadows 0,0 to 3,0 and a hill at 2,2."""
    handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(faces))
    handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore", overrides=overrides or {}))
    handler.execute(CAMPAIGN, c.OpenSession(secret_hex="cd" * 32))
    for member in ("Ann", "Bo"):
        handler.execute(CAMPAIGN, c.AddMember(name=member))
    for name in ("0,0", "1,0", "2,0", "3,0", "2,2"):
        handler.execute(CAMPAIGN, SetHex(hex=name, terrain="meadow"))
    return handler


def one(events: Any, cls: type) -> Any:
    found = [e for e in events if isinstance(e, cls)]
    assert len(found) == 1
    return found[0]


def passed(castle_at: str, face: int, overrides: dict[str, Any] | None = None) -> ev.Passed:
    """The ride-out check of a castle at ``castle_at`` as a day starts at 0,0, on ``face``."""
    faces: list[int] = []
    handler = campaign(faces, overrides)
    handler.execute(CAMPAIGN, k.PlaceCastle(hex=castle_at))
    handler.execute(CAMPAIGN, t.StartJourney(hex="0,0"))
    handler.execute(CAMPAIGN, t.RollWeather(weather="clear"))
    faces.append(face)
    out = handler.execute(CAMPAIGN, k.PassCastles())
    assert faces == []
    result: ev.Passed = one(out.events, ev.CastlesPassed).passed[0]
    return result


def meeting(place: k.PlaceCastle, faces: tuple[int, ...], *then: c.Command, **overrides: Any) -> list[Any]:
    """Hail the castle placed, meet its garrison on ``faces`` (type, disposition, then the later commands')."""
    script: list[int] = [*faces]
    handler = campaign(script, overrides or None)
    handler.execute(CAMPAIGN, place)
    handler.execute(CAMPAIGN, k.HailCastle(hex=place.hex))
    events = list(handler.execute(CAMPAIGN, k.MeetGarrison(riders=6, speed=240)).events)
    for command in then:
        events += handler.execute(CAMPAIGN, command).events
    assert script == []
    return events


class TestRideOut:
    @pytest.mark.parametrize(
        ("castle_at", "distance", "face", "rides_out"),
        [
            ("0,0", 0, 3, True),
            ("0,0", 0, 4, False),
            ("1,0", 1, 2, True),
            ("1,0", 1, 3, False),
            ("2,0", 2, 1, True),
            ("2,0", 2, 2, False),
        ],
    )
    def test_the_chance_by_distance(self, castle_at: str, distance: int, face: int, rides_out: bool) -> None:  # noqa: FBT001 - a column
        """Same hex 1-3, one hex away 1-2, two hexes away 1 (seed)."""
        found = passed(castle_at, face)
        assert (found.distance, found.face, found.rides_out) == (distance, face, rides_out)
        assert found.ride_out_on == tuple(range(1, 4 - distance))

    @pytest.mark.parametrize(
        ("castle_at", "words"),
        [("0,0", "0,0 (in its hex, "), ("1,0", "1,0 (1 hex away, "), ("2,0", "2,0 (2 hexes away, ")],
    )
    def test_the_check_says_how_far_the_castle_is_in_words(self, castle_at: str, words: str) -> None:
        """The castle in the party's own hex is 'in its hex', not '0 hexes away'."""
        found = passed(castle_at, 6)
        event = ev.CastlesPassed(day=1, passed=(found,))
        assert f"castles passed: {words}rides out on " in render.describe(event)

    @pytest.mark.parametrize("face", range(1, 7))
    def test_three_hexes_away_the_die_is_rolled_for_show(self, face: int) -> None:
        """A castle at 2,2 is three hexes from 0,0: its die is rolled all the same (the players see the day's
        secret dice whatever the party's true path), and on no face does its garrison ride out."""
        handler = campaign([face])
        handler.execute(CAMPAIGN, k.PlaceCastle(hex="2,2"))
        handler.execute(CAMPAIGN, t.StartJourney(hex="0,0"))
        handler.execute(CAMPAIGN, t.RollWeather(weather="clear"))
        passed = one(handler.execute(CAMPAIGN, k.PassCastles()).events, ev.CastlesPassed)
        assert passed.passed == (ev.Passed(hex="2,2", distance=3, ride_out_on=(), face=face, rides_out=False),)
        assert "for show" in render.describe(passed)
        assert not handler.load(CAMPAIGN).procedures["castle"].coming

    def test_a_hail_rides_out_unless_the_party_looks_quarrelsome(self) -> None:
        """A quarrelsome party's hail is recorded; no garrison comes."""
        handler = campaign([])
        handler.execute(CAMPAIGN, k.PlaceCastle(hex="2,2"))
        hailed = one(handler.execute(CAMPAIGN, k.HailCastle(hex="2,2", quarrelsome=True)).events, ev.CastleHailed)
        assert (hailed.rides_out, hailed.quarrelsome) == (False, True)
        with pytest.raises(Exception, match="no garrison rides out"):
            handler.execute(CAMPAIGN, k.MeetGarrison())


TYPES = ["lord", "superhero", "wizard", "necromancer", "patriarch", "evil_high_priest"]


class TestTypeAndDisposition:
    @pytest.mark.parametrize(("face", "castle_type"), list(enumerate(TYPES, start=1)))
    def test_the_type_die(self, face: int, castle_type: str) -> None:
        """d6: 1 Lord, 2 Superhero, 3 Wizard, 4 Necromancer, 5 Patriarch, 6 Evil High Priest."""
        faces = (face,) if castle_type in {"patriarch", "evil_high_priest"} else (face, 4)
        met = one(meeting(k.PlaceCastle(hex="2,2"), faces), ev.GarrisonMet)
        assert (met.castle_type, met.type_face) == (castle_type, face)

    @pytest.mark.parametrize(("face", "disposition"), [(1, "hostile"), (3, "hostile"), (4, "neutral"), (6, "neutral")])
    def test_the_disposition_die(self, face: int, disposition: str) -> None:
        """d6 1-3 hostile, 4-6 neutral."""
        met = one(meeting(k.PlaceCastle(hex="2,2", castle_type="lord"), (face,)), ev.GarrisonMet)
        assert (met.disposition, met.disposition_face, len(met.rolls)) == (disposition, face, 1)

    @pytest.mark.parametrize(
        ("castle_type", "disposition"), [("patriarch", "friendly"), ("evil_high_priest", "hostile")]
    )
    def test_the_two_exceptions_roll_no_disposition(self, castle_type: str, disposition: str) -> None:
        """A Patriarch is always friendly, an Evil High Priest always hostile: no disposition die."""
        met = one(meeting(k.PlaceCastle(hex="2,2", castle_type=castle_type), ()), ev.GarrisonMet)
        assert (met.disposition, met.disposition_face, met.rolls) == (disposition, 0, ())
        assert met.kind == "cleric"

    def test_what_is_rolled_is_remembered(self) -> None:
        """The second meeting with the same castle rolls nothing: type and disposition are the first's."""
        script = [3, 2]
        handler = campaign(script)
        handler.execute(CAMPAIGN, k.PlaceCastle(hex="2,2"))
        for _ in range(2):
            handler.execute(CAMPAIGN, k.HailCastle(hex="2,2"))
            met = one(handler.execute(CAMPAIGN, k.MeetGarrison()).events, ev.GarrisonMet)
            handler.execute(CAMPAIGN, k.PartWays())
            assert (met.castle_type, met.disposition) == ("wizard", "hostile")
        assert met.rolls == ()
        assert script == []


class TestDemands:
    @pytest.mark.parametrize(("face", "gold"), [(1, 100), (6, 600)])
    def test_a_declined_joust_costs_1d6_x_100_gp(self, face: int, gold: int) -> None:
        """The fighter's toll ranges 100 to 600 gp."""
        events = meeting(k.PlaceCastle(hex="2,2", castle_type="lord", disposition="neutral"), (face,), k.DemandToll())
        toll = one(events, ev.TollDemanded)
        assert (toll.kind, toll.gold, toll.item_instead) == ("fighter", gold, False)

    @pytest.mark.parametrize(("face", "gold"), [(1, 1000), (4, 4000)])
    def test_a_magic_users_toll_is_1d4_x_1000_gp_or_a_magic_item(self, face: int, gold: int) -> None:
        """The magic-user's toll ranges 1,000 to 4,000 gp; an item may be given instead."""
        place = k.PlaceCastle(hex="2,2", castle_type="necromancer", disposition="hostile")
        events = meeting(place, (face,), k.DemandToll(), k.PayToll(item="wand of fear"))
        toll = one(events, ev.TollDemanded)
        assert (toll.kind, toll.gold, toll.item_instead) == ("magic_user", gold, True)
        paid = one(events, ev.TollPaid)
        assert (paid.gold, paid.item) == (0, "wand of fear")

    def test_a_clerics_tithe_is_ten_percent_of_coin_and_jewels(self) -> None:
        """10 % of 2,345 gp is 234 gp (rounded down); nothing is rolled."""
        events = meeting(k.PlaceCastle(hex="2,2", castle_type="patriarch"), (), k.DemandToll(worth=2345), k.PayToll())
        toll = one(events, ev.TollDemanded)
        assert (toll.gold, toll.tithe_pct, toll.worth, toll.rolls) == (234, 10, 2345, ())
        assert one(events, ev.MeetingEnded).outcome == "paid"

    def test_a_magic_users_quest_is_by_geas_keeping_half(self) -> None:
        """The geas quest: the castle keeps at least half of the treasure."""
        events = meeting(k.PlaceCastle(hex="2,2", castle_type="wizard", disposition="neutral"), (), k.AcceptQuest())
        quest = one(events, ev.QuestAccepted)
        assert (quest.geas, quest.keeps_fraction) == (True, 0.5)

    @pytest.mark.parametrize(
        ("face", "winner", "lost", "days"), [(3, "castle", "Ann", (0, 0)), (4, "party", "", (30, 14))]
    )
    def test_a_rolled_joust(self, face: int, winner: str, lost: str, days: tuple[int, int]) -> None:
        """1-3 the champion wins and takes the armor; 4-6 the party's fighter wins a month's hospitality, rations."""
        place = k.PlaceCastle(hex="2,2", castle_type="superhero", disposition="neutral")
        events = meeting(place, (face,), k.Joust(fighter="Ann", warhorses=True))
        joust = one(events, ev.JoustFought)
        assert (joust.winner, joust.armor_lost_by, joust.hospitality_days, joust.rations_days) == (winner, lost, *days)
        assert joust.warhorses is (winner == "party")

    def test_the_referees_joust_rolls_nothing(self) -> None:
        """A winner given is recorded as given."""
        place = k.PlaceCastle(hex="2,2", castle_type="lord", disposition="neutral")
        joust = one(meeting(place, (), k.Joust(fighter="Bo", winner="castle")), ev.JoustFought)
        assert (joust.winner, joust.armor_lost_by, joust.rolls) == ("castle", "Bo", ())


class TestFlight:
    @pytest.mark.parametrize(
        ("disposition", "face", "outcome"),
        [("hostile", 3, "pursued"), ("hostile", 4, "escaped"), ("neutral", 1, "pursued"), ("neutral", 2, "escaped")],
    )
    def test_the_pursuit_chance_by_disposition(self, disposition: str, face: int, outcome: str) -> None:
        """Hostile forces pursue on 1-3, neutral on 1: pursued, the pursuit starts with the riders; else the meeting
        ends escaped."""
        place = k.PlaceCastle(hex="2,2", castle_type="lord", disposition=disposition)
        events = meeting(place, (face,), k.FleeGarrison())
        fled = one(events, ev.GarrisonFled)
        assert (fled.face, fled.pursued, fled.riders, fled.speed, fled.hex) == (
            face,
            outcome == "pursued",
            6,
            240,
            "2,2",
        )
        assert fled.pursue_on == ((1, 2, 3) if disposition == "hostile" else (1,))
        started = [e for e in events if isinstance(e, PursuitStarted)]
        ended = [e.outcome for e in events if isinstance(e, ev.MeetingEnded)]
        if outcome == "pursued":
            assert [(s.pursuers, s.pursuers_speed, s.disposition) for s in started] == [(6, 240, disposition)]
            assert ended == []
        else:
            assert (started, ended) == ([], ["escaped"])
        assert k.steps.pursuit_start(fled, "woods") == StartPursuit(
            name="the garrison of the castle at 2,2",
            pursuers=6,
            pursuers_speed=240,
            castle=disposition,
            terrain="woods",
        )

    def test_a_friendly_castle_never_pursues(self) -> None:
        """No chance, nothing rolled: the party escapes."""
        fled = one(meeting(k.PlaceCastle(hex="2,2", castle_type="patriarch"), (), k.FleeGarrison()), ev.GarrisonFled)
        assert (fled.pursue_on, fled.rolls, fled.pursued) == ((), (), False)


@functools.cache
def d6(purpose: str) -> tuple[int, ...]:
    """20,000 committed d6 rolls for ``purpose``, a stream of its own (type and disposition dice are independent)."""
    roll = Rolls(KeyRoller(hexdice.derive_key(SECRET, f"castle statistics: {purpose}")))
    return tuple(roll("1d6", purpose).total for _ in range(RUNS))


@functools.cache
def table() -> Any:
    found = rulesets.load("explore").part(CastleTables).castle
    assert found is not None
    return found


class TestStatistics:
    @pytest.mark.parametrize(("distance", "chance"), [(0, 3), (1, 2), (2, 1)])
    def test_the_ride_out_rate_by_distance(self, distance: int, chance: int) -> None:
        """The garrison rides out at the exact rate chance/6 (exact binomial test)."""
        rules = table()
        hits = sum(rules.rides_out(distance, face) for face in d6(k.steps.RIDE_OUT))
        assert binomtest(hits, RUNS, chance / 6).pvalue > P_MIN

    def test_the_dispositions_of_castles_met_unknown(self) -> None:
        """Type then disposition: hostile 1/2 (4/6 x 1/2 + 1/6), neutral 1/3, friendly 1/6 (chi-square)."""
        rules = table()
        counts = {"hostile": 0, "neutral": 0, "friendly": 0}
        for type_face, face in zip(d6(k.steps.TYPE), d6(k.steps.DISPOSITION), strict=True):
            counts[rules.disposition_of(rules.type_of(type_face), face).value] += 1
        expected = [RUNS / 2, RUNS / 3, RUNS / 6]
        assert chisquare(list(counts.values()), expected).pvalue > P_MIN
        hostile = sum(rules.disposition_of("lord", face) == "hostile" for face in d6(k.steps.DISPOSITION))
        assert binomtest(hostile, RUNS, 1 / 2).pvalue > P_MIN


def test_a_tithe_of_a_worth_past_today_s_range_an_earlier_build_took_audits_clean() -> None:
    """The builds before the worth had a range (1,000,000 gp) took any worth; ``castle.toll_demanded`` kept its
    version, so the audit re-runs such a tithe as they did (the range binds new input only): a log of one verifies,
    while the step refuses the same worth given today."""
    script: list[int] = []
    handler = campaign(script)
    handler.execute(CAMPAIGN, k.PlaceCastle(hex="2,2", castle_type="patriarch"))
    handler.execute(CAMPAIGN, k.HailCastle(hex="2,2"))
    handler.execute(CAMPAIGN, k.MeetGarrison(riders=6, speed=240))
    with pytest.raises(UsageError, match="must be 0 to 1000000 gp, not 2000000"):
        handler.execute(CAMPAIGN, k.DemandToll(worth=2_000_000))
    handler.execute(CAMPAIGN, k.DemandToll(worth=1_000_000))
    handler.execute(CAMPAIGN, k.PayToll())
    earlier = []
    for env in read_export(list(export_lines(handler.store, CAMPAIGN))):
        data = env.data
        if env.type == "hexlog.castle.toll_demanded":  # as an earlier build wrote it for 2,000,000 gp
            reason = "a tithe of 10% of 2000000 gp of coin and jewels"
            data = {**data, "worth": 2_000_000, "gold": 200_000, "reason": reason}
        elif env.type == "hexlog.castle.toll_paid":
            data = {**data, "gold": 200_000}
        earlier.append(attrs.evolve(env, data=data))
    assert audit_envelopes(reseal(earlier)).findings == ()
