"""Where session secrets live until they are revealed: never in the log.

A secret is kept under its commitment (``sha256(secret)`` in hex), not under its session id: two
processes racing to open session ``s1`` each keep their own secret under their own commitment, so
the one whose event is not appended never replaces the secret of the one whose event is.

The key file is a JSON object ``{"<campaign>/<commitment>": "<secret hex>", ...}``. Files written
before this layout hold ``{"<campaign>/<session>": "<secret hex>"}``; those entries are still read
when no entry is kept under the commitment. The caller checks the secret against the commitment.

A keeper also keeps other facts the log only commits to (a hidden feature of the map, with its salt):
text under a key, by campaign. The key file keeps them under ``"facts"``: ``{"<campaign>": {"<key>":
"<text>"}}`` (a key file without it, as every older one, has no facts).
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from hexlog.events import files
from hexlog.events.errors import (
    Advice,
    ConcurrencyError,
    CorruptLogError,
    HexlogError,
    NotFoundError,
    RuleRefusedError,
    UsageError,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence


#: the command that ends a session whose secret is lost
ABANDON = Advice("AbandonSession", (("reason", "TEXT"),))
#: the key file's entry that holds the kept facts (a session's entry always holds a "/")
FACTS = "facts"


def _commitment(secret: bytes) -> str:
    return hashlib.sha256(secret).hexdigest()


class SecretKeeper(Protocol):
    """Holds each session's secret, keyed by campaign and commitment."""

    def put(self, campaign: str, secret: bytes) -> None:
        """Keep a secret under its commitment, ``sha256(secret)``."""
        ...

    def get(self, campaign: str, session: str, commitment: str) -> bytes:
        """The secret kept for a commitment (``NotFoundError`` when none is kept)."""
        ...

    def put_fact(self, campaign: str, key: str, value: str) -> None:
        """Keep a fact (text) of a campaign under a key (replacing the one kept there)."""
        ...

    def put_facts(self, campaign: str, facts: dict[str, str]) -> None:
        """Keep several facts of a campaign at once (one write of the key file)."""
        ...

    def get_facts(self, campaign: str) -> dict[str, str]:
        """Every fact kept for a campaign, by key."""
        ...

    def keep_all(self, secrets: Sequence[tuple[str, bytes]], facts: Sequence[tuple[str, str, str]]) -> Undo:
        """Keep secrets ``(campaign, secret)`` and facts ``(campaign, key, value)`` at once; the callable
        returned takes exactly these back (each entry as it was before)."""
        ...


#: takes back what ``keep_all`` kept
Undo = Callable[[], None]


class Staged:
    """A keeper whose new entries are held back: a command's step keeps its secrets and facts here,
    and the handler keeps them in the real keeper (``commit``) just before the append that records
    them, taking them back if the append fails. Reads see the held entries first."""

    def __init__(self, keeper: SecretKeeper) -> None:
        self.keeper = keeper
        self.secrets: list[tuple[str, bytes]] = []
        self.facts: list[tuple[str, str, str]] = []

    def put(self, campaign: str, secret: bytes) -> None:
        """Hold a secret back until ``commit``."""
        self.secrets.append((campaign, secret))

    def get(self, campaign: str, session: str, commitment: str) -> bytes:
        """A held secret of that commitment, else the keeper's."""
        for held_campaign, secret in reversed(self.secrets):
            if held_campaign == campaign and _commitment(secret) == commitment:
                return secret
        return self.keeper.get(campaign, session, commitment)

    def put_fact(self, campaign: str, key: str, value: str) -> None:
        """Hold a fact back until ``commit``."""
        self.facts.append((campaign, key, value))

    def put_facts(self, campaign: str, facts: dict[str, str]) -> None:
        """Hold several facts back until ``commit`` (which keeps them all in one write)."""
        self.facts.extend((campaign, key, value) for key, value in facts.items())

    def get_facts(self, campaign: str) -> dict[str, str]:
        """The keeper's facts with the held ones over them."""
        facts = self.keeper.get_facts(campaign)
        facts.update({key: value for held, key, value in self.facts if held == campaign})
        return facts

    def keep_all(self, secrets: Sequence[tuple[str, bytes]], facts: Sequence[tuple[str, str, str]]) -> Undo:
        """Hold more entries back."""
        self.secrets.extend(secrets)
        self.facts.extend(facts)
        return lambda: None

    def commit(self) -> Undo:
        """Keep every held entry in the real keeper; the callable returned takes them back."""
        if not self.secrets and not self.facts:
            return lambda: None
        return self.keeper.keep_all(self.secrets, self.facts)


