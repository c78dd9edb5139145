"""Bearer tokens of the HTTP service: one campaign and one role each, kept in the campaign's database.

A token is ``hxl_<id>_<secret>``. The database keeps only its id, campaign, role and the SHA-256 of
the whole token; a request's token is looked up by id and its hash compared in constant time
(``hmac.compare_digest``). The table ``http_tokens`` is made the first time a token is created, so a
database that never served is left as it was, and an older hexlog reading a database with the table
is not disturbed by it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import threading
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    from pathlib import Path

REFEREE, PLAYER = "referee", "player"
ROLES = (REFEREE, PLAYER)
PREFIX = "hxl"
ID_BYTES = 6
SECRET_BYTES = 32

TABLE = """
CREATE TABLE IF NOT EXISTS http_tokens (
    id TEXT PRIMARY KEY,
    campaign TEXT NOT NULL,
    role TEXT NOT NULL,
    hash TEXT NOT NULL,
    label TEXT NOT NULL,
    created TEXT NOT NULL,
    revoked TEXT
)
"""


@attrs.frozen(kw_only=True)
class Token:
    """What the database knows of one token (never the token itself)."""

    id: str
    campaign: str
    role: str
    label: str
    created: str
    revoked: str | None

    @property
    def active(self) -> bool:
        """Whether the token still opens its campaign."""
        return self.revoked is None


def digest(token: str) -> str:
    """The SHA-256 hex of a token's UTF-8 text: all the database keeps of it."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_role(role: str) -> str:
    """The role, if it is one; ``UsageError`` naming the roles otherwise."""
    if role not in ROLES:
        msg = f"--role must be referee or player, not {role!r}"
        raise UsageError(msg)
    return role


class TokenStore:
    """The tokens of one database file (its own connection: the event store is not touched)."""

    def __init__(self, db: Path, *, busy_timeout: float = 10.0) -> None:
        self.db = db
        self._conn = sqlite3.connect(
            f"{db.resolve().as_uri()}?mode=rw", uri=True, timeout=busy_timeout, check_same_thread=False
        )
        self._conn.isolation_level = None
        self._lock = threading.RLock()

    def _has_table(self) -> bool:
        row = self._conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'http_tokens'").fetchone()
        return row is not None

    def create(self, campaign: str, role: str, label: str = "") -> tuple[str, Token]:
        """Make a token; give its text (shown once, never kept) and what is kept of it."""
        check_role(role)
        with self._lock:
            self._conn.execute(TABLE)
        token_id = secrets.token_hex(ID_BYTES)
        text = f"{PREFIX}_{token_id}_{secrets.token_urlsafe(SECRET_BYTES)}"
        kept = Token(id=token_id, campaign=campaign, role=role, label=label, created=_now(), revoked=None)
        with self._lock:
            self._conn.execute(
                "INSERT INTO http_tokens (id, campaign, role, hash, label, created) VALUES (?, ?, ?, ?, ?, ?)",
                (kept.id, kept.campaign, kept.role, digest(text), kept.label, kept.created),
            )
        return text, kept

    def list(self, campaign: str | None = None) -> list[Token]:
        """The tokens (of one campaign, when given), oldest first."""
        with self._lock:
            if not self._has_table():
                return []
            rows = self._conn.execute(
                "SELECT id, campaign, role, label, created, revoked FROM http_tokens "
                "WHERE ? IS NULL OR campaign = ? ORDER BY created, id",
                (campaign, campaign),
            ).fetchall()
        return [Token(id=r[0], campaign=r[1], role=r[2], label=r[3], created=r[4], revoked=r[5]) for r in rows]

    def revoke(self, token_id: str) -> Token:
        """Revoke a token by its id (at once: the next request with it is refused)."""
        known = {t.id: t for t in self.list()}
        found = known.get(token_id.strip())
        if found is None:
            msg = f"no token with id {token_id!r} (see 'hexlog token list')"
            raise NotFoundError(msg)
        if found.revoked is None:
            with self._lock:
                self._conn.execute("UPDATE http_tokens SET revoked = ? WHERE id = ?", (_now(), found.id))
        return next(t for t in self.list() if t.id == found.id)

    def verify(self, text: str) -> Token | None:
        """The active token this text is, or None (unknown, malformed, revoked); the hash compared in constant time."""
        parts = text.split("_", 2)
        if len(parts) != 3 or parts[0] != PREFIX:  # noqa: PLR2004 - prefix, id, secret
            return None
        with self._lock:
            if not self._has_table():
                return None
            row = self._conn.execute(
                "SELECT id, campaign, role, label, created, revoked, hash FROM http_tokens WHERE id = ?", (parts[1],)
            ).fetchone()
        if row is None or not hmac.compare_digest(str(row[6]), digest(text)):
            return None
        token = Token(id=row[0], campaign=row[1], role=row[2], label=row[3], created=row[4], revoked=row[5])
        return token if token.active else None

    def verify_id(self, token_id: str) -> bool:
        """Whether the token of this id (verified when its request came) is still active."""
        with self._lock:
            row = self._conn.execute("SELECT revoked FROM http_tokens WHERE id = ?", (token_id,)).fetchone()
        return row is not None and row[0] is None

    def close(self) -> None:
        """Release the connection."""
        self._conn.close()
