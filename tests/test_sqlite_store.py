"""What the SQLite store adds to the contract: triggers, pragmas, files and processes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from hexlog.events.chain import verify_stream
from hexlog.events.errors import ConcurrencyError
from hexlog.events.sqlite import SQLiteStore, integrity_check
from hexlog.events.store import NewEvent

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


def thing(n: int, event_id: str | None = None) -> NewEvent:
    """A test event whose data carries ``n``."""
    return NewEvent(
        id=event_id or f"event-{n}", source="hexlog:test", type="hexlog.test.thing",
        time="2024-05-01T12:00:00Z", schemaversion=1, data={"n": n},
    )


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


class TestAppendOnly:
    """The database itself refuses to change or remove a recorded event."""

    def test_an_update_is_refused_by_the_trigger(self, raw: sqlite3.Connection) -> None:
        """UPDATE on events raises from the trigger and changes nothing."""
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("UPDATE events SET data = '{\"n\":99}' WHERE stream_version = 2")
        assert raw.execute("SELECT data FROM events WHERE stream_version = 2").fetchone() == (
            '{"n":2}',
        )

    def test_a_delete_is_refused_by_the_trigger(self, raw: sqlite3.Connection) -> None:
        """DELETE on events raises from the trigger and removes nothing."""
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("DELETE FROM events WHERE stream_version = 3")
        assert raw.execute("SELECT COUNT(*) FROM events").fetchone() == (3,)

    def test_a_tampered_row_reads_back_and_fails_verification(
        self, db: Path, raw: sqlite3.Connection
    ) -> None:
        """With the trigger dropped, an edited row still reads, and the chain check catches it."""
        raw.execute("DROP TRIGGER events_no_update")
        raw.execute(
            "UPDATE events SET data = '{\"n\":20,\"extra\":[true]}' WHERE stream_version = 2"
        )
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

    def test_integrity_check_of_a_missing_file_raises_and_creates_nothing(
        self, tmp_path: Path
    ) -> None:
        """Checking a file that does not exist raises instead of creating an empty database."""
        with pytest.raises(FileNotFoundError):
            integrity_check(tmp_path / "missing.db")
        assert not (tmp_path / "missing.db").exists()


class TestDurability:
    """Everything the store wrote is there after closing and reopening the file."""

    def test_events_commands_and_projections_survive_a_reopen(self, tmp_path: Path) -> None:
        """A reopened store has the same events, replays the same command and keeps projections."""
        path = tmp_path / "events.db"
        store = SQLiteStore(path)
        first = store.append("s", [thing(1), thing(2)], expected_version=0, command_id="c1",
                             command_digest="d1")
        store.save_projection("party", 2, '{"ok":true}')
        before = list(store.read_all())
        store.close()
        store = SQLiteStore(path)
        try:
            assert list(store.read_all()) == before
            again = store.append("s", [thing(1), thing(2)], expected_version=0,
                                 command_id="c1", command_digest="d1")
            assert again.replayed
            assert again.event_ids == first.event_ids
            assert store.load_projection("party") == (2, '{"ok":true}')
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
        """An append that cannot get the write lock in time raises and writes nothing."""
        store = SQLiteStore(db, busy_timeout=0.2)
        try:
            raw.execute("BEGIN IMMEDIATE")
            started = time.monotonic()
            with pytest.raises(ConcurrencyError, match="locked"):
                store.append("s", [thing(4)], expected_version=3)
            assert time.monotonic() - started >= 0.15
            with pytest.raises(ConcurrencyError, match="locked"):
                store.save_projection("party", 1, "{}")
            raw.execute("ROLLBACK")
            assert store.stream_version("s") == 3
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


_RACER = """
import pathlib, sys, time
from hexlog.events.errors import ConcurrencyError
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
                name: subprocess.Popen(
                    [sys.executable, "-c", _RACER, str(path), name, str(expected),
                     str(flag), str(go)],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
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
            assert [r.envelope.data for r in written] == [
                {"writer": winner, "i": i} for i in range(3)
            ]
        assert integrity_check(path) == "ok"
