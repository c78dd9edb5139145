"""An append writes its events in order, whatever their number (``ROWS_PER_INSERT`` at a time, the rest one by one):
each row as sealed, at the next positions; an append with an event id already in the log writes nothing."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

import pytest

from hexlog.events.chain import GENESIS, sealed_rows, verify_stream
from hexlog.events.errors import StaleVersionError
from hexlog.events.sqlite import ROWS_PER_INSERT, SQLiteStore
from hexlog.events.sqlite_schema import COLUMNS
from hexlog.events.store import NewEvent

if TYPE_CHECKING:
    from pathlib import Path

SIZES = (1, 2, ROWS_PER_INSERT - 1, ROWS_PER_INSERT, ROWS_PER_INSERT + 1, 2 * ROWS_PER_INSERT + 3, 100)


def thing(n: int, name: str = "event") -> NewEvent:
    return NewEvent(f"{name}-{n}", "hexlog:test", "hexlog.test.thing", "2024-05-01T12:00:00Z", 1, {"n": n, "é": [n]})


def stored(path: Path, stream: str) -> list[tuple[object, ...]]:
    """The stream's rows as the file holds them, in the order of their positions."""
    raw = sqlite3.connect(path)
    try:
        return raw.execute(f"SELECT {COLUMNS} FROM events WHERE stream_id = ? ORDER BY position", (stream,)).fetchall()  # noqa: S608 - constant columns
    finally:
        raw.close()


@pytest.mark.parametrize("count", SIZES)
def test_the_events_of_an_append_are_the_sealed_rows_in_order_at_the_next_positions(tmp_path: Path, count: int):
    store = SQLiteStore(tmp_path / "x.db")
    store.append("other", [thing(0, "other")], expected_version=0)
    first = [thing(n) for n in range(1, 4)]
    store.append("s", first, expected_version=0)
    events = [thing(n) for n in range(4, 4 + count)]
    result = store.append("s", events, expected_version=3)
    assert (result.first_version, result.last_version) == (4, 3 + count)
    assert result.event_ids == tuple(e.id for e in events)
    rows = stored(tmp_path / "x.db", "s")
    assert [row[0] for row in rows] == list(range(2, 5 + count))
    expected = sealed_rows("s", 0, GENESIS, first + events)
    assert [row[1:] for row in rows] == expected
    assert verify_stream([r.envelope for r in store.read_stream("s")]) is None
    store.close()


@pytest.mark.parametrize("at", [0, ROWS_PER_INSERT - 1, ROWS_PER_INSERT + 1, 2 * ROWS_PER_INSERT + 2])
def test_an_append_with_an_event_id_already_in_the_log_writes_nothing(tmp_path: Path, at: int):
    store = SQLiteStore(tmp_path / "x.db")
    store.append("other", [thing(7, "taken")], expected_version=0)
    events = [thing(n) for n in range(2 * ROWS_PER_INSERT + 3)]
    events[at] = thing(7, "taken")
    with pytest.raises(StaleVersionError, match="another append recorded these events first"):
        store.append("s", events, expected_version=0)
    assert stored(tmp_path / "x.db", "s") == []
    assert store.stream_version("s") == 0
    events[at] = thing(at)
    store.append("s", events, expected_version=0)
    assert [row[3] for row in stored(tmp_path / "x.db", "s")] == [e.id for e in events]
    store.close()
