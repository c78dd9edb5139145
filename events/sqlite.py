"""A SQLite event store: one file, WAL, append-only by trigger, safe across processes.

Opening a file checks its schema first and writes only when something is missing: a complete
hexlog database in WAL mode is opened without taking the write lock. A file with no table at all
(a database whose creation was cut short) is a new, empty database; a file that has other tables
but no hexlog ``events`` table is refused untouched; a hexlog database that lost a guard trigger or
a side table gets it back (that needs the write lock).

A new database file is created readable and writable by its owner only (SQLite gives its WAL and
shared-memory files the same mode). ``readonly`` opens a database without ever writing to it; where
SQLite cannot read it in place (a WAL database in a folder the user may not write, with no
shared-memory file beside it) it reads a private copy. A read-only connection cannot remove the WAL and
shared-memory files it makes beside the database as it closes (SQLite removes them as the last connection closes,
by a checkpoint a read-only one may not make): once it has closed, a connection that may write opens and closes in
its place, so that the folder is left as it was found when no other connection holds the database (one that does
keeps the files, and removes them as it closes last). It does so when the store made the files, or when the WAL
holds nothing (files another read-only connection made); a WAL holding what a writer that did not close (a
process killed) committed is left as it was found, for the next writer to take up.

Before appending, the stream's last event is checked against its hash and its link to the one
before (two rows, whatever the length of the log); a damaged tail refuses the append. An append
whose ``COMMIT`` reports an error after the transaction was in fact committed (a checkpoint that
failed on a full disk) is reported as the success it is.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import shutil
import sqlite3
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hexlog.events.chain import canonical_json, sealed_rows
from hexlog.events.errors import (
    ConcurrencyError,
    CorruptLogError,
    NotFoundError,
    StaleVersionError,
    StoreWriteError,
)
from hexlog.events.files import create_private
from hexlog.events.sql_pages import PagedReads
from hexlog.events.sqlite_schema import (
    COLUMNS,
    COMMAND_COLUMNS,
    EMPTY_TABLES,
    HAZARDS,
    PAGE_SIZE,
    ROWS_PAGE_SIZE,
    SCHEMA,
    SCHEMA_NAMES,
    CorruptRowError,
    busy_message,
    checked_tail,
    command_row,
    integrity_check,
    is_busy,
    known_command,
    loads,
    table_differences,
    tail_problem,
    unique_indexes,
    write_problem,
)
from hexlog.events.store import EVERY_ROW, AppendResult, NewEvent, ProjectionRow, row_value

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator, Sequence


__all__ = ["CorruptRowError", "SQLiteStore", "integrity_check", "is_busy"]

#: the name of the function that tells ``read_event_rows`` a stream it is to read (a number after it, each read's own)
_OWN = "hexlog_read_stream"
_READS = itertools.count()
#: how an append writes its events (``position`` is left to SQLite: the largest one plus one)
INSERT = f"INSERT INTO events ({COLUMNS.removeprefix('position, ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"  # noqa: S608 - constant columns
#: how many events one statement of an append writes (``INSERT_ROWS``), in order: SQLite opens the table and its
#: indexes once a statement, so that rows written fifty at a time take it a tenth less time than rows written one by
#: one (fifty rows are 500 parameters, within the 999 an older SQLite takes)
ROWS_PER_INSERT = 50
INSERT_ROWS = INSERT + ", (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" * (ROWS_PER_INSERT - 1)
#: how a projection row is written (or written over)
UPSERT_ROW = (
    "INSERT INTO projection_rows (stream_id, projection, key, version, data) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (stream_id, projection, key) DO UPDATE SET version = excluded.version, data = excluded.data"
)
_flat = itertools.chain.from_iterable
#: the most tails a store keeps noted (beyond that it forgets them all and checks each tail again)
MAX_TAILS = 10_000


#: the events table as SQLite records the statement that made it
_EVENTS_TABLE = SCHEMA[: SCHEMA.index(";")].strip().replace("CREATE TABLE IF NOT EXISTS", "CREATE TABLE")


def _identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of the file at ``path`` (None: no file there)."""
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


#: the files SQLite keeps beside a database in WAL mode while a connection has it open
WAL_FILES = ("-wal", "-shm")
#: the longest a read-only store's close waits for the database to let it remove the WAL files it made (seconds)
RELEASE_WAIT = 1.0


def _beside(path: Path) -> list[Path]:
    """The WAL and shared-memory files of the database at ``path``, whether they exist or not."""
    return [path.with_name(path.name + suffix) for suffix in WAL_FILES]


