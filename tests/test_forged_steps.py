"""Steps forged past the dice: a referee who owns the database rewrites what a step recorded and reseals the chain.

Every roll still shows the faces the committed secret gives at its nonce, so the dice check passes; what was forged
is what the rules did with them, or a step taken out whole where its rolls were the last of their lane (so no nonce
is skipped). Each class is one forgery, tried on a log played on committed dice: the audit names it, and the honest
log audits clean.

* A step's decision and its rolls taken out, its phase change kept (the day's wandering check, the lost check, the
  night's check): the procedure moved on as if the dice had been rolled.
* A camp broken before its night was checked, with its sleep and healing rewritten, or with the night's watches
  taken off the clock: no dice decide the break, but its step is the rule, and the audit runs it again on the
  state before it.
* A lost party's true hex moved, or a true hex recorded where no move took the party: the lost check's heading is
  not applied.
* A toll paid short, and a chase whose pursuers ran slower than their rate: steps no dice decide, re-run.
* A chase's end forged in what the encounter that waited on it does when the kit resumes it (a party caught said to
  have got away, or the other way round), on land and on water: the kit's resume is re-run on the state before it.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any
from unittest import mock

import attrs
import pytest

from hexlog.events import releases
from hexlog.events.chain import reseal
from hexlog.events.encounter import EncounterConcluded
from hexlog.machine import commands as c
from hexlog.machine.camp import commands as cc
from hexlog.machine.castle import commands as k
from hexlog.machine.chase import commands as ch
from hexlog.machine.dungeon import commands as d
from hexlog.machine.encounter import commands as e
from hexlog.machine.encounter.machine import EncounterModel
from hexlog.machine.hexmap import SetHex
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, read_export

from .scripted_play import ScriptedPlay
from .test_encounter_afloat import CAMPAIGN as AFLOAT
from .test_encounter_afloat import committed_flight
from .test_lost_party_view import V1_LOG

if TYPE_CHECKING:
    from hexlog.events.chain import Envelope

CAMPAIGN = "forged"
SEED = "dice we trust"
ROLLED = "hexlog.dice.rolled"
CHANGED = "hexlog.procedure.phase_changed"


#: a day's forced march over meadow, one hex north: it adds half the day's points and owes a rest day
FORCED_MARCH_DAY: tuple[c.Command, ...] = (
    SetHex(hex="2,2", terrain="meadow"),
    SetHex(hex="2,1", terrain="meadow"),
    t.StartJourney(hex="2,2"),
    t.RollWeather(weather="clear"),
    t.DeclareRoute(headings=("N",)),
    t.ForceMarch(),
    t.Move(),
    t.CheckWandering(),
    t.EndDay(),
)


def ghouls_met(distance: int = 30) -> tuple[c.Command, ...]:
    """A delve meets three ghouls ``distance`` ft away, up to its initiative: the encounter the delve's forgeries
    start from."""
    return (
        d.EnterDungeon(name="crypt"),
        d.LightSource(kind="torch", by="Al"),
        d.Meet(name="ghouls", monster_count=3),
        e.CheckSurprise(),
        e.DetermineDistance(value=distance),
        e.RollInitiative(),
    )


def played(*commands: c.Command, secret: str = "5a" * 32) -> list[Envelope]:
    """The log of Al and Bo under explore on committed dice: ``commands``, then the session closes."""
    play = ScriptedPlay(CAMPAIGN, scripted=False)
    for command in (
        c.StartCampaign(ruleset="explore"),
        c.OpenSession(secret_hex=secret),
        c.SetClientSeed(client_seed=SEED),
        c.AddMember(name="Al"),
        c.AddMember(name="Bo"),
        *commands,
        c.CloseSession(),
    ):
        play.run(command)
    return read_export(list(export_lines(play.h.store, CAMPAIGN)))


def findings(envelopes: list[Envelope]) -> list[tuple[int | None, str, str]]:
    report = audit_envelopes(reseal(envelopes))
    return [(f.streamversion, f.check, f.reason) for f in report.findings]


def where(envelopes: list[Envelope], kind: str, **data: Any) -> int:
    """The index of the only event of ``kind`` whose data holds ``data``."""
    found = [
        i
        for i, env in enumerate(envelopes)
        if env.type == f"hexlog.{kind}" and all(env.data.get(key) == value for key, value in data.items())
    ]
    assert len(found) == 1, (kind, data, found)
    return found[0]


def without(envelopes: list[Envelope], *indices: int) -> list[Envelope]:
    return [env for i, env in enumerate(envelopes) if i not in indices]


def edited(envelopes: list[Envelope], at: int, **data: Any) -> list[Envelope]:
    return [*envelopes[:at], attrs.evolve(envelopes[at], data=envelopes[at].data | data), *envelopes[at + 1 :]]


def version_of(at: int) -> int:
    """The stream version of the event at index ``at`` of a log once resealed."""
    return at + 1


# ------------------------------------------------------------------------------------------------
# A step's decision taken out, its phase change kept
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def day() -> list[Envelope]:
    """A travel day north across a meadow: weather, route (the secret lost check), one hex, the wandering check."""
    return played(
        SetHex(hex="2,2", terrain="meadow"),
        SetHex(hex="2,1", terrain="meadow"),
        t.StartJourney(hex="2,2"),
        t.RollWeather(),
        t.DeclareRoute(headings=("N",)),
        t.Move(),
        t.CheckWandering(),
    )


class TestAStepTakenOut:
    def test_the_honest_day_is_clean(self, day: list[Envelope]) -> None:
        assert findings(day) == []

    def test_the_wandering_check_taken_out_with_its_roll_is_a_finding(self, day: list[Envelope]) -> None:
        """The day's wandering check was the last public roll: taken out with its roll, no nonce is skipped, and the
        day moves on to dusk as if it had been rolled."""
        check = where(day, "travel.wandering_checked")
        assert day[check - 1].type == ROLLED
        forged = without(day, check - 1, check)
        assert findings(forged) == [
            (
                version_of(check - 1),
                "decision",
                (
                    "travel 'check' moves on to DUSK with no travel.wandering_checked since its phase before it, which "
                    "its step always records: the decision was taken out of the log"
                ),
            )
        ]

    def test_the_lost_check_taken_out_with_its_secret_rolls_is_a_finding(self, day: list[Envelope]) -> None:
        lost = where(day, "travel.lost_checked")
        assert [env.type for env in day[lost - 2 : lost]] == [ROLLED, ROLLED]
        forged = without(day, lost - 2, lost - 1, lost)
        assert findings(forged) == [
            (
                version_of(lost - 2),
                "decision",
                (
                    "travel 'route' moves on to TRAVEL with no travel.lost_checked since its phase before it, which "
                    "its step always records: the decision was taken out of the log"
                ),
            )
        ]


# ------------------------------------------------------------------------------------------------
# A night in camp
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def night() -> list[Envelope]:
    """A camp in the open with four watches: one night's check (nothing comes), then the camp breaks."""
    return played(
        cc.MakeCamp(terrain="clear"),
        cc.SetWatches(watches=("1=Al", "2=Bo", "3=Al", "4=Bo")),
        cc.CheckNight(),
        cc.BreakCamp(),
        secret="10" * 32,
    )


