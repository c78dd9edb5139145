"""The PostgreSQL backend of ``hexlog bench --db postgresql://...``: each store of a sample a new schema of the
database, dropped after it.

The schemas are named ``hexlog_bench_PID_...``, so a run leaves nothing behind (``drop_all`` removes what a
run stopped halfway left) and two runs on one database do not meet.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import attrs
import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from hexlog.events.postgres import PostgresStore

if TYPE_CHECKING:
    from hexlog.events.store import LiveStore

NAME = "project_postgres"


@attrs.frozen
class PostgresSchemas:
    """The store figures' stores as schemas of the database at ``url``."""

    url: str
    prefix: str = attrs.field(factory=lambda: f"hexlog_bench_{os.getpid()}")

    @property
    def name(self) -> str:
        """The result's ``name``."""
        return NAME

    def schema(self, name: str) -> str:
        """The schema that holds the store ``name``."""
        return f"{self.prefix}_{name}".lower()

    def conninfo(self, name: str) -> str:
        """The connection string of the store ``name`` (the URL's, its schema first in ``search_path``)."""
        params = conninfo_to_dict(self.url)
        options = f"{params.get('options') or ''} -csearch_path={self.schema(name)}".strip()
        return make_conninfo(self.url, options=options)

    def open(self, name: str, *, new: bool = True) -> LiveStore:
        """The store ``name``: a new schema, or (``new`` False) the one written before."""
        return PostgresStore(self.conninfo(name), create=new)

    def remove(self, name: str) -> None:
        """Drop the schema of the store ``name`` and all it holds."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(self.schema(name))))

    def drop_all(self) -> None:
        """Drop every schema this run made (those a run stopped halfway left behind)."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            found = conn.execute(
                "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s)", (f"{self.prefix}_",)
            ).fetchall()
            for (schema,) in found:
                conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))

    def facts(self, name: str, events: int) -> dict[str, Any]:
        """The server's version and durability settings, and the log's payload and bytes per event."""
        with psycopg.connect(self.conninfo(name), autocommit=True) as conn:

            def one(query: str) -> Any:
                row = conn.execute(query).fetchone()
                return row[0] if row else None

            avg = one("SELECT AVG(LENGTH(data)) FROM events")
            sample = one("SELECT data FROM events WHERE type LIKE '%dice.rolled' LIMIT 1")
            size = one(
                "SELECT SUM(pg_total_relation_size(c.oid)) FROM pg_class c "
                "WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'"
            )
            return {
                "server": "postgresql",
                "server_version": one("SHOW server_version"),
                "synchronous_commit": one("SHOW synchronous_commit"),
                "fsync": one("SHOW fsync"),
                "wal_sync_method": one("SHOW wal_sync_method"),
                "isolation": "read committed, appends serialised by an advisory lock",
                "payload_bytes_avg": round(float(avg or 0), 1),
                "payload_sample": json.loads(sample) if sample else None,
                "db_bytes_per_event": round(float(size or 0) / max(events, 1), 1),
                "peak_rss_mb": "measured on SQLite (a replay's memory is the process's, not the server's)",
            }
