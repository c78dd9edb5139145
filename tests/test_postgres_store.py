"""What the PostgreSQL store adds to the contract: its guards in the database, concurrent writers and readers,
read-only use, refusals, and rows that hold the same text as SQLite's."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import uuid
from typing import TYPE_CHECKING

import psycopg
import pytest
from psycopg import sql

from hexlog.events.errors import (
    AUDIT,
    Advice,
    ConcurrencyError,
    CorruptLogError,
    DatabaseUnreachableError,
    NotFoundError,
    StaleVersionError,
    StoreWriteError,
)
from hexlog.events.postgres import PostgresStore
from hexlog.events.postgres_schema import append_lock_key
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import ProjectionRow

from .postgres_db import PG_URL, Relay, drop_schema, needs_postgres, pg_url, relay, schema_url
from .test_store_contract import batch, thing

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

pytestmark = needs_postgres
__all__ = ["pg_url", "relay"]  # the fixtures, used by name


@pytest.fixture
def store(pg_url: str) -> Iterator[PostgresStore]:
    """A new store in a schema of this test's own."""
    made = PostgresStore(pg_url)
    yield made
    made.close()


def test_the_database_refuses_to_change_or_remove_an_event(store: PostgresStore, pg_url: str) -> None:
    """Append-only is the database's own rule: an UPDATE, a DELETE or a TRUNCATE from any client fails."""
    store.append("s", batch(1, 2), expected_version=0)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for statement in ("UPDATE events SET data = '{}'", "DELETE FROM events", "TRUNCATE events"):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                conn.execute(statement)
    assert [r.envelope.data["n"] for r in store.read_all()] == [1, 2]


def test_two_writers_of_one_stream_end_with_one_stale_version_never_a_fork(store: PostgresStore, pg_url: str) -> None:
    """Two connections appending at the same version while the append lock is held: once it is released one
    append wins and the other raises ``StaleVersionError``; the stream stays one sound chain."""
    store.append("s", batch(0), expected_version=0)
    writers = [PostgresStore(pg_url), PostgresStore(pg_url)]
    outcomes: list[object] = []

    def write(writer: PostgresStore, n: int) -> None:
        try:
            outcomes.append(writer.append("s", batch(n), expected_version=1))
        except StaleVersionError as err:
            outcomes.append(err)

    with psycopg.connect(pg_url) as holder:
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (append_lock_key(store.schema),))
        threads = [threading.Thread(target=write, args=(w, n)) for n, w in enumerate(writers, start=1)]
        for thread in threads:
            thread.start()
        threads[0].join(0.5)
        assert not outcomes  # both wait for the lock
        holder.rollback()
    for thread in threads:
        thread.join(30)
    for writer in writers:
        writer.close()
    assert sorted(type(o).__name__ for o in outcomes) == ["AppendResult", "StaleVersionError"]
    assert [r.version for r in store.read_stream("s")] == [1, 2]
    assert store.tail_problem("s") is None


def test_an_append_that_waits_past_the_lock_timeout_is_busy_and_writes_nothing(
    store: PostgresStore, pg_url: str
) -> None:
    """While another transaction holds the append lock, an append gives up after its lock timeout (0: at once)."""
    for timeout in (0.2, 0):
        hurried = PostgresStore(pg_url, lock_timeout=timeout)
        try:
            with psycopg.connect(pg_url) as holder:
                holder.execute("SELECT pg_advisory_xact_lock(%s)", (append_lock_key(store.schema),))
                with pytest.raises(ConcurrencyError, match="busy"):
                    hurried.append("s", batch(1), expected_version=0)
                rows = [ProjectionRow(projection="p", key="k", version=0, data=1)]
                assert hurried.write_rows("s", rows, at_version=0) is False
        finally:
            hurried.close()
    assert store.stream_version("s") == 0
    assert store.append("s", batch(1), expected_version=0).last_version == 1


def test_a_reader_never_sees_a_later_position_before_an_earlier_one(store: PostgresStore, pg_url: str) -> None:
    """While four writers append to streams of their own, every read of the log is positions 1..n without a gap."""
    done = threading.Event()
    gaps: list[list[int]] = []

    def write(name: str) -> None:
        writer = PostgresStore(pg_url)
        try:
            for version in range(40):
                writer.append(name, batch(version, version), expected_version=version * 2)
        finally:
            writer.close()

    def read() -> None:
        reader = PostgresStore(pg_url, readonly=True)
        try:
            while not done.is_set():
                positions = [r.position for r in reader.read_all()]
                if positions != list(range(1, len(positions) + 1)):
                    gaps.append(positions)
        finally:
            reader.close()

    watcher = threading.Thread(target=read)
    watcher.start()
    writers = [threading.Thread(target=write, args=(f"w{i}",)) for i in range(4)]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(60)
    done.set()
    watcher.join(30)
    assert gaps == []
    assert [r.position for r in store.read_all()] == list(range(1, 4 * 80 + 1))


