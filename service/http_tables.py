"""The HTTP service's own tables (its tokens, its stored replies), kept in the database ``--db`` names.

One interface, two backends, chosen by ``--db`` as the event store is (``open_tables``):

- a SQLite file: a connection of its own to the file (the event store's is not touched);
- a PostgreSQL database: a connection of its own to the server, in the event store's schema (the
  first of the connection's ``search_path``), which the connection then searches alone, so that no
  table of a later schema of the path is ever read for one of this schema. A connection the server
  ended is replaced when next used (in the same schema).

Each query is written once, with SQLite's ``?`` markers; the PostgreSQL backend sends it with
psycopg's ``%s``. A table is made the first time it is needed (``ensure``): a database that never
served is left as it was, and an older hexlog reading one that did is not disturbed by the table.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from typing import TYPE_CHECKING, Any, Protocol

import psycopg
from psycopg import sql

from hexlog.events.errors import Advice, ConcurrencyError, DatabaseUnreachableError, NotFoundError, StoreWriteError
from hexlog.events.postgres import connect, first_line, lost, usable
from hexlog.events.postgres_schema import (
    DISK_FULL,
    INSUFFICIENT_PRIVILEGE,
    LOCK_NOT_AVAILABLE,
    READ_ONLY_TRANSACTION,
    TABLES_QUERY,
    append_lock_key,
    shown_url,
)
from hexlog.service.door import database_url

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path


class Tables(Protocol):
    """The service's tables in one database: made when first needed, read and written one statement at a time.

    Every method may be called from any thread (each backend holds one connection, behind a lock).
    """

    #: the database as messages name it (a URL without its password)
    shown: str

    def ensure(self, table: str, statement: str) -> None:
        """Make ``table`` with ``statement`` (a ``CREATE TABLE IF NOT EXISTS``) unless it is there."""

    def has(self, table: str) -> bool:
        """Whether the database holds ``table``."""

    def rows(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows a query gives."""

    def write(self, query: str, params: Sequence[Any] = ()) -> None:
        """Run one statement that writes (committed when it returns)."""

    def close(self) -> None:
        """Release the connection."""


def open_tables(db: Path, *, busy_timeout: float = 10.0) -> Tables:
    """The service's tables in the database ``--db`` names: a SQLite file or a PostgreSQL URL."""
    url = database_url(db)
    if url is not None:
        return PostgresTables(url, lock_timeout=busy_timeout)
    return SQLiteTables(db, busy_timeout=busy_timeout)


