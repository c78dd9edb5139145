"""Rest days (seed 004, REFERENCE §4.16): "At the start of each day, roll Weather before anything else."

A rest day starts as every day does, at the rules' hour with its weather (rolled, or the referee's), recorded as
``travel.day_started`` with ``rest`` (version 2): nobody travels and it has no travel points. Then exhaustion and
the owed rest are cleared and the clock runs on to the next day. A camp made after it reads its weather, not the
weather of the last day of travel.
"""

from __future__ import annotations

from typing import Any

from hexlog.events import camp as camp_ev
from hexlog.events import travel as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.dice import DiceRolled
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.camp import commands as cc
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_store
from hexlog.replay.rebuild import replay
from hexlog.service import render

CAMPAIGN = "rest"
HOUR = 3600


class Trip:
    """Explore (a rest day owed every `every` travel days); Al and Bo set out in winter from a meadow."""

    def __init__(self, *, every: int = 6, dice: bool = False) -> None:
        self.script: list[int] = []
        roller = None if dice else (lambda _table: ScriptedRoller(self.script))
        self.h = Handler(MemoryStore(), MemoryKeeper(), roller=roller)
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
        """A day of travel in place, under the referee's weather, met by nobody."""
        self.run(t.RollWeather(weather=weather))
        self.run(t.DeclareRoute(), 6, 1)
        self.run(t.CheckWandering(), 1)
        self.run(t.EndDay())

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
