"""A rest day whose wandering check meets a pursuit is no rest (A28: a day in which a pursuit goes on is no rest).

A rest day during a journey records its rest at the day's end (``travel end-day``), once its wandering check and all
that it handed off are over, and records none when a delve, a pursuit or a chase was under way in the day: its
exhaustion is not cleared by it, and the travel days counted stand. The rest after an escape is rest all the same:
once it adds up to a full day it counts as that day's rest, the one rest recorded that day
(``travel.day_started`` version 6). Release 33 recorded the rest as the rest day started, so a pursuit after the
check recorded a second rest that day: the audit re-runs such a day as that release made it.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from hexlog.events import pursuit as pu_ev
from hexlog.events import releases
from hexlog.events import travel as ev
from hexlog.events.errors import RuleRefusedError
from hexlog.machine import campaign as hexlog_campaign
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine.hexmap import SetHex
from hexlog.machine.pursuit import commands as p
from hexlog.machine.registry import REGISTRY
from hexlog.machine.table import stream_for
from hexlog.machine.travel import commands as t
from hexlog.machine.travel.state import Member
from hexlog.replay.audit import audit_store
from hexlog.replay.verdict import Verdict
from hexlog.service import render

from .test_rest_days import CAMPAIGN, Trip

#: meadows all round the party's hex (2,2), into which it may flee
AROUND = tuple(
    SetHex(hex=f"{col},{row}", terrain="meadow") for col in range(5) for row in range(5) if (col, row) != (2, 2)
)
#: the flight's d6: S
SOUTH = 4
#: the exhaustion the travel days before the rest day left Al and Bo (a rest owed every day: two days of travel)
TIRED = Member(travel_days=2, exhaustion=1)


def _tired(*, slow: bool = False, dice: bool = False) -> Trip:
    """Al and Bo, owed a rest every day, travel two days in place: each is one level exhausted. ``slow``: both at 60,
    so that the monster they meet (120) is faster and rolls to catch them."""
    slow_down = tuple(c.EditMember(name=name, speed=60) for name in ("Al", "Bo")) if slow else ()
    trip = Trip(every=1, before=(*slow_down, *AROUND), dice=dice, drawn=dice)
    trip.day()
    trip.day()
    assert trip.state.members == {"Al": TIRED, "Bo": TIRED}
    return trip


def _pursued(trip: Trip, *, begun: bool = False) -> list[Any]:
    """A rest day whose check meets a monster the party flees and fails to evade (the evasion d100 99, +1 for its
    exhaustion): the travel day hands the pursuit off (``begun``: the rest day is under way already). The events
    recorded."""
    events = [] if begun else trip.run(t.RestDay(weather="clear"))
    events += trip.run(t.CheckWandering(), 6)
    events += trip.run(enc.CheckSurprise(), 4, 4)
    events += trip.run(enc.DetermineDistance(), 3, 3, 3, 3)
    events += trip.run(enc.RollInitiative(), 5, 2)
    events += trip.run(enc.Evade())
    events += trip.run(enc.RollEvasion(), 99)
    assert trip.h.load(CAMPAIGN).procedures["pursuit"].phase.name == "EVASION_ROLLED"
    return events


def _state(trip: Trip, *commands: Any) -> str:
    """The journey's lines in ``hexlog state`` (after ``commands``, if any, which roll no dice)."""
    for command in commands:
        trip.run(command)
    table = trip.h.load(CAMPAIGN)
    return "\n".join(render.procedure_lines("travel", table.procedures["travel"], table))


def _rests(events: list[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, ev.Rested | ev.ExhaustionChanged)]


def test_a_rest_day_whose_check_meets_a_pursuit_is_no_rest() -> None:
    """The party flees a hex from pursuers no faster and escapes: half a day's rest after it, a full day's not. The
    day ends with no rest recorded; Al and Bo stay exhausted, and their travel days stand."""
    trip = _tired()
    resting = _state(trip, t.RestDay(weather="clear"))
    assert "a day of rest: no travel today; its rest is recorded at the day's end" in resting
    events = _pursued(trip, begun=True)
    events += trip.run(p.Flee(), SOUTH)
    events += trip.run(p.Rest(), 1)
    assert "no rest: a delve, a pursuit or a chase went on in it (A28)" in _state(trip)
    ended = trip.run(t.EndDay())
    assert [e.days for e in events if isinstance(e, pu_ev.PursuitRested)] == [0.5]
    assert _rests(events + ended) == []
    assert trip.state.members == {"Al": TIRED, "Bo": TIRED}
    assert trip.state.rest_credit == 0.5


