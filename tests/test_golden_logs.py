"""Whole logs written by released hexlog still import, audit, replay and re-export byte for byte.

``tests/golden/logs/`` holds exports made by hexlog 0.1.0 (one campaign per ruleset, the demo, and a
campaign that changes rules, abandons a session and rolls in secret). They are never edited: a change
that stops one of them from importing, auditing clean or exporting the same bytes breaks a user's log.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hexlog.events.memory import MemoryStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay

LOGS = Path(__file__).resolve().parent / "golden" / "logs"
#: what the audit of each log re-derived: (events, sessions, rolls, rolls verified, decisions)
COUNTS = {
    "adnd_indoors": (92, 1, 18, 18, 16),
    "adnd_outdoors": (129, 1, 26, 26, 24),
    "demo_ose": (58, 1, 12, 12, 9),
    "explore": (93, 1, 19, 19, 15),
    "mixed": (79, 3, 14, 11, 8),
    "ose": (80, 1, 14, 14, 14),
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
