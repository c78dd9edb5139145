"""The service's own tables on PostgreSQL: in the store's schema as named, never another's, failures in one line."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from hexlog.events.errors import DatabaseUnreachableError
from hexlog.events.postgres import PostgresStore
from hexlog.service.http_replies import Replies, Reply
from hexlog.service.http_tokens import TokenStore
from tests.postgres_db import PG_URL, drop_schema, fresh_schema, needs_postgres, relay, schema_url

pytestmark = needs_postgres
__all__ = ["relay"]  # the fixture, used by name


def test_a_schema_whose_name_has_capitals_keeps_the_tokens_as_named():
    schema = f"Hexlog_Test_{uuid.uuid4().hex[:12]}"
    url = schema_url(f"%22{schema}%22")
    try:
        PostgresStore(url).close()
        tokens = TokenStore(url)
        text, kept = tokens.create("main", "referee")
        assert tokens.verify(text) == kept
        tokens.close()
        with psycopg.connect(PG_URL) as conn:
            where = conn.execute("SELECT schemaname FROM pg_tables WHERE tablename = 'http_tokens'").fetchall()
        assert (schema,) in where
        assert (schema.lower(),) not in where
    finally:
        drop_schema(schema)


def test_tokens_and_replies_of_a_later_schema_of_the_search_path_are_not_read():
    with fresh_schema() as first_url, fresh_schema() as later_url:
        PostgresStore(first_url).close()
        PostgresStore(later_url).close()
        later = TokenStore(later_url)
        text, _ = later.create("main", "referee")
        later.close()
        replies = Replies(later_url)
        replies.put("main", "k", Reply(digest="d", status=200, body={"version": 1}))
        replies.close()
        first, rest = first_url.rsplit("%3D", 1)[1], later_url.rsplit("%3D", 1)[1]
        both = schema_url(f"{first},{rest}")
        tokens = TokenStore(both)
        assert tokens.list() == []
        assert tokens.verify(text) is None
        made, kept = tokens.create("main", "player")
        assert [t.id for t in tokens.list()] == [kept.id]
        assert tokens.verify(made) == kept
        tokens.close()
        stored = Replies(both)
        assert stored.get("main", "k") is None
        stored.close()
        assert [t.role for t in TokenStore(later_url).list()] == ["referee"]


def test_a_connection_the_server_ended_is_replaced_in_the_same_schema():
    with fresh_schema() as url, fresh_schema() as later_url:
        PostgresStore(url).close()
        PostgresStore(later_url).close()
        first, rest = url.rsplit("%3D", 1)[1], later_url.rsplit("%3D", 1)[1]
        tokens = TokenStore(schema_url(f"{first},{rest}"))
        _, kept = tokens.create("main", "referee")
        pid = tokens._tables._conn.info.backend_pid
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
        assert [t.id for t in tokens.list()] == [kept.id]
        assert tokens._tables._conn.info.backend_pid != pid
        later = TokenStore(later_url)
        later.create("main", "player")  # a table of a later schema of the path is not read, as before the loss
        later.close()
        assert [t.id for t in tokens.list()] == [kept.id]
        tokens.close()


def test_a_server_that_went_away_is_one_line_naming_the_database_without_its_password(relay):
    with fresh_schema() as url:
        PostgresStore(url).close()
        tokens = TokenStore(relay.url(url))
        tokens.create("main", "referee")
        relay.cut()
        with pytest.raises(DatabaseUnreachableError) as caught:
            tokens.list()
        message = str(caught.value)
        assert message.startswith(f"cannot connect to the database {relay.url(url)}: ")
        assert "\n" not in message
        relay.restore()
        assert [t.role for t in tokens.list()] == ["referee"]
        tokens.close()
