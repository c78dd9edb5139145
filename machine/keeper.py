"""Where session secrets live until they are revealed: never in the log."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Protocol

from hexlog.events.errors import CorruptLogError, NotFoundError


class SecretKeeper(Protocol):
    """Holds each open session's secret, keyed by campaign and session id."""

    def put(self, campaign: str, session: str, secret: bytes) -> None: ...

    def get(self, campaign: str, session: str) -> bytes: ...


class MemoryKeeper:
    """Secrets in a dict, for tests and simulations."""

    def __init__(self) -> None:
        self._secrets: dict[tuple[str, str], bytes] = {}

    def put(self, campaign: str, session: str, secret: bytes) -> None:
        """Remember a session's secret."""
        self._secrets[(campaign, session)] = secret

    def get(self, campaign: str, session: str) -> bytes:
        """The secret of a session; ``NotFoundError`` when unknown."""
        try:
            return self._secrets[(campaign, session)]
        except KeyError:
            msg = f"no secret is kept for session {session} of campaign {campaign}"
            raise NotFoundError(msg) from None


class FileKeeper:
    """Secrets in a JSON key file beside the database, readable and writable by its owner only."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def _load(self) -> dict[str, str]:
        if not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            msg = f"key file {self.path} is unreadable: {err}"
            raise CorruptLogError(msg) from err
        if not isinstance(data, dict):
            msg = f"key file {self.path} is not a JSON object"
            raise CorruptLogError(msg)
        return {str(k): str(v) for k, v in data.items()}

    def put(self, campaign: str, session: str, secret: bytes) -> None:
        """Store a secret; the file is written atomically with mode 0600."""
        data = self._load()
        data[f"{campaign}/{session}"] = secret.hex()
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o600)
        tmp.replace(self.path)

    def get(self, campaign: str, session: str) -> bytes:
        """The secret of a session; ``NotFoundError`` when the key file does not have it."""
        value = self._load().get(f"{campaign}/{session}")
        if value is None:
            msg = f"the key file {self.path} has no secret for session {session} of campaign {campaign}"
            raise NotFoundError(msg)
        return bytes.fromhex(value)


def key_file_for(db_path: str | os.PathLike[str]) -> Path:
    """The key file that belongs beside a database file."""
    path = Path(db_path)
    return path.with_name(path.name + ".keys")
