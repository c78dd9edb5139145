"""The first answer to each command sent with an ``Idempotency-Key``, kept so that a retry gets it again.

Kept per campaign and key in the table ``http_replies`` of the campaign's database (made when first
needed), with a digest of the request: the same key with another request is refused. The command
itself is also sent to the handler under a command id made of the campaign and the key, so even a
retry whose first answer was never stored (the service stopped in between) is applied only once.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from pathlib import Path

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


@attrs.frozen(kw_only=True)
class Reply:
    """A stored answer: the request's digest, the status and the JSON body."""

    digest: str
    status: int
    body: Any


class Replies:
    """The stored answers of one database file."""

    def __init__(self, db: Path, *, busy_timeout: float = 10.0) -> None:
        self._conn = sqlite3.connect(
            f"{db.resolve().as_uri()}?mode=rw", uri=True, timeout=busy_timeout, check_same_thread=False
        )
        self._conn.isolation_level = None
        self._lock = threading.Lock()
        self._ready = False

    def _prepare(self) -> None:
        if not self._ready:
            self._conn.execute(TABLE)
            self._ready = True

    def get(self, campaign: str, key: str) -> Reply | None:
        """The answer stored for a key, if any."""
        with self._lock:
            self._prepare()
            row = self._conn.execute(
                "SELECT digest, status, body FROM http_replies WHERE campaign = ? AND key = ?", (campaign, key)
            ).fetchone()
        return None if row is None else Reply(digest=row[0], status=row[1], body=json.loads(row[2]))

    def put(self, campaign: str, key: str, reply: Reply) -> None:
        """Keep the first answer for a key."""
        created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        with self._lock:
            self._prepare()
            self._conn.execute(
                "INSERT OR IGNORE INTO http_replies (campaign, key, digest, status, body, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (campaign, key, reply.digest, reply.status, json.dumps(reply.body, ensure_ascii=False), created),
            )

    def forget(self, campaign: str, key: str) -> None:
        """Drop a stored answer (what a service that stopped before storing it leaves behind)."""
        with self._lock:
            self._prepare()
            self._conn.execute("DELETE FROM http_replies WHERE campaign = ? AND key = ?", (campaign, key))

    def close(self) -> None:
        """Release the connection."""
        self._conn.close()