class TestANightForged:
    def test_the_honest_night_is_clean(self, night: list[Envelope]) -> None:
        assert findings(night) == []

    def test_the_nights_check_taken_out_with_its_rolls_is_a_finding(self, night: list[Envelope]) -> None:
        check = where(night, "camp.night_checked")
        forged = without(night, check - 2, check - 1, check)
        assert findings(forged)[0] == (
            version_of(check - 2),
            "decision",
            (
                "camp 'check' moves on to NIGHT with no camp.night_checked since its phase before it, which its step "
                "always records: the decision was taken out of the log"
            ),
        )

    def test_the_camp_broken_with_its_night_unchecked_is_a_finding(self, night: list[Envelope]) -> None:
        """The whole check taken out, the break relabelled from WATCHED (a row of the table, whose condition the
        night's check owed does not hold): the break's step, run again, is refused."""
        check = where(night, "camp.night_checked")
        forged = without(night, check - 2, check - 1, check, check + 1)
        brk = where(forged, "procedure.phase_changed", trigger="break")
        forged = edited(forged, brk, source="WATCHED")
        broken = where(forged, "camp.broken")
        assert findings(forged) == [
            (
                version_of(broken),
                "decision",
                (
                    "camp.broken: the rules cannot re-run this decision here: camp: 'break' refused in phase WATCHED: "
                    "the night's wandering check is not rolled yet (0 of 1); check"
                ),
            )
        ]

    def test_the_night_passed_in_no_time_is_a_finding(self, night: list[Envelope]) -> None:
        """The break lets the night's watches pass on the clock before it judges the sleep; those advances taken
        out (the campaign's clock eight hours behind), the break run again records them."""
        broken = where(night, "camp.broken")
        assert [env.type for env in night[broken - 4 : broken]] == ["hexlog.clock.advanced"] * 4
        forged = without(night, *range(broken - 4, broken))
        assert findings(forged) == [
            (
                version_of(broken - 4),
                "decision",
                (
                    'the rules record clock.advanced seconds=7200, rounds=120, turns=12, reason="camp 1: a watch of '
                    'the night" before it, which the log left out'
                ),
            )
        ]

    def test_a_nights_sleep_rewritten_is_a_finding(self, night: list[Envelope]) -> None:
        broken = where(night, "camp.broken")
        rests = [dict(rest) for rest in night[broken].data["rests"]]
        assert rests[0]["healed_hp"] == 0
        rests[0] |= {"healed_hp": 5, "can_memorise": True}
        found = findings(edited(night, broken, rests=rests))
        assert [(v, check) for v, check, _ in found] == [(version_of(broken), "decision")]
        assert found[0][2].startswith("rests [Rest(name='Al', watches=(1, 3), woken=(), slept_hours=4, healed_hp=5, ")


# ------------------------------------------------------------------------------------------------
# Where a lost party truly is
# ------------------------------------------------------------------------------------------------


class TestATrueHexForged:
    def test_the_true_hex_of_a_move_rewritten_is_a_finding(self, day: list[Envelope]) -> None:
        true = where(day, "travel.true_position")
        assert day[true].data["hex"] == "2,1"
        assert findings(edited(day, true, hex="2,2")) == [
            (
                version_of(true - 1),
                "decision",
                'the travel.true_position after it differs: hex "2,2" where the rules give "2,1"',
            )
        ]

    def test_a_true_hex_no_move_records_is_a_finding(self, day: list[Envelope]) -> None:
        true = where(day, "travel.true_position")
        moved = attrs.evolve(day[true], id=str(uuid.uuid4()), data=day[true].data | {"hex": "2,2"})
        forged = [*day[: true + 1], moved, *day[true + 1 :]]
        assert findings(forged) == [
            (
                version_of(true + 1),
                "decision",
                "travel.true_position follows no decision here, and the rules record it only after one",
            )
        ]


# ------------------------------------------------------------------------------------------------
# A toll and a chase: no dice decide them, their steps are re-run
# ------------------------------------------------------------------------------------------------


class TestNoDiceForged:
    def test_a_toll_paid_short_is_a_finding(self) -> None:
        log = played(
            SetHex(hex="2,2", terrain="hills"),
            k.PlaceCastle(hex="2,2", castle_type="patriarch", disposition="friendly"),
            k.HailCastle(hex="2,2"),
            k.MeetGarrison(riders=8),
            k.DemandToll(worth=800),
            k.PayToll(),
        )
        assert findings(log) == []
        paid = where(log, "castle.toll_paid")
        assert log[paid].data["gold"] == 80
        assert findings(edited(log, paid, gold=8)) == [
            (version_of(paid), "decision", "gold 8 recorded, but the rules give 80 with no roll")
        ]

    def test_a_chase_whose_pursuers_ran_slower_is_a_finding(self) -> None:
        """Each round's pursuers' feet and the gaps forged to agree with one another, and the end with them."""
        log = played(ch.StartChase(gap_ft=100, fleeing_ft=90, pursuers_ft=120), ch.Run(), ch.Run())
        assert findings(log) == []
        rounds = [i for i, env in enumerate(log) if env.type == "hexlog.chase.round_run"]
        assert [log[at].data["gap_after"] for at in rounds] == [70, 40]
        forged = log
        for at in rounds:
            forged = edited(forged, at, pursuers_ft=90, gap_before=100, gap_after=100)
        found = findings(forged)
        assert found[0] == (
            version_of(rounds[0]),
            "decision",
            (
                "pursuers_ft 90 recorded, but the rules give 120 with no roll; gap_after 100 recorded, but the rules "
                "give 70"
            ),
        )


