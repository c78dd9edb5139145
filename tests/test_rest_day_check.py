"""A rest day's wandering check (seed 004, REFERENCE §4.12, §4.16): "Roll 1d6 at the end of each day and each night at
camp." A full day of rest during a journey ends as a travel day does: ``travel rest`` (the weather, the rest) leaves
the day in its phase of rest, whose one step is the day's wandering check (``travel check``, an encounter handed off
on a hit), and then ``travel end-day`` runs the clock on to the next day (``travel.day_started`` version 5). A rest
day after the journey has ended has no check: the journey is over.

Release 32 wrote a rest day at version 4 and ran the clock on to the next day at once: the audit re-runs such a day
as that release made it, and holds one written at version 5 to the check.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import attrs
import pytest

from hexlog.events import releases
from hexlog.events import travel as ev
from hexlog.events.chain import reseal
from hexlog.events.clock import ClockAdvanced
from hexlog.events.errors import IllegalTransitionError, RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed
from hexlog.machine import campaign as hexlog_campaign
from hexlog.machine import commands as c
from hexlog.machine.encounter import commands as enc
from hexlog.machine.registry import REGISTRY
from hexlog.machine.table import stream_for
from hexlog.machine.travel import commands as t
from hexlog.machine.travel.state import Phase
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.replay.verdict import Verdict
from hexlog.service import render

from .test_rest_days import CAMPAIGN, HOUR, Trip, only, recorded


def changes(events: list[Any]) -> list[tuple[str, str, str]]:
    return [(e.trigger, e.source, e.dest) for e in events if isinstance(e, PhaseChanged) and e.procedure == "travel"]


def next_steps(trip: Trip) -> str:
    table = trip.h.load(CAMPAIGN)
    return render.procedure_lines("travel", table.procedures["travel"], table)[-1]


class TestTheCheckIsDue:
    def test_a_rest_day_waits_for_its_check_and_end_day_before_it_is_refused_naming_it(self) -> None:
        """The rest leaves the day resting at its start (08:00); ending the day, or the journey, is refused naming the
        check, and nothing is written; the check (a 1 on the meadow's die: nobody) runs the clock on to the day's end
        (midnight) and is rolled then; the day's end runs no more."""
        trip = Trip()
        trip.day()
        events = trip.run(t.RestDay(), 3, 4)
        assert changes(events) == [("rest", "DAWN", "RESTING")]
        assert trip.state.phase is Phase.RESTING
        assert trip.h.load(CAMPAIGN).clock.seconds == (24 + 8) * HOUR
        assert next_steps(trip) == "  next: hexlog travel check"
        before = len(recorded(trip))
        for command in (t.EndDay(), t.EndJourney(), t.RollWeather(), t.RestDay()):
            with pytest.raises(IllegalTransitionError, match=r"is not allowed in state RESTING; allowed now: check$"):
                trip.run(command)
        assert len(recorded(trip)) == before
        checked = trip.run(t.CheckWandering(), 1)
        assert [e.reason for e in checked if isinstance(e, ClockAdvanced)] == [
            "rest day 2 goes on until midnight, its end"
        ]
        assert only(checked, ev.WanderingChecked).encounter is False
        assert changes(checked) == [("check", "RESTING", "DUSK")]
        assert trip.h.load(CAMPAIGN).clock.seconds == 2 * 24 * HOUR
        ended = trip.run(t.EndDay())
        assert only(ended, ev.DayEnded) == ev.DayEnded(day=2, hexes=0, unused=0, carried=0, night_check=True)
        assert not [e for e in ended if isinstance(e, ClockAdvanced)]  # the check ran the clock to the day's end
        assert trip.state.phase is Phase.DAWN

    def test_a_hit_hands_an_encounter_off_and_the_day_ends_once_it_concludes(self) -> None:
        """A 6 on the meadow's die: a wilderness encounter is handed off, named for the day; the day waits for it,
        resumes when it concludes, and then ends."""
        trip = Trip()
        trip.day()
        trip.run(t.RestDay(weather="clear"))
        events = trip.run(t.CheckWandering(), 6)
        assert only(events, ev.WanderingChecked).encounter is True
        assert HandedOff(parent="travel", child="encounter") in events
        started = trip.h.load(CAMPAIGN).procedures["encounter"].started
        assert (started.setting, started.name) == ("wilderness", "day 2: wandering monsters")
        with pytest.raises(RuleRefusedError, match="waits for encounter"):
            trip.run(t.EndDay())
        concluded = trip.run(enc.CancelEncounter(reason="the wanderers pass by"))
        assert Resumed(parent="travel", child="encounter") in concluded
        assert changes(concluded) == [("resume", "DUSK", "DUSK")]
        assert only(trip.run(t.EndDay()), ev.DayEnded).day == 2

    def test_a_rest_day_after_the_journey_has_no_check(self) -> None:
        """The journey is over: the rest runs on to the next day at once, and no check is offered."""
        trip = Trip()
        trip.day()
        trip.run(t.EndJourney())
        events = trip.run(t.RestDay(weather="clear"))
        assert changes(events) == [("rest", "ENDED", "ENDED")]
        assert not [e for e in events if isinstance(e, ev.WanderingChecked)]
        assert trip.h.load(CAMPAIGN).clock.seconds == 2 * 24 * HOUR
        with pytest.raises(IllegalTransitionError, match="'check' is not allowed in state ENDED"):
            trip.run(t.CheckWandering())


def _rest_days(trip: Trip) -> None:
    """A day of travel, then two rest days on committed dice, each as the rules in force make it; the journey's end."""
    trip.day(weather="")
    for _ in range(2):
        trip.run(t.RestDay())
        if trip.state.phase is Phase.RESTING:
            trip.day_s_end()
    trip.run(t.EndJourney())


@pytest.fixture(autouse=True)
def _drawn_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """The secret a session draws, fixed: the audit of its committed dice can say VERIFIED."""
    monkeypatch.setattr(hexlog_campaign, "secrets", SimpleNamespace(token_bytes=lambda n: bytes(range(n))))


def _without_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kit rests as release 32 did: the clock runs on to the next day at once, no check at the day's end."""
    monkeypatch.setattr(t, "REST_WITHOUT_CHECK", (*t.REST_WITHOUT_CHECK, t.RestDay))


def _as_release_32(monkeypatch: pytest.MonkeyPatch) -> Trip:
    """Rest days as release 32 made them: its session names release 32, its days are ``travel.day_started`` version 4,
    which kept no time of the day's start (the day's check ran no clock), and each rest day ran on to the next day at
    once."""
    with monkeypatch.context() as old:
        old.setattr(releases, "CURRENT", 32)
        old.setattr(ev.DayStarted, "schema_version", 4)
        old.setattr(t, "UNTIMED", (*t.UNTIMED, t.RollWeather, t.RestDay))  # it kept no time of a day's start
        _without_check(old)
        trip = Trip(dice=True, drawn=True)
        _rest_days(trip)
        trip.run(c.CloseSession())
    return trip


DAY_STARTED = "hexlog.travel.day_started"


def _day_versions(trip: Trip) -> list[tuple[int, bool]]:
    """Each day's start: its schema version, and whether it is a rest day."""
    records = trip.h.store.read_stream(stream_for(CAMPAIGN))
    return [(r.envelope.schemaversion, r.envelope.data["rest"]) for r in records if r.envelope.type == DAY_STARTED]


class TestTheAudit:
    def test_rest_days_with_their_checks_audit_verified(self) -> None:
        trip = Trip(dice=True, drawn=True)
        _rest_days(trip)
        trip.run(c.CloseSession())
        assert _day_versions(trip) == [(6, False), (6, True), (6, True)]
        report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
        # the travel day's weather and its two checks, each rest day's weather and its check
        assert report.decisions == 3 + 2 * 2
        assert report.verdict is Verdict.VERIFIED

    def test_a_version_6_rest_day_without_its_check_is_a_finding(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A hexlog patched to rest as release 32 did, writing version 6: the rest day ran on to the next day with no
        check at its end, which the audit re-running it under today's rules names."""
        with monkeypatch.context() as forged:
            _without_check(forged)
            trip = Trip(dice=True, drawn=True)
            _rest_days(trip)
        trip.run(c.CloseSession())
        assert _day_versions(trip) == [(6, False), (6, True), (6, True)]
        report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
        assert report.verdict is not Verdict.VERIFIED
        text = report.text()
        rest = 'procedure.phase_changed procedure="travel", trigger="rest", source="DAWN", dest="RESTING"'
        assert f"after it the rules record {rest}" in text
        assert "but the log has travel.rested" in text  # rested at once, where today's rest day rests at its end

    def test_a_version_4_rest_day_audits_verified_as_release_32_made_it(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Release 32's rest days, no check at their end, re-run as that release made them; the log replays and
        re-exports byte for byte."""
        trip = _as_release_32(monkeypatch)
        assert _day_versions(trip) == [(4, False), (4, True), (4, True)]
        assert len([e for e in recorded(trip) if isinstance(e, ev.WanderingChecked)]) == 1  # the travel day's alone
        assert changes(recorded(trip))[-3:-1] == [("rest", "DAWN", "DAWN"), ("rest", "DAWN", "DAWN")]
        report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
        assert report.verdict is Verdict.VERIFIED
        assert replay(trip.h.store, CAMPAIGN, REGISTRY).ok
        lines = [f"{line}\n".encode() for line in export_lines(trip.h.store, CAMPAIGN)]
        store = MemoryStore()
        campaign = import_envelopes(store, read_export(lines)).campaign
        assert list(export_lines(store, campaign)) == list(export_lines(trip.h.store, CAMPAIGN))

    def test_a_version_4_rest_day_relabelled_version_5_is_a_finding(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Version 5 ends a rest day with its check: release 32's rest day labelled so was not written by the kit."""
        trip = _as_release_32(monkeypatch)
        envelopes = [r.envelope for r in trip.h.store.read_stream(stream_for(CAMPAIGN))]
        relabelled = reseal(
            [attrs.evolve(e, schemaversion=5) if e.type == DAY_STARTED and e.data["rest"] else e for e in envelopes]
        )
        report = audit_envelopes(relabelled)
        assert report.verdict is not Verdict.VERIFIED
        assert "but the log has clock.advanced there" in report.text()
