"""The database file through the real command line: a corrupt row, a foreign file, a locked file."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

import pytest

from .conftest import secret_file

if TYPE_CHECKING:
    from pathlib import Path

SECRET = bytes(range(32)).hex()
BUSY = {"HEXLOG_BUSY_TIMEOUT": "0.2"}


def one_line(stderr: str) -> str:
    """The single line a refused command writes, failing the test if there is more or a crash."""
    assert "Traceback" not in stderr
    assert "internal error" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.fixture(scope="module")
def played_once(tmp_path_factory: pytest.TempPathFactory, play_once) -> Path:
    """A campaign with a session, a member and a few rolls, played once per module."""
    folder = tmp_path_factory.mktemp("played")
    script = (
        ("init",),
        ("session", "open", "--secret-file", secret_file(folder, SECRET)),
        ("party", "add", "Ann"),
        ("roll", "2d6"),
        ("roll", "d20"),
    )
    return play_once(folder, script)


@pytest.fixture
def played(played_once: Path, tmp_path: Path, copy_campaign) -> Path:
    """A copy of that campaign in the test's own folder (./hexlog.db, where ``hexlog`` runs)."""
    return copy_campaign(played_once, tmp_path)


def corrupt(db: Path, version: int, data: str, *, rows_lost: bool = False) -> str:
    """Drop the update guard and overwrite one event's data column; return that event's id.

    With ``rows_lost`` the live projection rows are deleted too, so a command that reads them has to
    fold the whole log again (as after a crash that lost the cache, or on a database written without rows).
    """
    raw = sqlite3.connect(db, isolation_level=None)
    try:
        raw.execute("DROP TRIGGER events_no_update")
        raw.execute("UPDATE events SET data = ? WHERE stream_version = ?", (data, version))
        (event_id,) = raw.execute("SELECT id FROM events WHERE stream_version = ?", (version,)).fetchone()
        if rows_lost:
            assert raw.execute("DELETE FROM projection_rows").rowcount > 0
    finally:
        raw.close()
    return str(event_id)


#: commands that read the whole log
LOG_READERS = (
    ("audit",),
    ("log",),
    ("replay",),
    ("export",),
    ("audit", "--campaign", "main"),
)
#: commands that read the live projection rows and fold only the log they do not cover
ROW_READERS = (
    ("state",),
    ("encounter", "start"),
)
READERS = LOG_READERS + ROW_READERS


#: commands that only read, each with the exit code it ends with on the campaign played once (its session is open:
#: the audit says INCOMPLETE, 3)
READ_ONLY = (
    (("state",), 0),
    (("log",), 0),
    (("audit",), 3),
    (("receipt",), 0),
    (("replay",), 0),
    (("export",), 0),
    (("rules", "show"), 0),
    (("map", "show"), 0),
)


@pytest.mark.parametrize(("args", "code"), READ_ONLY, ids=[" ".join(args) for args, _ in READ_ONLY])
def test_a_command_that_only_reads_leaves_the_folder_as_it_found_it(
    hexlog, played: Path, args: tuple[str, ...], code: int
) -> None:
    """Each left ``hexlog.db-wal`` and ``hexlog.db-shm`` beside the database (its read-only connection may not
    checkpoint them away as it closes), where a command that writes leaves none."""
    before = sorted(p.name for p in played.parent.iterdir())
    assert "hexlog.db-wal" not in before
    content = played.read_bytes()
    result = hexlog(*args)
    assert result.returncode == code, result.stderr
    assert sorted(p.name for p in played.parent.iterdir()) == before
    assert played.read_bytes() == content


class TestCorruptData:
    """A row whose data is not a JSON object is named by every command, with one line."""

    @pytest.mark.parametrize("args", READERS, ids=" ".join)
    def test_data_that_is_not_json_names_the_event(self, hexlog, played: Path, args: tuple[str, ...]) -> None:
        """Each command that has to read the bad event exits 1 naming its stream version, position and id."""
        event_id = corrupt(played, 3, "{bad", rows_lost=args in ROW_READERS)
        result = hexlog(*args)
        assert result.returncode == 1, result.stderr
        line = one_line(result.stderr)
        assert "campaign-main version 3 (position 3)" in line
        assert f"event {event_id}" in line
        assert "not JSON" in line

    def test_data_nested_too_deeply_is_named_not_an_internal_error(self, hexlog, played: Path) -> None:
        """JSON nested past any reader's depth is corrupt data (exit 1, one line), never an internal error (70)."""
        event_id = corrupt(played, 3, "[" * 100_000 + "]" * 100_000)
        for args in (("audit",), ("replay",), ("export",)):
            result = hexlog(*args)
            assert result.returncode == 1, (args, result.stderr)
            line = one_line(result.stderr)
            assert f"event {event_id}" in line
            assert "nested too deeply" in line

    @pytest.mark.parametrize("data", ["[1, 2]", '"text"', "null", "7"])
    def test_the_audit_names_data_that_is_json_but_not_an_object(self, hexlog, played: Path, data: str) -> None:
        """Valid JSON that is not an object is a finding on that event, named on one line."""
        event_id = corrupt(played, 4, data)
        result = hexlog("audit")
        assert result.returncode == 1, result.stderr
        line = one_line(result.stderr)
        assert f"audit FAILED at campaign-main version 4 (event {event_id})" in line

    @pytest.mark.parametrize("args", [a for a in READERS if a[0] != "audit"], ids=" ".join)
    def test_json_that_is_not_an_object_is_named_by_every_command(
        self, hexlog, played: Path, args: tuple[str, ...]
    ) -> None:
        """Not only audit: every reader that has to read the event exits 1 naming it, never an internal error."""
        event_id = corrupt(played, 4, "[1, 2]", rows_lost=args in ROW_READERS)
        result = hexlog(*args)
        assert result.returncode == 1, result.stderr
        line = one_line(result.stderr)
        assert f"version 4 (event {event_id})" in line
        assert "must be a JSON object" in line

    def test_the_first_bad_event_is_named_when_several_are(self, hexlog, played: Path) -> None:
        """With two corrupt rows the audit names the earlier one."""
        corrupt(played, 5, "{also bad")
        raw = sqlite3.connect(played, isolation_level=None)
        raw.execute("UPDATE events SET data = '{bad' WHERE stream_version = 2")
        raw.close()
        result = hexlog("audit")
        assert result.returncode == 1
        assert "campaign-main version 2 (position 2)" in one_line(result.stderr)

    @pytest.mark.parametrize("args", ROW_READERS, ids=" ".join)
    def test_a_bad_event_behind_the_rows_is_named_once_they_are_lost(
        self, hexlog, played: Path, args: tuple[str, ...]
    ) -> None:
        """A command reading the rows works from them; once they are gone it folds the log and names the bad event."""
        corrupt(played, 3, "{bad")
        assert hexlog("state").returncode == 0
        raw = sqlite3.connect(played, isolation_level=None)
        try:
            raw.execute("DELETE FROM projection_rows WHERE projection = 'table'")
        finally:
            raw.close()
        result = hexlog(*args)
        assert result.returncode == 1, result.stderr
        assert "campaign-main version 3 (position 3)" in one_line(result.stderr)


