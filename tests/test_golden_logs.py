"""Whole logs written by released hexlog still import, audit, replay and re-export byte for byte.

``tests/golden/logs/`` holds exports made by hexlog 0.1.0 (one campaign per ruleset, the demo, and a
campaign that changes rules, abandons a session and rolls in secret). They are never edited: a change
that stops one of them from importing, auditing clean or exporting the same bytes breaks a user's log.

``house_rules_*`` were played under house rules 0.1.0 accepted and this release refuses for new play:
distances in ``m``, ``fathoms`` and ``leagues``, distance multipliers of 0 and 20,000, reaction bands of
the house's own (``wary``, ``curious``) and armor of its own kinds (``elven``, ``mithral``). Their events
hold those values as written (the open fields of ``hexlog.events.vocabulary``), and the audit re-derives
their decisions by the rules as recorded (``Ruleset.as_recorded``). They were written by the 0.1.0 command
line (commit 209cf87) in its own virtual environment: ``house_rules_ose`` plays OSE with such tables, then
changes to explore with more; ``house_rules_adnd`` plays AD&D indoors and outdoors, with a rules change.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hexlog.events import encounter as ev
from hexlog.events.codec import decode
from hexlog.events.memory import MemoryStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.machine.table import Table
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import projections, replay

LOGS = Path(__file__).resolve().parent / "golden" / "logs"
#: what the audit of each log re-derived: (events, sessions, rolls, rolls verified, decisions)
COUNTS = {
    "adnd_indoors": (92, 1, 18, 18, 16),
    "adnd_outdoors": (129, 1, 26, 26, 24),
    "demo_ose": (58, 1, 12, 12, 9),
    "explore": (93, 1, 19, 19, 15),
    "house_rules_adnd": (97, 1, 20, 20, 17),
    "house_rules_ose": (167, 2, 35, 35, 30),
    "mixed": (79, 3, 14, 11, 8),
    "ose": (80, 1, 14, 14, 14),
}


#: what each house-rules log holds that this release writes no more: units, reaction bands, distance rules
HOUSE_VALUES = {
    "house_rules_adnd": ({"m"}, {"wary"}, {"adnd.outdoors 6d4x20000ft", "adnd.outdoors 18d4x0ft"}),
    "house_rules_ose": (
        {"m", "fathoms", "leagues"},
        {"wary"},
        {"ose.dungeon 2d6x3m", "ose.waterborne 4d6x0fathoms", "explore.dungeon 2d4x20000m"},
    ),
}


def _logs() -> list[Path]:
    return sorted(LOGS.glob("*.jsonl"))


def test_every_golden_log_has_its_expected_counts():
    """The list of golden logs and the table of their counts name the same files."""
    assert {p.stem for p in _logs()} == set(COUNTS)


@pytest.mark.parametrize("path", _logs(), ids=lambda p: p.stem)
class TestGoldenLog:
    def test_it_audits_clean_with_every_roll_and_decision_re_derived(self, path: Path):
        """The audit of the file finds nothing wrong and re-derives what it did when it was written."""
        report = audit_envelopes(read_export(path.read_bytes().split(b"\n")))
        assert report.findings == ()
        found = (report.events, report.sessions, report.rolls, report.rolls_verified, report.decisions)
        assert found == COUNTS[path.stem]

    @pytest.mark.parametrize("backend", ["memory", "sqlite"])
    def test_it_imports_replays_and_exports_the_same_bytes(self, path: Path, backend: str, tmp_path: Path):
        """Imported into a store, the log replays to matching projections and exports byte for byte."""
        store = MemoryStore() if backend == "memory" else SQLiteStore(tmp_path / "golden.db")
        envelopes = read_export(path.read_bytes().split(b"\n"))
        result = import_envelopes(store, envelopes)
        assert audit_store(store, result.campaign).findings == ()
        assert replay(store, result.campaign).table.version == len(envelopes)
        exported = "".join(line + "\n" for line in export_lines(store, result.campaign))
        assert exported.encode("utf-8") == path.read_bytes()


@pytest.mark.parametrize("path", _logs(), ids=lambda p: p.stem)
@pytest.mark.parametrize("size", [1, 2, 7, 500])
def test_folding_runs_of_a_log_at_once_gives_the_state_of_folding_it_event_by_event(path: Path, size: int):
    """Each projection folded ``size`` events at a time (``evolve_all``, as a replay folds) equals the same fold
    event by event after every run, down to the order of the procedures under way."""
    events = [decode(e) for e in read_export(path.read_bytes().split(b"\n"))]
    for projection in projections():
        one_by_one = projection.initial()
        at_once = projection.initial()
        for at in range(0, len(events), size):
            run = events[at : at + size]
            for event in run:
                one_by_one = projection.evolve(one_by_one, event)
            at_once = projection.evolve_all(at_once, run)
            assert at_once == one_by_one
            if isinstance(at_once, Table):
                assert list(at_once.procedures) == list(one_by_one.procedures)


@pytest.mark.parametrize("name", sorted(HOUSE_VALUES))
def test_a_house_rules_log_keeps_the_values_its_rules_gave_as_written(name: str):
    """Units and reaction bands outside today's words decode as the strings written; the odd multipliers were rolled."""
    events = [decode(e) for e in read_export((LOGS / f"{name}.jsonl").read_bytes().split(b"\n"))]
    units = {e.unit for e in events if isinstance(e, ev.DistanceDetermined) and e.unit not in set(ev.Unit)}
    results = {e.result for e in events if isinstance(e, ev.ReactionRolled) and e.result not in set(ev.ReactionResult)}
    rules = {e.rule.split(" (")[0] for e in events if isinstance(e, ev.DistanceDetermined)}
    units_wanted, results_wanted, rules_wanted = HOUSE_VALUES[name]
    assert (units, results) == (units_wanted, results_wanted)
    assert rules_wanted <= rules
    assert all(type(value) is str for value in units | results)


