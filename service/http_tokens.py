"""Bearer tokens of the HTTP service: one campaign and one role each, kept in the campaign's database.

A token is ``hxl_<id>_<secret>``. The database keeps only its id, campaign, role and the SHA-256 of
the whole token; a request's token is looked up by id and its hash compared in constant time
(``hmac.compare_digest``). The table ``http_tokens`` is made the first time a token is created, so a
database that never served is left as it was, and an older hexlog reading a database with the table
is not disturbed by it. The table is in the SQLite file or in the PostgreSQL schema ``--db`` names
(``hexlog.service.http_tables``); what is kept and how it is compared are the same in both.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import NotFoundError, UsageError
from hexlog.service.http_tables import open_tables

if TYPE_CHECKING:
    from hexlog.service.http_tables import Tables

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
    """The tokens of one database (a connection of its own: the event store is not touched).

    ``db`` is what ``--db`` gives: a SQLite file or a PostgreSQL URL (the tokens then go in the store's
    schema). ``busy_timeout`` is how many seconds a statement waits for another writer's lock.
    """

    def __init__(self, db: Path | str, *, busy_timeout: float = 10.0) -> None:
        self.db = Path(db)
        self._tables: Tables = open_tables(self.db, busy_timeout=busy_timeout)

    def create(self, campaign: str, role: str, label: str = "") -> tuple[str, Token]:
        """Make a token; give its text (shown once, never kept) and what is kept of it."""
        check_role(role)
        self._tables.ensure("http_tokens", TABLE)
        token_id = secrets.token_hex(ID_BYTES)
        text = f"{PREFIX}_{token_id}_{secrets.token_urlsafe(SECRET_BYTES)}"
        kept = Token(id=token_id, campaign=campaign, role=role, label=label, created=_now(), revoked=None)
        self._tables.write(
            "INSERT INTO http_tokens (id, campaign, role, hash, label, created) VALUES (?, ?, ?, ?, ?, ?)",
            (kept.id, kept.campaign, kept.role, digest(text), kept.label, kept.created),
        )
        return text, kept

    def list(self, campaign: str | None = None) -> list[Token]:
        """The tokens (of one campaign, when given), oldest first."""
        if not self._tables.has("http_tokens"):
            return []
        query = "SELECT id, campaign, role, label, created, revoked FROM http_tokens"
        params: tuple[str, ...] = ()
        if campaign is not None:
            query, params = f"{query} WHERE campaign = ?", (campaign,)
        rows = self._tables.rows(f"{query} ORDER BY created, id", params)
        return [Token(id=r[0], campaign=r[1], role=r[2], label=r[3], created=r[4], revoked=r[5]) for r in rows]

    def revoke(self, token_id: str) -> Token:
        """Revoke a token by its id (at once: the next request with it is refused)."""
        known = {t.id: t for t in self.list()}
        found = known.get(token_id.strip())
        if found is None:
            msg = f"no token with id {token_id!r} (see 'hexlog token list')"
            raise NotFoundError(msg)
        if found.revoked is None:
            self._tables.write(
                "UPDATE http_tokens SET revoked = ? WHERE id = ? AND revoked IS NULL", (_now(), found.id)
            )
        return next(t for t in self.list() if t.id == found.id)

    def verify(self, text: str) -> Token | None:
        """The active token this text is, or None (unknown, malformed, revoked); the hash compared in constant time."""
        parts = text.split("_", 2)
        if len(parts) != 3 or parts[0] != PREFIX:  # noqa: PLR2004 - prefix, id, secret
            return None
        if not self._tables.has("http_tokens"):
            return None
        rows = self._tables.rows(
            "SELECT id, campaign, role, label, created, revoked, hash FROM http_tokens WHERE id = ?", (parts[1],)
        )
        row = rows[0] if rows else None
        if row is None or not hmac.compare_digest(str(row[6]), digest(text)):
            return None
        token = Token(id=row[0], campaign=row[1], role=row[2], label=row[3], created=row[4], revoked=row[5])
        return token if token.active else None

    def verify_id(self, token_id: str) -> bool:
        """Whether the token of this id (verified when its request came) is still active."""
        if not self._tables.has("http_tokens"):
            return False
        rows = self._tables.rows("SELECT revoked FROM http_tokens WHERE id = ?", (token_id,))
        return bool(rows) and rows[0][0] is None

    def close(self) -> None:
        """Release the connection."""
        self._tables.close()