def foreign_database(path: Path) -> bytes:
    """Make a valid SQLite file that is not hexlog's (rollback journal, one table); return its bytes."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO notes (body) VALUES ('keep me as I am')")
    conn.close()
    return path.read_bytes()


def journal_mode(path: Path) -> str:
    """The journal mode recorded in a database file."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        return str(conn.execute("PRAGMA journal_mode").fetchone()[0])
    finally:
        conn.close()


class TestForeignDatabase:
    """A SQLite file that is not hexlog's is refused by the reading commands and left untouched."""

    @pytest.mark.parametrize(
        "args", [("state",), ("log",), ("audit",), ("replay",), ("export",), ("session", "open")], ids=" ".join
    )
    def test_a_foreign_database_is_refused_and_unchanged(self, hexlog, tmp_path: Path, args: tuple[str, ...]) -> None:
        """The command says the file is not a hexlog database; its bytes and journal mode stay."""
        path = tmp_path / "foreign.sqlite"
        before = foreign_database(path)
        result = hexlog(*args, "--db", "foreign.sqlite")
        assert result.returncode != 0
        line = one_line(result.stderr)
        assert "foreign.sqlite is not a hexlog database (no events table)" in line
        assert path.read_bytes() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["foreign.sqlite"]
        assert journal_mode(path) == "delete"

    def test_a_foreign_events_table_is_not_taken_for_hexlog(self, hexlog, tmp_path: Path) -> None:
        """A table that happens to be called events, with other columns, is not hexlog's either."""
        path = tmp_path / "app.sqlite"
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT)")
        conn.close()
        before = path.read_bytes()
        result = hexlog("state", "--db", "app.sqlite")
        assert result.returncode == 1
        assert "app.sqlite is not a hexlog database" in one_line(result.stderr)
        assert path.read_bytes() == before
        assert journal_mode(path) == "delete"


@pytest.fixture
def locked(played: Path):
    """Another connection holding an exclusive transaction on the database, released after the test."""
    holder = sqlite3.connect(played, isolation_level=None)

    def hold() -> sqlite3.Connection:
        holder.execute("BEGIN EXCLUSIVE")
        return holder

    yield hold
    if holder.in_transaction:
        holder.execute("ROLLBACK")
    holder.close()


class TestLockedDatabase:
    """A database another connection holds is reported as busy, never as not a database."""

    @pytest.mark.usefixtures("played")
    def test_a_write_command_on_a_locked_database_says_busy(self, hexlog, locked) -> None:
        """A roll while another writer holds the file exits 1 saying busy, and records nothing."""
        holder = locked()
        result = hexlog("roll", "d6", env=BUSY)
        assert result.returncode == 1, result.stderr
        line = one_line(result.stderr)
        assert "busy" in line
        assert "not a hexlog database" not in line
        holder.execute("ROLLBACK")
        assert hexlog("roll", "d6").returncode == 0

    @pytest.mark.usefixtures("played")
    def test_reading_a_locked_database_needs_no_write_lock(self, hexlog, locked) -> None:
        """Opening a complete hexlog database to read it takes no write lock, so state still shows."""
        locked()
        result = hexlog("state", env=BUSY)
        assert result.returncode == 0, result.stderr

    def test_a_locked_database_that_needs_its_schema_restored_is_busy(self, hexlog, played: Path, locked) -> None:
        """When opening must write (a guard trigger to restore), a held lock is named as busy; a command that
        only reads never writes, so it shows the state all the same."""
        raw = sqlite3.connect(played, isolation_level=None)
        raw.execute("DROP TRIGGER events_no_delete")
        raw.close()
        locked()
        result = hexlog("party", "add", "Bo", env=BUSY)
        assert result.returncode == 1, result.stderr
        line = one_line(result.stderr)
        assert "the database hexlog.db is busy (another hexlog command holds it); try again" in line
        assert hexlog("state", env=BUSY).returncode == 0

    @pytest.mark.usefixtures("played")
    def test_a_bad_busy_timeout_is_a_usage_error(self, hexlog) -> None:
        """HEXLOG_BUSY_TIMEOUT must be a number of seconds."""
        result = hexlog("state", env={"HEXLOG_BUSY_TIMEOUT": "soon"})
        assert result.returncode == 2
        assert "HEXLOG_BUSY_TIMEOUT" in one_line(result.stderr)
