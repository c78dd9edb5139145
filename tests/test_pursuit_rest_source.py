"""The rest after a pursuit's escape off the map reads the encounter chances of its terrain under the source in force.

Under ``lost_encounter_source = dolmenwood`` the lost and encounter table's rows are difficulties (light, moderate,
difficult), while a pursuit off the map records its terrain as an OD&D row: the rest looked that row up by name and
found no chances, so a party never met anything while it rested (``hexlog simulate pursuit`` measured 0 encounters in
every trial). Since ``pursuit.rested`` version 3 it reads the row its terrain reads there, as a hex of that terrain
does on the map. ``tests/golden/resting-dolmenwood-v2.jsonl`` was written before: its rest rolled no die, and it audits
clean, the rest re-run as its release made it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hexlog.events import pursuit as ev
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as p
from hexlog.machine.registry import REGISTRY
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, read_export
from hexlog.service import simulation as sim

DOLMENWOOD = {"options": {"lost_encounter_source": "dolmenwood"}}
RESTING_V2 = Path(__file__).resolve().parent / "golden" / "resting-dolmenwood-v2.jsonl"
CAMPAIGN = "dolmen"


def _escaped(terrain: str, secret: int) -> tuple[Handler, ev.PursuitRested | None]:
    """A pursuit off the map under Dolmenwood's chances, played to its end on the dice of ``secret``."""
    handler = Handler(MemoryStore(), MemoryKeeper())
    for command in (
        c.StartCampaign(ruleset="explore", overrides=DOLMENWOOD),
        c.OpenSession(secret_hex=f"{secret:064x}"),
        c.AddMember(name="Ann"),
        c.AddMember(name="Bo"),
        p.StartPursuit(terrain=terrain),
    ):
        handler.execute(CAMPAIGN, command)
    rested = None
    for _ in range(50):
        table = handler.load(CAMPAIGN)
        state = table.procedures["pursuit"]
        if state.phase.name in {"CAUGHT", "ESCAPED"} or table.handoffs:
            break
        allowed = {trigger for trigger, _ in REGISTRY.runner("pursuit").allowed(state, table)}
        step = next(step for trigger, step in sim.PURSUIT_STEPS.items() if trigger in allowed)
        for event in handler.execute(CAMPAIGN, step).events:
            rested = event if isinstance(event, ev.PursuitRested) else rested
    return handler, rested


@pytest.mark.parametrize(("terrain", "chances"), [("clear", (1,)), ("woods", (1,)), ("swamp", (1, 2, 3))])
def test_a_rest_off_the_map_under_dolmenwood_reads_the_chances_of_its_terrain(
    terrain: str, chances: tuple[int, ...]
) -> None:
    """An OD&D row reads as a hex of that terrain does under Dolmenwood: woods and clear are light ground (1-in-6),
    a swamp difficult (3-in-6). The rest rolls a die per half day on them, and the log audits clean."""
    rests = [rested for secret in range(40) if (rested := _escaped(terrain, secret)[1]) is not None and rested.days]
    assert rests
    for rested in rests:
        assert rested.encounter_on == chances
        assert len(rested.faces) == len(rested.rolls) > 0
        assert rested.encounters == sum(face in chances for face in rested.faces)
    handler, _ = _escaped(terrain, 0)
    report = audit_envelopes(read_export(list(export_lines(handler.store, CAMPAIGN))))
    assert report.findings == (), report.text()


def test_simulate_pursuit_under_dolmenwood_meets_encounters_while_resting() -> None:
    """``hexlog simulate pursuit --option lost_encounter_source=dolmenwood`` measured no encounter while resting in
    any trial: a rest of one half day off the map meets one on a 1 (light ground), about one in six."""
    question = sim.Question(scenario="pursuit", situation=sim.Chase(), ruleset="explore", overrides=DOLMENWOOD)
    outcomes = sim.simulate(question, 300)
    rests = [o for o in outcomes if o["rest owed (half-days)"] == 1]
    met = sum(bool(o["encounters while resting"]) for o in rests)
    assert len(rests) > 60
    assert 0.05 < met / len(rests) < 0.35


def test_a_log_whose_rest_found_no_chances_under_dolmenwood_audits_clean() -> None:
    """Written before ``pursuit.rested`` version 3: its rest off the map rolled nothing; re-run as its release made it,
    the log audits clean, and a rest of today on the same dice would have rolled."""
    lines = RESTING_V2.read_text(encoding="utf-8").splitlines()
    (rested,) = [json.loads(line) for line in lines if '"hexlog.pursuit.rested"' in line]
    assert rested["schemaversion"] == 2
    assert (rested["data"]["encounter_on"], rested["data"]["days"]) == ([], 0.5)
    report = audit_envelopes(read_export(lines))
    assert report.findings == (), report.text()
    assert report.ok


def test_the_audits_rest_by_name_is_refused_to_the_referee() -> None:
    handler, _ = _escaped("clear", 0)
    with pytest.raises(RuleRefusedError, match="audit"):
        handler.execute(CAMPAIGN, p.RestByName())
