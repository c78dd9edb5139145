"""A database damaged by its owner (a column holding a value of the wrong kind, a table dropped) or an export naming a
campaign no command could name: each gets one line naming the problem, never an internal error, and nothing written."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from typing import TYPE_CHECKING

import pytest

from .conftest import run_hexlog
from .test_attacks import read_export, reseal, tamper, write_export

if TYPE_CHECKING:
    from pathlib import Path

#: exit codes: refused, and a bug in hexlog
REFUSED, INTERNAL = 1, 70
READS = (("state",), ("log",), ("replay",), ("export",), ("clock", "show"))


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """A folder whose hexlog.db holds a campaign with a closed session of rolls and an open one."""
    for args in (
        ("init",),
        ("session", "open"),
        ("roll", "1d6"),
        ("roll", "2d6", "--secret"),
        ("session", "close"),
        ("session", "open"),
        ("roll", "1d8"),
    ):
        done = run_hexlog(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    return tmp_path


def _events(db: Path) -> int:
    with closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("UPDATE events SET schema_version = 'abc' WHERE stream_version = 4", "schema version must be a whole number"),
        ("UPDATE events SET stream_version = 'x' WHERE stream_version = 4", "stream version that is no number: 'x'"),
    ],
    ids=["schema-version", "stream-version"],
)
def test_a_column_holding_text_where_a_number_belongs_is_named(played: Path, sql: str, words: str) -> None:
    tamper(played / "hexlog.db", sql)
    for args in (("log",), ("replay",), ("export",)):
        done = run_hexlog(*args, cwd=played)
        assert done.returncode == REFUSED, (args, done.stdout, done.stderr)
        assert words in done.stderr
        assert "internal error" not in done.stderr


def test_a_database_that_lost_its_saved_rows_and_commands_is_read_and_written_again(played: Path) -> None:
    """The saved rows are a cache of the events and the commands table a record of retries: without them the
    state is rebuilt from the events, and the next command writes both tables anew."""
    db = played / "hexlog.db"
    shown = (("state",), ("log",), ("clock", "show"))
    before = {args: run_hexlog(*args, cwd=played).stdout for args in shown}
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP TABLE projection_rows")
        conn.execute("DROP TABLE commands")
    for args in READS:
        done = run_hexlog(*args, cwd=played)
        assert done.returncode == 0, (args, done.stderr)
        if args in before:
            assert done.stdout == before[args]
    count = _events(db)
    rolled = run_hexlog("roll", "1d4", cwd=played)
    assert rolled.returncode == 0, rolled.stderr
    assert _events(db) == count + 1
    assert run_hexlog("audit", cwd=played).returncode in {0, 3}  # VERIFIED but for the open session


@pytest.mark.parametrize("campaign", ["../x", "x y", 'a"b', "a" * 65, "Dé"])
def test_an_export_naming_a_campaign_no_command_could_name_is_not_imported(
    played: Path, tmp_path: Path, campaign: str
) -> None:
    exported = played / "main.jsonl"
    assert run_hexlog("export", "--out", str(exported), cwd=played).returncode == 0
    events = read_export(exported)
    renamed = [e | {"subject": f"campaign-{campaign}", "source": f"hexlog:{campaign}"} for e in events]
    for event in renamed:
        if event["type"] == "hexlog.campaign.started":
            event["data"] = event["data"] | {"campaign": campaign}
    forged = tmp_path / "forged.jsonl"
    write_export(forged, reseal(renamed))
    done = run_hexlog("--db", str(tmp_path / "new.db"), "import", str(forged), cwd=tmp_path)
    assert done.returncode == REFUSED, done.stdout
    assert "subject 'campaign-" in done.stderr
    assert "must be 1 to 64 letters" in done.stderr
    assert not (tmp_path / "new.db").exists() or _events(tmp_path / "new.db") == 0


@pytest.mark.parametrize(
    ("args", "version"),
    [(("receipt",), 7), (("export", "--referee", "--out", "copy.jsonl"), 7), (("export", "--referee"), 3)],
    ids=["receipt", "export-tail", "export-middle"],
)
def test_a_receipt_or_an_export_of_a_damaged_log_warns(played: Path, args: tuple[str, ...], version: int) -> None:
    """Handed out of a log whose event does not match its hash (the last one; for an export, one in the middle too),
    a receipt or an export says so on standard error: the export would not import or verify."""
    forged = {
        3: "UPDATE events SET data = replace(data, 'free roll', 'forged') WHERE stream_version = 3",
        7: "UPDATE events SET data = replace(data, 'free roll', 'forged') WHERE stream_version = 7",
    }
    tamper(played / "hexlog.db", forged[version])
    done = run_hexlog(*args, cwd=played)
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if line.startswith("hexlog: warning: ")]
    assert len(warned) == 1, done.stderr
    assert "the log of campaign main is damaged" in warned[0]
    assert f"version {version}" in warned[0]
    assert warned[0].endswith("run 'hexlog audit'")