class TestATravelDayForged:
    def test_a_forced_march_given_more_points_is_a_finding(self) -> None:
        """A forced march adds half the day's points (4 of 8 here); forged to add more."""
        log = played(
            *FORCED_MARCH_DAY,
        )
        assert findings(log) == []
        march, moved = where(log, "travel.forced_march"), where(log, "travel.moved")
        assert (log[march].data["added"], log[march].data["travel_points"], log[moved].data["travel_points"]) == (
            4,
            12,
            10,
        )
        assert findings(edited(log, march, added=8, travel_points=16)) == [
            (
                version_of(march),
                "decision",
                "added 8 recorded, but the rules give 4 with no roll; travel_points 16 recorded, but the rules give 12",
            )
        ]

    def test_a_days_end_with_more_hexes_is_a_finding(self) -> None:
        log = played(
            SetHex(hex="2,2", terrain="meadow"),
            SetHex(hex="2,1", terrain="meadow"),
            t.StartJourney(hex="2,2"),
            t.RollWeather(weather="clear"),
            t.DeclareRoute(headings=("N",)),
            t.Move(),
            t.CheckWandering(),
            t.EndDay(),
        )
        assert findings(log) == []
        ended = where(log, "travel.day_ended")
        assert log[ended].data["hexes"] == 1
        assert findings(edited(log, ended, hexes=3)) == [
            (version_of(ended), "decision", "hexes 3 recorded, but the rules give 1 with no roll")
        ]


def test_a_true_hex_rewritten_in_a_log_of_travel_moved_version_1_is_a_finding() -> None:
    """Releases before ``travel.moved`` version 2 paid the true hex's cost; their moves are re-run so, and a lost
    party's true hex rewritten there is a finding too."""
    log = read_export(V1_LOG.read_text(encoding="utf-8").splitlines())
    assert findings(log) == []
    lost = [i for i, env in enumerate(log) if env.type == "hexlog.travel.true_position" and env.data["lost"]]
    at = lost[0]
    assert log[at - 1].type == "hexlog.travel.moved"
    assert log[at - 1].schemaversion == 1
    found = findings(edited(log, at, hex=log[at - 1].data["believed"], lost=False))
    assert [(v, check) for v, check, _ in found][:1] == [(version_of(at - 1), "decision")]
    assert found[0][2].startswith("the travel.true_position after it differs: hex ")


def test_a_torch_lit_to_burn_longer_is_a_finding() -> None:
    """The light the rules give a torch (6 turns, 30 ft) rewritten; no burn-out falls due before the log ends, so
    only the re-run of the lighting can tell."""
    log = played(d.EnterDungeon(name="crypt"), d.LightSource(kind="torch", by="Al"))
    assert findings(log) == []
    lit = where(log, "dungeon.light_lit")
    assert (log[lit].data["turns"], log[lit].data["radius_ft"]) == (6, 30)
    forged = edited(log, lit, turns=60, radius_ft=60, out_at_seconds=log[lit].data["at_seconds"] + 36000)
    found = findings(forged)
    assert [(v, check) for v, check, _ in found] == [(version_of(lit), "decision")]
    assert found[0][2].startswith("turns 60 recorded, but the rules give 6 with no roll; ")


# ------------------------------------------------------------------------------------------------
# Summaries no dice decide: the watches' hours, a delve's turns, a move's feet and rate
# ------------------------------------------------------------------------------------------------


class TestASummaryForged:
    def test_the_watches_set_longer_is_a_finding(self, night: list[Envelope]) -> None:
        """The camp table gives each watch two hours; forged to four, the night looks twice as well guarded."""
        watches = where(night, "camp.watches_set")
        assert night[watches].data["watch_hours"] == 2
        assert findings(edited(night, watches, watch_hours=4)) == [
            (version_of(watches), "decision", "watch_hours 4 recorded, but the rules give 2 with no roll")
        ]

    def test_a_delve_left_after_fewer_turns_is_a_finding(self) -> None:
        log = played(
            d.EnterDungeon(name="crypt"), d.LightSource(kind="torch", by="Al"), d.Move(), d.Move(), d.LeaveDungeon()
        )
        assert findings(log) == []
        left = where(log, "dungeon.left")
        assert log[left].data["turns"] == 2
        assert findings(edited(log, left, turns=1)) == [
            (version_of(left), "decision", "turns 1 recorded, but the rules give 2 with no roll")
        ]


@pytest.fixture(scope="module")
def delve() -> list[Envelope]:
    """A delve of three turns' moves by torchlight (a wandering check falls due after the second), then the party
    leaves."""
    return played(
        c.EditMember(name="Bo", speed=90),
        d.EnterDungeon(name="crypt"),
        d.LightSource(kind="torch", by="Al"),
        d.Move(),
        d.Move(),
        d.Move(feet=60),
        d.LeaveDungeon(),
    )


