"""The rest after an escape off the map reads the row of the ground the pursuit was given, where the source of chances
rates ground so.

A pursuit off the map records its terrain as an OD&D row (``pursuit start --terrain tangled_forest``: woods), which its
evasion and catch read. Under ``lost_encounter_source = dolmenwood`` the rest read that row's reading too: woods is
light ground there (1-in-6), where a tangled forest is moderate (2-in-6). Since ``pursuit.started`` version 3 the
pursuit keeps the ground it was given (``ground``), and since ``pursuit.rested`` version 4 the rest reads its row and
records it (``row``). ``tests/golden/resting-tangled-v3.jsonl`` was written before: its rest's die of 2 met nothing on
light ground, and it audits clean, the rest re-run as its release made it.
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
from hexlog.machine.pursuit import steps
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.ruleset import load
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, read_export
from hexlog.service.render import describe

DOLMENWOOD = {"options": {"lost_encounter_source": "dolmenwood"}}
RESTING_V3 = Path(__file__).resolve().parent / "golden" / "resting-tangled-v3.jsonl"
CAMPAIGN = "tangle"


def _rested(terrain: str, overrides: dict) -> tuple[Handler, list[object]]:
    """A pursuit off the map on ``terrain`` by 2 pursuers at 240: the evasion fails (d100 99), the party flees a hex
    (d6 4), the catch misses (d4 4 in woods), the evasion passes (d100 01); the rest's half day rolls a 2."""
    script: list[int] = []
    handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(script))
    for command in (
        c.StartCampaign(ruleset="explore", overrides=overrides),
        c.OpenSession(secret_hex="5a" * 32),
        c.AddMember(name="Ann"),
        c.AddMember(name="Bo"),
    ):
        handler.execute(CAMPAIGN, command)
    out: list[object] = list(
        handler.execute(CAMPAIGN, p.StartPursuit(terrain=terrain, pursuers=2, pursuers_speed=240)).events
    )
    for command, faces in (
        (p.RollEvasion(), [99]),
        (p.Flee(), [4]),
        (p.Catch(), [4]),
        (p.RollEvasion(), [1]),
        (p.Rest(), [2]),
    ):
        script[:] = faces
        out += handler.execute(CAMPAIGN, command).events
        assert script == [], type(command).__name__
    return handler, out


def test_a_tangled_forest_rests_as_moderate_ground_under_dolmenwood() -> None:
    handler, out = _rested("tangled_forest", DOLMENWOOD)
    (started,) = [e for e in out if isinstance(e, ev.PursuitStarted)]
    assert (started.terrain, started.ground) == ("woods", "tangled_forest")
    (rested,) = [e for e in out if isinstance(e, ev.PursuitRested)]
    assert (rested.terrain, rested.row, rested.encounter_on) == ("woods", "moderate", (1, 2))
    assert (rested.faces, rested.encounters) == ((2,), 1)
    assert "encounter on 1,2 (moderate): d6 2" in describe(rested)
    report = audit_envelopes(read_export(list(export_lines(handler.store, CAMPAIGN))))
    assert report.findings == (), report.text()


def test_under_odd_p18_it_reads_woods_as_ever() -> None:
    _, out = _rested("tangled_forest", {})
    (rested,) = [e for e in out if isinstance(e, ev.PursuitRested)]
    assert (rested.row, rested.encounter_on, rested.encounters) == ("woods", (5, 6), 0)


def test_a_terrain_that_is_its_own_row_keeps_no_ground() -> None:
    rules = load("explore")
    assert steps.ground_given(rules, "woods") == ""
    assert steps.ground_given(rules, "") == ""
    assert steps.ground_given(rules, "Tangled_Forest") == "tangled_forest"


def test_a_log_whose_tangled_forest_rested_as_woods_audits_clean() -> None:
    """Written by the release before ``pursuit.rested`` version 4: its rest read light ground (1-in-6) and met nothing
    on a 2; re-run as its release made it, the log audits clean."""
    lines = RESTING_V3.read_text(encoding="utf-8").splitlines()
    (rested,) = [json.loads(line) for line in lines if '"hexlog.pursuit.rested"' in line]
    assert rested["schemaversion"] == 3
    assert (rested["data"]["encounter_on"], rested["data"]["faces"], rested["data"]["encounters"]) == ([1], [2], 0)
    report = audit_envelopes(read_export(lines))
    assert report.findings == (), report.text()
    assert report.ok


def test_the_audits_rest_by_row_is_refused_to_the_referee() -> None:
    handler, _ = _rested("woods", DOLMENWOOD)
    with pytest.raises(RuleRefusedError, match="audit"):
        handler.execute(CAMPAIGN, p.RestByRow())