def test_the_rest_after_an_escape_of_a_full_day_is_the_day_s_one_rest() -> None:
    """Faster pursuers, missed twice: the party flees two hexes and rests a full day after its escape (A28), which
    clears its exhaustion; the rest day's end records no second rest."""
    trip = _tired(slow=True)
    events = _pursued(trip)
    for command, faces in (
        (p.Flee(), (SOUTH,)),
        (p.Catch(), (4,)),
        (p.RollEvasion(), (99,)),
        (p.Flee(), (SOUTH,)),
        (p.Catch(), (4,)),
        (p.RollEvasion(), (1,)),
        (p.Rest(), (1, 1)),
    ):
        events += trip.run(command, *faces)
    ended = trip.run(t.EndDay())
    assert [e.days for e in events if isinstance(e, pu_ev.PursuitRested)] == [1.0]
    assert [
        (type(e).__name__, getattr(e, "day", None)) for e in _rests(events + ended) if isinstance(e, ev.Rested)
    ] == [("Rested", 3)]
    assert _rests(ended) == []
    assert trip.state.members == {"Al": Member(), "Bo": Member()}


def test_a_rest_day_met_by_an_encounter_alone_rests_at_its_end() -> None:
    """An encounter that ends without a pursuit does not break the rest: the day's end records it, after the day's
    end and before the clock runs on."""
    trip = _tired()
    trip.run(t.RestDay(weather="clear"))
    trip.run(t.CheckWandering(), 6)
    trip.run(enc.CancelEncounter(reason="the wanderers pass by"))
    ended = trip.run(t.EndDay())
    kinds = [type(e) for e in ended]
    assert kinds.index(ev.DayEnded) < kinds.index(ev.ExhaustionChanged) < kinds.index(ev.Rested)
    assert [e.day for e in ended if isinstance(e, ev.Rested)] == [3]
    assert trip.state.members == {"Al": Member(), "Bo": Member()}


@pytest.fixture
def _drawn_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """The secret a session draws, fixed: the audit of its committed dice can say VERIFIED."""
    monkeypatch.setattr(hexlog_campaign, "secrets", SimpleNamespace(token_bytes=lambda n: bytes(range(n))))


def _rest_days(trip: Trip) -> None:
    """Two rest days to their ends on committed dice (any wanderers met sent away), then the journey's end."""
    for _ in range(2):
        trip.rest()
    trip.run(t.EndJourney())
    trip.run(c.CloseSession())


def _day_versions(trip: Trip) -> list[tuple[int, bool]]:
    records = trip.h.store.read_stream(stream_for(CAMPAIGN))
    return [(r.envelope.schemaversion, r.envelope.data["rest"]) for r in records if r.envelope.type == DAY_STARTED]


DAY_STARTED = "hexlog.travel.day_started"


@pytest.mark.usefixtures("_drawn_secret")
def test_rest_days_resting_at_their_end_audit_verified() -> None:
    trip = _tired(dice=True)
    _rest_days(trip)
    assert _day_versions(trip)[-2:] == [(6, True), (6, True)]
    report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
    assert report.findings == (), report.text()
    assert report.verdict is Verdict.VERIFIED


@pytest.mark.usefixtures("_drawn_secret")
def test_a_version_5_rest_day_audits_verified_as_release_33_made_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Release 33 recorded a rest day's rest as the day started: re-run so, its log audits clean."""
    with monkeypatch.context() as old:
        old.setattr(releases, "CURRENT", 33)
        old.setattr(ev.DayStarted, "schema_version", 5)
        old.setattr(t, "RESTED_AT_START", (*t.RESTED_AT_START, t.RestDay))
        trip = _tired(dice=True)
        started = trip.run(t.RestDay())
        assert [e.day for e in started if isinstance(e, ev.Rested)] == [3]  # at once, as release 33 rested
        trip.day_s_end()
        trip.rest()
        trip.run(t.EndJourney())
        trip.run(c.CloseSession())
    assert _day_versions(trip)[-2:] == [(5, True), (5, True)]
    report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
    assert report.findings == (), report.text()
    assert report.verdict is Verdict.VERIFIED


@pytest.mark.usefixtures("_drawn_secret")
def test_a_version_6_rest_day_rested_at_its_start_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hexlog patched to rest as release 33 did, writing version 6: the rest recorded as the day started, which
    the audit re-running it under today's rules names."""
    with monkeypatch.context() as forged:
        forged.setattr(t, "RESTED_AT_START", (*t.RESTED_AT_START, t.RestDay))
        trip = _tired(dice=True)
        _rest_days(trip)
    assert _day_versions(trip)[-2:] == [(6, True), (6, True)]
    report = audit_store(trip.h.store, CAMPAIGN, REGISTRY)
    assert report.verdict is not Verdict.VERIFIED
    assert "travel.exhaustion_changed" in report.text() or "travel.rested" in report.text()


def test_the_audits_rest_day_rested_at_start_is_refused_to_the_referee() -> None:
    trip = _tired()
    with pytest.raises(RuleRefusedError, match="audit"):
        trip.run(t.RestDayRestedAtStart(weather="clear"))
