"""The rows a command decides on are checked before they are used, and none of them grows with the campaign."""

from __future__ import annotations

import itertools
import sqlite3
from typing import TYPE_CHECKING, Any

import pytest

from hexlog.events.chain import canonical_json
from hexlog.events.codec import to_data
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.session import SessionClosed, SessionOpened
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import NewEvent, ProjectionRow
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.projections import live
from hexlog.projections.ledger import commitment_key
from hexlog.replay.rebuild import projections, replay

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from hexlog.events.base import Event

STREAM = "campaign-c1"
_handlers = itertools.count(1)


def fresh_handler(store: Any, keeper: MemoryKeeper | None = None) -> Handler:
    """A handler with nothing in memory yet (as each ``hexlog`` invocation is), a fixed clock and its own ids."""
    ids, number = itertools.count(1), next(_handlers)
    return Handler(
        store,
        keeper or MemoryKeeper(),
        clock=lambda: "2026-11-29T20:00:00Z",
        new_id=lambda: f"00000000-0000-0000-{number:04d}-{next(ids):012d}",
    )


def names(table: Any) -> list[str]:
    return [m.name for m in table.party.members]


def raw_append(store: Any, event: Event) -> None:
    """Append an event past the handler: no projection row is written with it."""
    version = store.stream_version(STREAM)
    new = NewEvent(
        id=f"raw-{version + 1}",
        source="hexlog:c1",
        type=event.cloud_type(),
        time="2026-11-29T20:00:00Z",
        schemaversion=event.schema_version,
        data=to_data(event),
    )
    store.append(STREAM, [new], expected_version=version)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """An empty store of each backend."""
    made: Any = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "hexlog.db")
    yield made
    made.close()


def two_joined(store: Any) -> MemoryKeeper:
    """A campaign whose party is Aldric and Bo (stream versions 1 to 4); the keeper of its session."""
    keeper = MemoryKeeper()
    handler = fresh_handler(store, keeper)
    for command in (c.StartCampaign(), c.OpenSession(), c.AddMember(name="Aldric"), c.AddMember(name="Bo")):
        handler.execute("c1", command)
    return keeper


def move_marks(store: Any, version: int, event: str | None = None) -> None:
    """Set every projection's mark to ``version`` (and, if given, ``event``), its data otherwise kept."""
    rows = []
    for projection in projections():
        _, data = store.read_rows(STREAM, projection.name, [live.MARK])[live.MARK]
        moved = data if event is None else {**data, "event": event}
        rows.append(ProjectionRow(projection=projection.name, key=live.MARK, version=version, data=moved))
    assert store.write_rows(STREAM, rows, at_version=store.stream_version(STREAM))


class TestMarks:
    """A mark names the stream version its rows were folded to and the hash of the log's event there."""

    def test_a_mark_moved_back_is_not_trusted_and_no_event_is_folded_twice(self, store: Any) -> None:
        """With the marks set back to version 2, the next command folds the log, not events 3 and 4 once more."""
        keeper = two_joined(store)
        move_marks(store, 2)
        outcome = fresh_handler(store, keeper).execute("c1", c.AddMember(name="Cy"))
        assert names(outcome.table) == ["Aldric", "Bo", "Cy"]
        assert names(fresh_handler(store, keeper).load("c1")) == ["Aldric", "Bo", "Cy"]
        assert replay(store, "c1").ok, replay(store, "c1").text()

    def test_a_mark_moved_back_naming_the_event_at_its_new_version_is_not_trusted(self, store: Any) -> None:
        """A mark that names version 2 and the very event at version 2 still sits under rows written at version 4."""
        keeper = two_joined(store)
        move_marks(store, 2, event=store.read_stream(STREAM, 2)[0].envelope.id)
        report = replay(store, "c1")
        assert [check.status for check in report.checks] == ["differs", "differs"]
        assert "rows newer than their mark at version 2: party" in report.checks[0].reason
        outcome = fresh_handler(store, keeper).execute("c1", c.AddMember(name="Cy"))
        assert names(outcome.table) == ["Aldric", "Bo", "Cy"]
        assert replay(store, "c1").ok

    def test_rows_of_another_log_of_the_same_length_are_not_trusted(self) -> None:
        """Rows copied from another campaign's history (same versions, other events) are folded again from this log."""
        ours, theirs = MemoryStore(), MemoryStore()
        keeper = two_joined(ours)
        other = fresh_handler(theirs)
        for command in (c.StartCampaign(), c.OpenSession(), c.AddMember(name="Zed"), c.AddMember(name="Yu")):
            other.execute("c1", command)
        for projection in projections():
            rows = theirs.read_rows(STREAM, projection.name)
            copied = [ProjectionRow(projection=projection.name, key=k, version=v, data=d) for k, (v, d) in rows.items()]
            assert ours.write_rows(STREAM, copied, at_version=4)
        report = replay(ours, "c1")
        assert all("but the log's event there is" in check.reason for check in report.checks), report.text()
        assert names(fresh_handler(ours, keeper).load("c1")) == ["Aldric", "Bo"]
        outcome = fresh_handler(ours, keeper).execute("c1", c.AddMember(name="Cy"))
        assert names(outcome.table) == ["Aldric", "Bo", "Cy"]
        assert replay(ours, "c1").ok

    def test_a_mark_edited_in_the_database_is_not_trusted(self, tmp_path: Path) -> None:
        """``UPDATE projection_rows SET version = 2 WHERE key = '@'``, then a command: the party is not doubled."""
        path = tmp_path / "hexlog.db"
        store = SQLiteStore(path)
        try:
            keeper = two_joined(store)
            with sqlite3.connect(path) as raw:
                raw.execute("UPDATE projection_rows SET version = 2 WHERE key = '@'")
            outcome = fresh_handler(store, keeper).execute("c1", c.AddMember(name="Cy"))
            assert names(outcome.table) == ["Aldric", "Bo", "Cy"]
            assert replay(store, "c1").ok
        finally:
            store.close()

    def test_a_sound_mark_is_trusted_and_only_the_event_at_it_is_read_besides_the_tail(self, store: Any) -> None:
        """Loading reads the log from the mark's own event on: the cost of a command does not grow with the log."""
        keeper = two_joined(store)
        reads: list[int] = []
        read = store.read_stream

        def counted(stream_id: str, from_version: int = 1) -> Any:
            reads.append(from_version)
            return read(stream_id, from_version)

        store.read_stream = counted
        handler = fresh_handler(store, keeper)
        handler.load("c1")
        assert reads == [4, 4]  # the table and the ledger, each from its mark's event
        handler.execute("c1", c.AddMember(name="Cy"))
        assert reads[2:] == []  # a warm handler that wrote last reads no event: the stream's version tells it
        fresh_handler(store, keeper).execute("c1", c.AddMember(name="Di"))  # another writer appends version 6
        reads.clear()
        handler.execute("c1", c.AddMember(name="Ed"))
        assert reads == [6, 6]  # a warm handler reads only what was appended after it


