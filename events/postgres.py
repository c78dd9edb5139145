"""A PostgreSQL event store: one schema, append-only by trigger, the same contract as the SQLite store.

Every append is one transaction that first takes the schema's append lock (a transaction-level
advisory lock), then checks the stream's last event against its hash and its link to the one before
(two rows), numbers the batch after the log's last position and inserts it. The lock is held until
the commit, so appends commit one after another in the order of their positions: a reader never
sees position N+1 without N, and two writers of one stream end with one ``StaleVersionError``,
never a fork. Stored rows hold the same text as SQLite's (``data`` is canonical JSON), so hashes and
exports are byte for byte the same on either backend.

Queries are sent with server-side parameters; an append's inserts go in one pipelined batch.

Each append announces itself on commit (``pg_notify`` on the schema's channel, the stream id as
payload, in the append's transaction): an ``AppendListener`` hears the appends of every connection
and process at once.

A connection the server ended (a restart, a terminated backend) is replaced by a new one when it is next
used; a server that cannot be reached then, or that goes away during a statement, is a
``DatabaseUnreachableError`` (and the transaction it broke off is rolled back by the server).
"""

from __future__ import annotations

import contextlib
import json
import selectors
import threading
from typing import TYPE_CHECKING, Any, NoReturn

import psycopg
from psycopg import sql

from hexlog.events.chain import canonical_json, sealed_rows
from hexlog.events.errors import (
    Advice,
    ConcurrencyError,
    CorruptLogError,
    DatabaseUnreachableError,
    NotFoundError,
    StaleVersionError,
    StoreWriteError,
)
from hexlog.events.postgres_schema import (
    COLUMNS_QUERY,
    DEADLOCK_DETECTED,
    DISK_FULL,
    HAZARDS,
    INSUFFICIENT_PRIVILEGE,
    KEYS_QUERY,
    LOCK_NOT_AVAILABLE,
    LOOSE_QUERY,
    READ_ONLY_TRANSACTION,
    SERIALIZATION_FAILURE,
    STATEMENTS,
    TABLES,
    TABLES_QUERY,
    TRIGGERS,
    TRIGGERS_QUERY,
    TYPES_QUERY,
    UNIQUE_VIOLATION,
    append_lock_key,
    first_schema,
    shown_url,
    table_differences,
    without_password,
)
from hexlog.events.sql_pages import PagedReads
from hexlog.events.sqlite_schema import (
    COLUMNS,
    COMMAND_COLUMNS,
    ROWS_PAGE_SIZE,
    checked_tail,
    command_row,
    known_command,
    tail_problem,
)
from hexlog.events.store import EVERY_ROW, AppendResult, NewEvent, ProjectionRow, row_value

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence


__all__ = ["AppendListener", "PostgresStore", "appends_channel", "connect", "first_line", "lost", "usable"]

#: the command that sets a database up (with its first campaign)
INIT = Advice("StartCampaign")
#: seconds to wait for the server to answer a new connection
CONNECT_TIMEOUT = 10

_INSERT = f"INSERT INTO events ({COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"  # noqa: S608 - constant columns
_TAIL = f"SELECT {COLUMNS} FROM events WHERE stream_id = %s ORDER BY stream_version DESC LIMIT 2"  # noqa: S608 - constant columns