class SQLiteTables:
    """The tables in a SQLite file, on a connection of their own (which waits ``busy_timeout`` seconds for a lock)."""

    def __init__(self, db: Path, *, busy_timeout: float = 10.0) -> None:
        self.shown = str(db)
        self._conn = sqlite3.connect(
            f"{db.resolve().as_uri()}?mode=rw", uri=True, timeout=busy_timeout, check_same_thread=False
        )
        self._conn.isolation_level = None
        self._lock = threading.Lock()
        self._known: set[str] = set()

    def ensure(self, table: str, statement: str) -> None:
        """Make the table unless it is there (see ``Tables``)."""
        if table in self._known:
            return
        with self._lock:
            self._conn.execute(statement)
        self._known.add(table)

    def has(self, table: str) -> bool:
        """Whether the file holds the table (once it does, it always will: hexlog never drops one)."""
        if table not in self._known:
            with self._lock:
                found = self._conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
                ).fetchone()
            if found is None:
                return False
            self._known.add(table)
        return True

    def rows(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows a query gives."""
        with self._lock:
            return self._conn.execute(query, params).fetchall()

    def write(self, query: str, params: Sequence[Any] = ()) -> None:
        """Run one statement that writes."""
        with self._lock:
            self._conn.execute(query, params)

    def close(self) -> None:
        """Release the connection."""
        self._conn.close()


class PostgresTables:
    """The tables in the schema of a PostgreSQL database (the event store's), on a connection of their own.

    ``lock_timeout`` is how many seconds a statement waits for a lock (making a table waits for the
    schema's append lock, so that two services starting at once make it once). A server that cannot
    be reached or that refuses is a ``StoreWriteError`` naming the database without its password
    (``DatabaseUnreachableError`` for a server out of reach); a lock not had in time is a
    ``ConcurrencyError`` (busy, try again).
    """

    def __init__(self, url: str, *, lock_timeout: float = 10.0) -> None:
        self.shown = shown_url(url)
        self._url, self._lock_timeout = url, lock_timeout
        self._lock = threading.Lock()
        self._known: set[str] = set()
        self._open = True
        self._conn = connect(url, lock_timeout=lock_timeout)
        try:
            self.schema = self._pin_schema()
        except BaseException:
            self._conn.close()
            raise

    def _pin_schema(self) -> str:
        """The event store's schema (the first of ``search_path`` that exists), which this connection then
        searches alone."""
        with self._worded("read"):
            found = self._conn.execute("SELECT current_schema()").fetchone()
            schema = None if found is None or found[0] is None else str(found[0])
            if schema is not None:
                self._conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        if schema is None:
            msg = f"no hexlog database at {self.shown} (no schema of its search_path exists); run '"
            raise NotFoundError(msg).advising(Advice("StartCampaign"), "' first")
        return schema

    @contextlib.contextmanager
    def _worded(self, what: str) -> Iterator[None]:
        """Run on a live connection (holding ``_lock``, a connection the server ended replaced first), and turn what
        the server refuses into hexlog's words (``what``: read or write); a bug's error passes as it is."""
        try:
            self._reconnect_if_lost()
            yield
        except psycopg.Error as err:
            if err.sqlstate == LOCK_NOT_AVAILABLE:
                msg = f"the database {self.shown} is busy (another hexlog command holds it); try again"
                raise ConcurrencyError(msg) from err
            if isinstance(err, psycopg.OperationalError) or err.sqlstate in {
                INSUFFICIENT_PRIVILEGE,
                READ_ONLY_TRANSACTION,
                DISK_FULL,
            }:
                done = "; nothing was written" if what == "write" else ""
                msg = f"cannot {what} the database {self.shown}: {first_line(err)}{done}"
                if lost(self._conn, err):
                    raise DatabaseUnreachableError(msg, first_line(err)) from err
                raise StoreWriteError(msg) from err
            raise

    def _reconnect_if_lost(self) -> None:
        """Replace a connection the server ended by one that searches the same schema alone."""
        if not self._open or usable(self._conn):
            return
        self._conn.close()
        only_this_schema = sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema))
        self._conn = connect(self._url, lock_timeout=self._lock_timeout, then=[only_this_schema])

    def ensure(self, table: str, statement: str) -> None:
        """Make the table unless it is there, holding the schema's append lock while it is made."""
        if self.has(table):
            return
        with self._lock, self._worded("write"), self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (append_lock_key(self.schema),))
            self._conn.execute(statement)
        self._known.add(table)

    def has(self, table: str) -> bool:
        """Whether the schema holds the table (once it does, it always will: hexlog never drops one)."""
        if table not in self._known:
            if not self._read(TABLES_QUERY, ([table],)):
                return False
            self._known.add(table)
        return True

    def rows(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows a query gives."""
        return self._read(_marked(query), params)

    def _read(self, query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        with self._lock, self._worded("read"):
            return self._conn.execute(query, params).fetchall()

    def write(self, query: str, params: Sequence[Any] = ()) -> None:
        """Run one statement that writes (autocommit: committed when it returns)."""
        with self._lock, self._worded("write"):
            self._conn.execute(_marked(query), params)

    def close(self) -> None:
        """Release the connection."""
        with self._lock:
            self._open = False
            self._conn.close()


def _marked(query: str) -> str:
    """A query written with SQLite's ``?`` markers as psycopg takes it (``%s``); the queries hold no other ``?``
    nor any ``%``."""
    return query.replace("?", "%s")
