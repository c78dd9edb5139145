"""What the SQLite store adds to the contract: triggers, pragmas, files and processes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from hexlog.events.chain import verify_stream
from hexlog.events.errors import ConcurrencyError, CorruptLogError, NotFoundError
from hexlog.events.sqlite import SQLiteStore, integrity_check
from hexlog.events.store import NewEvent, ProjectionRow

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path


def thing(n: int, event_id: str | None = None) -> NewEvent:
    """A test event whose data carries ``n``."""
    return NewEvent(
        id=event_id or f"event-{n}",
        source="hexlog:test",
        type="hexlog.test.thing",
        time="2024-05-01T12:00:00Z",
        schemaversion=1,
        data={"n": n},
    )


def row(projection: str, key: str, version: int, data: object) -> ProjectionRow:
    """A projection row of ``projection`` (data None deletes it)."""
    return ProjectionRow(projection=projection, key=key, version=version, data=data)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """The path of a store's file, holding a stream ``s`` of three events."""
    path = tmp_path / "events.db"
    store = SQLiteStore(path)
    store.append("s", [thing(1), thing(2), thing(3)], expected_version=0)
    store.close()
    return path


@pytest.fixture
def raw(db: Path) -> Iterator[sqlite3.Connection]:
    """A plain sqlite3 connection to the store's file, as a tamperer would open it."""
    conn = sqlite3.connect(db, isolation_level=None)
    yield conn
    conn.close()


#: JSON nested far past what a reader recurses through
DEEP = "[" * 100_000 + "]" * 100_000


class TestAppendOnly:
    """The database itself refuses to change or remove a recorded event."""

    def test_an_update_is_refused_by_the_trigger(self, raw: sqlite3.Connection) -> None:
        """UPDATE on events raises from the trigger and changes nothing."""
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("UPDATE events SET data = '{\"n\":99}' WHERE stream_version = 2")
        assert raw.execute("SELECT data FROM events WHERE stream_version = 2").fetchone() == ('{"n":2}',)

    def test_a_delete_is_refused_by_the_trigger(self, raw: sqlite3.Connection) -> None:
        """DELETE on events raises from the trigger and removes nothing."""
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("DELETE FROM events WHERE stream_version = 3")
        assert raw.execute("SELECT COUNT(*) FROM events").fetchone() == (3,)

    def test_a_tampered_row_reads_back_and_fails_verification(self, db: Path, raw: sqlite3.Connection) -> None:
        """With the trigger dropped, an edited row still reads, and the chain check catches it."""
        raw.execute("DROP TRIGGER events_no_update")
        raw.execute('UPDATE events SET data = \'{"n":20,"extra":[true]}\' WHERE stream_version = 2')
        store = SQLiteStore(db)
        try:
            read = store.read_stream("s")
        finally:
            store.close()
        assert read[1].envelope.data == {"n": 20, "extra": [True]}
        fault = verify_stream([r.envelope for r in read])
        assert fault is not None
        assert fault.streamversion == 2

    def test_reopening_restores_a_dropped_trigger(self, db: Path, raw: sqlite3.Connection) -> None:
        """Opening the store recreates missing triggers, so later writes are guarded again."""
        raw.execute("DROP TRIGGER events_no_delete")
        SQLiteStore(db).close()
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("DELETE FROM events")


class TestSettings:
    """The journal and locking settings the store relies on are in force."""

    def test_the_file_is_in_wal_mode(self, raw: sqlite3.Connection) -> None:
        """The journal mode recorded in the file is WAL."""
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)

    def test_the_store_connection_syncs_fully_and_waits_when_busy(self, db: Path) -> None:
        """The store's connection uses synchronous=FULL and the busy timeout it was given."""
        store = SQLiteStore(db, busy_timeout=2.5)
        try:
            assert store._conn.execute("PRAGMA synchronous").fetchone() == (2,)
            assert store._conn.execute("PRAGMA busy_timeout").fetchone() == (2500,)
            assert store._conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        finally:
            store.close()

    def test_integrity_check_says_ok_for_a_sound_file(self, db: Path) -> None:
        """A store's file passes SQLite's own integrity check."""
        assert integrity_check(db) == "ok"

    def test_integrity_check_of_a_missing_file_raises_and_creates_nothing(self, tmp_path: Path) -> None:
        """Checking a file that does not exist raises instead of creating an empty database."""
        with pytest.raises(FileNotFoundError):
            integrity_check(tmp_path / "missing.db")
        assert not (tmp_path / "missing.db").exists()