class TestAMoveForged:
    def test_the_honest_delve_is_clean(self, delve: list[Envelope]) -> None:
        assert findings(delve) == []
        checked = where(delve, "dungeon.wandering_checked")
        moved = [i for i, env in enumerate(delve) if env.type == "hexlog.dungeon.moved"]
        assert moved[1] < checked < moved[2]  # the second move's turn made the check due

    def test_a_party_moved_faster_than_its_slowest_member_is_a_finding(self, delve: list[Envelope]) -> None:
        """Bo's 90 ft a turn forged to 120, and the party's rate and feet with it."""
        moved = [i for i, env in enumerate(delve) if env.type == "hexlog.dungeon.moved"]
        assert (delve[moved[1]].data["feet"], delve[moved[1]].data["rate"]) == (90, 90)
        found = findings(edited(delve, moved[1], feet=120, rate=120))
        assert [(v, check) for v, check, _ in found] == [(version_of(moved[1]), "decision")]
        assert found[0][2].startswith("dungeon.moved: the rules cannot re-run this decision here: the party moves at ")

    def test_a_move_whose_rate_is_rewritten_is_a_finding(self, delve: list[Envelope]) -> None:
        moved = [i for i, env in enumerate(delve) if env.type == "hexlog.dungeon.moved"]
        assert findings(edited(delve, moved[2], rate=60, slowest_member="Al")) == [
            (
                version_of(moved[2]),
                "decision",
                (
                    'rate 60 recorded, but the rules give 90 with no roll; slowest_member "Al" recorded, but the rules '
                    'give "Bo"'
                ),
            )
        ]

    def test_a_move_mapped_in_the_dark_is_a_finding(self, delve: list[Envelope]) -> None:
        """A move forged to say the party carried no light, yet mapped: the rules refuse mapping in the dark."""
        moved = [i for i, env in enumerate(delve) if env.type == "hexlog.dungeon.moved"]
        found = findings(edited(delve, moved[0], lit=False))
        assert [(v, check) for v, check, _ in found] == [(version_of(moved[0]), "decision")]
        assert found[0][2] == "lit false recorded, but the rules give true with no roll"

    def test_a_moves_phase_change_past_its_turns_check_rewritten_is_a_finding(self, delve: list[Envelope]) -> None:
        """The move's turn made a wandering check due, recorded between its clock event and its phase change: the
        move, run again with no due check, is compared past the check with what follows (a move relabelled a turn of
        searching)."""
        checked = where(delve, "dungeon.wandering_checked")
        moved = [i for i, env in enumerate(delve) if env.type == "hexlog.dungeon.moved"]
        assert [env.type for env in delve[moved[1] + 1 : checked + 2]] == [
            "hexlog.clock.advanced",
            ROLLED,
            "hexlog.dungeon.wandering_checked",
            CHANGED,
        ]
        assert findings(edited(delve, checked + 1, trigger="search")) == [
            (
                version_of(moved[1]),
                "decision",
                'the procedure.phase_changed after it differs: trigger "search" where the rules give "move"',
            )
        ]

    def test_a_move_that_took_no_time_is_a_finding(self, delve: list[Envelope]) -> None:
        """The turn after the last move taken off the clock (no check falls due in it): the move, run again, lets
        its turn pass."""
        moved = [i for i, env in enumerate(delve) if env.type == "hexlog.dungeon.moved"]
        assert delve[moved[2] + 1].type == "hexlog.clock.advanced"
        found = findings(without(delve, moved[2] + 1))
        assert found[0][:2] == (version_of(moved[2]), "decision")
        assert found[0][2].startswith("after it the rules record clock.advanced seconds=600, ")


def test_a_listen_and_an_opening_swapped_are_the_log_of_the_other_order() -> None:
    """Not a forgery the audit can find, nor one it needs to: a door swings shut once opened (§4.2), so listening at
    it after opening it is as much the rules' as before, neither step reads what the other records, and their rolls
    are in different lanes. The two swapped, resealed, are event for event the log of the other order, played on the
    same dice."""
    log = played(d.EnterDungeon(name="crypt"), d.Listen(by="Al", door="A"), d.OpenDoor(by="Bo", door="A"))
    listened, opened = where(log, "dungeon.door_listened"), where(log, "dungeon.door_opened")
    # each is its roll, its event and its phase change
    assert (log[listened - 1].type, log[opened - 1].type, opened - listened) == (ROLLED, ROLLED, 3)
    swapped = [
        *log[: listened - 1],
        *log[opened - 1 : opened + 2],
        *log[listened - 1 : listened + 2],
        *log[opened + 2 :],
    ]
    other = played(d.EnterDungeon(name="crypt"), d.OpenDoor(by="Bo", door="A"), d.Listen(by="Al", door="A"))
    assert [(env.type, env.data) for env in swapped] == [(env.type, env.data) for env in other]
    assert findings(swapped) == findings(other) == []


def test_a_travel_day_checked_in_a_delve_whose_checks_fall_due_till_its_end_is_clean() -> None:
    """The day's wandering check lets the clock run on to the day's end (midnight), and the delve's wandering checks
    fall due on the way: the audit runs them again after the clock event, on the rolls recorded there, not in the
    re-run of the day's check (which names its own roll alone); the day's end then runs no clock."""
    log = played(
        SetHex(hex="2,2", terrain="meadow"),
        SetHex(hex="2,1", terrain="meadow"),
        t.StartJourney(hex="2,2"),
        t.RollWeather(weather="clear"),
        t.DeclareRoute(headings=("N",)),
        t.Move(),
        d.EnterDungeon(name="crypt", every_turns=40, wandering_on=(1,)),
        t.CheckWandering(),
        t.EndDay(),
    )
    checked = where(log, "travel.wandering_checked")
    checks = [i for i, env in enumerate(log) if env.type == "hexlog.dungeon.wandering_checked"]
    assert len(checks) == 2
    assert all(at < checked for at in checks)
    assert log[checks[0] - 2].type == "hexlog.clock.advanced"
    assert findings(log) == []


# ------------------------------------------------------------------------------------------------
# Exhaustion and rest: events a due check records and steps record too
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def weary() -> list[Envelope]:
    """A forced march on day 1 owes a rest day; day 2 starts without one (Al and Bo grow exhausted before its weather,
    the referee's), then a delve: two moves (a wandering check falls due after the second) and Al listens at a door,
    his exhaustion on the roll."""
    return played(
        *FORCED_MARCH_DAY,
        t.RollWeather(weather="clear"),
        d.EnterDungeon(name="crypt"),
        d.LightSource(kind="torch", by="Al"),
        d.Move(),
        d.Move(),
        d.Listen(by="Al", door="A"),
    )


def unexhausted_listen(envelopes: list[Envelope]) -> list[Envelope]:
    """Al's listen rewritten as if he were rested: no exhaustion on its roll."""
    listened = where(envelopes, "dungeon.door_listened")
    roll = envelopes[listened - 1]
    forged = edited(envelopes, listened - 1, modifier=0, modifiers=[], total=roll.data["faces"][0])
    return edited(forged, listened, modifier=0)


def inserted(envelopes: list[Envelope], at: int, kind: str, **data: Any) -> list[Envelope]:
    """An event of ``kind`` with ``data`` put in at index ``at``."""
    event = attrs.evolve(envelopes[at], id=str(uuid.uuid4()), type=f"hexlog.{kind}", schemaversion=1, data=data)
    return [*envelopes[:at], event, *envelopes[at:]]