def test_a_read_only_store_writes_nothing(store: PostgresStore, pg_url: str) -> None:
    """A read-only store refuses appends, skips row writes, and its session cannot write either."""
    store.append("s", batch(1), expected_version=0)
    reader = PostgresStore(pg_url, readonly=True)
    try:
        with pytest.raises(StoreWriteError, match="read only"):
            reader.append("s", batch(2), expected_version=1)
        assert (
            reader.write_rows("s", [ProjectionRow(projection="p", key="k", version=1, data=1)], at_version=1) is False
        )
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            reader._conn.execute("INSERT INTO commands VALUES ('c', 's', 'd', 1, 1, '[]')")
        assert [r.envelope.data["n"] for r in reader.read_all()] == [1]
    finally:
        reader.close()
    assert store.read_rows("s", "p") == {}


def test_a_schema_without_hexlog_tables_is_refused_unless_created(pg_url: str) -> None:
    """Opening without ``create`` (or read-only) finds no hexlog database and writes nothing."""
    for kind in ({"create": False}, {"readonly": True}):
        with pytest.raises(NotFoundError, match="no hexlog database") as refused:
            PostgresStore(pg_url, **kind)
        assert refused.value.advice == Advice("StartCampaign")  # each door names the command its own way
    made = PostgresStore(pg_url)
    made.close()
    PostgresStore(pg_url, create=False).close()


def test_an_events_table_that_is_not_hexlogs_is_refused(pg_url: str) -> None:
    """A schema whose ``events`` table lacks hexlog's columns is refused untouched."""
    PostgresStore(pg_url).close()  # makes the schema
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE events")
        conn.execute("CREATE TABLE events (position BIGINT, note TEXT)")
    with pytest.raises(CorruptLogError, match="not a hexlog database"):
        PostgresStore(pg_url)


def test_a_lost_guard_trigger_comes_back_on_opening(store: PostgresStore, pg_url: str) -> None:
    """A hexlog schema whose guard trigger was dropped gets it back when a writer opens it."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TRIGGER events_no_delete ON events")
    PostgresStore(pg_url).close()
    store.append("s", batch(1), expected_version=0)
    with psycopg.connect(pg_url, autocommit=True) as conn, pytest.raises(psycopg.errors.RaiseException):
        conn.execute("DELETE FROM events")


def test_a_damaged_tail_refuses_the_append(store: PostgresStore, pg_url: str) -> None:
    """An event changed behind hexlog's back (its guard disabled) is found before the next append."""
    store.append("s", batch(1, 2), expected_version=0)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE events DISABLE TRIGGER events_no_update")
        conn.execute("""UPDATE events SET data = '{"n":7}' WHERE stream_version = 2""")
    assert store.tail_problem("s") == "the event at version 2 does not match its hash"
    with pytest.raises(CorruptLogError, match="the event at version 2 does not match its hash") as caught:
        store.append("s", batch(3), expected_version=2)
    assert caught.value.advice == AUDIT  # each door names its audit: 'hexlog audit', GET /campaigns/{c}/audit
    assert store.stream_version("s") == 2


def test_rows_hold_the_same_text_as_sqlites(store: PostgresStore, tmp_path: Path) -> None:
    """The same appends store the same columns, byte for byte, in PostgreSQL and in SQLite."""
    lite = SQLiteStore(tmp_path / "events.db")
    events = [thing(1, text="naïve ✓ \u0000", nested={"z": [1.5, None], "a": True}), thing(2)]
    for target in (store, lite):
        target.append("s", events[:1], expected_version=0)
        target.append("t", events[1:], expected_version=0)
    query = "SELECT position, stream_id, stream_version, id, data, prevhash, hash FROM events ORDER BY position"
    with psycopg.connect(store.url) as conn:
        in_postgres = conn.execute(query).fetchall()
    in_sqlite = sqlite3.connect(tmp_path / "events.db").execute(query).fetchall()
    lite.close()
    assert in_postgres == in_sqlite