class TestDurability:
    """Everything the store wrote is there after closing and reopening the file."""

    def test_events_commands_and_projections_survive_a_reopen(self, tmp_path: Path) -> None:
        """A reopened store has the same events, replays the same command and keeps projection rows."""
        path = tmp_path / "events.db"
        store = SQLiteStore(path)
        first = store.append(
            "s",
            [thing(1), thing(2)],
            expected_version=0,
            command_id="c1",
            command_digest="d1",
            rows=[row("party", "members", 2, {"ok": True})],
        )
        assert store.write_rows("s", [row("clock", "@", 2, {"revision": 1})], at_version=2)
        before = list(store.read_all())
        store.close()
        store = SQLiteStore(path)
        try:
            assert list(store.read_all()) == before
            again = store.append("s", [thing(1), thing(2)], expected_version=0, command_id="c1", command_digest="d1")
            assert again.replayed
            assert again.event_ids == first.event_ids
            assert store.read_rows("s", "party") == {"members": (2, {"ok": True})}
            assert store.read_rows("s", "clock") == {"@": (2, {"revision": 1})}
            store.append("s", [thing(3)], expected_version=2)
            assert verify_stream([r.envelope for r in store.read_stream("s")]) is None
            assert [r.position for r in store.read_all()] == [1, 2, 3]
        finally:
            store.close()


class TestWriteConflicts:
    """Every way an append can lose a race surfaces as ``ConcurrencyError``."""

    def test_a_database_locked_past_the_timeout_raises_concurrency_error(
        self, db: Path, raw: sqlite3.Connection
    ) -> None:
        """An append that cannot get the write lock in time raises, a rows write is skipped, nothing is written."""
        store = SQLiteStore(db, busy_timeout=0.2)
        try:
            raw.execute("BEGIN IMMEDIATE")
            started = time.monotonic()
            with pytest.raises(ConcurrencyError, match="locked") as raised:
                store.append("s", [thing(4)], expected_version=3)
            assert "busy" in str(raised.value)
            assert time.monotonic() - started >= 0.15
            assert store.write_rows("s", [row("party", "members", 3, [])], at_version=3) is False
            raw.execute("ROLLBACK")
            assert store.stream_version("s") == 3
            assert store.read_rows("s", "party") == {}
            store.append("s", [thing(4)], expected_version=3)
            assert store.stream_version("s") == 4
        finally:
            store.close()

    def test_an_event_id_already_recorded_raises_and_writes_nothing(self, db: Path) -> None:
        """A batch reusing a recorded event id is refused whole, as a lost race."""
        store = SQLiteStore(db)
        try:
            with pytest.raises(ConcurrencyError):
                store.append("s", [thing(4), thing(5, event_id="event-1")], expected_version=3)
            assert store.stream_version("s") == 3
            assert len(list(store.read_all())) == 3
            store.append("s", [thing(4)], expected_version=3)
            assert store.stream_version("s") == 4
        finally:
            store.close()


def _ticks_with_a_bad_second(db: Path, data: str | bytes) -> SQLiteStore:
    """A store of stream ``s``: three clock ticks (``tick-1`` to ``tick-3``), the second's data column set to
    ``data``."""
    store = SQLiteStore(db)
    ticks = [
        NewEvent(
            id=f"tick-{n}",
            source="hexlog:test",
            type="hexlog.clock.advanced",
            time="2024-05-01T12:00:00Z",
            schemaversion=1,
            data={"seconds": n, "rounds": 0, "turns": 0, "reason": ""},
        )
        for n in range(1, 4)
    ]
    store.append("s", ticks, expected_version=0)
    store.close()
    raw = sqlite3.connect(db, isolation_level=None)
    raw.execute("DROP TRIGGER events_no_update")
    raw.execute("UPDATE events SET data = ? WHERE stream_version = 2", (data,))
    raw.close()
    return SQLiteStore(db)


