"""The schema a PostgreSQL URL's ``search_path`` names is the one hexlog creates and opens: quoted names kept as
written (a doubled quote as one quote), unquoted ones folded to lower case, as PostgreSQL reads them."""

from __future__ import annotations

import uuid
from urllib.parse import quote

import pytest

from hexlog.events.postgres import PostgresStore
from hexlog.events.postgres_schema import first_schema

from .postgres_db import drop_schema, needs_postgres, schema_url
from .test_store_contract import batch


@pytest.mark.parametrize(
    ("path", "schema"),
    [
        ("hexlog", "hexlog"),
        ("  Hexlog , public", "hexlog"),
        ('"Hexlog", public', "Hexlog"),
        ('"he""x", public', 'he"x'),
        ('"a,b" ,c', "a,b"),
        ('"$user", public', "$user"),
        ("$user, public", "$user"),
        ("ÉTÉ", "ÉtÉ"),
        ("x" * 70, "x" * 63),
        ('"' + "é" * 40 + '"', "é" * 31),
    ],
)
def test_the_first_schema_is_read_as_postgresql_reads_it(path: str, schema: str) -> None:
    assert first_schema(path) == schema


@pytest.mark.parametrize("path", ["", "  ", ",public", '"open', '"a"b', "a b, c", 'a"b', '""'])
def test_a_search_path_naming_no_schema_names_none(path: str) -> None:
    assert first_schema(path) is None


@needs_postgres
@pytest.mark.parametrize(
    ("written", "schema"),
    [
        ('"He""xlog_{tag}"', 'He"xlog_{tag}'),
        ("Hexlog_{tag}", "hexlog_{tag}"),
        ('"Hex,log_{tag}",x', "Hex,log_{tag}"),
    ],
)
def test_the_schema_the_url_names_is_created_and_opened_again(written: str, schema: str) -> None:
    """A schema that does not exist yet is created under the name PostgreSQL gives the URL's first schema, so
    the store keeps its tables there and a second store opens the same ones."""
    tag = uuid.uuid4().hex[:12]
    name = schema.format(tag=tag)
    url = schema_url(quote(written.format(tag=tag), safe=""))
    try:
        made = PostgresStore(url)
        assert made.schema == name
        made.append("s", batch(1), expected_version=0)
        made.close()
        again = PostgresStore(url, create=False, readonly=True)
        assert again.schema == name
        assert [r.envelope.data["n"] for r in again.read_stream("s")] == [1]
        again.close()
    finally:
        drop_schema(name)