class MemoryKeeper:
    """Secrets in a dict, for tests and simulations."""

    def __init__(self) -> None:
        self._secrets: dict[tuple[str, str], bytes] = {}
        self._facts: dict[str, dict[str, str]] = {}

    def put(self, campaign: str, secret: bytes) -> None:
        """Remember a secret under its commitment."""
        self._secrets[(campaign, _commitment(secret))] = secret

    def get(self, campaign: str, session: str, commitment: str) -> bytes:
        """The secret of a commitment; ``NotFoundError`` when unknown."""
        try:
            return self._secrets[(campaign, commitment)]
        except KeyError:
            msg = f"no secret is kept for session {session} of campaign {campaign}"
            raise NotFoundError(msg) from None

    def put_fact(self, campaign: str, key: str, value: str) -> None:
        """Remember a fact under its key."""
        self.put_facts(campaign, {key: value})

    def put_facts(self, campaign: str, facts: dict[str, str]) -> None:
        """Remember several facts under their keys."""
        self._facts.setdefault(campaign, {}).update(facts)

    def get_facts(self, campaign: str) -> dict[str, str]:
        """The facts of a campaign."""
        return dict(self._facts.get(campaign, {}))

    def keep_all(self, secrets: Sequence[tuple[str, bytes]], facts: Sequence[tuple[str, str, str]]) -> Undo:
        """Keep them all; the callable returned takes them back."""
        before_secrets = {(c, _commitment(s)): self._secrets.get((c, _commitment(s))) for c, s in secrets}
        before_facts = {(c, k): self._facts.get(c, {}).get(k) for c, k, _ in facts}
        for campaign, secret in secrets:
            self.put(campaign, secret)
        for campaign, key, value in facts:
            self.put_fact(campaign, key, value)

        def undo() -> None:
            for where, old in before_secrets.items():
                if old is None:
                    self._secrets.pop(where, None)
                else:
                    self._secrets[where] = old
            for (campaign, key), value in before_facts.items():
                mine = self._facts.setdefault(campaign, {})
                if value is None:
                    mine.pop(key, None)
                else:
                    mine[key] = value

        return undo