class TestCorruptData:
    """A row whose data column is not a JSON object is a ``CorruptLogError`` naming the row."""

    @pytest.fixture
    def corrupt(self, raw: sqlite3.Connection) -> Callable[[str], None]:
        """Drop the update guard, then set the data of ``s`` version 2 to the given text."""

        def edit(data: str) -> None:
            raw.execute("DROP TRIGGER events_no_update")
            raw.execute("UPDATE events SET data = ? WHERE stream_version = 2", (data,))

        return edit

    @pytest.mark.parametrize("data", ["{bad", "", "not json", b"\xff\xfe", DEEP], ids=lambda d: repr(d)[:20])
    def test_reading_the_stream_names_the_bad_row(self, db: Path, corrupt: Callable[[str], None], data: str) -> None:
        """The bad record of ``read_stream`` raises naming the stream, version, position, event id and why when its
        envelope is read; the others read as they are."""
        corrupt(data)
        store = SQLiteStore(db)
        try:
            records = store.read_stream("s")
            assert [r.version for r in records] == [1, 2, 3]
            assert [r.envelope.data for r in (records[0], records[2])] == [{"n": 1}, {"n": 3}]
            with pytest.raises(CorruptLogError) as raised:
                _ = records[1].envelope
            assert store.read_stream("s", 3)[0].envelope.data == {"n": 3}
        finally:
            store.close()
        text = str(raised.value)
        assert "stream s version 2 (position 2), event event-2: its data column is not JSON" in text
        assert isinstance(raised.value, ValueError)  # the audit words it as unreadable data

    @pytest.mark.parametrize("data", ["{bad", "", "not json", b"\xff\xfe", DEEP], ids=lambda d: repr(d)[:20])
    def test_reading_the_payloads_names_the_bad_row(self, db: Path, corrupt: Callable[[str], None], data: str) -> None:
        """``iter_payloads`` gives the good rows before the bad one, then raises naming the stream, version and
        event id and why; it reads on past it from a later version."""
        corrupt(data)
        store = SQLiteStore(db)
        seen = []
        try:
            with pytest.raises(CorruptLogError) as raised:
                seen.extend(store.iter_payloads("s"))
            assert next(store.iter_payloads("s", 3))[4] == {"n": 3}
        finally:
            store.close()
        assert [p[0] for p in seen] == [1]
        assert "stream s version 2 (position 2), event event-2: its data column is not JSON" in str(raised.value)
        assert isinstance(raised.value, ValueError)

    @pytest.mark.parametrize("data", ["{bad", "", "not json", b"\xff\xfe", DEEP], ids=lambda d: repr(d)[:20])
    def test_reading_decoded_events_names_the_bad_row(self, tmp_path: Path, data: str | bytes) -> None:
        """``event_pages`` raises naming the stream, version, position, event id and why at the page holding the bad
        row, and reads on past it from a later version."""
        store = _ticks_with_a_bad_second(tmp_path / "clock.db", data)
        try:
            with pytest.raises(CorruptLogError) as raised:
                list(store.event_pages("s"))
            assert [stored[2].seconds for page in store.event_pages("s", 3) for stored in page] == [3]
        finally:
            store.close()
        assert "stream s version 2 (position 2), event tick-2: its data column is not JSON" in str(raised.value)

    @pytest.mark.parametrize("data", ["{bad", "", "not json", b"\xff\xfe", DEEP], ids=lambda d: repr(d)[:20])
    def test_reading_the_log_decoded_names_the_bad_row(self, tmp_path: Path, data: str | bytes) -> None:
        """``log_pages`` raises naming the stream, version, position, event id and why at the page holding the bad
        row, and reads on past it from a later position."""
        store = _ticks_with_a_bad_second(tmp_path / "clock.db", data)
        try:
            with pytest.raises(CorruptLogError) as raised:
                list(store.log_pages())
            assert [logged[4].seconds for page in store.log_pages(3) for logged in page] == [3]
        finally:
            store.close()
        assert "stream s version 2 (position 2), event tick-2: its data column is not JSON" in str(raised.value)

    @pytest.mark.parametrize("data", ["[1, 2]", "null", "7"])
    def test_json_that_is_not_an_object_reads_back_for_the_audit(
        self, db: Path, corrupt: Callable[[str], None], data: str
    ) -> None:
        """JSON of the wrong kind is no read error: it reaches the audit, which names the envelope."""
        corrupt(data)
        store = SQLiteStore(db)
        try:
            assert store.read_stream("s")[1].envelope.data == json.loads(data)
        finally:
            store.close()

    def test_reading_everything_stops_at_the_bad_row(self, db: Path, corrupt: Callable[[str], None]) -> None:
        """A reader of ``read_all``'s envelopes has the good rows before the bad one, then an error naming it."""
        corrupt("{bad")
        store = SQLiteStore(db)
        try:
            seen = []
            with pytest.raises(CorruptLogError, match=r"s version 2 \(position 2\), event event-2"):
                seen.extend(record.envelope for record in store.read_all())
            assert [envelope.streamversion for envelope in seen] == [1]
        finally:
            store.close()

    def test_a_projection_row_that_is_not_json_is_left_out_as_a_stale_cache(
        self, db: Path, raw: sqlite3.Connection
    ) -> None:
        """``read_rows`` skips a row whose data does not decode, so its projection is folded again."""
        store = SQLiteStore(db)
        try:
            assert store.write_rows("s", [row("p", "good", 3, [1]), row("p", "bad", 3, [2])], at_version=3)
            raw.execute("UPDATE projection_rows SET data = '{bad' WHERE key = 'bad'")
            assert store.read_rows("s", "p") == {"good": (3, [1])}
            assert store.read_rows("s", "p", ["bad"]) == {}
        finally:
            store.close()


