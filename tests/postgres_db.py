"""The PostgreSQL server the PostgreSQL tests use, and a schema of its own for each test.

``HEXLOG_TEST_PG_URL`` names the server's database (default: the local ``test`` database as
``postgres``). Each test gets a new schema, named in its URL's ``search_path`` and dropped after it,
so tests can run side by side. The tests skip, saying why, only when no server answers.

``Relay`` stands between a test and the server, so that the server can go away (and come back) for
that test alone.
"""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import threading
import uuid
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql

if TYPE_CHECKING:
    from collections.abc import Iterator

PG_URL = os.environ.get("HEXLOG_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")


@functools.cache
def unreachable() -> str | None:
    """Why no PostgreSQL server answers at ``PG_URL``, or None when one does."""
    try:
        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as err:
        return f"no PostgreSQL server at {PG_URL} (set HEXLOG_TEST_PG_URL): {str(err).strip().splitlines()[0]}"
    return None


#: why the tests that need PostgreSQL skip (None: a server answers, and they run)
WHY_NOT = unreachable()
#: skips a test only when no PostgreSQL server answers, saying why
needs_postgres = pytest.mark.skipif(WHY_NOT is not None, reason=str(WHY_NOT))


def schema_url(schema: str, base: str = PG_URL) -> str:
    """The URL of the hexlog database kept in ``schema`` of ``base``'s database."""
    return f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"


def drop_schema(schema: str) -> None:
    """Remove a schema and all it holds (its append-only tables included)."""
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


@contextlib.contextmanager
def fresh_schema() -> Iterator[str]:
    """The URL of a new, empty schema of its own (created by the store that opens it), dropped after."""
    schema = f"hexlog_test_{uuid.uuid4().hex[:16]}"
    try:
        yield schema_url(schema)
    finally:
        drop_schema(schema)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """The URL of a hexlog database of this test's own (a new schema), dropped after the test."""
    reason = unreachable()
    if reason is not None:
        pytest.skip(reason=reason)
    with fresh_schema() as url:
        yield url


class Relay:
    """A TCP relay from a port of the loopback address to the server of ``PG_URL``.

    ``cut()`` is the server going away: every relayed connection is closed and the port refuses new ones.
    ``restore()`` is the server back, on the same port. ``url(base)`` is ``base`` reached through the relay.
    """

    def __init__(self) -> None:
        target = urlsplit(PG_URL)
        self._target = (target.hostname or "127.0.0.1", target.port or 5432)
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._accepting: threading.Thread | None = None
        self._stop = threading.Event()
        self.port = 0
        self.restore()

    def url(self, base: str = PG_URL) -> str:
        """``base`` with its host and port those of the relay."""
        parts = urlsplit(base)
        user = parts.netloc.rpartition("@")[0]
        where = f"127.0.0.1:{self.port}"
        return urlunsplit(parts._replace(netloc=f"{user}@{where}" if user else where))

    def restore(self) -> None:
        """Accept connections again (on the port of before, once there is one)."""
        listening = socket.create_server(("127.0.0.1", self.port))
        listening.settimeout(0.02)
        self.port = listening.getsockname()[1]
        self._stop = threading.Event()
        self._accepting = threading.Thread(target=self._accept, args=(listening, self._stop), daemon=True)
        self._accepting.start()

    def cut(self) -> None:
        """Close every relayed connection, and refuse new ones until ``restore``."""
        self._stop.set()
        if self._accepting is not None:
            self._accepting.join()
        with self._lock:
            ended, self._sockets = self._sockets, set()
        for sock in ended:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listening: socket.socket, stop: threading.Event) -> None:
        with listening:
            while not stop.is_set():
                try:
                    client, _ = listening.accept()
                except TimeoutError:
                    continue
                client.settimeout(None)
                server = socket.create_connection(self._target)
                with self._lock:
                    self._sockets |= {client, server}
                for source, sink in ((client, server), (server, client)):
                    threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


@pytest.fixture
def relay() -> Iterator[Relay]:
    """A relay to the PostgreSQL server (the test skips, saying why, when no server answers)."""
    reason = unreachable()
    if reason is not None:
        pytest.skip(reason=reason)
    made = Relay()
    yield made
    made.cut()