class TestARestForged:
    def test_the_honest_weary_delve_is_clean(self, weary: list[Envelope]) -> None:
        assert findings(weary) == []
        listened = where(weary, "dungeon.door_listened")
        assert weary[listened].data["modifier"] == 1

    def test_exhaustion_cleared_after_a_moves_turn_is_a_finding(self, weary: list[Envelope]) -> None:
        """Between a move's clock event and its phase change the audit looks past the due checks' events; an
        exhaustion cleared there, and the rolls after it rewritten to match, is no due check's nor any step's."""
        moved = where(weary, "dungeon.moved", turn=1)
        assert weary[moved + 1].type == "hexlog.clock.advanced"
        forged = inserted(weary, moved + 2, "travel.exhaustion_changed", member="Al", level=0, reason="rested")
        assert findings(unexhausted_listen(forged)) == [
            (
                version_of(moved + 2),
                "decision",
                (
                    'travel.exhaustion_changed member="Al", level=0, reason="rested" is recorded by no step here, and '
                    "by no check that falls due as game time passes"
                ),
            )
        ]

    def test_a_rest_day_forged_in_before_a_step_is_a_finding(self, weary: list[Envelope]) -> None:
        lit = where(weary, "dungeon.light_lit")
        forged = inserted(weary, lit + 2, "travel.rested", day=2, members=["Al", "Bo"])
        assert findings(unexhausted_listen(forged)) == [
            (
                version_of(lit + 2),
                "decision",
                (
                    'travel.rested day=2, members=["Al", "Bo"] is recorded by no step here, and by no check that falls '
                    "due as game time passes"
                ),
            )
        ]

    def test_the_exhaustion_a_day_starts_with_taken_out_is_a_finding(self, weary: list[Envelope]) -> None:
        """The day's start records the exhaustion before its weather (the referee's): its step, re-run on the state
        before it, records it for both."""
        started = [i for i, env in enumerate(weary) if env.type == "hexlog.travel.day_started"][1]
        assert [env.type for env in weary[started - 2 : started]] == ["hexlog.travel.exhaustion_changed"] * 2
        forged = without(weary, started - 2, started - 1)
        assert findings(unexhausted_listen(forged)) == [
            (
                version_of(started - 2),
                "decision",
                (
                    'the rules record travel.exhaustion_changed member="Al", level=1, reason="no rest day after a '
                    'forced march" before it, which the log left out'
                ),
            )
        ]

    def test_a_day_of_the_referees_weather_with_more_travel_points_is_a_finding(self, weary: list[Envelope]) -> None:
        """The weather the referee sets is taken from the record; the rest of the day's start is the rules'."""
        started = [i for i, env in enumerate(weary) if env.type == "hexlog.travel.day_started"][1]
        assert (weary[started].data["rolls"], weary[started].data["travel_points"]) == ([], 8)
        assert findings(edited(weary, started, travel_points=16)) == [
            (version_of(started), "decision", "travel_points 16 recorded, but the rules give 8 with no roll")
        ]


#: a secret on which neither side of the delve's encounter is surprised


#: a secret on which neither side of the delve's encounter is surprised


#: a secret on which neither side of the delve's encounter is surprised


#: a secret on which neither side of the delve's encounter is surprised
SECRET_FOR_A_FLIGHT = "04" * 32


def test_a_handed_off_chase_whose_pursuers_are_made_fond_of_treasure_is_a_finding() -> None:
    """The referee said nothing of the pursuers' tastes in the delve's pursuit decision; the chase it handed off forged
    alone to start with pursuers who like treasure (so a dropped hoard may stop them) is not the chase it hands
    off. Said in the decision, the same chase is the honest one."""
    flight = (c.EditMember(name="Bo", speed=90), *ghouls_met(), e.Evade())
    log = played(*flight, e.DecidePursuit(pursue=True), secret=SECRET_FOR_A_FLIGHT)
    assert findings(log) == []
    started = where(log, "chase.started")
    assert log[started].data["likes_treasure"] is False
    decided = where(log, "encounter.pursuit_decided")
    assert findings(edited(log, started, likes_treasure=True)) == [
        (
            version_of(decided),
            "decision",
            "the chase.started after it differs: likes_treasure true where the rules give false",
        )
    ]
    fond = played(*flight, e.DecidePursuit(pursue=True, likes_treasure=True), secret=SECRET_FOR_A_FLIGHT)
    assert findings(fond) == []
    assert fond[where(fond, "chase.started")].data["likes_treasure"] is True


# ------------------------------------------------------------------------------------------------
# What a parent does when its child concludes: the kit's resume, re-run on the state before it
# ------------------------------------------------------------------------------------------------


def delve_chase(distance: int, run: ch.Run) -> list[Envelope]:
    """A delve's party flees ghouls ``distance`` ft away; they pursue, and one round of the chase ends it."""
    return played(
        c.EditMember(name="Bo", speed=90),
        *ghouls_met(distance),
        e.Evade(),
        e.DecidePursuit(pursue=True),
        run,
        secret=SECRET_FOR_A_FLIGHT,
    )


def resumed_at(envelopes: list[Envelope], parent: str) -> int:
    return where(envelopes, "procedure.resumed", parent=parent)


@pytest.fixture(scope="module")
def caught() -> list[Envelope]:
    """30 ft closed in one round: the chase catches the party and the encounter resumes in COMBAT."""
    return delve_chase(30, ch.Run())


@pytest.fixture(scope="module")
def escaped() -> list[Envelope]:
    """60 ft, the party out of sight after a round: the ghouls give up and the encounter ends, the delve resumes."""
    return delve_chase(60, ch.Run(out_of_sight=True))


