"""A PostgreSQL events table rebuilt by hand: the audit says first how it differs from hexlog's and what it holds.

A referee who owns the database may drop the table's keys, or give its stream ids a collation that compares two
of them as one; a reader paging through such a table by position (or a stream by its version) may skip a row or
read another stream's rows with a stream's own, so what an audit read may not be the log as it is. As on SQLite,
the report's first finding then says so, naming the difference and what the table holds.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import psycopg
import pytest

from hexlog.events.errors import CorruptLogError
from hexlog.events.postgres import PostgresStore
from hexlog.events.streams import stream_for
from hexlog.replay.audit import audit_store
from hexlog.replay.chain_audit import TABLE
from hexlog.replay.verdict import Verdict
from hexlog.service.benchmark import write_log

from .postgres_db import needs_postgres, pg_url

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = needs_postgres
__all__ = ["pg_url"]  # the fixture, used by name

#: the keys a referee drops to rebuild the table (the names PostgreSQL gives hexlog's constraints)
KEYS = ("events_pkey", "events_id_key", "events_stream_id_stream_version_key")


@pytest.fixture
def logged(pg_url: str) -> Iterator[PostgresStore]:
    """Three campaigns of plain sessions and rolls (b0, b1, b2), each sound."""
    store = PostgresStore(pg_url)
    write_log(store, 120, 40, 40)
    yield store
    store.close()


def _sql(url: str, *statements: str) -> None:
    """Statements run as the owner of the database runs them, the table's guards dropped first."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TRIGGER events_no_update ON events")
        conn.execute("DROP TRIGGER events_no_delete ON events")
        for statement in statements:
            conn.execute(statement)


#: a second row at position 50 (version 10 of b1): the row there, its id and its faces changed
FORGED_COPY = (
    "INSERT INTO events SELECT position, stream_id, stream_version, id || '-forged', type, schema_version, "
    "source, time, replace(data, '\"faces\":[', '\"faces\":[1,'), prevhash, hash FROM events WHERE position = 50"
)


def test_a_table_hexlog_made_differs_in_nothing_and_audits_as_ever(logged: PostgresStore) -> None:
    assert logged.events_differences() == []
    assert logged.events_as_made()
    assert logged.events_hazards() == []
    report = audit_store(logged)
    assert report.findings == ()
    assert report.verdict is Verdict.INCOMPLETE  # the sessions have no client seed


def test_a_table_without_its_keys_is_named_first_with_the_rows_it_holds_twice(
    logged: PostgresStore, pg_url: str
) -> None:
    _sql(pg_url, *(f"ALTER TABLE events DROP CONSTRAINT {key}" for key in KEYS), FORGED_COPY)
    assert logged.events_differences() == [
        "position is not its primary key",
        "no UNIQUE (stream_id, stream_version)",
        "id is not declared UNIQUE",
    ]
    assert not logged.events_as_made()
    assert logged.events_hazards() == ["2 rows at position 50", "2 rows at version 10 of 'campaign-b1'"]
    for campaign in (None, "b1"):
        report = audit_store(logged, campaign)
        first = report.findings[0]
        assert first.check == TABLE
        assert "the events table is not as hexlog made it (position is not its primary key;" in first.reason
        assert "and it holds 2 rows at position 50; 2 rows at version 10 of 'campaign-b1'" in first.reason
        assert report.verdict is Verdict.FAILED


def test_a_table_without_its_unique_id_that_holds_two_events_of_one_id_names_the_id(
    logged: PostgresStore, pg_url: str
) -> None:
    """The row at position 51 given the id of the one at position 50: the audit named neither."""
    with psycopg.connect(pg_url) as conn:
        (shared,) = conn.execute("SELECT id FROM events WHERE position = 50").fetchone()
    _sql(
        pg_url,
        "ALTER TABLE events DROP CONSTRAINT events_id_key",
        "UPDATE events SET id = (SELECT id FROM events WHERE position = 50) WHERE position = 51",
    )
    assert logged.events_differences() == ["id is not declared UNIQUE"]
    assert logged.events_hazards() == [f"2 rows with the event id {shared!r}"]
    for campaign in (None, "b1"):
        report = audit_store(logged, campaign)
        first = report.findings[0]
        assert first.check == TABLE
        assert f"and it holds 2 rows with the event id {shared!r}" in first.reason
        assert report.verdict is Verdict.FAILED


def test_a_table_without_its_keys_that_holds_nothing_twice_audits_as_ever(logged: PostgresStore, pg_url: str) -> None:
    """Keys dropped but nothing added: nothing a reader could skip, and nothing wrong found, so nothing to say."""
    _sql(pg_url, *(f"ALTER TABLE events DROP CONSTRAINT {key}" for key in KEYS))
    assert not logged.events_as_made()
    assert logged.events_hazards() == []
    assert audit_store(logged).findings == ()