class TestCommitments:
    """A reused secret is refused by reading one row: no row of the table grows with the sessions."""

    @staticmethod
    def sessions(store: Any, count: int) -> tuple[Handler, MemoryKeeper]:
        """A campaign that has opened and closed ``count`` sessions, secrets 1, 2, 3 ... (as 32 bytes each)."""
        keeper = MemoryKeeper()
        handler = fresh_handler(store, keeper)
        handler.execute("c1", c.StartCampaign())
        for n in range(1, count + 1):
            handler.execute("c1", c.OpenSession(secret_hex=n.to_bytes(32, "big").hex()))
            handler.execute("c1", c.SetClientSeed(client_seed=f"seed {n}"))
            handler.execute("c1", c.CloseSession())
        return handler, keeper

    def test_no_table_row_grows_with_the_sessions(self) -> None:
        """After 1 session and after 40, the largest row of the table (the rules aside) is the same size."""
        store = MemoryStore()
        handler, _ = self.sessions(store, 1)
        sizes = []
        for n in range(2, 41):
            rows = store.read_rows(STREAM, "table")
            sizes.append(max(len(canonical_json(data)) for key, (_, data) in rows.items() if key != "rules"))
            handler.execute("c1", c.OpenSession(secret_hex=n.to_bytes(32, "big").hex()))
            handler.execute("c1", c.CloseSession())
        assert sizes[-1] <= sizes[0] + 4, sizes

    @pytest.mark.parametrize("fresh", [False, True], ids=["warm", "fresh"])
    def test_a_secret_any_earlier_session_used_is_refused(self, store: Any, fresh: bool) -> None:  # noqa: FBT001
        """The secret of session 2 of 5 is refused again, and nothing is written; a new secret is accepted."""
        handler, keeper = self.sessions(store, 5)
        if fresh:
            handler = fresh_handler(store, keeper)
        version = store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="already used by an earlier session"):
            handler.execute("c1", c.OpenSession(secret_hex=(2).to_bytes(32, "big").hex()))
        assert store.stream_version(STREAM) == version
        handler.execute("c1", c.OpenSession(secret_hex=(6).to_bytes(32, "big").hex()))
        commitment = hexdice.commitment((6).to_bytes(32, "big"))
        assert store.read_rows(STREAM, "ledger", [commitment_key(commitment)]) == {
            commitment_key(commitment): (version + 1, {"session": "s6"})
        }

    def test_a_secret_of_a_session_appended_without_rows_is_refused(self, store: Any) -> None:
        """A session another writer appended without its rows is folded first: its secret is refused too."""
        handler, keeper = self.sessions(store, 1)
        secret = bytes(range(32))
        raw_append(store, SessionOpened(session="s2", commitment=hexdice.commitment(secret)))
        raw_append(store, SessionClosed(session="s2", secret=secret.hex()))
        for one in (handler, fresh_handler(store, keeper)):
            with pytest.raises(RuleRefusedError, match="already used by an earlier session"):
                one.execute("c1", c.OpenSession(secret_hex=secret.hex()))

    def test_a_secret_is_refused_after_the_ledger_rows_were_lost(self, store: Any) -> None:
        """With the ledger's rows gone, the ledger is folded from the log again and the old commitment found."""
        _, keeper = self.sessions(store, 3)
        assert store.write_rows(
            STREAM,
            [ProjectionRow(projection="ledger", key="*", version=0, data=None)],
            at_version=store.stream_version(STREAM),
        )
        with pytest.raises(RuleRefusedError, match="already used by an earlier session"):
            fresh_handler(store, keeper).execute("c1", c.OpenSession(secret_hex=(1).to_bytes(32, "big").hex()))