class TestAResumeForged:
    def test_the_honest_chases_are_clean(self, caught: list[Envelope], escaped: list[Envelope]) -> None:
        resumed = resumed_at(caught, "encounter")
        fight = caught[resumed + 1].data
        assert (fight["procedure"], fight["trigger"], fight["source"], fight["dest"]) == (
            "encounter",
            "resume",
            "CHASE",
            "COMBAT",
        )
        assert escaped[resumed_at(escaped, "encounter") + 1].type == "hexlog.encounter.concluded"
        assert findings(caught) == []
        assert findings(escaped) == []

    def test_a_party_caught_said_to_have_got_away_is_a_finding(
        self, caught: list[Envelope], escaped: list[Envelope]
    ) -> None:
        """The encounter's resume into COMBAT replaced by the one an escape records (the encounter concluded as
        evaded, its turn, CHASE -> CONCLUDED, then the delve resumed exploring), the chase's own end kept: every
        transition exists, but the chase caught the party."""
        at, got = resumed_at(caught, "encounter"), resumed_at(escaped, "encounter")
        away = escaped[got + 1 : resumed_at(escaped, "dungeon") + 2]
        assert [env.type for env in away] == [
            "hexlog.encounter.concluded",
            "hexlog.clock.advanced",
            CHANGED,
            "hexlog.procedure.resumed",
            CHANGED,
        ]
        away[0] = attrs.evolve(away[0], data=away[0].data | {"reason": "the party got away: the gap is closed (0 ft)"})
        assert caught[at + 2].type == "hexlog.session.closed"
        forged = [*caught[: at + 1], *away, *caught[at + 2 :]]
        assert findings(forged) == [
            (
                version_of(at),
                "decision",
                (
                    "encounter resumes as chase concluded: after it the rules record procedure.phase_changed "
                    'procedure="encounter", trigger="resume", source="CHASE", dest="COMBAT", but the log has '
                    "encounter.concluded there"
                ),
            )
        ]

    def test_a_party_that_got_away_said_to_be_caught_is_a_finding(
        self, caught: list[Envelope], escaped: list[Envelope]
    ) -> None:
        """The escape's resume (the encounter concluded, the delve exploring again) replaced by a catch's: the
        encounter fights on in COMBAT, the delve waiting for it."""
        at = resumed_at(escaped, "encounter")
        fight = caught[resumed_at(caught, "encounter") + 1]
        end = resumed_at(escaped, "dungeon") + 2
        assert escaped[end].type == "hexlog.session.closed"
        forged = [*escaped[: at + 1], fight, *escaped[end:]]
        found = findings(forged)
        assert [(version, check) for version, check, _ in found] == [(version_of(at), "decision")]
        assert found[0][2].startswith(
            'encounter resumes as chase concluded: after it the rules record encounter.concluded number=1, outcome="'
            'evaded"'
        )
        assert found[0][2].endswith("but the log has procedure.phase_changed there")


#: the procedures a forged resume may name instead of the ones the kit resumes
PROCEDURES = ("dungeon", "encounter", "chase", "travel")


def resume_forgeries(log: list[Envelope], parent: str) -> list[tuple[int, str, str, str, str]]:
    """The resume of ``parent`` in ``log`` with one field, parent or child, naming another procedure: (its index, the
    forged parent and child, the parent and child the kit resumed)."""
    at = resumed_at(log, parent)
    child = log[at].data["child"]
    parents = [(at, other, child, parent, child) for other in PROCEDURES if other != parent]
    return parents + [(at, parent, other, parent, child) for other in PROCEDURES if other != child]


class TestAResumeRenamed:
    """A ``procedure.resumed`` whose parent or child differs from the one the kit resumes as the child concludes (the
    latest hand-off under way): the procedure audit names it, in the whole audit and as the stream is read."""

    @pytest.mark.parametrize(
        ("name", "parent"), [("caught", "encounter"), ("escaped", "encounter"), ("escaped", "dungeon")]
    )
    def test_a_resume_naming_another_parent_or_child_is_a_finding(
        self, request: pytest.FixtureRequest, name: str, parent: str
    ) -> None:
        log: list[Envelope] = request.getfixturevalue(name)
        forgeries = resume_forgeries(log, parent)
        assert len(forgeries) == 6
        for at, forged_parent, forged_child, was_parent, was_child in forgeries:
            handed = where(log, "procedure.handed_off", parent=was_parent, child=was_child)
            found = findings(edited(log, at, parent=forged_parent, child=forged_child))
            assert (
                version_of(at),
                "procedure",
                (
                    f"{forged_parent} resumes after {forged_child}, but the latest hand-off under way is from "
                    f"{was_parent} to {was_child} (at stream version {version_of(handed)})"
                ),
            ) in found, (forged_parent, forged_child)


def test_a_ship_caught_on_water_said_to_have_got_away_is_a_finding() -> None:
    """On water the encounter hands its chase off itself: the last ship caught (fought and boarded) forged to have got
    away, the encounter concluded as evaded where the kit resumed it, is a finding; the honest flight is clean."""
    log = read_export(list(export_lines(committed_flight("01" * 32).store, AFLOAT)))  # dice on which it is caught
    assert findings(log) == []
    at = [i for i, env in enumerate(log) if env.type == "hexlog.procedure.resumed"][-1]
    fight = log[at + 1]
    assert (fight.data["procedure"], fight.data["dest"]) == ("encounter", "COMBAT")
    concluded = [i for i, env in enumerate(log) if env.type == "hexlog.encounter.concluded"][-1]
    assert [env.type for env in log[concluded : concluded + 4]] == [
        "hexlog.encounter.concluded",
        "hexlog.clock.advanced",
        CHANGED,
        "hexlog.session.closed",
    ]
    away = [
        attrs.evolve(log[concluded], data=log[concluded].data | {"outcome": "evaded", "rounds": 0, "reason": "away"}),
        log[concluded + 1],
        attrs.evolve(log[concluded + 2], data=log[concluded + 2].data | {"trigger": "resume", "source": "CHASE"}),
    ]
    forged = [*log[: at + 1], *away, *log[concluded + 3 :]]
    found = findings(forged)
    assert [(version, check) for version, check, _ in found] == [(version_of(at), "decision")]
    assert found[0][2] == (
        "encounter resumes as chase concluded: after it the rules record procedure.phase_changed "
        'procedure="encounter", trigger="resume", source="CHASE", dest="COMBAT", but the log has encounter.concluded '
        "there"
    )


# ------------------------------------------------------------------------------------------------
# A conclusion the referee typed: its step re-run on the state before it
# ------------------------------------------------------------------------------------------------

#: a delve's encounter with the ghouls, up to its first round played (``encounter.round_played`` version 2: a stream of
#: the release that refuses a conclusion in pursuit there)
MET = (*ghouls_met(), e.PlayRound())

REFUSED_IN_PURSUIT = (
    "encounter.concluded: the rules refuse the referee's command here: encounter: 'conclude' refused in phase ACTIONS: "
    "in a delve an encounter ends in pursuit only by its pursuers' decision, which hands the chase off and fights a "
    "side it catches in this encounter: the side flees (encounter evade), then its pursuers decide (encounter "
    "decide-pursuit); or conclude with another outcome and start the chase by hand (chase start)"
)