def foreign_database(path: Path) -> bytes:
    """A valid SQLite file that is not hexlog's (rollback journal, one table); its bytes."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO notes (body) VALUES ('mine')")
    conn.close()
    return path.read_bytes()


class TestOpening:
    """``create=False`` opens only a hexlog database, and opening writes only when it must."""

    def test_a_foreign_database_is_refused_and_left_byte_identical(self, tmp_path: Path) -> None:
        """No tables, no WAL, no side files: the foreign file is exactly as it was."""
        path = tmp_path / "other.sqlite"
        before = foreign_database(path)
        with pytest.raises(CorruptLogError, match=r"other.sqlite is not a hexlog database \(no events table\)"):
            SQLiteStore(path, create=False)
        assert path.read_bytes() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]
        conn = sqlite3.connect(path)
        try:
            assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
            assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("notes",)]
        finally:
            conn.close()

    @pytest.mark.parametrize("create", [True, False])
    def test_a_foreign_events_table_is_refused_and_left_alone(
        self,
        tmp_path: Path,
        create: bool,  # noqa: FBT001
    ) -> None:
        """A table named events without hexlog's columns is not hexlog's, even with ``create``."""
        path = tmp_path / "app.sqlite"
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT)")
        conn.close()
        before = path.read_bytes()
        with pytest.raises(CorruptLogError, match="is not a hexlog database"):
            SQLiteStore(path, create=create)
        assert path.read_bytes() == before

    def test_a_missing_file_is_not_created(self, tmp_path: Path) -> None:
        """Without ``create`` a missing file raises and stays missing."""
        with pytest.raises(NotFoundError):
            SQLiteStore(tmp_path / "missing.db", create=False)
        assert list(tmp_path.iterdir()) == []

    def test_an_empty_file_is_made_a_store_only_with_create(self, tmp_path: Path) -> None:
        """A zero-byte file is an empty database: refused without ``create``, set up with it."""
        path = tmp_path / "empty.db"
        path.touch()
        with pytest.raises(CorruptLogError, match="no events table"):
            SQLiteStore(path, create=False)
        assert path.read_bytes() == b""
        SQLiteStore(path).close()
        store = SQLiteStore(path, create=False)
        try:
            assert store.streams() == []
        finally:
            store.close()

    @pytest.mark.parametrize("create", [True, False])
    def test_opening_a_complete_store_takes_no_write_lock(
        self,
        db: Path,
        raw: sqlite3.Connection,
        create: bool,  # noqa: FBT001
    ) -> None:
        """With another writer holding the file, a complete store still opens and reads."""
        raw.execute("BEGIN EXCLUSIVE")
        try:
            store = SQLiteStore(db, busy_timeout=0.2, create=create)
            try:
                assert store.stream_version("s") == 3
                assert store._conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            finally:
                store.close()
        finally:
            raw.execute("ROLLBACK")

    def test_opening_a_store_that_must_be_repaired_while_locked_is_busy(
        self, db: Path, raw: sqlite3.Connection
    ) -> None:
        """Restoring a dropped trigger needs the write lock; a held lock surfaces as busy."""
        raw.execute("DROP TRIGGER events_no_delete")
        raw.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                SQLiteStore(db, busy_timeout=0.2, create=False)
        finally:
            raw.execute("ROLLBACK")

    def test_without_create_a_dropped_trigger_is_still_restored(self, db: Path, raw: sqlite3.Connection) -> None:
        """A hexlog database missing its guard gets it back on any open."""
        raw.execute("DROP TRIGGER events_no_delete")
        SQLiteStore(db, create=False).close()
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("DELETE FROM events")

    def test_a_dropped_rows_table_is_restored_empty_on_open(self, db: Path, raw: sqlite3.Connection) -> None:
        """A hexlog database that lost its projection rows table gets it back, empty, on any open."""
        raw.execute("DROP TABLE projection_rows")
        store = SQLiteStore(db, create=False)
        try:
            assert store.read_rows("s", "p") == {}
            assert store.write_rows("s", [row("p", "a", 3, {"n": 3})], at_version=3)
            assert store.read_rows("s", "p") == {"a": (3, {"n": 3})}
        finally:
            store.close()


_RACER = """
import pathlib, sys, time
from hexlog.events.errors import ConcurrencyError, CorruptLogError, NotFoundError
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import NewEvent

