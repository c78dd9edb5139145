"""Session events: the commitment before play, the players' client seed, the reveal after (or an abandon)."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from hexlog.events.base import Event
from hexlog.events.releases import CURRENT

DICE_SCHEME = "hexlog-dice-v1"


@attrs.frozen(kw_only=True)
class SessionOpened(Event):
    """A session began; ``commitment`` is sha256(secret) in hex, published before play.

    ``supplied`` says that the secret was given to hexlog (for a reproducible run) instead of drawn
    by it at random: whoever gave it could have chosen it, so its rolls do not protect the players.
    ``release`` names the release of hexlog that opened it (``hexlog.events.releases``), whose rules the audit
    holds the stream to from here on.
    """

    type_name: ClassVar[str] = "session.opened"
    schema_version: ClassVar[int] = 3
    session: str
    commitment: str
    scheme: str = DICE_SCHEME
    supplied: bool = False
    #: the release of hexlog that opened the session, as events/releases.py counts them (0 before version 3: not
    #: recorded, the audit tells it from the schema versions of the stream's events)
    release: int = CURRENT

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 did not say whether the secret was supplied; such sessions did not record it."""
        return {**data, "supplied": False}

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 did not name the release that opened the session: 0, told from the stream's schema versions."""
        return {**data, "release": 0}


@attrs.frozen(kw_only=True)
class ClientSeedSet(Event):
    """The players added their own seed, before the session's first roll."""

    type_name: ClassVar[str] = "session.client_seed_set"
    session: str
    client_seed: str


@attrs.frozen(kw_only=True)
class SessionClosed(Event):
    """A session ended and its secret was revealed, in hex."""

    type_name: ClassVar[str] = "session.closed"
    session: str
    secret: str


@attrs.frozen(kw_only=True)
class SessionAbandoned(Event):
    """A session ended without revealing its secret (lost with its key file): its rolls can never be verified."""

    type_name: ClassVar[str] = "session.abandoned"
    session: str
    reason: str