def test_a_server_that_does_not_answer_is_a_write_error() -> None:
    """No server at the URL: ``StoreWriteError`` naming the database, without its password."""
    with pytest.raises(
        StoreWriteError, match=r"cannot connect to the database postgresql://me@127\.0\.0\.1:1/x"
    ) as err:
        PostgresStore("postgresql://me:hunter2@127.0.0.1:1/x", lock_timeout=1)
    assert "hunter2" not in str(err.value)


@pytest.mark.parametrize(
    ("url", "password"),
    [
        ("postgresql://me:pw%ZZhunter2@127.0.0.1:1/x", "pw%ZZhunter2"),  # the driver quotes a bad %-escape
        ("postgresql://me@127.0.0.1:1/x?password=pw%ZZhunter2", "pw%ZZhunter2"),
        ("postgresql://me:%E2%82%ACuro%ZZhunter2@127.0.0.1:1/x", "hunter2"),
    ],
)
def test_a_url_the_driver_refuses_is_told_without_its_password(url: str, password: str) -> None:
    """The driver's own sentence about a URL it cannot read may quote the password: it is left out there too."""
    with pytest.raises(StoreWriteError, match="cannot connect to the database") as err:
        PostgresStore(url, lock_timeout=1)
    assert password not in str(err.value)
    assert "hunter2" not in str(err.value)


@pytest.fixture
def reader(store: PostgresStore, pg_url: str) -> Iterator[tuple[str, str]]:
    """A login role of its own that may use the store's schema and nothing in it yet: (its URL, the schema)."""
    schema = store.schema
    role = f"hexlog_reader_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(schema), sql.Identifier(role)))
    try:
        yield pg_url.replace("://postgres@", f"://{role}@", 1), role
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
            conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


def _grant(pg_url: str, what: str, table: str, role: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(sql.SQL(what).format(sql.Identifier(table), sql.Identifier(role)))


def test_a_role_that_may_not_read_a_table_is_told_so_not_that_there_is_no_database(
    store: PostgresStore, pg_url: str, reader: tuple[str, str]
) -> None:
    """Tables a role may not read are still there: opening finds them, and a read is refused as a
    ``StoreWriteError`` naming the table (not ``NotFoundError`` saying to run init, nor the driver's own error)."""
    store.append("s", batch(1), expected_version=0)
    url, role = reader
    opened = PostgresStore(url, create=False, readonly=True)
    try:
        with pytest.raises(StoreWriteError, match="permission denied for table events"):
            opened.read_stream("s")
    finally:
        opened.close()
    _grant(pg_url, "GRANT SELECT ON {} TO {}", "events", role)
    opened = PostgresStore(url, create=False, readonly=True)
    try:
        assert [r.envelope.data["n"] for r in opened.read_stream("s")] == [1]
        with pytest.raises(StoreWriteError, match="permission denied for table projection_rows"):
            opened.read_rows("s", "table")
    finally:
        opened.close()


@needs_postgres
def test_a_schema_whose_name_has_capitals_is_opened_as_named() -> None:
    """A quoted ``search_path`` keeps a name's capitals: the store creates that schema, finds its tables and
    guards in it, and opens it again, without folding the name to lower case."""
    schema = f"Hexlog_Test_{uuid.uuid4().hex[:12]}"
    url = schema_url(f"%22{schema}%22")
    try:
        made = PostgresStore(url)
        made.append("s", batch(1), expected_version=0)
        made.close()
        again = PostgresStore(url, create=False, readonly=True)
        assert again.schema == schema
        assert [r.envelope.data["n"] for r in again.read_stream("s")] == [1]
        again.close()
    finally:
        drop_schema(schema)


def _end_backend(pid: int) -> None:
    """End a connection's backend from another connection, as an administrator or a restarting server does."""
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))


def test_a_connection_the_server_ended_is_replaced_when_next_used(pg_url: str) -> None:
    """A backend ended while the store is idle: the next read and the next append use a new connection, whose
    session is as the first one was (read only, for a read-only store)."""
    store = PostgresStore(pg_url)
    reader = PostgresStore(pg_url, create=False, readonly=True)
    try:
        store.append("s", batch(1), expected_version=0)
        for opened in (store, reader):
            _end_backend(opened._conn.info.backend_pid)
        assert [r.envelope.data["n"] for r in reader.read_stream("s")] == [1]
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            reader._conn.execute("CREATE TABLE hexlog_not_made (n int)")
        _end_backend(store._conn.info.backend_pid)
        assert store.append("s", batch(2), expected_version=1).last_version == 2
        _end_backend(store._conn.info.backend_pid)
        assert store.command_result("nobody", "") is None
        assert store.tail_problem("s") is None
    finally:
        store.close()
        reader.close()