db, name, expected, ready, go = sys.argv[1:6]
store = SQLiteStore(db)
events = [
    NewEvent(id=f"{name}-{expected}-{i}", source="hexlog:test", type="hexlog.test.thing",
             time="2024-05-01T12:00:00Z", schemaversion=1, data={"writer": name, "i": i})
    for i in range(3)
]
pathlib.Path(ready).touch()
deadline = time.monotonic() + 20
while not pathlib.Path(go).exists() and time.monotonic() < deadline:
    time.sleep(0.0005)
try:
    store.append("race", events, expected_version=int(expected))
    print("won", flush=True)
except ConcurrencyError:
    print("conflict", flush=True)
store.close()
"""


def _wait_for(paths: list[Path], timeout: float = 20.0) -> None:
    """Wait until every one of ``paths`` exists."""
    deadline = time.monotonic() + timeout
    while not all(p.exists() for p in paths):
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {[str(p) for p in paths]}")
        time.sleep(0.005)


class TestTwoProcesses:
    """Two processes appending to one stream at the same expected version."""

    def test_exactly_one_of_two_racing_processes_wins(self, tmp_path: Path) -> None:
        """One append wins, the other raises ``ConcurrencyError``; nothing is lost or doubled."""
        rounds = 4
        path = tmp_path / "race.db"
        store = SQLiteStore(path)
        store.append("race", [thing(0, event_id="seed")], expected_version=0)
        store.close()
        winners = []
        for k in range(rounds):
            expected = 1 + 3 * k
            ready = [tmp_path / f"ready-{k}-{name}" for name in ("a", "b")]
            go = tmp_path / f"go-{k}"
            procs = {
                name: subprocess.Popen(  # noqa: S603 - our own interpreter and script
                    [sys.executable, "-c", _RACER, str(path), name, str(expected), str(flag), str(go)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    cwd=tmp_path,
                )
                for name, flag in zip(("a", "b"), ready, strict=True)
            }
            try:
                _wait_for(ready)
                go.touch()
                outcomes = {}
                for name, proc in procs.items():
                    out, err = proc.communicate(timeout=30)
                    assert proc.returncode == 0, err
                    outcomes[name] = out.strip()
            finally:
                for proc in procs.values():
                    if proc.poll() is None:
                        proc.kill()
                        proc.wait()
            assert sorted(outcomes.values()) == ["conflict", "won"]
            winners.append(next(n for n, o in outcomes.items() if o == "won"))
        store = SQLiteStore(path)
        try:
            read = store.read_stream("race")
        finally:
            store.close()
        assert len(read) == 1 + 3 * rounds
        assert verify_stream([r.envelope for r in read]) is None
        assert [r.position for r in read] == list(range(1, 2 + 3 * rounds))
        for k, winner in enumerate(winners):
            written = read[1 + 3 * k : 4 + 3 * k]
            assert [r.envelope.data for r in written] == [{"writer": winner, "i": i} for i in range(3)]
        assert integrity_check(path) == "ok"


_HOLDER = """
import pathlib, sys, time
from hexlog.events.sqlite import SQLiteStore

