"""A delve's encounter ended in pursuit as releases before ``encounter.pursuit_decided`` version 2 recorded it.

Those releases concluded the encounter in pursuit (its turn passing first, with what falls due in it), and the delve
resumed into its chase phase and handed the chase on; a party caught went back to exploring, and the referee met its
pursuers again with ``dungeon meet``. ``tests/golden/dungeon-pursuit-v1.jsonl`` was written by hexlog at 75a9cb9 under
explore, with a drawn secret and the players' seed: a party of two in a delve flees ghouls that catch it (met again and
fought), kobolds that pursue on their reaction and lose it out of sight, zombies it outruns at once, and rats that let
it go (the torch burning out in that encounter's turn); then it leaves. It still audits VERIFIED, each pursuit decision
re-run as its release made it (``DecidePursuitBeforeHandOff``, the audit's own command), and exports byte for byte.
``tests/golden/water-pursuit-v1.jsonl``, by the same release, holds two flights on water whose encounter handed the
chase on water off itself (as it still does): re-run the same way, its hand-offs hold too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hexlog.events import encounter as ev
from hexlog.events.chase import ChaseEnded
from hexlog.events.codec import decode
from hexlog.events.errors import IllegalTransitionError, RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff, PhaseChanged
from hexlog.machine import chase as ch
from hexlog.machine import dungeon as dg
from hexlog.machine.encounter import commands as enc
from hexlog.machine.encounter.inverse import command_before
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.replay.verdict import Verdict

from .test_chase_machine import delve_to_pursuit

GOLDEN = Path(__file__).resolve().parent / "golden"
V1_LOG = GOLDEN / "dungeon-pursuit-v1.jsonl"
WATER_LOG = GOLDEN / "water-pursuit-v1.jsonl"


def lines() -> list[str]:
    return V1_LOG.read_text(encoding="utf-8").splitlines()


def test_its_encounters_concluded_in_pursuit_and_the_delve_handed_the_chases_on() -> None:
    events = [decode(e) for e in read_export(lines())]
    outcomes = [e.outcome for e in events if isinstance(e, ev.EncounterConcluded)]
    assert outcomes == ["pursuit", "ghouls slain", "parley", "pursuit", "pursuit", "evaded"]
    assert sum(e == HandedOff(parent="dungeon", child="chase") for e in events) == 3
    assert HandedOff(parent="encounter", child="chase") not in events


def test_its_pursuit_decisions_are_re_run_as_their_release_made_them() -> None:
    decided = [env for env in read_export(lines()) if env.type == "hexlog.encounter.pursuit_decided"]
    assert [env.schemaversion for env in decided] == [1, 1, 1, 1]
    first = decode(decided[0])
    assert command_before(first, 1) == enc.DecidePursuitBeforeHandOff(pursue=True)
    by_reaction = decode(decided[1])
    assert by_reaction.decided_by is ev.DecidedBy.REACTION
    assert command_before(by_reaction, 1) == enc.DecidePursuitBeforeHandOff(pursue=None)
    assert command_before(first, 2) == enc.DecidePursuitBeforeHandOff(pursue=True, delve_hands_off=True)
    assert command_before(first, 3) == enc.DecidePursuit(pursue=True)


@pytest.mark.parametrize(("path", "decisions"), [(V1_LOG, 20), (WATER_LOG, 10)], ids=lambda p: getattr(p, "stem", p))
def test_it_audits_verified(path: Path, decisions: int) -> None:
    report = audit_envelopes(read_export(path.read_text(encoding="utf-8").splitlines()))
    assert report.findings == (), report.text()
    assert report.verdict is Verdict.VERIFIED
    assert report.decisions == decisions


@pytest.mark.parametrize("path", [V1_LOG, WATER_LOG], ids=lambda p: p.stem)
def test_it_imports_replays_and_exports_the_same_bytes(path: Path) -> None:
    store = MemoryStore()
    campaign = import_envelopes(store, read_export(path.read_text(encoding="utf-8").splitlines())).campaign
    assert replay(store, campaign, REGISTRY).ok
    assert "".join(f"{line}\n" for line in export_lines(store, campaign)).encode() == path.read_bytes()


def test_the_flights_on_water_were_handed_off_by_their_encounters() -> None:
    events = [decode(e) for e in read_export(WATER_LOG.read_text(encoding="utf-8").splitlines())]
    assert sum(e == HandedOff(parent="encounter", child="chase") for e in events) == 2


def test_the_old_decision_is_the_audits_alone() -> None:
    t = delve_to_pursuit()
    with pytest.raises(RuleRefusedError, match="is the audit's, re-running a pursuit decision"):
        t.run(enc.DecidePursuitBeforeHandOff(pursue=True))


def test_a_chase_an_earlier_release_left_under_way_that_catches_the_party_meets_its_pursuers_again() -> None:
    """A campaign left mid-chase by that release (its delve in phase CHASE, the encounter concluded in pursuit): the
    catch resumes the delve into a new encounter with the same monsters, both sides aware, which the delve waits for,
    not back to exploring with no fight; the log audits with no finding."""
    store = MemoryStore()
    head = lines()[:33]
    assert '"hexlog.chase.started"' in head[-2]
    campaign = import_envelopes(store, read_export(head)).campaign
    handler = Handler(store, MemoryKeeper(), roller=lambda _table: ScriptedRoller([]))
    assert handler.load(campaign).procedures["dungeon"].phase.name == "CHASE"
    events = list(handler.execute(campaign, ch.Run()).events)
    assert next(e for e in events if isinstance(e, ChaseEnded)).outcome == "caught"
    moved = [(e.trigger, e.source, e.dest) for e in events if isinstance(e, PhaseChanged) and e.procedure == "dungeon"]
    assert moved == [("resume", "CHASE", "ENCOUNTER")]
    assert HandedOff(parent="dungeon", child="encounter") in events
    (met,) = [e for e in events if isinstance(e, ev.EncounterStarted)]
    assert (met.number, met.name, met.monster_count, met.intelligent) == (2, "ghouls", 3, False)
    assert (met.party_aware, met.monsters_aware, met.party_light) == (True, True, True)
    table = handler.load(campaign)
    assert table.handoffs == (("dungeon", "encounter"),)
    with pytest.raises(IllegalTransitionError, match="not allowed in state ENCOUNTER"):
        handler.execute(campaign, dg.Move())
    assert audit_store(store, campaign).findings == ()