class PostgresStore(PagedReads):
    """Keeps every stream in one PostgreSQL schema; same contract as ``SQLiteStore``.

    ``url`` is a libpq connection URL; its schema is the first of the connection's ``search_path``.
    With ``create`` (the default) a schema without hexlog's tables gets them (and a schema named in
    ``search_path`` that does not exist is created). Without it the schema must already hold hexlog's
    ``events`` table (``NotFoundError`` otherwise); an ``events`` table without hexlog's columns is
    refused either way (``CorruptLogError``). ``readonly`` never writes (the session is read-only).
    ``lock_timeout`` is how many seconds an append waits for another one before ``ConcurrencyError``.
    A server that cannot be reached is a ``DatabaseUnreachableError`` (a ``StoreWriteError``); a connection
    the server ended is replaced when next used (``_reconnect_if_lost``).
    """

    MARK = "%s"

    def __init__(self, url: str, *, lock_timeout: float = 10.0, create: bool = True, readonly: bool = False) -> None:
        self.url = url
        self.shown = shown_url(url)
        self.readonly = readonly
        #: a PostgreSQL schema is never removed by hexlog, so nothing counts as a new file to clean up
        self.created = False
        self._lock = threading.Lock()
        self._lock_timeout = lock_timeout
        #: False once closed: a closed store is not connected again
        self._open = True
        self._conn = self._connect()
        try:
            self.schema = self._prepare(create=create)
        except BaseException:
            self._conn.close()
            raise
        self._append_lock = append_lock_key(self.schema)
        #: where this schema's appends are announced
        self.channel = appends_channel(self.schema)

    def _connect(self) -> psycopg.Connection[tuple[Any, ...]]:
        readonly = sql.SQL("SET default_transaction_read_only = on")
        return connect(self.url, lock_timeout=self._lock_timeout, then=[readonly] if self.readonly else [])

    def _reconnect_if_lost(self) -> None:
        """Replace a connection the server ended (holding ``_lock``): its schema is found in the same place, the
        URL's ``search_path``; ``DatabaseUnreachableError`` when the server cannot be reached now."""
        if self._open and not usable(self._conn):
            self._conn.close()
            self._conn = self._connect()

    # -- opening ---------------------------------------------------------------------------------------

    def _prepare(self, *, create: bool) -> str:
        """Check the schema, and write its missing parts (tables, triggers) only where they are missing."""
        schema = self._schema(create=create)
        names = {row[0] for row in self._conn.execute(TABLES_QUERY, (sorted(TABLES),))}
        if "events" in names:
            columns = {row[0] for row in self._conn.execute(COLUMNS_QUERY)}
            missing = [c for c in COLUMNS.split(", ") if c not in columns]
            if missing:
                msg = f"{self.shown} is not a hexlog database (its events table has no {', '.join(missing)} column)"
                raise CorruptLogError(msg)
        elif not create or self.readonly:
            msg = f"no hexlog database at {self.shown} (schema {schema} has no events table); run '"
            raise NotFoundError(msg).advising(INIT, "' first")
        if self.readonly:
            return schema
        triggers = {row[0] for row in self._conn.execute(TRIGGERS_QUERY)}
        if names >= TABLES and triggers >= TRIGGERS:
            return schema
        try:
            with self._conn.transaction():
                self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (append_lock_key(schema),))
                for statement in STATEMENTS:
                    self._conn.execute(statement)
        except psycopg.Error as err:
            _raise_write_error(self.shown, "cannot set up", err)
        return schema

    def _schema(self, *, create: bool) -> str:
        """The schema this store keeps its tables in; created (with ``create``) when ``search_path`` names a
        schema that does not exist yet."""
        row = self._conn.execute("SELECT current_schema()").fetchone()
        if row is not None and row[0] is not None:
            return str(row[0])
        found = self._conn.execute("SELECT current_setting('search_path')").fetchone()
        path = str(found[0]) if found else ""
        wanted = first_schema(path)
        if wanted is None or wanted == "$user":
            msg = f"the database {self.shown} has no schema to keep hexlog's tables in (search_path is {path!r})"
            raise NotFoundError(msg)
        if not create or self.readonly:
            msg = f"no hexlog database at {self.shown} (schema {wanted} does not exist); run '"
            raise NotFoundError(msg).advising(INIT, "' first")
        try:
            self._conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(wanted)))
        except psycopg.Error as err:
            _raise_write_error(self.shown, f"cannot create schema {wanted} in", err)
        return wanted

    # -- appending -------------------------------------------------------------------------------------

    def append(  # noqa: PLR0913 - the store protocol
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int,
        command_id: str | None = None,
        command_digest: str | None = None,
        rows: Sequence[ProjectionRow] = (),
    ) -> AppendResult:
        """Append a batch and its projection rows atomically; see ``EventStore``."""
        if self.readonly:
            msg = f"the database {self.shown} was opened to be read only; nothing was written"
            raise StoreWriteError(msg)
        with self._lock:
            self._reconnect_if_lost()
            try:
                with self._conn.transaction():
                    self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._append_lock,))
                    result = self._append_locked(stream_id, events, expected_version, command_id, command_digest or "")
                    if not result.replayed:
                        self._put_rows(stream_id, rows)
            except psycopg.Error as err:
                raise self._append_error(stream_id, err) from err
            return result

    def _append_error(self, stream_id: str, err: psycopg.Error) -> Exception:
        """The error an append that wrote nothing raises for PostgreSQL's ``err``."""
        if lost(self._conn, err):
            reason = first_line(err)
            msg = f"cannot write the database {self.shown}: {reason}; nothing was written"
            return DatabaseUnreachableError(msg, reason)
        state = err.sqlstate or ""
        if state == UNIQUE_VIOLATION:
            msg = f"stream {stream_id}: another append recorded these events first ({first_line(err)})"
            return StaleVersionError(msg)
        if state in {LOCK_NOT_AVAILABLE, SERIALIZATION_FAILURE, DEADLOCK_DETECTED}:
            msg = f"stream {stream_id}: the database is busy: another append held it past the lock timeout; try again"
            return ConcurrencyError(msg)
        if isinstance(err, psycopg.OperationalError | psycopg.DataError) or state in {
            READ_ONLY_TRANSACTION,
            INSUFFICIENT_PRIVILEGE,
            DISK_FULL,
        }:
            return StoreWriteError(f"cannot write the database {self.shown}: {first_line(err)}; nothing was written")
        return err

    def _append_locked(
        self, stream_id: str, events: Sequence[NewEvent], expected_version: int, command_id: str | None, digest: str
    ) -> AppendResult:
        """The append, inside its transaction and holding the append lock."""
        if command_id is not None:
            known = self._known(command_id, digest)
            if known is not None:
                return known
        version, prev = self._checked_tail(stream_id)
        if version != expected_version:
            msg = f"stream {stream_id} is at version {version}, not {expected_version}"
            raise StaleVersionError(msg)
        found = self._conn.execute("SELECT COALESCE(MAX(position), 0) FROM events").fetchone()
        position = int(found[0]) if found else 0
        sealed = sealed_rows(stream_id, expected_version, prev, events)
        params = [(position + offset, *row) for offset, row in enumerate(sealed, start=1)]
        if params:
            with self._conn.pipeline(), self._conn.cursor() as cur:
                cur.executemany(_INSERT, params)
                # heard by the listeners once the transaction commits, never if it does not
                cur.execute("SELECT pg_notify(%s, %s)", (self.channel, stream_id))
        result = AppendResult(
            stream_id=stream_id,
            first_version=expected_version + 1,
            last_version=expected_version + len(params),
            event_ids=tuple(row[2] for row in sealed),
        )
        if command_id is not None:
            self._conn.execute(
                f"INSERT INTO commands ({COMMAND_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s)",  # noqa: S608 - constant columns
                command_row(command_id, digest, result),
            )
        return result

    def _checked_tail(self, stream_id: str) -> tuple[int, str]:
        """The stream's version and last hash, once its last event is checked against its hash and its
        link to the event before; ``CorruptLogError`` naming the audit when they do not hold."""
        return checked_tail(stream_id, self._conn.execute(_TAIL, (stream_id,)).fetchall())

    def _known(self, command_id: str, digest: str) -> AppendResult | None:
        row = self._conn.execute(
            "SELECT stream_id, digest, first_version, last_version, event_ids FROM commands WHERE command_id = %s",
            (command_id,),
        ).fetchone()
        return known_command(row, command_id, digest)

    def _put_rows(self, stream_id: str, rows: Sequence[ProjectionRow]) -> None:
        """Apply projection rows in order inside the caller's transaction (upsert, delete, or wipe)."""
        execute = self._conn.execute
        for r in rows:
            if r.data is not None:
                execute(
                    "INSERT INTO projection_rows (stream_id, projection, key, version, data) "
                    "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (stream_id, projection, key) "
                    "DO UPDATE SET version = excluded.version, data = excluded.data",
                    (stream_id, r.projection, r.key, r.version, canonical_json(row_value(r.data))),
                )
            elif r.key == EVERY_ROW:
                execute(
                    "DELETE FROM projection_rows WHERE stream_id = %s AND projection = %s", (stream_id, r.projection)
                )
            else:
                execute(
                    "DELETE FROM projection_rows WHERE stream_id = %s AND projection = %s AND key = %s",
                    (stream_id, r.projection, r.key),
                )

    # -- reading ---------------------------------------------------------------------------------------

    def _rows(self, query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows a read gives; a server that went away, or a table the role may not read, is a
        ``StoreWriteError`` naming the database (``DatabaseUnreachableError`` for a server out of reach)."""
        with self._lock, self._reading():
            return self._conn.execute(query, params).fetchall()

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """Read on a live connection (holding ``_lock``); what the server refuses in hexlog's words."""
        self._reconnect_if_lost()
        try:
            yield
        except (psycopg.errors.UndefinedFunction, psycopg.errors.DatatypeMismatch, psycopg.DataError) as err:
            # a column of another type than hexlog's (an events table rebuilt by hand): the log cannot be read
            msg = f"cannot read the events of {self.shown}: {first_line(err)}"
            raise CorruptLogError(msg) from err
        except (psycopg.OperationalError, psycopg.errors.InsufficientPrivilege) as err:
            reason = first_line(err)
            msg = f"cannot read the database {self.shown}: {reason}"
            if lost(self._conn, err):
                raise DatabaseUnreachableError(msg, reason) from err
            raise StoreWriteError(msg) from err

    def events_differences(self) -> list[str]:
        """How the events table differs from the one hexlog makes where readers depend on it (its keys, its columns'
        types, and a collation that compares two stream ids as one), a few words each; empty for hexlog's."""
        keys = {(str(kind), tuple(columns)) for kind, columns in self._rows(KEYS_QUERY, ())}
        types = {str(name): str(kind) for name, kind in self._rows(TYPES_QUERY, ())}
        return table_differences(keys, [str(row[0]) for row in self._rows(LOOSE_QUERY, ())], types)

    def events_as_made(self) -> bool:
        """Whether the events table has hexlog's keys and compares stream ids as written: only then does a reader
        paging through it by position, or a stream by its version, read each row exactly once."""
        return not self.events_differences()

    def events_hazards(self) -> list[str]:
        """What the events table holds that a reader paging through it may skip or mix up (``HAZARDS``): nothing,
        in a table hexlog made, whose keys and collation keep it from holding any."""
        out = []
        for query, words in HAZARDS:
            found = self._rows(query, ())
            if found:
                out.append(words.format(*(repr(value) for value in found[0])))
        return out

    def tail_problem(self, stream_id: str) -> str | None:
        """What is wrong with the stream's last event (its hash or its link), or None."""
        last = self._rows(_TAIL, (stream_id,))
        return tail_problem(last) if last else None

    def has_events(self) -> bool:
        """Whether the store holds any event."""
        return bool(self._rows("SELECT 1 FROM events LIMIT 1", ()))

    def command_result(self, command_id: str, command_digest: str) -> AppendResult | None:
        """The result of an earlier command with this id, if any."""
        with self._lock, self._reading():
            return self._known(command_id, command_digest)

    def stream_version(self, stream_id: str) -> int:
        """How many events the stream holds."""
        rows = self._rows("SELECT COALESCE(MAX(stream_version), 0) FROM events WHERE stream_id = %s", (stream_id,))
        return int(rows[0][0])

    def streams(self) -> list[str]:
        """Every stream id, in order of first append."""
        rows = self._rows("SELECT stream_id FROM events GROUP BY stream_id ORDER BY MIN(position)", ())
        return [str(row[0]) for row in rows]

    # -- live projections ------------------------------------------------------------------------------

    def read_rows(
        self, stream_id: str, projection: str, keys: Sequence[str] | None = None
    ) -> dict[str, tuple[int, Any]]:
        """The rows of a stream's projection (every row, or those of ``keys``): key -> (version, data).

        A row whose data is not JSON is left out: the projection is then rebuilt from the log.
        """
        query = "SELECT key, version, data FROM projection_rows WHERE stream_id = %s AND projection = %s"
        params: list[Any] = [stream_id, projection]
        if keys is not None:
            query += " AND key = ANY(%s)"
            params.append(list(keys))
        rows: dict[str, tuple[int, Any]] = {}
        for key, version, data in self._rows(query, params):
            try:
                rows[str(key)] = (int(version), json.loads(data))
            except (TypeError, ValueError):
                continue  # a damaged cache row: the projection is rebuilt from the log
        return rows

    def iter_rows(self, stream_id: str, projection: str) -> Iterator[tuple[str, int, Any]]:
        """Every row of a stream's projection as (key, version, data), in the key order SQLite gives (code points:
        the "C" collation), fetched page by page; a row whose data is not JSON is left out (as ``read_rows``)."""
        select = "SELECT key, version, data FROM projection_rows WHERE stream_id = %s AND projection = %s"
        order = f'ORDER BY key COLLATE "C" LIMIT {ROWS_PAGE_SIZE}'
        found = self._rows(f"{select} {order}", (stream_id, projection))
        while found:
            for key, version, data in found:
                try:
                    yield str(key), int(version), json.loads(data)
                except (TypeError, ValueError):
                    continue  # a damaged cache row: as read_rows
            if len(found) < ROWS_PAGE_SIZE:
                return
            found = self._rows(f'{select} AND key > %s COLLATE "C" {order}', (stream_id, projection, found[-1][0]))

    def write_rows(self, stream_id: str, rows: Sequence[ProjectionRow], *, at_version: int) -> bool:
        """Write rows of a projection caught up to ``at_version``, unless the stream has moved on since.

        Rows are a cache of folds of the log: a write that waits for an append past the lock timeout,
        or that the database refuses, is skipped (False), and the next reader folds the tail again.
        """
        if self.readonly:
            return False
        with self._lock:
            try:
                self._reconnect_if_lost()
                with self._conn.transaction():
                    self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._append_lock,))
                    found = self._conn.execute(
                        "SELECT COALESCE(MAX(stream_version), 0) FROM events WHERE stream_id = %s", (stream_id,)
                    ).fetchone()
                    written = found is not None and int(found[0]) == at_version
                    if written:
                        self._put_rows(stream_id, rows)
            except DatabaseUnreachableError:
                return False  # as below
            except psycopg.Error as err:
                if isinstance(err, psycopg.OperationalError) or err.sqlstate in {
                    LOCK_NOT_AVAILABLE,
                    READ_ONLY_TRANSACTION,
                    INSUFFICIENT_PRIVILEGE,
                    DISK_FULL,
                }:
                    return False  # a cache that could not be saved is folded again by the next reader
                raise
            return written

    def listener(self) -> AppendListener:
        """A connection of its own that hears this schema's appends (``DatabaseUnreachableError`` if it cannot
        connect)."""
        return AppendListener(self.url, self.channel)

    def close(self) -> None:
        """Close the connection; the store is unusable after."""
        with self._lock, contextlib.suppress(psycopg.Error):
            self._open = False
            self._conn.close()


