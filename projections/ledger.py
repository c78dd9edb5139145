"""The roll ledger: every roll of every session, and each session's commitment and reveal."""

from __future__ import annotations

import attrs

from hexlog.events.base import Event
from hexlog.events.dice import DiceRolled
from hexlog.events.session import ClientSeedSet, SessionClosed, SessionOpened


@attrs.frozen(kw_only=True)
class LedgerSession:
    """One session's dice: commitment, client seed, reveal and rolls."""

    session: str
    commitment: str
    client_seed: str = ""
    secret: str = ""
    rolls: tuple[DiceRolled, ...] = ()

    @property
    def revealed(self) -> bool:
        """Whether the session's secret has been revealed."""
        return bool(self.secret)


@attrs.frozen(kw_only=True)
class Ledger:
    """Every session of a campaign, in order."""

    sessions: tuple[LedgerSession, ...] = ()

    def session(self, session: str) -> LedgerSession | None:
        """The session with this id, if any."""
        return next((s for s in self.sessions if s.session == session), None)

    @property
    def roll_count(self) -> int:
        """How many rolls all sessions hold."""
        return sum(len(s.rolls) for s in self.sessions)


def _update(ledger: Ledger, session: str, **changes: object) -> Ledger:
    return Ledger(
        sessions=tuple(
            attrs.evolve(s, **changes) if s.session == session else s  # type: ignore[arg-type]
            for s in ledger.sessions
        )
    )


def evolve(ledger: Ledger, event: Event) -> Ledger:
    """The ledger after one event."""
    match event:
        case SessionOpened():
            entry = LedgerSession(session=event.session, commitment=event.commitment)
            return Ledger(sessions=(*ledger.sessions, entry))
        case ClientSeedSet():
            return _update(ledger, event.session, client_seed=event.client_seed)
        case SessionClosed():
            return _update(ledger, event.session, secret=event.secret)
        case DiceRolled():
            current = ledger.session(event.session)
            rolls = (*current.rolls, event) if current else (event,)
            return _update(ledger, event.session, rolls=rolls)
    return ledger
