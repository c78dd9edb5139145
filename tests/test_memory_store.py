"""The in-memory store seals its chain when the log is first read: every reader sees what sealing at once gives."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hexlog.events.chain import GENESIS, seal_batch
from hexlog.events.errors import StaleVersionError
from hexlog.events.memory import MemoryStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import Later, NewEvent, ProjectionRow, Recorded
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper

if TYPE_CHECKING:
    from pathlib import Path

#: one step of a plan: append ``size`` events to a stream (``"append"``), or read in one of the store's ways
Step = tuple[str, str, int]


def _event(n: int) -> NewEvent:
    return NewEvent(
        id=f"00000000-0000-4000-8000-{n:012d}",
        source="hexlog:test",
        type="hexlog.test.thing",
        time="2024-05-01T12:00:00.000000Z",
        schemaversion=1,
        data={"n": n, "text": "é ✓", "nested": {"b": [1, 2], "a": None}},
    )


class _Sealed:
    """What a store that seals each batch in ``append`` holds: ``seal_batch`` per batch, positions in order."""

    def __init__(self) -> None:
        self.log: list[Recorded] = []
        self.streams: dict[str, list[Recorded]] = {}

    def append(self, stream_id: str, events: list[NewEvent]) -> None:
        stream = self.streams.setdefault(stream_id, [])
        prev = stream[-1].envelope.hash if stream else GENESIS
        for envelope in seal_batch(stream_id, len(stream), prev, events):
            record = Recorded(position=len(self.log) + 1, envelope=envelope)
            stream.append(record)
            self.log.append(record)


def _run(plan: list[Step]) -> tuple[MemoryStore, _Sealed, int]:
    """Follow ``plan`` on a memory store and on ``_Sealed``; the two, and how many of the store's reads on the way
    gave what ``_Sealed`` held then."""
    store, sealed, counter, same = MemoryStore(), _Sealed(), 0, 0
    for action, stream_id, size in plan:
        stream = sealed.streams.get(stream_id, [])
        if action == "append":
            events = [_event(counter + i) for i in range(size)]
            counter += size
            store.append(stream_id, events, expected_version=len(stream))
            sealed.append(stream_id, events)
            continue
        if action == "read_stream":
            read, want = store.read_stream(stream_id, size), stream[max(size, 1) - 1 :]
        elif action == "iter_stream":
            read, want = list(store.iter_stream(stream_id, size)), stream[max(size, 1) - 1 :]
        else:
            read, want = list(store.read_all(size)), sealed.log[max(size, 1) - 1 :]
        same += read == want and store.stream_version(stream_id) == len(stream)
    return store, sealed, same


def _reads(plan: list[Step]) -> int:
    return sum(action != "append" for action, _, _ in plan)


def _chain(records: list[Recorded]) -> list[tuple[int, str, str, str]]:
    return [(r.position, r.envelope.id, r.envelope.prevhash, r.envelope.hash) for r in records]


_STEPS = st.tuples(
    st.sampled_from(["append", "append", "read_stream", "iter_stream", "read_all"]),
    st.sampled_from("abc"),
    st.integers(0, 5),
)


@settings(max_examples=100, derandomize=True, deadline=None)
@given(plan=st.lists(_STEPS, max_size=25))
def test_any_run_of_appends_and_reads_sees_the_chain_sealing_at_once_makes(plan: list[Step]) -> None:
    """Appends and reads in any order (reads of the part already read, of the part still unsealed, past the
    end): every read gives the records, positions, hashes and links of a store that sealed in ``append``."""
    store, sealed, same = _run(plan)
    assert same == _reads(plan)
    assert list(store.read_all()) == sealed.log
    assert _chain(list(store.read_all())) == _chain(sealed.log)
    assert store.streams() == [name for name, records in sealed.streams.items() if records]
    for stream_id, records in sealed.streams.items():
        assert store.read_stream(stream_id) == records
        assert store.stream_version(stream_id) == len(records)


def test_a_long_run_of_appends_read_once_at_the_end_is_the_chain_sealing_at_once_makes() -> None:
    """Hundreds of batches over several streams, nothing read until the end (as a simulation runs)."""
    rng = random.Random(7)  # noqa: S311 - a fixed plan for a test, not a secret
    plan: list[Step] = [("append", rng.choice("abcd"), rng.randint(1, 6)) for _ in range(300)]
    store, sealed, _ = _run(plan)
    assert len(sealed.log) > 300
    assert _chain(list(store.read_all())) == _chain(sealed.log)
    for stream_id, records in sealed.streams.items():
        assert _chain(list(store.iter_stream(stream_id))) == _chain(records)


def test_a_refused_append_keeps_nothing_even_before_the_log_is_read() -> None:
    """A stale version is refused against the versions the unsealed batches reach, and leaves no trace."""
    store = MemoryStore()
    store.append("s", [_event(1), _event(2)], expected_version=0)
    with pytest.raises(StaleVersionError):
        store.append("s", [_event(3)], expected_version=1)
    store.append("s", [_event(3)], expected_version=2)
    assert [r.envelope.data["n"] for r in store.read_stream("s")] == [1, 2, 3]
    assert store.stream_version("s") == 3


def test_a_whole_campaign_through_the_handler_records_what_the_sqlite_store_records(tmp_path: Path) -> None:
    """The same commands with the same ids and times on both stores: the same envelopes, hashes and links."""

    def run(store: MemoryStore | SQLiteStore) -> list[Recorded]:
        counter = iter(range(10_000))
        handler = Handler(
            store,
            MemoryKeeper(),
            clock=lambda: "2024-05-01T12:00:00.000000Z",
            new_id=lambda: f"00000000-0000-4000-8000-{next(counter):012d}",
        )
        for command in (
            c.StartCampaign(ruleset="ose"),
            c.OpenSession(secret_hex="11" * 32),
            c.AddMember(name="Ann", cha=13),
        ):
            handler.execute("same", command)
        for _ in range(5):
            handler.execute("same", c.RollDice(expression="3d6", purpose="check"))
        return list(store.read_all())

    memory = run(MemoryStore())
    sqlite = SQLiteStore(tmp_path / "events.db")
    try:
        on_disk = run(sqlite)
    finally:
        sqlite.close()
    assert [r.envelope for r in memory] == [r.envelope for r in on_disk]
    assert [r.position for r in memory] == [r.position for r in on_disk]
    assert len(memory) == 8  # the campaign, the session, the member and five rolls


def test_a_row_made_later_is_made_only_when_it_is_read() -> None:
    """The in-memory store keeps a ``Later`` row as it is until a reader asks for it: a simulation whose rows nobody
    reads never encodes them."""
    made: list[int] = []

    def value() -> dict[str, int]:
        made.append(1)
        return {"n": 1}

    store = MemoryStore()
    store.append(
        "s",
        [NewEvent(id="e1", source="hexlog:t", type="hexlog.test.thing", time="t", schemaversion=1, data={})],
        expected_version=0,
        rows=[ProjectionRow(projection="p", key="k", version=1, data=Later(value))],
    )
    assert made == []
    assert store.read_rows("s", "p", ["k"]) == {"k": (1, {"n": 1})}
    assert store.read_rows("s", "p") == {"k": (1, {"n": 1})}
    assert made == [1]
