"""Session events: the commitment before play, the players' client seed, the reveal after (or an abandon)."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from hexlog.events.base import Event

DICE_SCHEME = "hexlog-dice-v1"


@attrs.frozen(kw_only=True)
class SessionOpened(Event):
    """A session began; ``commitment`` is sha256(secret) in hex, published before play.

    ``supplied`` says that the secret was given to hexlog (for a reproducible run) instead of drawn
    by it at random: whoever gave it could have chosen it, so its rolls do not protect the players.
    """

    type_name: ClassVar[str] = "session.opened"
    schema_version: ClassVar[int] = 2
    session: str
    commitment: str
    scheme: str = DICE_SCHEME
    supplied: bool = False

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 did not say whether the secret was supplied; such sessions did not record it."""
        return {**data, "supplied": False}


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
