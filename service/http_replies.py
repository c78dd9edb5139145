"""The first answer to each command sent with an ``Idempotency-Key``, kept so that a retry gets it again.

Kept per campaign and key in the table ``http_replies`` of the campaign's database (made when first
needed; in the SQLite file or the PostgreSQL schema ``--db`` names: ``hexlog.service.http_tables``), with a
digest of the request: the same key with another request is refused. The command
itself is also sent to the handler under a command id made of the campaign, the token and the key, so even a
retry whose first answer was never stored (the service stopped in between) is applied only once. (Releases
before keys were the token's own used the campaign and the key; ``http_app`` still knows a retry of theirs.)
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.service.http_tables import open_tables

if TYPE_CHECKING:
    from hexlog.service.http_tables import Tables

TABLE = """
CREATE TABLE IF NOT EXISTS http_replies (
    campaign TEXT NOT NULL,
    key TEXT NOT NULL,
    digest TEXT NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL,
    created TEXT NOT NULL,
    PRIMARY KEY (campaign, key)
)
"""
#: the longest Idempotency-Key accepted
KEY_LIMIT = 200
#: hours a stored answer is kept by default (``hexlog serve --keep-replies``): a retry sent later is still applied
#: once (the command id is the store's), answered from what it recorded rather than with the first answer's bytes
KEEP_HOURS = 168
#: seconds between two sweeps of the answers past their time (a sweep is one DELETE)
SWEEP_SECONDS = 3600


@attrs.frozen(kw_only=True)
class Reply:
    """A stored answer: the request's digest, the status and the JSON body."""

    digest: str
    status: int
    body: Any


class Replies:
    """The stored answers of one database (``db`` as ``--db`` gives it: a SQLite file or a PostgreSQL URL)."""

    def __init__(self, db: Path | str, *, busy_timeout: float = 10.0, keep_hours: float = KEEP_HOURS) -> None:
        self._tables: Tables = open_tables(Path(db), busy_timeout=busy_timeout)
        self.keep = timedelta(hours=keep_hours)
        self._swept: datetime | None = None

    def get(self, campaign: str, key: str) -> Reply | None:
        """The answer stored for a key, if any."""
        self._tables.ensure("http_replies", TABLE)
        rows = self._tables.rows(
            "SELECT digest, status, body FROM http_replies WHERE campaign = ? AND key = ?", (campaign, key)
        )
        return None if not rows else Reply(digest=rows[0][0], status=rows[0][1], body=json.loads(rows[0][2]))

    def put(self, campaign: str, key: str, reply: Reply, *, now: datetime | None = None) -> None:
        """Keep the first answer for a key (and, at most once an hour, let those past their time go)."""
        now = now or datetime.now(UTC)
        self._tables.ensure("http_replies", TABLE)
        self._tables.write(
            "INSERT INTO http_replies (campaign, key, digest, status, body, created) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (campaign, key) DO NOTHING",
            (campaign, key, reply.digest, reply.status, json.dumps(reply.body, ensure_ascii=False), _stamp(now)),
        )
        if self._swept is None or (now - self._swept).total_seconds() >= SWEEP_SECONDS:
            self._swept = now
            self._tables.write("DELETE FROM http_replies WHERE created < ?", (_stamp(now - self.keep),))

    def forget(self, campaign: str, key: str) -> None:
        """Drop a stored answer (what a service that stopped before storing it leaves behind)."""
        self._tables.ensure("http_replies", TABLE)
        self._tables.write("DELETE FROM http_replies WHERE campaign = ? AND key = ?", (campaign, key))

    def close(self) -> None:
        """Release the connection."""
        self._tables.close()


def _stamp(when: datetime) -> str:
    """A time as the table keeps it (UTC, to the second: its text sorts as the time does)."""
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")
