"""The SQLite store trusts the tail of a stream it wrote itself only while no other connection has written:
a tail damaged or moved by another connection is seen at the next append, as it always was."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

import pytest

from hexlog.events.chain import canonical_json, seal, seal_rows, verify_stream
from hexlog.events.errors import CorruptLogError, StaleVersionError, StoreWriteError
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import NewEvent

if TYPE_CHECKING:
    from pathlib import Path


def thing(n: int) -> NewEvent:
    return NewEvent(
        id=f"event-{n}",
        source="hexlog:test",
        type="hexlog.test.thing",
        time="2024-05-01T12:00:00Z",
        schemaversion=1,
        data={"n": n, "é": ["\u2028", 1.5, None, True]},
    )


def test_a_tail_damaged_by_another_connection_after_this_store_wrote_it_refuses_the_next_append(tmp_path: Path):
    store = SQLiteStore(tmp_path / "x.db")
    store.append("s", [thing(1), thing(2)], expected_version=0)
    raw = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    raw.execute("DROP TRIGGER events_no_update")
    raw.execute("UPDATE events SET data = ? WHERE stream_version = 2", (canonical_json({"n": 99}),))
    raw.close()
    with pytest.raises(CorruptLogError, match="damaged"):
        store.append("s", [thing(3)], expected_version=2)
    assert store.stream_version("s") == 2
    store.close()


def test_events_another_store_appended_are_seen_and_chained_to(tmp_path: Path):
    mine, theirs = SQLiteStore(tmp_path / "x.db"), SQLiteStore(tmp_path / "x.db")
    mine.append("s", [thing(1)], expected_version=0)
    mine.append("t", [thing(10)], expected_version=0)
    theirs.append("s", [thing(2)], expected_version=1)
    with pytest.raises(StaleVersionError):
        mine.append("s", [thing(3)], expected_version=1)
    mine.append("s", [thing(3)], expected_version=2)
    mine.append("t", [thing(11)], expected_version=1)
    records = list(mine.read_all())
    assert [r.position for r in records] == [1, 2, 3, 4, 5]
    assert [(r.stream_id, r.version) for r in records] == [("s", 1), ("t", 1), ("s", 2), ("s", 3), ("t", 2)]
    for stream in ("s", "t"):
        assert verify_stream([r.envelope for r in mine.read_stream(stream)]) is None
    mine.close()
    theirs.close()


def test_an_append_whose_commit_fails_leaves_no_tail_noted(tmp_path: Path):
    store = SQLiteStore(tmp_path / "x.db")
    store.append("s", [thing(1)], expected_version=0)
    real = store._conn

    class CommitFails:
        def __getattr__(self, name: str) -> object:
            return getattr(real, name)

        def execute(self, sql: str, *args: object) -> object:
            if sql == "COMMIT":
                real.execute("ROLLBACK")
                msg = "database or disk is full"
                raise sqlite3.OperationalError(msg)
            return real.execute(sql, *args)

    store._conn = CommitFails()  # type: ignore[assignment]
    with pytest.raises(StoreWriteError):
        store.append("s", [thing(2)], expected_version=1)
    store._conn = real
    store.append("s", [thing(2)], expected_version=1)
    assert verify_stream([r.envelope for r in store.read_stream("s")]) is None
    store.close()


def test_sealed_rows_are_the_envelopes_seal_makes_with_their_canonical_data():
    events = [thing(1), thing(2), thing(3)]
    rows = seal_rows("s", 4, "a" * 64, events)
    prevhash = "a" * 64
    for version, (new, (envelope, data)) in enumerate(zip(events, rows, strict=True), start=5):
        expected = seal(
            id=new.id,
            source=new.source,
            type=new.type,
            subject="s",
            time=new.time,
            data=new.data,
            streamversion=version,
            schemaversion=new.schemaversion,
            prevhash=prevhash,
        )
        assert envelope == expected
        assert data == canonical_json(new.data)
        prevhash = expected.hash