class AppendListener:
    """A connection of its own, listening on a schema's channel: ``heard`` gives the streams appended to.

    An append is heard once its transaction has committed, whichever connection or process made it. A
    lost connection is a ``DatabaseUnreachableError``; a new listener hears what is appended after it starts.
    """

    def __init__(self, url: str, channel: str) -> None:
        self.shown = shown_url(url)
        # the connection waits for no lock: the lock timeout is never used
        self._conn = connect(url, lock_timeout=1, then=[sql.SQL("LISTEN {}").format(sql.Identifier(channel))])

    def heard(self, timeout: float) -> list[str]:
        """The streams appended to, as soon as an announcement arrives, or ``[]`` after ``timeout`` seconds."""
        try:
            return [notice.payload for notice in self._conn.notifies(timeout=timeout, stop_after=1)]
        except psycopg.Error as err:
            reason = first_line(err)
            msg = f"cannot listen to the database {self.shown}: {reason}"
            raise DatabaseUnreachableError(msg, reason) from err

    def close(self) -> None:
        """Stop listening, and close the connection."""
        with contextlib.suppress(psycopg.Error):
            self._conn.close()


def connect(
    url: str, *, lock_timeout: float, then: Sequence[sql.Composed | sql.SQL] = ()
) -> psycopg.Connection[tuple[Any, ...]]:
    """An autocommit connection to ``url`` whose waits for a lock end after ``lock_timeout`` seconds, once the
    statements ``then`` have run on it (settings of the session).

    A server that cannot be reached, or a URL it cannot read, is a ``DatabaseUnreachableError`` naming the
    URL without its password (nor the password quoted in the driver's message).
    """
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
    except psycopg.Error as err:
        reason = without_password(first_line(err), url)
        msg = f"cannot connect to the database {shown_url(url)}: {reason}"
        raise DatabaseUnreachableError(msg, reason) from err
    try:
        # 0 would be "wait for ever" to PostgreSQL; to hexlog it is "give up at once"
        waits = f"{max(1, int(lock_timeout * 1000))}ms"
        conn.execute("SELECT set_config('lock_timeout', %s, false)", (waits,))
        for statement in then:
            conn.execute(statement)
    except psycopg.OperationalError as err:
        conn.close()
        reason = first_line(err)
        msg = f"cannot connect to the database {shown_url(url)}: {reason}"
        raise DatabaseUnreachableError(msg, reason) from err
    except BaseException:
        conn.close()
        raise
    return conn


