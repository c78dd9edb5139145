"""An export whose number is too large for a float (``1e400`` reads as an infinity, which no JSON may hold) is not
imported: hexlog could not write it again, and its own export would then not import. An audit of a file that holds
no events says there is nothing to audit, never VERIFIED."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


def test_an_export_holding_1e400_is_refused_naming_the_number_and_nothing_is_imported(hexlog, tmp_path: Path) -> None:
    assert hexlog("init", "--ruleset", "explore").returncode == 0
    exported = hexlog("export")
    assert exported.returncode == 0, exported.stderr
    first, *rest = exported.stdout.splitlines(keepends=True)
    assert '"streamversion":1,' in first.replace(" ", "")
    (tmp_path / "huge.jsonl").write_text(
        first.replace('"streamversion": 1,', '"streamversion": 1e400,') + "".join(rest)
    )
    done = hexlog("import", "huge.jsonl", "--db", "new.db")
    assert done.returncode == 2, done.stderr
    assert "the number 1e400 is too large to keep (it reads as an infinity)" in done.stderr
    assert not (tmp_path / "new.db").exists()
    audited = hexlog("audit", "--file", "huge.jsonl")
    assert audited.returncode == 2
    assert "1e400" in audited.stderr


def test_the_audit_of_a_file_without_events_says_there_is_nothing_to_audit(hexlog, tmp_path: Path) -> None:
    with closing(sqlite3.connect(tmp_path / "empty.db")) as conn:
        conn.execute("SELECT 1")
    done = hexlog("audit", "--db", "empty.db")
    assert done.returncode == 2, done.stdout
    assert "empty.db holds no events: there is nothing to audit" in done.stderr
    assert "VERIFIED" not in done.stdout
