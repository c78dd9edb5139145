"""A travel day's time on the clock (seed 004 §4.12: "Encounter check at day's end"): the day's wandering check runs the
clock on to the day's end before it is rolled, so the encounter it meets, a pursuit after it and a camp made before
``travel end-day`` take their time from there, not from the day's start. Neither the seed nor the reference names the
hours a party travels: the day ends at ``options.day_end_hour`` (24, midnight, by default) of the day it started, which
``travel.day_started`` records since version 5 (a day of an older release kept no start, and its check runs no clock).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hexlog.events import camp as camp_ev
from hexlog.events import travel as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.machine import campaign as hexlog_campaign
from hexlog.machine import commands as c
from hexlog.machine.camp import commands as cc
from hexlog.machine.registry import REGISTRY
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.machine.travel import commands as t
from hexlog.machine.travel import day
from hexlog.replay.audit import audit_store
from hexlog.replay.verdict import Verdict

from .test_rest_days import CAMPAIGN, HOUR, Trip, only

DAY = 24 * HOUR


def clock(trip: Trip) -> int:
    return trip.h.load(CAMPAIGN).clock.seconds


def travelled(trip: Trip) -> None:
    """Day 2 under way: its weather (08:00), a route that stays in its hex."""
    trip.day()
    trip.run(t.RollWeather(weather="clear"))
    trip.run(t.DeclareRoute(), 6, 1)


class TestTheCheckFallsAtTheDaysEnd:
    def test_the_check_runs_the_clock_on_to_midnight_and_a_camp_made_then_starts_there(self) -> None:
        """Day 2 starts at 08:00 and its check is rolled at midnight, 16 hours on; the day's end runs no more, and a
        camp made before it times its night from midnight."""
        trip = Trip()
        travelled(trip)
        assert clock(trip) == DAY + 8 * HOUR
        checked = trip.run(t.CheckWandering(), 1)
        advanced = [e for e in checked if isinstance(e, ClockAdvanced)]
        reason = "travel day 2 goes on until midnight, its end"
        assert [(e.seconds, e.reason) for e in advanced] == [(16 * HOUR, reason)]
        assert checked.index(advanced[0]) < checked.index(only(checked, ev.WanderingChecked))
        assert clock(trip) == 2 * DAY
        made = only(trip.run(cc.MakeCamp()), camp_ev.CampMade)
        assert made.started_at == 2 * DAY

    def test_an_encounter_at_the_days_end_starts_at_midnight(self) -> None:
        trip = Trip()
        travelled(trip)
        trip.run(t.CheckWandering(), 6)
        assert trip.h.load(CAMPAIGN).handoffs == (("travel", "encounter"),)
        assert clock(trip) == 2 * DAY

    def test_a_house_rule_ends_the_day_earlier_and_its_end_runs_on_to_midnight(self) -> None:
        """day_end_hour 20: the check at 20:00, and the day's end runs the clock on the 4 hours to midnight."""
        trip = Trip(options={"day_end_hour": 20})
        travelled(trip)
        trip.run(t.CheckWandering(), 1)
        assert clock(trip) == DAY + 20 * HOUR
        ended = trip.run(t.EndDay())
        assert [e.seconds for e in ended if isinstance(e, ClockAdvanced)] == [4 * HOUR]
        assert clock(trip) == 2 * DAY

    def test_a_day_started_past_its_end_is_checked_when_it_started(self) -> None:
        """A house rule's day ends at 10:00; a day begun at 11:00 (the party held up) runs no clock for its check."""
        trip = Trip(options={"day_end_hour": 10})
        trip.day()
        trip.run(AdvanceClock(duration="11 hours"))
        trip.run(t.RollWeather(weather="clear"))
        trip.run(t.DeclareRoute(), 6, 1)
        before = clock(trip)
        assert not [e for e in trip.run(t.CheckWandering(), 1) if isinstance(e, ClockAdvanced)]
        assert clock(trip) == before == DAY + 11 * HOUR


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """The secret a session draws, fixed: the audit of its committed dice can say VERIFIED."""
    monkeypatch.setattr(hexlog_campaign, "secrets", SimpleNamespace(token_bytes=lambda n: bytes(range(n))))


def _days(trip: Trip) -> None:
    for _ in range(3):
        trip.day(weather="")
    trip.run(t.EndJourney())
    trip.run(c.CloseSession())


@pytest.mark.usefixtures("drawn")
class TestTheAudit:
    def test_days_checked_at_their_end_audit_verified(self) -> None:
        trip = Trip(dice=True, drawn=True)
        _days(trip)
        report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
        assert report.verdict is Verdict.VERIFIED

    def test_a_check_rolled_before_the_days_end_is_a_finding(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A hexlog patched to roll the check where the clock stands (the day's start), writing version 5: the check
        is rolled at 08:00, and the audit names it."""
        with monkeypatch.context() as forged:
            forged.setattr(day, "_to_day_end", lambda _ctx: None)
            trip = Trip(dice=True, drawn=True)
            _days(trip)
        report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
        assert report.verdict is not Verdict.VERIFIED
        assert "the day's wandering check is rolled at its end (midnight), but the clock shows 08:00" in report.text()


def test_rules_show_says_the_travel_day_reads_the_hour_it_ends(hexlog) -> None:
    """The travel day reads ``day_end_hour``; the campaign, which reads the clock's other options, does not."""
    lines = hexlog("rules", "show", "explore").stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("options.day_end_hour = 24"))
    assert lines[at + 1].endswith("[read by travel]")