def test_unique_indexes_where_the_constraints_were_are_keys_as_they_were(logged: PostgresStore, pg_url: str) -> None:
    """The UNIQUE constraints rebuilt as unique indexes keep the same rows out: nothing is named of them. A partial
    index, which lets a row outside it through, is not such a key."""
    _sql(
        pg_url,
        "ALTER TABLE events DROP CONSTRAINT events_stream_id_stream_version_key",
        "ALTER TABLE events DROP CONSTRAINT events_id_key",
        "CREATE UNIQUE INDEX by_version ON events (stream_version, stream_id)",
        "CREATE UNIQUE INDEX by_id ON events (id) INCLUDE (type)",
    )
    assert logged.events_differences() == []
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP INDEX by_id")
        conn.execute("CREATE UNIQUE INDEX by_id ON events (id) WHERE position > 5")
        assert logged.events_differences() == ["id is not declared UNIQUE"]
        conn.execute("DROP INDEX by_version")
        conn.execute("CREATE UNIQUE INDEX by_version ON events (stream_id, stream_version, type)")
    assert logged.events_differences() == ["no UNIQUE (stream_id, stream_version)", "id is not declared UNIQUE"]


def test_stream_ids_compared_without_case_are_named(logged: PostgresStore, pg_url: str) -> None:
    """The stream id given a collation that compares 'campaign-B1' as 'campaign-b1': a stream read by its id would
    read both; the audit names the collation and the two ids."""
    _sql(
        pg_url,
        "CREATE COLLATION hexlog_test_nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
        f"ALTER TABLE events DROP CONSTRAINT {KEYS[2]}",
        "ALTER TABLE events ALTER COLUMN stream_id TYPE TEXT COLLATE hexlog_test_nocase",
        "INSERT INTO events SELECT 1000 + position, 'campaign-B1', stream_version, id || '-B', type, schema_version, "
        "source, time, data, prevhash, hash FROM events WHERE stream_id = 'campaign-b1' AND stream_version = 1",
    )
    assert logged.events_differences() == [
        "no UNIQUE (stream_id, stream_version)",
        "'stream_id' compares by a collation that is not deterministic",
    ]
    hazards = logged.events_hazards()
    assert "the stream ids 'campaign-B1' and 'campaign-b1', which it compares as one" in hazards
    report = audit_store(logged)
    assert report.findings[0].check == TABLE
    assert "compares by a collation that is not deterministic" in report.findings[0].reason
    assert len(logged.read_stream(stream_for("b1"))) == 41  # its 40 events, and the other stream's one


def test_a_stream_id_that_compares_without_case_by_its_type_is_named(logged: PostgresStore, pg_url: str) -> None:
    """``citext`` compares 'campaign-B1' as 'campaign-b1' with a deterministic collation: its type names it."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS citext SCHEMA public")
    _sql(
        pg_url,
        "ALTER TABLE events ALTER COLUMN stream_id TYPE public.citext",
        "INSERT INTO events SELECT 1000, 'campaign-B1', 41, id || '-B', type, schema_version, source, time, data, "
        "prevhash, hash FROM events WHERE stream_id = 'campaign-b1' AND stream_version = 1",
    )
    differences = logged.events_differences()
    assert len(differences) == 1
    assert differences[0].startswith("'stream_id' is ")
    assert differences[0].endswith("citext, not text")
    assert "the stream ids 'campaign-B1' and 'campaign-b1', which it compares as one" in logged.events_hazards()
    report = audit_store(logged, "b1")
    assert report.findings[0].check == TABLE
    assert "citext, not text" in report.findings[0].reason


#: columns given another type by hand, each with the type hexlog gives it
RETYPED = [("position", "text", "bigint"), ("stream_version", "text", "integer"), ("position", "numeric", "bigint")]


@pytest.mark.parametrize(("column", "kind", "expected"), RETYPED)
def test_a_column_of_another_type_is_named_where_the_log_cannot_be_read(
    logged: PostgresStore, pg_url: str, column: str, kind: str, expected: str
) -> None:
    """A column given another type: the table is named, and the audit of the whole store, which cannot read the
    log, says so and why (never an internal error); a campaign's audit reads it whole, as on SQLite."""
    _sql(pg_url, f"ALTER TABLE events ALTER COLUMN {column} TYPE {kind}")
    assert logged.events_differences() == [f"'{column}' is {kind}, not {expected}"]
    named = re.escape(f"the events table is not as hexlog made it ('{column}' is {kind}, not {expected})")
    with pytest.raises(CorruptLogError, match=named):
        audit_store(logged)
    try:
        report = audit_store(logged, "b1")
    except CorruptLogError as err:
        refused = str(err)
    else:
        refused = ""
        assert report.events == 40
    assert not refused or re.search(named, refused)