def test_a_server_out_of_reach_is_unreachable_until_it_is_back_and_nothing_is_half_written(
    pg_url: str, relay: Relay
) -> None:
    """The server gone (the relay cut): every read and append is ``DatabaseUnreachableError`` in one line, a cache
    write is skipped; the server back, the store connects again and its log is as it was."""
    url = relay.url(pg_url)
    store = PostgresStore(url)
    try:
        store.append("s", batch(1), expected_version=0)
        relay.cut()
        for attempt in (
            lambda: store.read_stream("s"),
            lambda: store.append("s", batch(2), expected_version=1),
            lambda: store.command_result("c", ""),
        ):
            with pytest.raises(DatabaseUnreachableError) as caught:
                attempt()
            assert str(caught.value).startswith(f"cannot connect to the database {url}: ")
            assert "Connection refused" in caught.value.reason
            assert "\n" not in str(caught.value)
        rows = [ProjectionRow(projection="p", key="k", version=1, data=1)]
        assert store.write_rows("s", rows, at_version=1) is False
        relay.restore()
        assert store.stream_version("s") == 1
        assert store.append("s", batch(2), expected_version=1).last_version == 2
        assert [r.envelope.data["n"] for r in store.read_stream("s")] == [1, 2]
    finally:
        store.close()


def test_an_append_whose_connection_is_ended_mid_transaction_is_unreachable_and_writes_nothing(
    store: PostgresStore, pg_url: str
) -> None:
    """The append waits for the append lock inside its transaction when its backend is ended: nothing of it is
    recorded, the error says the database went away, and the next append (on a new connection) records."""
    store.append("s", batch(1), expected_version=0)
    outcome: list[BaseException] = []

    def append() -> None:
        try:
            store.append("s", batch(2, 3), expected_version=1, command_id="c", command_digest="d")
        except BaseException as err:  # noqa: BLE001 - the outcome is the test's
            outcome.append(err)

    with psycopg.connect(pg_url) as holder:
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (append_lock_key(store.schema),))
        writer = threading.Thread(target=append)
        writer.start()
        pid = store._conn.info.backend_pid
        for _ in range(500):  # until the append waits for the lock
            waiting = holder.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
            if waiting is not None and waiting[0] == "Lock":
                break
            threading.Event().wait(0.01)
        _end_backend(pid)
        writer.join(timeout=30)
    assert len(outcome) == 1
    assert isinstance(outcome[0], DatabaseUnreachableError), outcome
    assert str(outcome[0]).endswith("; nothing was written")
    assert store.stream_version("s") == 1
    assert store.command_result("c", "d") is None
    assert store.append("s", batch(2, 3), expected_version=1).last_version == 3


def test_an_append_is_heard_by_a_listener_once_committed_and_only_on_its_schemas_channel(pg_url: str) -> None:
    """A listener hears the stream of each append another connection commits, at once; an append that is rolled
    back is never heard, nor an append to another schema; a listener whose connection is lost says so."""
    store, writer = PostgresStore(pg_url), PostgresStore(pg_url)
    listener = store.listener()
    try:
        assert listener.heard(timeout=0.05) == []
        writer.append("campaign-main", batch(1), expected_version=0)
        assert listener.heard(timeout=10) == ["campaign-main"]
        with pytest.raises(StaleVersionError):
            writer.append("campaign-main", batch(2), expected_version=0)
        with _other_schema() as other:
            other.append("campaign-main", batch(1), expected_version=0)
            assert other.channel != store.channel
        assert listener.heard(timeout=0.3) == []
        _end_backend(listener._conn.info.backend_pid)
        with pytest.raises(DatabaseUnreachableError, match="cannot listen to the database"):
            listener.heard(timeout=10)
    finally:
        listener.close()
        store.close()
        writer.close()


@contextlib.contextmanager
def _other_schema() -> Iterator[PostgresStore]:
    schema = f"hexlog_test_{uuid.uuid4().hex[:16]}"
    other = PostgresStore(schema_url(schema))
    try:
        yield other
    finally:
        other.close()
        drop_schema(schema)
