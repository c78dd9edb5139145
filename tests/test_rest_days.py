"""Rest days (seed 004, REFERENCE §4.16): "At the start of each day, roll Weather before anything else", and
"Characters must rest at least 1 full day per 6 days of travel, or become exhausted".

A rest day starts as every day does, at the rules' hour with its weather (rolled, or the referee's), recorded as
``travel.day_started`` with ``rest`` (version 2): nobody travels and it has no travel points. Then exhaustion and
the owed rest are cleared and the clock runs on to the next day. A camp made after it reads its weather, not the
weather of the last day of travel.

A journey that has ended leaves its members as it left them, exhausted too, until they rest: on a rest day
(``travel rest`` is allowed once the journey has ended), or once a full day has passed on the clock with no journey
under way (``travel.ended`` version 2 records when it ended). A journey ended before version 2 is let be, as its
release did: only a rest day rests its party.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hexlog.events import camp as camp_ev
from hexlog.events import travel as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.dice import DiceRolled
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import PhaseChanged
from hexlog.machine import commands as c
from hexlog.machine.camp import commands as cc
from hexlog.machine.encounter import commands as enc
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as pu
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.machine.travel import commands as t
from hexlog.machine.travel.state import Member
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.service import render

CAMPAIGN = "rest"
HOUR = 3600
V1_LOG = Path(__file__).resolve().parent / "golden" / "exhaustion-v1.jsonl"


class Trip:
    """Explore (a rest day owed every `every` travel days); Al and Bo set out in winter from a meadow."""

    def __init__(self, *, every: int = 6, dice: bool = False) -> None:
        self.script: list[int] = []
        roller = None if dice else (lambda _table: ScriptedRoller(self.script))
        self.h = Handler(MemoryStore(), MemoryKeeper(), roller=roller)
        self.dice = dice
        rules = {"tables": {"rest": {"rest_every_travel_days": every}}}
        self.run(c.StartCampaign(ruleset="explore", overrides=rules))
        self.run(c.OpenSession(secret_hex="3c" * 32))
        self.run(c.AddMember(name="Al"))
        self.run(c.AddMember(name="Bo"))
        self.run(SetHex(hex="2,2", terrain="meadow"))
        self.run(t.StartJourney(hex="2,2", season="winter"))

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        self.script[:] = list(faces)
        out = self.h.execute(CAMPAIGN, command)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return list(out.events)

    def day(self, weather: str = "clear") -> None:
        """A day of travel in place, under the referee's weather, met by nobody (on committed dice any wanderers
        met are sent away)."""
        self.run(t.RollWeather(weather=weather))
        self.run(t.DeclareRoute(), *([] if self.real else [6, 1]))
        self.run(t.CheckWandering(), *([] if self.real else [1]))
        if self.h.load(CAMPAIGN).handoffs:
            self.run(enc.CancelEncounter(reason="not played"))
        self.run(t.EndDay())

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
        """2d6 = 7 in winter: overcast. The day starts at 08:00, its weather, the rest, then on to midnight."""
        trip = Trip()
        trip.day("snow")
        events = trip.run(t.RestDay(), 3, 4)
        kinds = [type(e) for e in events]
        assert kinds.index(DiceRolled) < kinds.index(ev.DayStarted) < kinds.index(ev.Rested)
        rolled = only(events, DiceRolled)
        assert (rolled.purpose, rolled.faces) == ("travel.weather", (3, 4))
        started = only(events, ev.DayStarted)
        assert (started.day, started.rest, started.weather, started.flags) == (2, True, "overcast", ())
        assert (started.travellers, started.travel_points, started.total, started.rolls) == ((), 0, 7, (rolled.nonce,))
        assert only(events, ev.Rested).day == 2
        clocks = [e for e in events if isinstance(e, ClockAdvanced)]
        assert [e.reason for e in clocks] == ["the travel day starts at 08:00", "a full day of rest"]
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
        trip.run(t.RestDay(), 3, 4)
        trip.run(t.RestDay(), 6, 6)
        made = only(trip.run(cc.MakeCamp()), camp_ev.CampMade)
        assert (made.weather, made.wet, made.winter) == ("clear", False, True)
        gathered = only(trip.run(cc.GatherFirewood(gatherers=("Al",)), 6), camp_ev.FirewoodGathered)
        assert (gathered.divisor, gathered.hours) == (2, 3)

    def test_a_rest_day_grows_no_exhaustion_and_clears_it(self) -> None:
        """Past a rest day owed every day: Al is exhausted on day 2; resting on day 3 clears it, none added."""
        trip = Trip(every=1)
        trip.day()
        trip.day()
        assert trip.state.members["Al"].exhaustion == 1
        events = trip.run(t.RestDay(weather="clear"))
        assert [(e.member, e.level) for e in events if isinstance(e, ev.ExhaustionChanged)] == [("Al", 0), ("Bo", 0)]
        assert trip.state.members["Al"] == trip.state.members["Bo"] == type(trip.state.members["Al"])()

    def test_rest_days_on_committed_dice_audit_clean_their_weather_re_run(self) -> None:
        trip = Trip(dice=True)
        for _ in range(3):
            trip.run(t.RestDay())
        trip.run(c.CloseSession())
        assert replay(trip.h.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
        assert (report.rolls, report.rolls_verified, report.decisions) == (3, 3, 3)


def penalty(trip: Trip, name: str = "Al") -> int:
    """The modifier on an attack roll made for a member now (rolled for real, recorded)."""
    return int(only(trip.run(c.RollDice(expression="1d20", purpose="attack", made_for=name), 10), DiceRolled).modifier)


def exhausted_and_home() -> Trip:
    """A rest day owed every travel day: two days of travel leave Al and Bo exhausted; the journey ends (00:00)."""
    trip = Trip(every=1)
    trip.day()
    trip.day()
    trip.run(t.EndJourney())
    assert trip.state.members["Al"].exhaustion == 1
    return trip


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
        assert why == {"a full day without travel since the journey ended"}
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
        day: the flight's step records the rest after its decision, and the audit re-runs it so."""
        trip = Trip(every=1, dice=True)
        trip.day()
        trip.day()
        trip.run(t.EndJourney())
        trip.run(AdvanceClock(duration="23 hours"))
        trip.run(pu.StartPursuit(pursuers=2, pursuers_speed=60, evasion_failed=True))
        fled = trip.run(pu.Flee())
        assert only(fled, ev.Rested)
        trip.run(pu.Rest())
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