db, ready, go = sys.argv[1:4]
store = SQLiteStore(db)
store.read_stream("s")
pathlib.Path(ready).touch()
deadline = time.monotonic() + 20
while not pathlib.Path(go).exists() and time.monotonic() < deadline:
    time.sleep(0.005)
print(len(store.read_stream("s")), flush=True)
store.close()
"""


_KILLED = """
import os, sys
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import NewEvent

store = SQLiteStore(sys.argv[1])
store.append("s", [NewEvent(id="killed-4", source="hexlog:test", type="hexlog.test.thing",
                            time="2024-05-01T12:00:00Z", schemaversion=1, data={"n": 4})], expected_version=3)
os._exit(0)  # as a process killed after its commit: its connection never closes
"""


def _beside(db: Path) -> list[str]:
    """The names of the files in the database's folder."""
    return sorted(p.name for p in db.parent.iterdir())


class TestReadOnlyClose:
    """A read-only store leaves no WAL files behind when it is the last connection to close; one held elsewhere keeps
    them, and nothing committed is lost."""

    def test_a_read_only_store_leaves_the_folder_and_the_file_as_it_found_them(self, db: Path) -> None:
        """Its ``-wal`` and ``-shm`` files stayed beside the database: SQLite removes them as the last connection
        closes, by a checkpoint a read-only connection may not make."""
        before, content = _beside(db), db.read_bytes()
        assert before == ["events.db"]
        store = SQLiteStore(db, readonly=True)
        try:
            assert len(store.read_stream("s")) == 3
            assert _beside(db) == ["events.db", "events.db-shm", "events.db-wal"]
        finally:
            store.close()
        assert _beside(db) == before
        assert db.read_bytes() == content

    def test_a_read_only_store_closing_while_another_holds_the_database_leaves_its_files(self, db: Path) -> None:
        held = SQLiteStore(db)
        try:
            held.append("s", [thing(4)], expected_version=3)
            reader = SQLiteStore(db, readonly=True)
            try:
                assert len(reader.read_stream("s")) == 4
            finally:
                reader.close()
            assert _beside(db) == ["events.db", "events.db-shm", "events.db-wal"]
            held.append("s", [thing(5)], expected_version=4)
            assert len(held.read_stream("s")) == 5
        finally:
            held.close()
        assert _beside(db) == ["events.db"]
        store = SQLiteStore(db, readonly=True)
        try:
            assert [r.envelope.data for r in store.read_stream("s")] == [{"n": n} for n in range(1, 6)]
        finally:
            store.close()

    def test_what_another_connection_committed_while_the_store_read_is_kept_as_the_files_go(self, db: Path) -> None:
        """A writer that appends and closes while the read-only store is open leaves its events in the WAL; the
        store, closing last, has them checkpointed into the file before the WAL goes."""
        reader = SQLiteStore(db, readonly=True)
        try:
            writer = SQLiteStore(db)
            writer.append("s", [thing(4), thing(5)], expected_version=3)
            writer.close()
            assert (db.parent / "events.db-wal").stat().st_size > 0
            assert len(reader.read_stream("s")) == 5
        finally:
            reader.close()
        assert _beside(db) == ["events.db"]
        check = sqlite3.connect(db)
        try:
            assert check.execute("SELECT count(*) FROM events").fetchone() == (5,)
        finally:
            check.close()
        assert integrity_check(db) == "ok"

    def test_a_read_only_store_leaves_the_files_of_another_process_holding_the_database(self, db: Path) -> None:
        """The store made the files, but another process opened the database after it and holds it as the store
        closes: the files stay for that process, which removes them as it closes last."""
        ready, go = db.parent / "ready", db.parent / "go"
        store = SQLiteStore(db, readonly=True)
        holder = None
        try:
            assert len(store.read_stream("s")) == 3
            holder = subprocess.Popen(  # noqa: S603 - our own interpreter and script
                [sys.executable, "-c", _HOLDER, str(db), str(ready), str(go)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            _wait_for([ready])
        finally:
            store.close()
        try:
            assert _beside(db) == ["events.db", "events.db-shm", "events.db-wal", "ready"]
            go.touch()
            out, err = holder.communicate(timeout=30)
        finally:
            if holder.poll() is None:
                holder.kill()
                holder.wait()
        assert holder.returncode == 0, err
        assert out.strip() == "3"
        assert _beside(db) == ["events.db", "go", "ready"]

    def test_two_read_only_stores_closing_in_either_order_leave_no_files(self, db: Path) -> None:
        """The second found the files the first made: whichever closes last has them removed."""
        for last in (0, 1):
            stores = [SQLiteStore(db, readonly=True) for _ in range(2)]
            try:
                assert [len(store.read_stream("s")) for store in stores] == [3, 3]
            finally:
                stores[1 - last].close()
                assert _beside(db) == ["events.db", "events.db-shm", "events.db-wal"]
                stores[last].close()
            assert _beside(db) == ["events.db"]

    def test_a_read_only_store_leaves_what_a_killed_writer_committed_for_the_next_writer(self, db: Path) -> None:
        """A WAL holding a commit of a process that never closed is left as the store found it; the next writer takes
        it up, and nothing is lost."""
        killed = subprocess.run(  # noqa: S603 - our own interpreter and script
            [sys.executable, "-c", _KILLED, str(db)], capture_output=True, text=True, check=False, timeout=60
        )
        assert killed.returncode == 0, killed.stderr
        wal = db.parent / "events.db-wal"
        found = wal.read_bytes()
        assert found
        store = SQLiteStore(db, readonly=True)
        try:
            assert [r.envelope.data for r in store.read_stream("s")] == [{"n": n} for n in range(1, 5)]
        finally:
            store.close()
        assert _beside(db) == ["events.db", "events.db-shm", "events.db-wal"]
        assert wal.read_bytes() == found
        writer = SQLiteStore(db)
        try:
            writer.append("s", [thing(5)], expected_version=4)
        finally:
            writer.close()
        assert _beside(db) == ["events.db"]
        assert integrity_check(db) == "ok"
        check = sqlite3.connect(db)
        try:
            assert check.execute("SELECT count(*) FROM events").fetchone() == (5,)
        finally:
            check.close()
