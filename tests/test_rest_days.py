"""Rest days (seed 004, REFERENCE §4.16): "At the start of each day, roll Weather before anything else", and
"Characters must rest at least 1 full day per 6 days of travel, or become exhausted".

A rest day starts as every day does, at the rules' hour with its weather (rolled, or the referee's), recorded as
``travel.day_started`` with ``rest`` (version 2): nobody travels and it has no travel points. Then exhaustion and
the owed rest are cleared; during a journey the day ends as a travel day does, with its wandering check and then
``travel end-day``, which runs the clock on to the next day (version 5; ``tests/test_rest_day_check.py``). A camp made
after it reads its weather, not the weather of the last day of travel.

A journey that has ended leaves its members as it left them, exhausted too, until they rest: on a rest day
(``travel rest`` is allowed once the journey has ended), or once a full day has passed on the clock with no journey
under way (``travel.ended`` version 2 records when it ended) in which no delve, pursuit or chase was under way: a day
in a dungeon, fleeing or chasing is no rest, and the day is counted afresh from its end (version 3). A journey ended
before version 3 counts any full day, a delve's too, as its release did (``tests/golden/delve-rest-v2.jsonl``); one
ended before version 2 is let be, as its release did: only a rest day rests its party.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import attrs
import pytest

from hexlog.events import camp as camp_ev
from hexlog.events import dungeon as dungeon_ev
from hexlog.events import pursuit as pu_ev
from hexlog.events import travel as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import PhaseChanged
from hexlog.machine import commands as c
from hexlog.machine.camp import commands as cc
from hexlog.machine.dungeon import commands as dg
from hexlog.machine.encounter import commands as enc
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as pu
from hexlog.machine.registry import REGISTRY
from hexlog.machine.table import stream_for
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.machine.travel import commands as t
from hexlog.machine.travel import guard as travel_guard
from hexlog.machine.travel.state import EXERTION, Member
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.replay.verdict import Verdict
from hexlog.service import render
from hexlog.service.cli_advice import cli_words
from hexlog.service.http_commands import route_words
from hexlog.service.render_travel import travel_lines

from .scripted_play import ScriptedPlay

CAMPAIGN = "rest"
HOUR = 3600
V1_LOG = Path(__file__).resolve().parent / "golden" / "exhaustion-v1.jsonl"
DELVE_V2_LOG = Path(__file__).resolve().parent / "golden" / "delve-rest-v2.jsonl"
REST_IN_DELVE_V2_LOG = Path(__file__).resolve().parent / "golden" / "rest-in-delve-v2.jsonl"
REST_IN_DELVE_CHECKS_V2_LOG = Path(__file__).resolve().parent / "golden" / "rest-in-delve-checks-v2.jsonl"
RESTED_ON_THE_CLOCK = "a full day without travel, a delve, a pursuit or a chase since the journey ended"


class Trip(ScriptedPlay):
    """Explore (a rest day owed every `every` travel days); Al and Bo set out in winter from a meadow (after the
    commands ``before``). ``drawn``: the session's secret is hexlog's own (which the test fixes), the players' seed
    beside it, so that an audit of its committed dice can say VERIFIED; ``options``: the referee's overrides of
    the rules' options."""

    def __init__(
        self,
        *,
        every: int = 6,
        dice: bool = False,
        before: tuple[c.Command, ...] = (),
        drawn: bool = False,
        options: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(CAMPAIGN, scripted=not dice)
        self.dice = dice
        rules: dict[str, Any] = {"tables": {"rest": {"rest_every_travel_days": every}}}
        if options:
            rules["options"] = options
        self.run(c.StartCampaign(ruleset="explore", overrides=rules))
        if drawn:
            self.run(c.OpenSession())
            self.run(c.SetClientSeed(client_seed="players"))
        else:
            self.run(c.OpenSession(secret_hex="3c" * 32))
        self.run(c.AddMember(name="Al"))
        self.run(c.AddMember(name="Bo"))
        self.run(SetHex(hex="2,2", terrain="meadow"))
        for command in before:
            self.run(command)
        self.run(t.StartJourney(hex="2,2", season="winter"))

    def day(self, weather: str = "clear") -> None:
        """A day of travel in place, under the referee's weather, met by nobody (on committed dice any wanderers
        met are sent away)."""
        self.run(t.RollWeather(weather=weather))
        self.run(t.DeclareRoute(), *([] if self.real else [6, 1]))
        self.day_s_end()

    def day_s_end(self) -> list[Any]:
        """The wandering check at the day's end, met by nobody (on committed dice any wanderers met are sent away),
        then the day's end; the events recorded."""
        events = self.run(t.CheckWandering(), *([] if self.real else [1]))
        if self.h.load(CAMPAIGN).handoffs:
            events += self.run(enc.CancelEncounter(reason="not played"))
        return events + self.run(t.EndDay())

    def rest(self, *faces: int, weather: str = "") -> list[Any]:
        """A full day of rest during the journey (its weather's dice ``faces``), to its end: the rest, its wandering
        check, the day's end; the events recorded."""
        return self.run(t.RestDay(weather=weather), *faces) + self.day_s_end()

    @property
    def real(self) -> bool:
        return self.dice

    @property
    def state(self) -> Any:
        return self.h.load(CAMPAIGN).procedures["travel"]


def only(events: list[Any], kind: type) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


class TestARestDayRollsItsWeather:
    def test_its_weather_comes_first_then_the_rest(self) -> None:
        """2d6 = 7 in winter: overcast. The day starts at 08:00, its weather, then its wandering check, which runs the
        clock on to the day's end at midnight first; the rest is recorded as the day ends."""
        trip = Trip()
        trip.day("snow")
        whole = trip.rest(3, 4)
        events = whole[: whole.index(only(whole, ev.WanderingChecked))]
        kinds = [type(e) for e in events]
        assert kinds.index(DiceRolled) < kinds.index(ev.DayStarted)
        assert whole.index(only(whole, ev.DayEnded)) < whole.index(only(whole, ev.Rested))
        rolled = next(e for e in events if isinstance(e, DiceRolled) and e.purpose == "travel.weather")
        assert rolled.faces == (3, 4)
        started = only(events, ev.DayStarted)
        assert (started.day, started.rest, started.weather, started.flags) == (2, True, "overcast", ())
        assert (started.travellers, started.travel_points, started.total, started.rolls) == ((), 0, 7, (rolled.nonce,))
        assert only(whole, ev.Rested).day == 2
        clocks = [e.reason for e in recorded(trip) if isinstance(e, ClockAdvanced)][-2:]
        assert clocks == ["the travel day starts at 08:00", "rest day 2 goes on until midnight, its end"]
        assert trip.h.load(CAMPAIGN).clock.seconds == 2 * 24 * HOUR
        assert (trip.state.day, trip.state.weather) == (2, "overcast")
        assert render.describe(started) == "day 2, a day of rest: weather overcast [2d6=7] [rolls #1]"

    def test_the_referee_may_set_it(self) -> None:
        trip = Trip()
        trip.day()
        started = only(trip.run(t.RestDay(weather="fog")), ev.DayStarted)
        assert (started.weather, started.flags, started.total, started.rolls) == ("fog", ("poor_visibility",), 0, ())

    def test_a_camp_after_rest_days_reads_the_last_day_s_weather(self) -> None:
        """Snow on the day of travel (wet: firewood halved, and halved again in winter); two rest days, the last
        clear: the camp is made in clear weather, and the 6 hours gathered are halved for winter alone."""
        trip = Trip()
        trip.day("snow")
        trip.rest(3, 4)
        trip.rest(6, 6)
        made = only(trip.run(cc.MakeCamp()), camp_ev.CampMade)
        assert (made.weather, made.wet, made.winter) == ("clear", False, True)
        gathered = only(trip.run(cc.GatherFirewood(gatherers=("Al",)), 6), camp_ev.FirewoodGathered)
        assert (gathered.divisor, gathered.hours) == (2, 3)

    def test_a_rest_day_grows_no_exhaustion_and_clears_it(self) -> None:
        """Past a rest day owed every day: Al is exhausted on day 2; resting on day 3 clears it as the day ends, none
        added."""
        trip = Trip(every=1)
        trip.day()
        trip.day()
        assert trip.state.members["Al"].exhaustion == 1
        events = trip.run(t.RestDay(weather="clear"))
        assert not [e for e in events if isinstance(e, ev.ExhaustionChanged | ev.Rested)]
        assert trip.state.members["Al"].exhaustion == 1  # the day is not over: its check may yet meet a pursuit
        events = trip.day_s_end()
        assert [(e.member, e.level) for e in events if isinstance(e, ev.ExhaustionChanged)] == [("Al", 0), ("Bo", 0)]
        assert trip.state.members["Al"] == trip.state.members["Bo"] == type(trip.state.members["Al"])()

    def test_rest_days_on_committed_dice_audit_clean_their_weather_re_run(self) -> None:
        """Three rest days, each its weather and its wandering check at its end: six decisions re-run."""
        trip = Trip(dice=True)
        for _ in range(3):
            trip.rest()
        trip.run(c.CloseSession())
        assert replay(trip.h.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
        assert (report.rolls, report.rolls_verified, report.decisions) == (6, 6, 6)


def penalty(trip: Trip, name: str = "Al") -> int:
    """The modifier on an attack roll made for a member now (rolled for real, recorded)."""
    return int(only(trip.run(c.RollDice(expression="1d20", purpose="attack", made_for=name), 10), DiceRolled).modifier)


def exhausted_and_home() -> Trip:
    """A rest day owed every travel day: two days of travel leave Al and Bo exhausted; the journey ends (00:00)."""
    return home_from_the_first_journey(())


class TestAfterTheJourney:
    def test_the_journey_s_exhaustion_stays_until_the_party_rests(self) -> None:
        trip = exhausted_and_home()
        assert penalty(trip) == -1

    def test_a_rest_day_after_the_journey_rests_it_off(self) -> None:
        """travel rest once the journey has ended: its weather, the rest; the journey stays ended."""
        trip = exhausted_and_home()
        events = trip.run(t.RestDay(), 3, 4)
        assert [(e.member, e.level) for e in events if isinstance(e, ev.ExhaustionChanged)] == [("Al", 0), ("Bo", 0)]
        assert only(events, ev.DayStarted).rest
        change = only(events, PhaseChanged)
        assert (change.trigger, change.source, change.dest) == ("rest", "ENDED", "ENDED")
        assert penalty(trip) == 0

    def test_a_full_day_on_the_clock_after_the_journey_is_its_rest_day(self) -> None:
        """23 hours are not enough; the 24th rests the party, once, however long the clock then runs."""
        trip = exhausted_and_home()
        assert not [e for e in trip.run(AdvanceClock(duration="23 hours")) if isinstance(e, ev.Rested)]
        assert penalty(trip) == -1
        events = trip.run(AdvanceClock(duration="1 hour"))
        assert [(e.member, e.level) for e in events if isinstance(e, ev.ExhaustionChanged)] == [("Al", 0), ("Bo", 0)]
        why = {e.reason for e in events if isinstance(e, ev.ExhaustionChanged)}
        assert why == {RESTED_ON_THE_CLOCK}
        assert only(events, ev.Rested).members == ("Al", "Bo")
        assert penalty(trip) == 0
        assert not [e for e in trip.run(AdvanceClock(duration="7 days")) if isinstance(e, ev.Rested)]

    def test_seven_days_on_the_clock_rest_the_party_on_the_first(self) -> None:
        trip = exhausted_and_home()
        events = trip.run(AdvanceClock(duration="7 days"))
        assert len([e for e in events if isinstance(e, ev.Rested)]) == 1
        assert penalty(trip) == 0

    def test_the_next_journey_counts_its_travel_days_afresh_after_a_day_off_the_road(self) -> None:
        """Six travel days are free: four, the journey's end, a day in town, then six more exhaust nobody."""
        trip = Trip()
        for _ in range(4):
            trip.day()
        trip.run(t.EndJourney())
        trip.run(AdvanceClock(duration="1 day"))
        assert trip.state.members["Al"] == Member()
        trip.run(t.StartJourney(hex="2,2", season="winter"))
        for _ in range(6):
            trip.day()
        assert trip.state.members["Al"] == Member(travel_days=6)

    def test_a_day_on_the_clock_during_a_journey_is_no_rest_day(self) -> None:
        """Between two days of travel the clock may run on; only travel rest rests a party on the road."""
        trip = Trip(every=1)
        trip.day()
        trip.day()
        assert not [e for e in trip.run(AdvanceClock(duration="3 days")) if isinstance(e, ev.Rested)]
        assert penalty(trip) == -1

    def test_the_rest_on_the_clock_is_re_run_by_the_audit_inside_the_decision_that_passes_the_day(self) -> None:
        """On committed dice: the journey ends exhausted, 23 hours pass, then a pursuit's flight (a watch) passes the
        day: a flight is no rest, so its step records none after its decision, and the audit re-runs it so. The rest
        after the escape is rest (A28): a full day on from the flight's end, the party has rested."""
        trip = Trip(every=1, dice=True)
        trip.day()
        trip.day()
        trip.run(t.EndJourney())
        trip.run(AdvanceClock(duration="23 hours"))
        trip.run(pu.StartPursuit(pursuers=2, pursuers_speed=60, evasion_failed=True))
        assert trip.state.exerting == frozenset({"pursuit"})
        fled = trip.run(pu.Flee())
        assert not [e for e in fled if isinstance(e, ev.Rested)]
        assert trip.state.quiet == 0
        rest = only(trip.run(pu.Rest()), pu_ev.PursuitRested)
        assert rest.days == 0.5
        assert (trip.state.exerting, trip.state.quiet) == (frozenset(), 12 * HOUR)
        assert not [e for e in trip.run(AdvanceClock(duration="11 hours")) if isinstance(e, ev.Rested)]
        assert only(trip.run(AdvanceClock(duration="1 hour")), ev.Rested)
        trip.run(c.CloseSession())
        assert replay(trip.h.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()


def delve(trip: Trip, hours: int) -> list[Any]:
    """A delve of ``hours`` hours (no wandering check falls due in it), the party leaving the dungeon at its end."""
    events = trip.run(dg.EnterDungeon(name="the barrow", every_turns=1000))
    events += trip.run(AdvanceClock(duration=f"{hours} hours", reason="the party delves"))
    return events + trip.run(dg.LeaveDungeon())


class TestADelveIsNoRest:
    """A day in a dungeon, fleeing or chasing is no rest (seed 004: "rest at least 1 full day"): the clock's rest day is
    a full day in which no delve, pursuit or chase was under way, counted afresh from the end of the last."""

    def test_the_procedures_of_exertion_end_in_their_final_phases(self) -> None:
        finals = {p.name: frozenset(f.name for f in p.final) for p in REGISTRY if p.name in EXERTION}
        assert finals == EXERTION

    def test_a_day_in_a_dungeon_rests_nobody(self) -> None:
        trip = exhausted_and_home()
        events = delve(trip, 24)
        assert not [e for e in events if isinstance(e, ev.Rested | ev.ExhaustionChanged)]
        assert not [e for e in trip.run(AdvanceClock(duration="23 hours")) if isinstance(e, ev.Rested)]
        assert penalty(trip) == -1
        events = trip.run(AdvanceClock(duration="1 hour"))
        assert {e.reason for e in events if isinstance(e, ev.ExhaustionChanged)} == {RESTED_ON_THE_CLOCK}
        assert only(events, ev.Rested).members == ("Al", "Bo")
        assert penalty(trip) == 0

    def test_the_day_is_counted_afresh_from_the_delve_s_end(self) -> None:
        """Two hours off, a delve of two hours, then 22 hours: a full day since the journey ended, but not since the
        delve; two hours more make one."""
        trip = exhausted_and_home()
        trip.run(AdvanceClock(duration="2 hours"))
        delve(trip, 2)
        assert not [e for e in trip.run(AdvanceClock(duration="22 hours")) if isinstance(e, ev.Rested)]
        assert only(trip.run(AdvanceClock(duration="2 hours")), ev.Rested)

    @pytest.mark.parametrize(("day", "level"), [("delve", 2), ("off the road", 0), ("travel rest", 0)])
    def test_a_delve_day_then_travel_leaves_the_party_exhausted_where_a_day_of_rest_would_not(
        self, day: str, level: int
    ) -> None:
        """Home exhausted (a rest day owed every travel day): a day in a dungeon, then a day of travel is a second
        level; a quiet day off the road, or a rest day, instead rests it off, and one day of travel is allowed."""
        trip = exhausted_and_home()
        if day == "delve":
            delve(trip, 24)
        elif day == "off the road":
            trip.run(AdvanceClock(duration="24 hours"))
        else:
            trip.run(t.RestDay(weather="clear"))
        trip.run(AdvanceClock(duration="1 hour"))
        trip.run(t.StartJourney(hex="2,2", season="winter"))
        trip.day()
        assert trip.state.members["Al"].exhaustion == level
        assert penalty(trip) == -level

    def test_the_state_view_says_how_far_the_party_is_from_its_rest(self) -> None:
        trip = exhausted_and_home()
        table = trip.h.load(CAMPAIGN)
        assert travel_lines(trip.state, table, player=False)[-1] == (
            "  0 hours without travel, a delve, a pursuit or a chase: a full day rests the party"
        )
        trip.run(dg.EnterDungeon(name="the barrow", every_turns=1000))
        trip.run(AdvanceClock(duration="2 hours"))
        assert travel_lines(trip.state, table, player=False)[-1] == (
            "  no rest while a delve is under way: a full day after it ends rests the party"
        )
        trip.run(dg.LeaveDungeon())
        trip.run(AdvanceClock(duration="5 hours"))
        assert travel_lines(trip.state, table, player=False)[-1] == (
            "  5 hours without travel, a delve, a pursuit or a chase: a full day rests the party"
        )
        trip.run(AdvanceClock(duration="19 hours"))
        assert "a full day rests the party" not in "\n".join(travel_lines(trip.state, table, player=False))

    def test_a_delve_on_committed_dice_audits_clean(self) -> None:
        trip = Trip(every=1, dice=True)
        trip.day()
        trip.day()
        trip.run(t.EndJourney())
        delve(trip, 24)
        trip.run(AdvanceClock(duration="24 hours"))
        trip.run(c.CloseSession())
        assert replay(trip.h.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()


ENTER = dg.EnterDungeon(name="the barrow", every_turns=1000)


def recorded(trip: Trip) -> list[Any]:
    return [decode(r.envelope) for r in trip.h.store.read_stream(stream_for(CAMPAIGN))]


def home_from_the_first_journey(before: tuple[c.Command, ...], *, dice: bool = False) -> Trip:
    """``exhausted_and_home``, the commands ``before`` run before the campaign's first journey."""
    trip = Trip(every=1, dice=dice, before=before)
    trip.day()
    trip.day()
    trip.run(t.EndJourney())
    assert trip.state.members["Al"].exhaustion == 1
    return trip


class TestExertionBegunBeforeTheFirstJourney:
    """A delve, pursuit or chase under way in the counted day breaks the rest, whenever it began: a delve begun before
    the campaign's first journey too (``travel.started`` version 2 records those under way as the journey sets out; a
    pursuit under way refuses the journey's start)."""

    def test_the_journey_records_the_delve_under_way(self) -> None:
        trip = Trip(before=(ENTER,))
        assert only(recorded(trip), ev.JourneyStarted).exerting == ("dungeon",)
        assert trip.state.exerting == frozenset({"dungeon"})
        assert only(recorded(Trip()), ev.JourneyStarted).exerting == ()

    def test_a_delve_begun_before_the_first_journey_rests_nobody_while_under_way(self) -> None:
        """Two days on the clock in the dungeon after the journey rest nobody; the day is counted from the delve's
        end."""
        trip = home_from_the_first_journey((ENTER,))
        assert not [e for e in trip.run(AdvanceClock(duration="2 days")) if isinstance(e, ev.Rested)]
        assert trip.state.members["Al"].exhaustion == 1
        trip.run(dg.LeaveDungeon())
        assert not [e for e in trip.run(AdvanceClock(duration="23 hours")) if isinstance(e, ev.Rested)]
        assert penalty(trip) == -1
        assert only(trip.run(AdvanceClock(duration="1 hour")), ev.Rested).members == ("Al", "Bo")
        assert penalty(trip) == 0

    def test_the_state_view_counts_no_hours_while_it_is_under_way(self) -> None:
        trip = home_from_the_first_journey((ENTER,))
        trip.run(AdvanceClock(duration="5 hours"))
        table = trip.h.load(CAMPAIGN)
        assert travel_lines(trip.state, table, player=False)[-1] == (
            "  no rest while a delve is under way: a full day after it ends rests the party"
        )
        trip.run(dg.LeaveDungeon())
        trip.run(AdvanceClock(duration="5 hours"))
        assert travel_lines(trip.state, table, player=False)[-1] == (
            "  5 hours without travel, a delve, a pursuit or a chase: a full day rests the party"
        )

    def test_a_delve_ended_before_the_first_journey_is_not_recorded(self) -> None:
        trip = home_from_the_first_journey((ENTER, dg.LeaveDungeon()))
        assert only(recorded(trip), ev.JourneyStarted).exerting == ()
        assert trip.state.exerting == frozenset()
        assert only(trip.run(AdvanceClock(duration="1 day")), ev.Rested)

    def test_on_committed_dice_it_audits_clean(self) -> None:
        trip = home_from_the_first_journey((ENTER,), dice=True)
        assert not [e for e in trip.run(AdvanceClock(duration="2 days")) if isinstance(e, ev.Rested)]
        trip.run(dg.LeaveDungeon())
        assert only(trip.run(AdvanceClock(duration="1 day")), ev.Rested)
        trip.run(c.CloseSession())
        assert replay(trip.h.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()


class TestAJourneyEndedByAnEarlierRelease:
    def test_its_party_rests_only_on_a_rest_day(self) -> None:
        """The log of commit 4e71470 ended its journey exhausted (travel.ended version 1, no time kept): days on the
        clock now rest nobody, as its release ran it; a rest day does."""
        lines = V1_LOG.read_bytes().split(b"\n")
        assert audit_envelopes(read_export(lines)).findings == ()
        store = MemoryStore()
        campaign = import_envelopes(store, read_export(lines)).campaign
        h = Handler(store, MemoryKeeper())
        trip = h.load(campaign).procedures["travel"]
        assert (trip.ended_at, trip.members["Al"].exhaustion) == (-1, 1)
        h.execute(campaign, c.OpenSession(secret_hex="71" * 32))
        events = h.execute(campaign, AdvanceClock(duration="2 days")).events
        assert not [e for e in events if isinstance(e, ev.Rested)]
        rested = h.execute(campaign, t.RestDay(weather="clear")).events
        assert [(e.member, e.level) for e in rested if isinstance(e, ev.ExhaustionChanged)] == [("Al", 0), ("Bo", 0)]

    def test_a_delve_after_it_counts_as_rest_as_its_release_ran_it(self) -> None:
        """The log of commit d387448 (travel.ended version 2) ended its journey exhausted, delved 20 hours, and 3 hours
        later fled a pursuit: the flight passed the day and rested the party. It audits VERIFIED, the audit re-running
        the flight's rest as that release made it, and exports byte for byte; its journey keeps that reading."""
        lines = DELVE_V2_LOG.read_bytes().split(b"\n")
        report = audit_envelopes(read_export(lines))
        assert report.findings == (), report.text()
        assert (report.events, report.decisions, report.rolls, report.rolls_verified) == (82, 6, 8, 8)
        store = MemoryStore()
        campaign = import_envelopes(store, read_export(lines)).campaign
        assert replay(store, campaign, REGISTRY).ok
        assert "".join(f"{line}\n" for line in export_lines(store, campaign)).encode() == DELVE_V2_LOG.read_bytes()
        events = [decode(e) for e in read_export(lines)]
        fled = next(i for i, e in enumerate(events) if isinstance(e, pu_ev.PursuitFled))
        rested = next(i for i, e in enumerate(events) if isinstance(e, ev.Rested))
        assert rested > fled
        trip = Handler(store, MemoryKeeper()).load(campaign).procedures["travel"]
        assert (trip.exertion_breaks_rest, trip.members["Al"]) == (False, Member())


class TestNoRestDayWhileExerting:
    """A day in which a delve, a pursuit or a chase goes on is no rest (seed 004 §4.16, A28): ``travel rest`` is
    refused while one is under way, naming it and how it ends, and nothing is written."""

    def refused(self, trip: Trip, match: str) -> None:
        before = len(recorded(trip))
        with pytest.raises(RuleRefusedError, match=match):
            trip.run(t.RestDay(weather="clear"))
        assert len(recorded(trip)) == before

    def test_on_the_journey_a_delve_under_way_refuses_it_until_the_party_leaves(self) -> None:
        trip = Trip(every=1)
        trip.day()
        trip.run(ENTER)
        self.refused(
            trip,
            r"^a delve is under way, and a day in which one goes on is no rest; "
            r"leave the dungeon first \(LeaveDungeon\(\)\)$",
        )
        trip.run(dg.LeaveDungeon())
        assert only(trip.rest(weather="clear"), ev.Rested).members == ("Al", "Bo")

    def test_after_the_journey_a_delve_begun_before_it_refuses_it(self) -> None:
        trip = home_from_the_first_journey((ENTER,))
        self.refused(trip, r"^a delve is under way")
        assert trip.state.members["Al"].exhaustion == 1
        trip.run(dg.LeaveDungeon())
        trip.run(t.RestDay(weather="clear"))
        assert trip.state.members["Al"] == Member()

    def test_a_pursuit_under_way_refuses_it_until_it_ends(self) -> None:
        """Slower pursuers: the party flees a hex (still under way), then rests half a day after its escape (a 6 on
        the encounter roll: nobody met), which ends the pursuit; only then does a rest day clear the exhaustion."""
        trip = exhausted_and_home()
        trip.run(pu.StartPursuit(pursuers=2, pursuers_speed=60, evasion_failed=True))
        waits = r"^a pursuit is under way, and a day in which one goes on is no rest; it ends when the party is caught"
        self.refused(trip, waits)
        trip.run(pu.Flee(), 1)
        self.refused(trip, waits)
        assert trip.state.exerting == frozenset({"pursuit"})
        assert trip.state.members["Al"].exhaustion == 1
        assert only(trip.run(pu.Rest(), 6), pu_ev.PursuitEnded)
        assert trip.state.exerting == frozenset()
        assert only(trip.run(t.RestDay(weather="clear")), ev.Rested).members == ("Al", "Bo")
        assert trip.state.members["Al"] == Member()

    def test_a_chase_and_a_delve_are_named_together(self) -> None:
        """Each door names the step that ends a delve in its own words (the core's own words name its class)."""
        trip = exhausted_and_home()
        table = trip.h.load(CAMPAIGN)
        busy = attrs.evolve(trip.state, exerting=frozenset({"chase", "dungeon"}))
        table = attrs.evolve(table, procedures={**table.procedures, "travel": busy})
        with pytest.raises(RuleRefusedError) as refused:
            travel_guard(table, t.RestDay())
        words = (
            "a delve and a chase are under way, and a day in which one goes on is no rest; leave the dungeon first "
            "({}); it ends when the quarry is caught or escapes"
        )
        assert refused.value.said(cli_words) == words.format("hexlog dungeon leave")
        assert refused.value.said(functools.partial(route_words, registry=REGISTRY, campaign="main")) == words.format(
            "POST /campaigns/main/dungeon/leave"
        )
        assert str(refused.value) == words.format("LeaveDungeon()")

    def test_rest_days_an_earlier_release_let_be_in_a_delve_replay_and_audit(self) -> None:
        """The log of commit f2e33d6^ (``travel.day_started`` version 2) rested its party twice while a delve went on,
        once on rolled weather and once on the referee's; that release let both be. It audits VERIFIED (the audit
        re-runs the rolled one as that release ran it), replays, and exports byte for byte."""
        lines = REST_IN_DELVE_V2_LOG.read_bytes().split(b"\n")
        events = [decode(e) for e in read_export(lines)]
        rests = [e for e in events if isinstance(e, ev.DayStarted) and e.rest]
        assert [bool(e.rolls) for e in rests] == [True, False]
        report = audit_envelopes(read_export(lines))
        assert report.findings == (), report.text()
        assert report.decisions == report.rolls_verified == 16
        store = MemoryStore()
        campaign = import_envelopes(store, read_export(lines)).campaign
        assert replay(store, campaign, REGISTRY).ok
        assert (
            "".join(f"{line}\n" for line in export_lines(store, campaign)).encode() == REST_IN_DELVE_V2_LOG.read_bytes()
        )

    def test_a_rest_day_in_a_delve_whose_checks_fall_due_that_day_audits_clean(self) -> None:
        """The log of commit f2e33d6^ rested its party on rolled weather while a delve went on, and the delve's two
        wandering checks fell due as the day passed, after the rest day's clock event. The audit re-runs the rest day
        with no due check (the decision names the weather's roll alone) and runs the checks again after the clock
        event, on their own rolls: VERIFIED, and it replays and exports byte for byte."""
        lines = REST_IN_DELVE_CHECKS_V2_LOG.read_bytes().split(b"\n")
        events = [decode(e) for e in read_export(lines)]
        rest = next(i for i, e in enumerate(events) if isinstance(e, ev.DayStarted) and e.rest)
        checked = [i for i, e in enumerate(events) if isinstance(e, dungeon_ev.WanderingChecked)]
        assert len(checked) == 2
        assert all(at > rest for at in checked)
        report = audit_envelopes(read_export(lines))
        assert report.findings == (), report.text()
        assert report.verdict is Verdict.VERIFIED
        store = MemoryStore()
        campaign = import_envelopes(store, read_export(lines)).campaign
        assert replay(store, campaign, REGISTRY).ok
        exported = "".join(f"{line}\n" for line in export_lines(store, campaign)).encode()
        assert exported == REST_IN_DELVE_CHECKS_V2_LOG.read_bytes()

    @pytest.mark.parametrize("weather", ["", "clear"], ids=["rolled", "the referee's"])
    def test_one_recorded_since_version_3_is_a_finding(self, monkeypatch: pytest.MonkeyPatch, weather: str) -> None:
        """A referee who owns the database writes a rest day in a delve past the guard (here, with it switched off):
        since ``travel.day_started`` version 3 no release lets one be, so the audit holds it to the guard, a rest day
        on rolled weather and one on the referee's alike (each re-run as a decision, the referee's weather taken from
        the record)."""
        monkeypatch.setattr("hexlog.machine.travel.inverse._no_rest_while_exerting", lambda _table: None)
        trip = home_from_the_first_journey((ENTER,), dice=True)
        assert only(trip.run(t.RestDay(weather=weather)), ev.Rested)
        trip.run(c.CloseSession())
        monkeypatch.undo()
        assert replay(trip.h.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
        rest = next(
            r.version
            for r in trip.h.store.read_stream(stream_for(CAMPAIGN))
            if r.envelope.type.endswith("day_started") and r.envelope.data.get("rest")
        )
        assert [(f.streamversion, f.check) for f in report.findings] == [(rest, "decision")], report.text()
        assert report.findings[0].reason.endswith(
            "the rules refuse this decision here: a delve is under way, and a day in which one goes on is no rest; "
            "leave the dungeon first (dungeon leave)"  # in no door's words: the audit's text is both doors'
        ), report.findings[0].reason
        assert not report.ok
