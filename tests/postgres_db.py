"""The PostgreSQL server the PostgreSQL tests use, and a schema of its own for each test.

``HEXLOG_TEST_PG_URL`` names the server's database (default: the local ``test`` database as
``postgres``). Each test gets a new schema, named in its URL's ``search_path`` and dropped after it,
so tests can run side by side. The tests skip, saying why, only when no server answers.
"""

from __future__ import annotations

import contextlib
import functools
import os
import uuid
from typing import TYPE_CHECKING

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