def appends_channel(schema: str) -> str:
    """The channel a schema's appends are announced on: named for its append lock, so that it is short enough
    (63 bytes) and another schema's is another channel."""
    return f"hexlog_appended_{append_lock_key(schema) % 2**64:016x}"


def usable(conn: psycopg.Connection[Any]) -> bool:
    """Whether an idle connection can still be used: it is open, and the server has sent nothing since its
    last answer. A server sends an idle connection (one that does not LISTEN) something only to end it
    (shutting down, or its backend terminated), and that end arrives before a next statement would fail."""
    if conn.closed:
        return False
    with selectors.DefaultSelector() as waiting:
        waiting.register(conn.fileno(), selectors.EVENT_READ)
        return not waiting.select(timeout=0)


def lost(conn: psycopg.Connection[Any], err: psycopg.Error) -> bool:
    """Whether ``err`` is the server going away: the statement failed and the connection with it."""
    return isinstance(err, psycopg.OperationalError) and conn.broken


def first_line(err: psycopg.Error) -> str:
    """The first line of a PostgreSQL error (its detail lines are for a log, not a one-line refusal)."""
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def _raise_write_error(shown: str, what: str, err: psycopg.Error) -> NoReturn:
    """``StoreWriteError`` (or ``ConcurrencyError`` for a lock not had in time) for a schema not written."""
    if err.sqlstate == LOCK_NOT_AVAILABLE:
        msg = f"the database {shown} is busy (another hexlog command holds it); try again"
        raise ConcurrencyError(msg) from err
    msg = f"{what} the database {shown}: {first_line(err)}; nothing was written"
    raise StoreWriteError(msg) from err
