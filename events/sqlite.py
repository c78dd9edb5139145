"""A SQLite event store: one file, WAL, append-only by trigger, safe across processes.

Opening a file checks its schema first and writes only when something is missing: a complete
hexlog database in WAL mode is opened without taking the write lock. Without ``create`` a file
that has no hexlog ``events`` table is refused untouched; a hexlog database that lost a guard
trigger or a side table gets it back (that needs the write lock).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hexlog.events.chain import GENESIS, canonical_json, seal_batch
from hexlog.events.errors import (
    ConcurrencyError,
    CorruptLogError,
    IdempotencyConflictError,
    NotFoundError,
)
from hexlog.events.sqlite_schema import (
    COLUMNS,
    PAGE_SIZE,
    SCHEMA,
    SCHEMA_NAMES,
    STREAM_PAGE_SIZE,
    CorruptRowError,
    busy_message,
    integrity_check,
    is_busy,
    recorded,
)
from hexlog.events.store import EVERY_ROW, AppendResult, NewEvent, ProjectionRow, Recorded

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

__all__ = ["CorruptRowError", "SQLiteStore", "integrity_check", "is_busy"]


class SQLiteStore:
    """Keeps every stream in one SQLite file; same contract as ``MemoryStore``.

    With ``create`` (the default) a missing or empty file becomes a new store. Without it the file
    must already be a hexlog database: a missing file raises ``NotFoundError`` and any other file
    without hexlog's ``events`` table raises ``CorruptLogError``, both leaving the disk as it was.
    A table named ``events`` without hexlog's columns is refused either way. SQLite's own errors
    (``sqlite3.DatabaseError`` for a file that is not a database, ``sqlite3.OperationalError``
    when the lock is held past ``busy_timeout``) are raised as they are, for the caller to word.
    """

    def __init__(self, path: str | Path, *, busy_timeout: float = 10.0, create: bool = True) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        if create:
            self._conn = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        else:
            if not self.path.exists():
                msg = f"no hexlog database at {self.path}"
                raise NotFoundError(msg)
            # mode=rw: never create the file, even if it vanishes after the check above
            self._conn = sqlite3.connect(
                f"{self.path.resolve().as_uri()}?mode=rw",
                uri=True,
                timeout=busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            self._conn.execute("PRAGMA synchronous = FULL")
            self._prepare(create=create)
        except BaseException:
            self._conn.close()
            raise

    def _prepare(self, *, create: bool) -> None:
        """Check the schema, and write it (and WAL mode) only where it is missing."""
        names = {row[0] for row in self._conn.execute("SELECT name FROM sqlite_master")}
        if "events" in names:
            columns = {row[1] for row in self._conn.execute("PRAGMA table_info(events)")}
            missing = [c for c in COLUMNS.split(", ") if c not in columns]
            if missing:
                msg = f"{self.path} is not a hexlog database (its events table has no {', '.join(missing)} column)"
                raise CorruptLogError(msg)
        elif not create:
            msg = f"{self.path} is not a hexlog database (no events table)"
            raise CorruptLogError(msg)
        (mode,) = self._conn.execute("PRAGMA journal_mode").fetchone()
        if names >= SCHEMA_NAMES and str(mode).lower() == "wal":
            return
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.executescript(f"BEGIN IMMEDIATE;{SCHEMA}COMMIT;")

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
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as err:
                if is_busy(err):
                    raise ConcurrencyError(busy_message(f"stream {stream_id}")) from err
                raise
            try:
                result = self._append_in_transaction(stream_id, events, expected_version, command_id, digest)
                if not result.replayed:
                    self._put_rows(stream_id, rows)
                self._conn.execute("COMMIT")
            except BaseException as exc:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.IntegrityError):
                    msg = f"stream {stream_id}: another append recorded these events first ({exc})"
                    raise ConcurrencyError(msg) from exc
                if isinstance(exc, sqlite3.OperationalError) and is_busy(exc):
                    raise ConcurrencyError(busy_message(f"stream {stream_id}")) from exc
                raise
            return result

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
        last = self._conn.execute(
            "SELECT stream_version, hash FROM events WHERE stream_id = ? ORDER BY stream_version DESC LIMIT 1",
            (stream_id,),
        ).fetchone()
        version, prev = (last[0], last[1]) if last is not None else (0, GENESIS)
        if version != expected_version:
            msg = f"stream {stream_id} is at version {version}, not {expected_version}"
            raise ConcurrencyError(msg)
        (position,) = self._conn.execute("SELECT COALESCE(MAX(position), 0) FROM events").fetchone()
        rows = [
            (
                position + offset,
                stream_id,
                env.streamversion,
                env.id,
                env.type,
                env.schemaversion,
                env.source,
                env.time,
                canonical_json(env.data),
                env.prevhash,
                env.hash,
            )
            for offset, env in enumerate(seal_batch(stream_id, expected_version, prev, events), start=1)
        ]
        insert = f"INSERT INTO events ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"  # noqa: S608 - constant columns
        self._conn.executemany(insert, rows)
        result = AppendResult(
            stream_id=stream_id,
            first_version=expected_version + 1,
            last_version=expected_version + len(rows),
            event_ids=tuple(row[3] for row in rows),
        )
        if command_id is not None:
            self._conn.execute(
                "INSERT INTO commands (command_id, stream_id, digest, first_version, "
                "last_version, event_ids) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    command_id,
                    stream_id,
                    digest,
                    result.first_version,
                    result.last_version,
                    json.dumps(list(result.event_ids)),
                ),
            )
        return result

    def _known(self, command_id: str, digest: str) -> AppendResult | None:
        row = self._conn.execute(
            "SELECT stream_id, digest, first_version, last_version, event_ids FROM commands WHERE command_id = ?",
            (command_id,),
        ).fetchone()
        if row is None:
            return None
        if row[1] != digest:
            msg = f"command id {command_id} was already used for a different command"
            raise IdempotencyConflictError(msg)
        return AppendResult(
            stream_id=row[0],
            first_version=row[2],
            last_version=row[3],
            event_ids=tuple(json.loads(row[4])),
            replayed=True,
        )

    def command_result(self, command_id: str, command_digest: str) -> AppendResult | None:
        """The result of an earlier command with this id, if any."""
        with self._lock:
            return self._known(command_id, command_digest)

    def read_stream(self, stream_id: str, from_version: int = 1) -> list[Recorded]:
        """The stream's events from ``from_version`` on, in order."""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {COLUMNS} FROM events WHERE stream_id = ? AND stream_version >= ? ORDER BY stream_version",  # noqa: S608 - constant columns
                (stream_id, from_version),
            ).fetchall()
        return [recorded(row) for row in rows]

    def iter_stream(self, stream_id: str, from_version: int = 1) -> Iterator[Recorded]:
        """The stream's events from ``from_version`` on, in order, fetched page by page."""
        after = max(from_version, 1) - 1
        while True:
            with self._lock:
                rows = self._conn.execute(
                    f"SELECT {COLUMNS} FROM events WHERE stream_id = ? AND stream_version > ? "  # noqa: S608 - constant columns
                    "ORDER BY stream_version LIMIT ?",
                    (stream_id, after, STREAM_PAGE_SIZE),
                ).fetchall()
            for row in rows:
                yield recorded(row)
            if len(rows) < STREAM_PAGE_SIZE:
                return
            after = rows[-1][2]

    def read_all(self, from_position: int = 1, limit: int | None = None) -> Iterator[Recorded]:
        """Every event from ``from_position`` on, in global order, fetched page by page."""
        after = max(from_position, 1) - 1
        left = limit
        while left is None or left > 0:
            size = PAGE_SIZE if left is None else min(PAGE_SIZE, left)
            with self._lock:
                rows = self._conn.execute(
                    f"SELECT {COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?",  # noqa: S608 - constant columns
                    (after, size),
                ).fetchall()
            for row in rows:
                yield recorded(row)
            if len(rows) < size:
                return
            after = rows[-1][0]
            if left is not None:
                left -= len(rows)

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
        """Apply projection rows in order inside the caller's transaction (upsert, delete, or wipe)."""
        execute = self._conn.execute
        for r in rows:
            if r.data is not None:
                execute(
                    "INSERT INTO projection_rows (stream_id, projection, key, version, data) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (stream_id, projection, key) DO UPDATE SET version = excluded.version, "
                    "data = excluded.data",
                    (stream_id, r.projection, r.key, r.version, canonical_json(r.data)),
                )
            elif r.key == EVERY_ROW:
                execute("DELETE FROM projection_rows WHERE stream_id = ? AND projection = ?", (stream_id, r.projection))
            else:
                execute(
                    "DELETE FROM projection_rows WHERE stream_id = ? AND projection = ? AND key = ?",
                    (stream_id, r.projection, r.key),
                )

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
                rows[str(key)] = (int(version), json.loads(data))
            except (TypeError, ValueError):
                continue  # a damaged cache row: the projection is rebuilt from the log
        return rows

    def write_rows(self, stream_id: str, rows: Sequence[ProjectionRow], *, at_version: int) -> bool:
        """Write rows of a projection caught up to ``at_version``, unless the stream has moved on since.

        Rows are a cache of folds of the log: a write that finds the database busy past the busy
        timeout is skipped (False), and the next reader folds the tail again.
        """
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as err:
                if is_busy(err):
                    return False
                raise
            try:
                (version,) = self._conn.execute(
                    "SELECT COALESCE(MAX(stream_version), 0) FROM events WHERE stream_id = ?", (stream_id,)
                ).fetchone()
                written = version == at_version
                if written:
                    self._put_rows(stream_id, rows)
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            return bool(written)

    def close(self) -> None:
        """Close the connection; the store is unusable after."""
        with self._lock:
            self._conn.close()