class FileKeeper:
    """Secrets in a JSON key file beside the database, readable and writable by its owner only.

    Writers take an exclusive ``flock`` on ``<key file>.lock`` for the whole read-modify-write and
    write a temporary file of their own in the same folder, fsynced, then ``os.replace`` it over the
    key file; readers see either the old file or the new one, never half of one.
    """

    def __init__(self, path: str | os.PathLike[str], *, lock_timeout: float = 10.0) -> None:
        self.path = Path(path)
        #: seconds to wait for another command's lock on the key file
        self.lock_timeout = lock_timeout

    @property
    def lock_path(self) -> Path:
        """The lock file beside the key file."""
        return self.path.with_name(self.path.name + ".lock")

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as err:
            msg = f"cannot lock the key file: {self.lock_path}: {err.strerror}"
            raise KeyFileError(msg) from err
        try:
            deadline = time.monotonic() + self.lock_timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        msg = (
                            f"waited {self.lock_timeout:g} s for the key file lock {self.lock_path}, "
                            "which another hexlog command holds; try again"
                        )
                        raise ConcurrencyError(msg) from None
                    time.sleep(0.02)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def _load(self) -> dict[str, object]:
        if not os.path.lexists(self.path):
            return {}
        try:
            raw = files.read_regular(self.path, limit=files.MAX_SMALL_FILE_BYTES, what="key file")
            data = files.loads_json(raw.decode("utf-8"))
        except (UsageError, ValueError) as err:  # unreadable, not UTF-8, not (strict) JSON
            msg = f"key file {self.path} is unreadable: {err}"
            raise CorruptLogError(msg) from err
        if not isinstance(data, dict):
            msg = f"key file {self.path} is not a JSON object"
            raise CorruptLogError(msg)
        return {str(k): v for k, v in data.items()}

    def _write(self, data: dict[str, object]) -> None:
        try:
            self._replace(data)
        except OSError as err:
            msg = f"cannot write the key file {self.path}: {err.strerror or err}; nothing was recorded"
            raise KeyFileError(msg) from err

    def _replace(self, data: dict[str, object]) -> None:
        fd, name = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp", dir=self.path.parent)
        tmp = Path(name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1, sort_keys=True)
                handle.flush()
                os.fsync(handle.fileno())
            tmp.chmod(0o600)
            tmp.replace(self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        with contextlib.suppress(OSError):  # make the rename itself durable where the OS allows
            dir_fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    def put(self, campaign: str, secret: bytes) -> None:
        """Keep a secret under its commitment; the file is replaced atomically, mode 0600."""
        with self._locked():
            data = self._load()
            data[f"{campaign}/{_commitment(secret)}"] = secret.hex()
            self._write(data)

    def keep_all(self, secrets: Sequence[tuple[str, bytes]], facts: Sequence[tuple[str, str, str]]) -> Undo:
        """Keep them all in one replacement of the file; the callable returned takes them back (the
        entries as they were before, in another replacement)."""
        with self._locked():
            data = self._load()
            before = copy.deepcopy(data)
            for campaign, secret in secrets:
                data[f"{campaign}/{_commitment(secret)}"] = secret.hex()
            _put_facts(data, facts)
            self._write(data)

        def undo() -> None:
            with self._locked():
                now = self._load()
                for campaign, secret in secrets:
                    key = f"{campaign}/{_commitment(secret)}"
                    if key in before:
                        now[key] = before[key]
                    else:
                        now.pop(key, None)
                old = before.get(FACTS)
                _restore_facts(now, facts, old if isinstance(old, dict) else {})
                self._write(now)

        return undo

    def get(self, campaign: str, session: str, commitment: str) -> bytes:
        """The secret kept for a commitment (or, in an older key file, for the session id).

        ``NotFoundError`` when the key file has neither; ``CorruptLogError`` when the value kept
        is not hex.
        """
        data = self._load()
        key = f"{campaign}/{commitment}"
        if key not in data:
            key = f"{campaign}/{session}"
        if key not in data:
            msg = f"the key file {self.path} has no secret for session {session} of campaign {campaign}"
            raise NotFoundError(msg)
        value = data[key]
        try:
            if not isinstance(value, str):
                raise TypeError(type(value).__name__)  # noqa: TRY301 - one message for both
            return bytes.fromhex(value)
        except (TypeError, ValueError) as err:
            msg = f"key file {self.path} is corrupt: the secret kept under {key!r} is not hex ({err})"
            raise CorruptLogError(msg) from err

    def put_fact(self, campaign: str, key: str, value: str) -> None:
        """Keep a fact under its key in the file's ``facts``; the file is replaced atomically, mode 0600."""
        self.put_facts(campaign, {key: value})

    def put_facts(self, campaign: str, facts: dict[str, str]) -> None:
        """Keep several facts in one read-modify-write of the key file (a map's hidden features at once)."""
        if not facts:
            return
        with self._locked():
            data = self._load()
            _put_facts(data, [(campaign, key, value) for key, value in facts.items()])
            self._write(data)

    def get_facts(self, campaign: str) -> dict[str, str]:
        """The facts kept for a campaign (none in a key file written before facts were kept)."""
        facts = self._load().get(FACTS)
        mine = facts.get(campaign) if isinstance(facts, dict) else None
        if mine is None:
            return {}
        if not isinstance(mine, dict) or not all(isinstance(v, str) for v in mine.values()):
            msg = f"key file {self.path} is corrupt: the facts of campaign {campaign} are not text by key"
            raise CorruptLogError(msg)
        return {str(k): v for k, v in mine.items()}


class KeyFileError(HexlogError):
    """The key file cannot be locked or written (a read-only folder, a full disk)."""


def _put_facts(data: dict[str, object], facts: Sequence[tuple[str, str, str]]) -> None:
    """Put facts ``(campaign, key, value)`` into a key file's data."""
    if not facts:
        return
    kept_facts = data.get(FACTS)
    kept = dict(kept_facts) if isinstance(kept_facts, dict) else {}
    for campaign, key, value in facts:
        mine = kept.get(campaign)
        kept[campaign] = {**(mine if isinstance(mine, dict) else {}), key: value}
    data[FACTS] = kept


def _restore_facts(data: dict[str, object], facts: Sequence[tuple[str, str, str]], before: dict[str, Any]) -> None:
    """Put back in a key file's data the facts ``facts`` named as they were in ``before``."""
    if not facts:
        return
    kept_facts = data.get(FACTS)
    kept = dict(kept_facts) if isinstance(kept_facts, dict) else {}
    for campaign, key, _ in facts:
        mine = dict(kept.get(campaign) or {})
        old = before.get(campaign)
        if isinstance(old, dict) and key in old:
            mine[key] = old[key]
        else:
            mine.pop(key, None)
        kept[campaign] = mine
    data[FACTS] = kept


def key_file_for(db_path: str | os.PathLike[str]) -> Path:
    """The key file that belongs beside a database file."""
    path = Path(db_path)
    return path.with_name(path.name + ".keys")


def kept_secret(keeper: SecretKeeper, campaign: str, session: str, commitment: str) -> bytes:
    """The kept secret of a session, refused unless ``sha256(secret)`` is the session's commitment."""
    secret = asked_secret(keeper, campaign, session, commitment)
    check_commitment(secret, session, commitment)
    return secret


def asked_secret(keeper: SecretKeeper, campaign: str, session: str, commitment: str) -> bytes:
    """The secret a keeper holds for a session's commitment, not yet checked against it (``check_commitment``)."""
    try:
        return keeper.get(campaign, session, commitment)
    except NotFoundError as err:
        msg = f"{err}; if it is lost, end the session with '"
        raise NotFoundError(msg).advising(ABANDON, "'") from err


def check_commitment(secret: bytes, session: str, commitment: str) -> None:
    """Refuse a session's secret unless ``sha256(secret)`` is its commitment."""
    if _commitment(secret) != commitment:
        msg = (
            f"the kept secret of session {session} does not match its commitment {commitment}; "
            "no die is rolled and nothing is revealed (if its secret is lost, '"
        )
        raise RuleRefusedError(msg).advising(ABANDON, "')")
