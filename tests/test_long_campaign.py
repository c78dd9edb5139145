"""A long campaign on committed dice: 60 travel days (camps each night, rest days as owed) and 200
dungeon turns in delves, every encounter played to its end; it replays and audits clean, exports and
re-imports byte for byte, and its live projections equal a fresh fold of the log."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest

from hexlog.events import camp, dungeon, encounter, travel
from hexlog.events.codec import decode
from hexlog.events.memory import MemoryStore
from hexlog.events.streams import stream_for
from hexlog.machine import campaign as hexlog_campaign
from hexlog.machine import commands as c
from hexlog.machine import table as tables
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.replay.audit import audit_store
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.replay.verdict import Verdict

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from campaign_driver import CAMPAIGN, SECRET, Campaign

if TYPE_CHECKING:
    from hexlog.events.base import Event

DAYS, TURNS = 60, 200


class Played:
    """The campaign played once for every test here."""

    def __init__(self) -> None:
        self.handler = Handler(MemoryStore(), MemoryKeeper())
        self.campaign = Campaign(self.handler)
        with pytest.MonkeyPatch.context() as patch:  # hexlog draws the secret (so the audit is VERIFIED), a fixed one
            patch.setattr(hexlog_campaign, "secrets", SimpleNamespace(token_bytes=lambda n: bytes.fromhex(SECRET)[:n]))
            self.campaign.set_up(secret_hex=None)
        self.campaign.play(DAYS, TURNS)
        self.campaign.reveal_map()
        self.handler.execute(CAMPAIGN, c.CloseSession())
        self.events: list[Event] = [decode(r.envelope) for r in self.handler.store.read_stream(stream_for(CAMPAIGN))]

    def count(self, kind: type[Event]) -> int:
        return sum(1 for e in self.events if isinstance(e, kind))


@pytest.fixture(scope="module")
def played() -> Played:
    return Played()


def test_the_campaign_is_played_to_its_length(played: Played) -> None:
    """60 travel days, the rest days they owe, 200 dungeon turns, camps, encounters met and concluded."""
    run = played.campaign
    assert (run.days, run.turns) == (DAYS, TURNS)
    assert run.rest_days >= DAYS // 7
    assert played.count(travel.DayStarted) == DAYS + run.rest_days  # a rest day rolls its weather first too
    assert sum(1 for e in played.events if isinstance(e, travel.DayStarted) and e.rest) == run.rest_days
    assert played.count(travel.Rested) == run.rest_days
    assert played.count(camp.CampBroken) == DAYS
    assert played.count(dungeon.DelveEntered) == run.delves == played.count(dungeon.DelveLeft) >= TURNS // 25
    moves = played.count(dungeon.PartyMoved)
    assert moves + played.count(dungeon.PartyRested) + played.count(dungeon.SecretDoorSearched) == TURNS
    # explore: each turn of searching rolled one secret die, for the party, whoever searched (§4.2)
    searches = [e for e in played.events if isinstance(e, dungeon.SecretDoorSearched)]
    assert searches
    assert all(e.party_die and len(e.faces) == len(e.referee_rolls) == 1 for e in searches)
    started = played.count(encounter.EncounterStarted)
    assert started == run.encounters == played.count(encounter.EncounterConcluded) > DAYS // 6
    table = played.handler.load(CAMPAIGN)
    assert table.handoffs == ()
    assert max(m.exhaustion for m in table.procedures["travel"].members.values()) <= 1


def test_replay_finds_no_difference(played: Played) -> None:
    report = replay(played.handler.store, CAMPAIGN, REGISTRY)
    assert report.ok, report.text()


def test_the_audit_verifies_every_roll_and_decision(played: Played) -> None:
    report = audit_store(played.handler.store, CAMPAIGN, REGISTRY)
    assert report.verdict is Verdict.VERIFIED, report.text()
    assert report.rolls == report.rolls_verified > 0
    found = check_decision_events(played.events)
    assert found.issues == ()
    assert report.decisions >= found.checked > DAYS * 3


def test_export_and_import_are_byte_identical(played: Played) -> None:
    lines = list(export_lines(played.handler.store, CAMPAIGN))
    copy = MemoryStore()
    result = import_envelopes(copy, read_export(lines))
    assert result.events == len(played.events)
    assert "\n".join(export_lines(copy, CAMPAIGN)).encode() == "\n".join(lines).encode()


def _seen(table: tables.Table) -> dict[str, Any]:
    trip = table.procedures["travel"]
    return {
        "clock": table.clock,
        "exhaustion": dict(trip.members),
        "where": (trip.hex, trip.believed, trip.day),
        "party": table.party,
    }


def test_the_clock_exhaustion_and_place_equal_a_fresh_fold(played: Played) -> None:
    """The long-lived handler's table, a new handler's (from the stored rows) and a fold of the log agree."""
    folded = tables.fold(played.events, REGISTRY, version=len(played.events))
    live = played.handler.load(CAMPAIGN)
    cold = Handler(played.handler.store, MemoryKeeper()).load(CAMPAIGN)
    assert _seen(live) == _seen(folded) == _seen(cold)
    assert live == folded == cold
    assert folded.clock.seconds >= (DAYS + played.campaign.rest_days) * 86400


@pytest.mark.parametrize("size", [2, 7, 500])
def test_folding_runs_at_once_gives_the_table_of_folding_event_by_event(played: Played, size: int) -> None:
    """The table folded ``size`` events at a time (``evolve_all``, as a replay folds it) equals the table folded
    event by event after every run, down to the order of the procedures under way (begun in runs of their own)."""
    one_by_one = at_once = tables.Table()
    for at in range(0, len(played.events), size):
        run = played.events[at : at + size]
        for event in run:
            one_by_one = tables.evolve(one_by_one, event, REGISTRY)
        at_once = tables.evolve_all(at_once, run, REGISTRY)
        assert at_once == one_by_one
        assert list(at_once.procedures) == list(one_by_one.procedures)
    assert list(at_once.procedures) != sorted(at_once.procedures, key=[p.name for p in REGISTRY.procedures].index)