def concluded_by_hand(*commands: c.Command) -> list[Envelope]:
    """The log of ``commands`` played with the refusal of a conclusion in pursuit lifted: what the kit would record
    had the rules let the referee type it, at today's event versions."""
    with mock.patch.object(EncounterModel, "not_a_chase_handed_on", return_value=True):
        return played(*commands, secret=SECRET_FOR_A_FLIGHT)


@pytest.fixture(scope="module")
def parley() -> list[Envelope]:
    """The ghouls talked with for a round, and the encounter concluded by the referee: the delve resumes exploring."""
    return played(*MET, e.ConcludeEncounter(outcome="parley", note="they talk"), secret=SECRET_FOR_A_FLIGHT)


class TestAConclusionTyped:
    def test_the_honest_conclusion_is_clean(self, parley: list[Envelope]) -> None:
        concluded = where(parley, "encounter.concluded")
        assert [env.data.get("trigger") for env in parley[concluded : concluded + 5] if env.type == CHANGED] == [
            "conclude",
            "resume",
        ]
        assert findings(parley) == []

    def test_a_delves_encounter_concluded_in_pursuit_is_a_finding(self) -> None:
        """The conclusion in pursuit that today's command refuses there, with all the kit would record after it (the
        delve resumes into its chase and hands it on; a round of it is run), is a finding at the conclusion."""
        log = concluded_by_hand(*MET, e.ConcludeEncounter(outcome="pursuit"), ch.Run())
        at = where(log, "encounter.concluded")
        assert log[at].schemaversion == EncounterConcluded.schema_version
        assert log[where(log, "procedure.handed_off", parent="dungeon", child="chase")].data["child"] == "chase"
        assert findings(log) == [(version_of(at), "decision", REFUSED_IN_PURSUIT)]

    def test_an_honest_conclusion_rewritten_into_pursuit_is_a_finding(self, parley: list[Envelope]) -> None:
        at = where(parley, "encounter.concluded")
        found = findings(edited(parley, at, outcome="pursuit"))
        assert found[0] == (version_of(at), "decision", REFUSED_IN_PURSUIT)

    def test_a_conclusion_in_pursuit_straight_after_initiative_in_a_log_of_today_is_a_finding(self) -> None:
        """No event before the conclusion is of a version only the release that refuses it writes (no round played, no
        side's choice), but the session names the release that opened it: its rules hold from its first event."""
        log = concluded_by_hand(*MET[:-1], e.ConcludeEncounter(outcome="pursuit"))
        assert [env.schemaversion for env in log if env.type == "hexlog.encounter.round_played"] == []
        assert log[where(log, "session.opened")].data["release"] == releases.CURRENT
        at = where(log, "encounter.concluded")
        assert findings(log) == [(version_of(at), "decision", REFUSED_IN_PURSUIT)]

    def test_a_conclusion_in_pursuit_in_a_stream_of_an_earlier_release_is_let_be(self) -> None:
        """A session opened before sessions named their release (``session.opened`` version 2), and no event before
        the conclusion of a version the release that refuses it writes: the releases before it concluded a delve's
        encounter in pursuit, and the delve handed the chase on."""
        log = concluded_by_hand(*MET[:-1], e.ConcludeEncounter(outcome="pursuit"))
        opened = where(log, "session.opened")
        data = {key: value for key, value in log[opened].data.items() if key != "release"}
        earlier = [*log[:opened], attrs.evolve(log[opened], schemaversion=2, data=data), *log[opened + 1 :]]
        assert findings(earlier) == []

    def test_a_conclusion_whose_time_is_rewritten_is_a_finding(self, parley: list[Envelope]) -> None:
        """The rounds, turns and seconds a conclusion records, and the clock's advance after it, are the rules'."""
        at = where(parley, "encounter.concluded")
        assert findings(edited(parley, at, rounds=7)) == [
            (version_of(at), "decision", "encounter.concluded: rounds 7 recorded, but the rules give 1")
        ]
        # its counts kept whole with the seconds (counts apart from them: ``test_clock_counts``)
        assert findings(edited(parley, at + 1, seconds=1200, rounds=20, turns=2)) == [
            (
                version_of(at),
                "decision",
                (
                    "encounter.concluded: the clock.advanced after it differs: seconds 1200 where the rules give 600; "
                    "rounds 20 where the rules give 10; turns 2 where the rules give 1"
                ),
            )
        ]


# ------------------------------------------------------------------------------------------------
# A chase the referee started by hand: its start re-run on the state before it
# ------------------------------------------------------------------------------------------------

#: the refusal of a start that names an encounter the log never met, at the chase's start
NEVER_MET = (
    "chase.started: the rules refuse the referee's command here: a chase follows the latest encounter (none), not "
    "encounter 7"
)
#: an encounter in the open, both sides aware of the other: the sides' actions are next
MET_IN_THE_OPEN = (
    e.StartEncounter(setting="wilderness", monster_count=6, party_aware=True, monsters_aware=True),
    e.CheckSurprise(),
    e.DetermineDistance(),
    e.RollInitiative(),
)


def hand_of(envelopes: list[Envelope]) -> list[str]:
    """The audit's account of the referee's hand in a chase start."""
    return [line for line in audit_envelopes(reseal(envelopes)).by_hand if "chase 1" in line]


def test_a_chase_start_forged_to_follow_an_encounter_never_met_is_a_finding() -> None:
    """A chase started by hand whose ``from_encounter`` is rewritten to an encounter the log never met: the start is
    run again on the state before it, and the rules refuse it there (the referee's hand, which reads the encounter it
    follows, names nothing of it)."""
    log = played(ch.StartChase(gap_ft=100, fleeing_ft=90, pursuers_ft=120), ch.Run())
    at = where(log, "chase.started")
    assert findings(edited(log, at, from_encounter=7)) == [(version_of(at), "decision", NEVER_MET)]


@pytest.fixture(scope="module")
def monsters_fled() -> list[Envelope]:
    """The monsters flee the encounter in the open and the party gives chase (it concludes in pursuit); the referee
    starts the chase from it by hand, with a gap of their own and hungry pursuers."""
    return played(
        *MET_IN_THE_OPEN,
        e.Evade(side="monsters"),
        e.DecidePursuit(pursue=True),
        ch.StartChase(from_encounter=1, gap_ft=60, hungry=True),
    )