@pytest.mark.parametrize("name", sorted(HOUSE_VALUES))
def test_the_command_line_shows_and_checks_a_house_rules_log(name: str, hexlog):
    """Imported, it shows its state and timeline (the distances in their recorded units), replays and audits."""
    imported = hexlog("import", str(LOGS / f"{name}.jsonl"))
    assert imported.returncode == 0, imported.stderr
    for args in (("state",), ("log",), ("log", "--view", "player"), ("replay",), ("audit",)):
        shown = hexlog(*args)
        assert shown.returncode in {0, 3}, (args, shown.stderr)  # 3: INCOMPLETE (0.1.0 took no client seed)
        assert "Traceback" not in shown.stderr
        assert "FAILED" not in shown.stdout
    timeline = hexlog("log").stdout
    assert " m by " in timeline
    assert "-> Wary" in timeline  # the house band said once, in the house rules' words


def test_a_process_that_imports_only_rebuild_knows_every_procedure(tmp_path: Path):
    """Nothing registers by import side effect: importing only ``hexlog.replay.rebuild`` rebuilds the encounter."""
    script = tmp_path / "only_rebuild.py"
    script.write_text(
        "import json, sys\n"
        "from hexlog.events.memory import MemoryStore\n"
        "from hexlog.events.store import NewEvent\n"
        "from hexlog.replay.rebuild import replay\n"
        "lines = [json.loads(x) for x in open(sys.argv[1], encoding='utf-8') if x.strip()]\n"
        "store = MemoryStore()\n"
        "new = [NewEvent(id=e['id'], source=e['source'], type=e['type'], time=e['time'],\n"
        "                schemaversion=e['schemaversion'], data=e['data']) for e in lines]\n"
        "store.append(lines[0]['subject'], new, expected_version=0)\n"
        "table = replay(store, lines[0]['source'].removeprefix('hexlog:')).table\n"
        "print(sorted(table.procedures), table.procedures['encounter'].phase.name)\n",
        encoding="utf-8",
    )
    result = subprocess.run(  # noqa: S603 - our own script
        [sys.executable, str(script), str(LOGS / "demo_ose.jsonl")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['encounter'] CONCLUDED"