def _size(path: Path) -> int | None:
    """The size of the file at ``path`` (None: no file there)."""
    try:
        return path.stat().st_size
    except OSError:
        return None


def release_wal(path: Path, busy_timeout: float = RELEASE_WAIT) -> None:
    """Let SQLite remove the WAL and shared-memory files beside the database at ``path``: a connection that may write
    reads it once and closes, and so, when it is the last connection to the database, checkpoints the WAL (at
    ``synchronous = FULL``, as an append commits) and removes both files. Where another connection holds the database,
    the file cannot be written, or it is busy past ``busy_timeout``, nothing is done: the files stay, as they would."""
    try:
        conn = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=rw", uri=True, timeout=busy_timeout, isolation_level=None
        )
    except sqlite3.Error:
        return
    try:
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        pass
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.close()


class SQLiteStore(PagedReads):
    """Keeps every stream in one SQLite file; same contract as ``MemoryStore``.

    With ``create`` (the default) a missing or empty file becomes a new store. Without it the file
    must already be a hexlog database: a missing file raises ``NotFoundError`` and any other file
    without hexlog's ``events`` table raises ``CorruptLogError``, both leaving the disk as it was.
    A table named ``events`` without hexlog's columns is refused either way. SQLite's own errors
    (``sqlite3.DatabaseError`` for a file that is not a database, ``sqlite3.OperationalError``
    when the lock is held past ``busy_timeout``) are raised as they are, for the caller to word.
    """

    def __init__(
        self, path: str | Path, *, busy_timeout: float = 10.0, create: bool = True, readonly: bool = False
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._lock = threading.Lock()
        #: the version and last hash of each stream this connection appended to, as it wrote them, while
        #: no other connection has written (``PRAGMA data_version`` is ``_tails_seen``): tails known sound
        self._tails: dict[str, tuple[int, str]] = {}
        self._tails_seen: int | None = None
        #: whether this store created its file (a new database)
        self.created = False
        #: a private folder holding the copy a read-only store reads, when it reads one
        self._copy: Path | None = None
        #: whether a read-only store found no WAL file nor shared-memory file beside the database (its connection
        #: makes them: its close has them removed)
        self._found_clean = readonly and not any(beside.exists() for beside in _beside(self.path))
        if create and not readonly:
            self.created = create_private(self.path)
            target, uri = str(self.path), False
        else:
            if not self.path.exists():
                msg = f"no hexlog database at {self.path}"
                raise NotFoundError(msg)
            # mode=rw / ro: never create the file, even if it vanishes after the check above
            target, uri = f"{self.path.resolve().as_uri()}?mode={'ro' if readonly else 'rw'}", True
        try:
            self._conn = self._connect(target, busy_timeout, uri=uri, readonly=readonly)
            self._prepared(create=create)
        except sqlite3.OperationalError as err:
            if not readonly or is_busy(err):
                raise
            self._open_copy(busy_timeout)  # it cannot be read in place (a WAL file in a folder it may not write)
        #: the file this store opened (device and inode), when it reads it in place
        self._opened = _identity(self.path) if self._copy is None else None

    def _prepared(self, *, create: bool) -> None:
        try:
            self._prepare(create=create)
        except BaseException:
            self._conn.close()
            raise

    @staticmethod
    def _connect(target: str, busy_timeout: float, *, uri: bool, readonly: bool = False) -> sqlite3.Connection:
        conn = sqlite3.connect(target, uri=uri, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            if not readonly:
                conn.execute("PRAGMA synchronous = FULL")
        except BaseException:
            conn.close()
            raise
        return conn

    def _open_copy(self, busy_timeout: float) -> None:
        """Read a private copy of the database (and its WAL), for a folder SQLite cannot read it in."""
        folder = Path(tempfile.mkdtemp(prefix="hexlog-read-"))
        self._copy = folder
        try:
            copy = folder / "copy.db"
            shutil.copyfile(self.path, copy)
            wal = self.path.with_name(self.path.name + "-wal")
            if wal.exists():
                shutil.copyfile(wal, folder / "copy.db-wal")
            self._conn = self._connect(str(copy), busy_timeout, uri=False, readonly=True)
            self._prepared(create=False)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            self._copy = None
            raise

    def _check_names(self, names: set[str], *, create: bool) -> None:
        """Refuse a file whose tables are not hexlog's, or (without ``create``, writable) has none."""
        if "events" in names:
            columns = {row[1] for row in self._conn.execute("PRAGMA table_info(events)")}
            missing = [c for c in COLUMNS.split(", ") if c not in columns]
            if missing:
                msg = f"{self.path} is not a hexlog database (its events table has no {', '.join(missing)} column)"
                raise CorruptLogError(msg)
        elif names and not create:
            msg = f"{self.path} is not a hexlog database (no events table)"
            raise CorruptLogError(msg)
        elif not create and not self.readonly:
            msg = f"{self.path} is not a hexlog database yet (no events table); 'hexlog init' sets it up"
            raise CorruptLogError(msg)

    def _prepare(self, *, create: bool) -> None:
        """Check the schema, and write it (and WAL mode) only where it is missing.

        A file without any table is a new database (its creation was cut short): set up with
        ``create``, read as an empty one when read-only, refused untouched otherwise.
        """
        names = {row[0] for row in self._conn.execute("SELECT name FROM sqlite_master")}
        self._check_names(names, create=create)
        if self.readonly:
            # an empty database, or one that lost its saved rows or commands: empty tables of this connection's own
            # stand for those it lacks (nothing is written; saved rows missing are rebuilt from the events)
            self._conn.executescript("".join(text for name, text in EMPTY_TABLES.items() if name not in names))
            return
        (mode,) = self._conn.execute("PRAGMA journal_mode").fetchone()
        if names >= SCHEMA_NAMES and str(mode).lower() == "wal":
            return
        try:
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.executescript(f"BEGIN IMMEDIATE;{SCHEMA}COMMIT;")
        except sqlite3.OperationalError as err:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            if is_busy(err):
                raise
            raise StoreWriteError(write_problem(self.path, err)) from err

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
        digest = command_digest or ""
        if self.readonly:
            msg = f"the database {self.path} was opened to be read only; nothing was written"
            raise StoreWriteError(msg)
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as err:
                if is_busy(err):
                    raise ConcurrencyError(busy_message(f"stream {stream_id}")) from err
                raise StoreWriteError(write_problem(self.path, err)) from err
            result: AppendResult | None = None
            try:
                self._trust_tails()
                result = self._append_in_transaction(stream_id, events, expected_version, command_id, digest)
                if not result.replayed:
                    self._put_rows(stream_id, rows)
                self._conn.execute("COMMIT")
            except BaseException as exc:
                self._forget_tails()
                if self._conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                elif result is not None and isinstance(exc, sqlite3.Error) and self._committed(result):
                    return result  # the COMMIT reported an error after it committed (a failed checkpoint)
                if isinstance(exc, sqlite3.Error):
                    raise self._append_error(stream_id, exc) from exc
                raise
            return result

    def _trust_tails(self) -> None:
        """Forget the tails known sound unless no other connection has written since they were noted
        (called in the write transaction, so that no other connection can write until it ends)."""
        (seen,) = self._conn.execute("PRAGMA data_version").fetchone()
        if seen != self._tails_seen or len(self._tails) > MAX_TAILS:
            self._tails.clear()
            self._tails_seen = seen

    def _forget_tails(self) -> None:
        self._tails.clear()
        self._tails_seen = None

    def _append_error(self, stream_id: str, exc: sqlite3.Error) -> Exception:
        """The error an append that wrote nothing raises for SQLite's ``exc``."""
        if isinstance(exc, sqlite3.IntegrityError):
            msg = f"stream {stream_id}: another append recorded these events first ({exc})"
            return StaleVersionError(msg)
        if isinstance(exc, sqlite3.OperationalError) and is_busy(exc):
            return ConcurrencyError(busy_message(f"stream {stream_id}"))
        if isinstance(exc, sqlite3.OperationalError):
            return StoreWriteError(write_problem(self.path, exc))
        return exc

    def _committed(self, result: AppendResult) -> bool:
        """Whether the events of an append whose ``COMMIT`` raised are in the log after all."""
        if result.replayed or not result.event_ids:
            return result.replayed
        try:
            row = self._conn.execute("SELECT 1 FROM events WHERE id = ?", (result.event_ids[-1],)).fetchone()
        except sqlite3.Error:
            return False
        return row is not None

    def _append_in_transaction(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        command_id: str | None,
        digest: str,
    ) -> AppendResult:
        if command_id is not None:
            known = self._known(command_id, digest)
            if known is not None:
                return known
        version, prev = self._checked_tail(stream_id)
        if version != expected_version:
            msg = f"stream {stream_id} is at version {version}, not {expected_version}"
            raise StaleVersionError(msg)
        # position is left out: SQLite gives each row the largest position plus one (it is the rowid)
        rows = sealed_rows(stream_id, expected_version, prev, events)
        self._insert(rows)
        result = AppendResult(
            stream_id=stream_id,
            first_version=expected_version + 1,
            last_version=expected_version + len(rows),
            event_ids=tuple(row[2] for row in rows),
        )
        if rows:
            self._tails[stream_id] = (result.last_version, rows[-1][9])  # noted, kept only if it commits
        if command_id is not None:
            self._conn.execute(
                f"INSERT INTO commands ({COMMAND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",  # noqa: S608 - constant columns
                command_row(command_id, digest, result),
            )
        return result

    def _insert(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Write sealed rows in order: ``ROWS_PER_INSERT`` at a time, the rest one by one."""
        whole = len(rows) - len(rows) % ROWS_PER_INSERT
        for at in range(0, whole, ROWS_PER_INSERT):
            self._conn.execute(INSERT_ROWS, tuple(_flat(rows[at : at + ROWS_PER_INSERT])))
        if len(rows) == whole + 1:
            self._conn.execute(INSERT, rows[whole])
        elif len(rows) > whole:
            self._conn.executemany(INSERT, rows[whole:])

    def _checked_tail(self, stream_id: str) -> tuple[int, str]:
        """The stream's version and last hash, once its last event is checked against its hash and its
        link to the event before; ``CorruptLogError`` naming the audit when they do not hold.

        A tail this connection wrote itself, with no other connection writing since, is known sound."""
        known = self._tails.get(stream_id)
        if known is not None:
            return known
        last = self._conn.execute(
            f"SELECT {COLUMNS} FROM events WHERE stream_id = ? ORDER BY stream_version DESC LIMIT 2",  # noqa: S608 - constant columns
            (stream_id,),
        ).fetchall()
        return checked_tail(stream_id, last)

    def tail_problem(self, stream_id: str) -> str | None:
        """What is wrong with the stream's last event (its hash or its link), or None."""
        with self._lock:
            last = self._conn.execute(
                f"SELECT {COLUMNS} FROM events WHERE stream_id = ? ORDER BY stream_version DESC LIMIT 2",  # noqa: S608 - constant columns
                (stream_id,),
            ).fetchall()
        return tail_problem(last) if last else None

    def has_events(self) -> bool:
        """Whether the store holds any event."""
        with self._lock:
            return self._conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None

    def _known(self, command_id: str, digest: str) -> AppendResult | None:
        row = self._conn.execute(
            "SELECT stream_id, digest, first_version, last_version, event_ids FROM commands WHERE command_id = ?",
            (command_id,),
        ).fetchone()
        return known_command(row, command_id, digest)

    def command_result(self, command_id: str, command_digest: str) -> AppendResult | None:
        """The result of an earlier command with this id, if any."""
        with self._lock:
            return self._known(command_id, command_digest)

    def _rows(self, query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows a read gives."""
        with self._lock:
            return self._conn.execute(query, params).fetchall()

    def read_event_rows(
        self, upto: int | None = None, streams: Collection[Any] | None = None
    ) -> Iterator[list[tuple[Any, ...]]]:
        """Every stored row in global order as SQLite holds it (``COLUMNS``), a page at a time: for a reader that
        checks the rows itself, as the audit does; with ``upto``, only the rows at positions up to it (those a
        reader that began earlier saw, whatever has been appended since); with ``streams``, only their rows."""
        if streams is not None:
            yield from self._rows_of(upto, streams)
            return
        after = 0
        while True:
            rows = self._log_rows(COLUMNS, after, PAGE_SIZE)
            full = len(rows) == PAGE_SIZE
            if upto is not None and rows and rows[-1][0] > upto:
                rows = [row for row in rows if row[0] <= upto]
                full = False
            if rows:
                yield rows
            if not full:
                return
            after = rows[-1][0]

    def _rows_of(self, upto: int | None, streams: Collection[Any]) -> Iterator[list[tuple[Any, ...]]]:
        """``read_event_rows`` of some streams: SQLite asks the collection of each row's stream whether it holds it
        (a function of this connection, of a name of this read's own, while the rows are read)."""
        name = f"{_OWN}_{next(_READS)}"
        query = (
            f"SELECT {COLUMNS} FROM events WHERE position > ? AND position <= ? AND {name}(stream_id) "  # noqa: S608 - constant columns, a name of ours
            "ORDER BY position LIMIT ?"
        )
        last = upto if upto is not None else self.last_position()
        after = 0
        with self._lock:
            self._conn.create_function(name, 1, streams.__contains__, deterministic=True)
        try:
            while True:
                with self._lock:
                    rows = self._conn.execute(query, (after, last, PAGE_SIZE)).fetchall()
                if rows:
                    yield rows
                if len(rows) < PAGE_SIZE:
                    return
                after = rows[-1][0]
        finally:
            with self._lock:
                self._conn.create_function(name, 1, None)

    def file_id(self) -> tuple[int, int] | None:
        """The file this store reads in place (its device and inode), while its path still names that file: what
        another connection opening the path reads too; None when it reads a private copy, or the path now names
        another file (or none)."""
        if self._opened is None or _identity(self.path) != self._opened:
            return None
        return self._opened

    def last_position(self) -> int:
        """The highest position of the log (0 when it holds no event)."""
        with self._lock:
            found = self._conn.execute("SELECT COALESCE(MAX(position), 0) FROM events").fetchone()
        return int(found[0])

    def runs_to(self, last: int) -> bool:
        """Whether the rows up to position ``last`` are at positions 1, 2, 3 ... ``last``, one at each, and no row
        is at a position below 1 (counted from the smallest index, as positions are whole numbers, each kept once)."""
        with self._lock:
            (first,) = self._conn.execute("SELECT min(position) FROM events").fetchone()
            (rows,) = self._conn.execute("SELECT count(*) FROM events").fetchone()
            (later,) = self._conn.execute("SELECT count(*) FROM events WHERE position > ?", (last,)).fetchone()
        if first is None:
            return last == 0
        return bool(first >= 1 and rows - later == last)

    def streams_met(self, upto: int) -> list[Any]:
        """The streams of the rows at positions 1 to ``upto``, in the order the log first meets them."""
        with self._lock:
            rows = self._conn.execute("SELECT stream_id, min(position) FROM events GROUP BY stream_id").fetchall()
        return [stream for stream, first in sorted(rows, key=lambda row: row[1]) if 0 < first <= upto]

    def events_as_made(self) -> bool:
        """Whether the events table is defined as hexlog's schema defines it: each position its key, kept once,
        and stream ids compared as written. Only then does ``read_event_rows`` give every row with a position
        above 0 exactly once, and a stream's rows read by its id the same rows: a table rebuilt without its key
        may hold two rows at one position, of which a reader paging by position skips one, and a table whose
        stream ids compare without case reads another stream's rows with a stream's own."""
        with self._lock:
            found = self._conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'"
            ).fetchone()
        return found is not None and found[0] == _EVENTS_TABLE

    def events_table(self) -> str:
        """The statement that made the events table, as SQLite records it (``EVENTS_TABLE`` when hexlog made it)."""
        with self._lock:
            found = self._conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'"
            ).fetchone()
        return str(found[0]) if found is not None else ""

    def events_differences(self) -> list[str]:
        """How the events table differs from the one hexlog makes where readers depend on it (``table_differences``
        of its statement), a few words each; empty for hexlog's."""
        statement = self.events_table()
        with self._lock:
            unique = unique_indexes(self._conn)
        return table_differences(statement, unique)

    def events_hazards(self) -> list[str]:
        """What the events table holds that a reader paging through it may skip or mix up (``HAZARDS``): nothing,
        in a table hexlog made, whose keys and collation keep it from holding any."""
        out = []
        for query, words in HAZARDS:
            with self._lock:
                found = self._conn.execute(query).fetchone()
            if found is not None:
                out.append(words.format(*(repr(value) for value in found)))
        return out

    def stream_version(self, stream_id: str) -> int:
        """How many events the stream holds."""
        with self._lock:
            (version,) = self._conn.execute(
                "SELECT COALESCE(MAX(stream_version), 0) FROM events WHERE stream_id = ?",
                (stream_id,),
            ).fetchone()
        return int(version)

    def streams(self) -> list[str]:
        """Every stream id, in order of first append."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT stream_id FROM events GROUP BY stream_id ORDER BY MIN(position)"
            ).fetchall()
        return [row[0] for row in rows]

    def _put_rows(self, stream_id: str, rows: Sequence[ProjectionRow]) -> None:
        """Apply projection rows in order inside the caller's transaction (upsert, delete, or wipe); the
        upserts between two deletions go in one ``executemany``."""
        execute = self._conn.execute
        upserts: list[tuple[Any, ...]] = []
        for r in rows:
            if r.data is not None:
                upserts.append((stream_id, r.projection, r.key, r.version, canonical_json(row_value(r.data))))
                continue
            if upserts:
                self._conn.executemany(UPSERT_ROW, upserts)
                upserts = []
            if r.key == EVERY_ROW:
                execute("DELETE FROM projection_rows WHERE stream_id = ? AND projection = ?", (stream_id, r.projection))
            else:
                execute(
                    "DELETE FROM projection_rows WHERE stream_id = ? AND projection = ? AND key = ?",
                    (stream_id, r.projection, r.key),
                )
        if upserts:
            self._conn.executemany(UPSERT_ROW, upserts)

    def read_rows(
        self, stream_id: str, projection: str, keys: Sequence[str] | None = None
    ) -> dict[str, tuple[int, Any]]:
        """The rows of a stream's projection (every row, or those of ``keys``): key -> (version, data).

        A row whose data is not JSON is left out: the projection is then rebuilt from the log.
        """
        query = "SELECT key, version, data FROM projection_rows WHERE stream_id = ? AND projection = ?"
        params: list[Any] = [stream_id, projection]
        if keys is not None:
            query += f" AND key IN ({', '.join('?' for _ in keys)})" if keys else " AND 0"
            params.extend(keys)
        with self._lock:
            found = self._conn.execute(query, params).fetchall()
        rows: dict[str, tuple[int, Any]] = {}
        for key, version, data in found:
            try:
                rows[str(key)] = (int(version), loads(data))
            except (TypeError, ValueError):
                continue  # a damaged cache row: the projection is rebuilt from the log
        return rows

    def iter_rows(self, stream_id: str, projection: str) -> Iterator[tuple[str, int, Any]]:
        """Every row of a stream's projection as (key, version, data), in key order, fetched page by page; a row
        whose data is not JSON is left out (as ``read_rows`` leaves it out)."""
        select = "SELECT key, version, data FROM projection_rows WHERE stream_id = ? AND projection = ?"
        order = f"ORDER BY key LIMIT {ROWS_PAGE_SIZE}"
        with self._lock:
            found = self._conn.execute(f"{select} {order}", (stream_id, projection)).fetchall()
        while found:
            for key, version, data in found:
                try:
                    yield str(key), int(version), json.loads(data)
                except (TypeError, ValueError):
                    continue  # a damaged cache row: as read_rows
            if len(found) < ROWS_PAGE_SIZE:
                return
            with self._lock:
                found = self._conn.execute(
                    f"{select} AND key > ? {order}",
                    (stream_id, projection, found[-1][0]),
                ).fetchall()

    def write_rows(self, stream_id: str, rows: Sequence[ProjectionRow], *, at_version: int) -> bool:
        """Write rows of a projection caught up to ``at_version``, unless the stream has moved on since.

        Rows are a cache of folds of the log: a write that finds the database busy past the busy
        timeout is skipped (False), and the next reader folds the tail again.
        """
        if self.readonly:
            return False
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                return False  # busy, read-only, or a full disk: the cache waits for a later writer
            try:
                (version,) = self._conn.execute(
                    "SELECT COALESCE(MAX(stream_version), 0) FROM events WHERE stream_id = ?", (stream_id,)
                ).fetchone()
                written = version == at_version
                if written:
                    self._put_rows(stream_id, rows)
                self._conn.execute("COMMIT")
            except BaseException as exc:
                if self._conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):
                    return False  # a cache that could not be saved is folded again by the next reader
                raise
            return bool(written)

    def close(self) -> None:
        """Close the connection (and remove a private copy read); the store is unusable after. A read-only store that
        read in place has SQLite remove the WAL files that are its to remove (``_leaves_wal_files``), when no other
        connection holds the database (``release_wal``)."""
        with self._lock:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            if self._copy is not None:
                shutil.rmtree(self._copy, ignore_errors=True)
                self._copy = None
            elif self._leaves_wal_files():
                release_wal(self.path)
            self._found_clean = False

    def _leaves_wal_files(self) -> bool:
        """Whether this read-only store, its connection closed, would leave WAL files beside the file it read in place
        that are its to remove: they are there, and it made them or the WAL holds nothing."""
        if not self.readonly or self._opened is None or _identity(self.path) != self._opened:
            return False
        wal, shm = (_size(beside) for beside in _beside(self.path))
        if wal is None and shm is None:
            return False
        return self._found_clean or not wal