class TestAChaseStartedByHand:
    def test_the_honest_starts_are_clean_and_named_in_the_referees_hand(self, monsters_fled: list[Envelope]) -> None:
        """Typed with ``--from-encounter`` and without: re-run, each records what the log does."""
        assert findings(monsters_fled) == []
        assert hand_of(monsters_fled) == [
            (
                "stream version 24: chase 1 started by the referee with a gap of 60 ft, hungry pursuers (its rounds "
                "read them)"
            )
        ]
        alone = played(ch.StartChase(gap_ft=100, fleeing_ft=90, pursuers_ft=120, relentless=True), ch.Run())
        assert findings(alone) == []
        assert hand_of(alone) == [
            (
                "stream version 6: chase 1 started by the referee with a gap of 100 ft, the fleeing side at 90 ft a "
                "round, the pursuers at 120 ft a round, relentless pursuers (its rounds read them)"
            )
        ]

    def test_a_fleeing_side_rewritten_to_the_one_that_gave_chase_is_a_finding(
        self, monsters_fled: list[Envelope]
    ) -> None:
        """The party gave chase in the encounter the chase follows: a start with the party fleeing is refused."""
        at = where(monsters_fled, "chase.started")
        assert monsters_fled[at].data["fleeing"] == "monsters"
        assert findings(edited(monsters_fled, at, fleeing="party")) == [
            (
                version_of(at),
                "decision",
                (
                    "chase.started: the rules refuse the referee's command here: in encounter 1 the monsters fled and "
                    "the party gave chase, not the other way round: give --fleeing monsters"
                ),
            )
        ]

    def test_a_start_forged_to_follow_an_encounter_still_under_way_is_a_finding(self) -> None:
        """A chase the referee started alone while an encounter was under way, rewritten to follow that encounter."""
        log = played(*MET_IN_THE_OPEN, ch.StartChase(gap_ft=100, fleeing_ft=90, pursuers_ft=120))
        assert findings(log) == []
        at = where(log, "chase.started")
        assert findings(edited(log, at, from_encounter=1)) == [
            (
                version_of(at),
                "decision",
                (
                    "chase.started: the rules refuse the referee's command here: encounter 1 is still under way "
                    "(ACTIONS); conclude it first"
                ),
            )
        ]

    def test_what_the_start_decides_itself_rewritten_is_a_finding(self, monsters_fled: list[Envelope]) -> None:
        """Who runs and who was surprised are not the referee's to type: the party and the encounter give them."""
        at = where(monsters_fled, "chase.started")
        assert findings(edited(monsters_fled, at, runners=["Al"], pursuers_surprised=True)) == [
            (
                version_of(at),
                "decision",
                (
                    'chase.started: runners ["Al"] recorded, but the rules give ["Al", "Bo"]; pursuers_surprised '
                    "true recorded, but the rules give false"
                ),
            )
        ]

    def test_an_escape_at_once_rewritten_is_a_finding(self) -> None:
        """A fleeing side faster than its pursuers escapes as the chase starts: the end the start records is the
        rules'."""
        log = played(ch.StartChase(gap_ft=100, fleeing_ft=150, pursuers_ft=120))
        assert findings(log) == []
        at, ended = where(log, "chase.started"), where(log, "chase.ended")
        assert findings(edited(log, ended, outcome="caught", melee_next_round=True)) == [
            (
                version_of(at),
                "decision",
                (
                    'chase.started: the chase.ended after it differs: outcome "caught" where the rules give "escaped"; '
                    "melee_next_round true where the rules give false"
                ),
            )
        ]

    def test_a_length_out_of_its_range_is_a_finding(self, monsters_fled: list[Envelope]) -> None:
        at = where(monsters_fled, "chase.started")
        assert findings(edited(monsters_fled, at, gap_ft=9000)) == [
            (
                version_of(at),
                "decision",
                "chase.started: the rules refuse the referee's command here: the gap must be 0 to 5000 ft, not 9000",
            )
        ]

    def test_a_gap_rewritten_is_named_in_the_referees_hand(self) -> None:
        """The gap is the referee's to type: a start from the encounter's distance rewritten to another gap re-runs
        as typed, and the audit's account of the referee's hand names it where the encounter gives another."""
        log = played(
            *MET_IN_THE_OPEN, e.Evade(side="monsters"), e.DecidePursuit(pursue=True), ch.StartChase(from_encounter=1)
        )
        assert hand_of(log) == []
        at = where(log, "chase.started")
        forged = edited(log, at, gap_ft=60)
        assert findings(forged) == []
        assert hand_of(forged) == [
            "stream version 24: chase 1 started by the referee with a gap of 60 ft (its rounds read them)"
        ]

    def test_a_start_never_met_in_a_stream_of_an_earlier_release_is_let_be(self) -> None:
        """A session opened before sessions named their release, and no event of a version the release that first
        refused and recorded every start as today's writes: its releases' starts are let be."""
        log = played(ch.StartChase(gap_ft=100, fleeing_ft=90, pursuers_ft=120))
        opened = where(log, "session.opened")
        data = {key: value for key, value in log[opened].data.items() if key != "release"}
        earlier = [*log[:opened], attrs.evolve(log[opened], schemaversion=2, data=data), *log[opened + 1 :]]
        forged = edited(earlier, where(earlier, "chase.started"), from_encounter=7)
        assert findings(forged) == []
        # the referee's hand still names what the start gave, and the encounter it names
        (hand,) = hand_of(forged)
        assert "chase 1 started by the referee with encounter 7 named to follow, which it cannot (a chase " in hand
        assert "a gap of 100 ft" in hand
        assert "the pursuers at 120 ft a round" in hand

    def test_a_handed_off_chase_is_judged_by_its_encounters_step_alone(self) -> None:
        """The chase a delve's encounter hands off starts by the same trigger as one typed, but its parent's step gave
        it: its start forged is one finding, at the pursuit decision whose re-run hands it off."""
        log = played(
            c.EditMember(name="Bo", speed=90),
            *ghouls_met(),
            e.Evade(),
            e.DecidePursuit(pursue=True),
            secret=SECRET_FOR_A_FLIGHT,
        )
        assert findings(log) == []
        started = where(log, "chase.started")
        found = findings(edited(log, started, runners=["Al"]))
        assert [(version, check) for version, check, _ in found] == [
            (version_of(where(log, "encounter.pursuit_decided")), "decision")
        ]
