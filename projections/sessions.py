"""The session lifecycle, folded once for everyone who needs it.

A session opens with a commitment, may take the players' client seed before its first roll, rolls,
and ends either closed (its secret revealed) or abandoned (its secret lost). The table, the roll
ledger, the dice audit and the player's view all read this one fold.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import attrs

from hexlog.events.dice import REFEREE, DiceRolled, Visibility
from hexlog.events.session import ClientSeedSet, SessionAbandoned, SessionClosed, SessionOpened

#: the scheme whose rolls, secret or not, share one run of nonces
V1 = "hexlog-dice-v1"

if TYPE_CHECKING:
    from collections.abc import Iterable

    from hexlog.events.base import Event


class Status(enum.StrEnum):
    """Where a session stands."""

    OPEN = "open"
    CLOSED = "closed"
    ABANDONED = "abandoned"


@attrs.frozen(kw_only=True)
class Session:
    """One session: its commitment, the players' seed, how far it has rolled and how it ended."""

    id: str
    commitment: str
    scheme: str
    client_seed: str = ""
    #: the nonce its next roll takes (hexlog-dice-v2: its next public roll)
    next_nonce: int = 0
    #: hexlog-dice-v2: the nonce its next secret roll takes (v1 has one lane for both)
    next_referee_nonce: int = 0
    status: Status = Status.OPEN
    #: the revealed secret in hex, once closed
    secret: str = ""
    #: the secret was given to hexlog, not drawn by it: its rolls do not protect the players
    supplied: bool = False
    #: the release of hexlog that opened it (``session.opened`` version 3; 0: opened before sessions named it)
    release: int = 0

    @property
    def lanes(self) -> bool:
        """Whether secret rolls draw from a lane of their own (hexlog-dice-v2)."""
        return self.scheme != V1

    def nonce_for(self, visibility: str) -> int:
        """The nonce the next roll of this visibility takes."""
        return self.next_referee_nonce if self.lanes and visibility == Visibility.REFEREE else self.next_nonce

    @property
    def rolls(self) -> int:
        """How many rolls the session has made."""
        return self.next_nonce + (self.next_referee_nonce if self.lanes else 0)

    @property
    def open(self) -> bool:
        """Whether it has neither closed nor been abandoned."""
        return self.status is Status.OPEN

    @property
    def abandoned(self) -> bool:
        """Whether it ended without revealing its secret."""
        return self.status is Status.ABANDONED

    @property
    def ended(self) -> bool:
        """Whether it closed or was abandoned (its secret rolls may then be shown)."""
        return self.status is not Status.OPEN


@attrs.frozen(kw_only=True)
class SessionLog:
    """The latest session and how many sessions there were.

    It holds nothing that grows with the sessions: the commitment of every session so far (a secret
    is never used twice) is one row each in the roll ledger, looked up by key.
    """

    current: Session | None = None
    count: int = 0


def session_id(number: int) -> str:
    """The id hexlog gives the ``number``-th session of a campaign (counted from 1)."""
    return f"s{number}"


#: the events the lifecycle reads (a subclass of one too): it is left as it is at any other
READS = (SessionOpened, ClientSeedSet, SessionClosed, SessionAbandoned, DiceRolled)


def evolve(log: SessionLog, event: Event) -> SessionLog:
    """The lifecycle after one event; events about another session than the latest leave it as it is."""
    if isinstance(event, SessionOpened):
        return SessionLog(current=_opened(event), count=log.count + 1)
    current = log.current
    changed = latest(current, event)
    if changed is current:
        return log
    return SessionLog(current=changed, count=log.count)


def fold(log: SessionLog, events: Iterable[Event]) -> SessionLog:
    """The lifecycle after ``events`` in order: what ``evolve`` gives event by event, with a run of the
    latest session's rolls (the commonest events of all) folded into one new session, not one per roll."""
    current = log.current
    public_next = referee_next = 0
    rolled = False
    session, lanes = (current.id, current.lanes) if current is not None else ("", False)
    for event in events:
        if event.__class__ is DiceRolled and current is not None:  # a subclass of it goes to ``evolve`` below
            if event.session == session:  # a roll of another session changes nothing
                if not rolled:
                    public_next, referee_next, rolled = current.next_nonce, current.next_referee_nonce, True
                nonce = event.nonce
                if lanes and event.visibility == REFEREE:
                    if nonce >= referee_next:
                        referee_next = nonce + 1
                elif nonce >= public_next:
                    public_next = nonce + 1
            continue
        if rolled and current is not None:
            log, rolled = SessionLog(current=_moved(current, public_next, referee_next), count=log.count), False
        log = evolve(log, event)
        current = log.current
        session, lanes = (current.id, current.lanes) if current is not None else ("", False)
    if rolled and current is not None:
        log = SessionLog(current=_moved(current, public_next, referee_next), count=log.count)
    return log


def latest_of(current: Session | None, events: Iterable[Event]) -> Session | None:
    """The latest session after ``events`` in order (``latest`` event by event, a run of rolls folded at once)."""
    return fold(SessionLog(current=current), events).current


def latest(current: Session | None, event: Event) -> Session | None:
    """The latest session after one event (a session opened replaces it; the same object when the event
    leaves it as it is): the lifecycle without the count of sessions, which the roll ledger folds."""
    if isinstance(event, SessionOpened):
        return _opened(event)
    if current is None or getattr(event, "session", None) != current.id:
        return current
    if isinstance(event, DiceRolled):  # the commonest event of all
        return _rolled(current, event)
    match event:
        case ClientSeedSet():
            changed = attrs.evolve(current, client_seed=event.client_seed)
        case SessionClosed():
            changed = attrs.evolve(current, status=Status.CLOSED, secret=event.secret)
        case SessionAbandoned():
            changed = attrs.evolve(current, status=Status.ABANDONED)
        case _:
            changed = current
    return changed


def _rolled(current: Session, event: DiceRolled) -> Session:
    """The session after one of its rolls: the next nonce of the roll's lane moves past it."""
    public_next, referee_next = current.next_nonce, current.next_referee_nonce
    if current.scheme != V1 and event.visibility == Visibility.REFEREE:
        referee_next = max(referee_next, event.nonce + 1)
    else:
        public_next = max(public_next, event.nonce + 1)
    return _moved(current, public_next, referee_next)


def _moved(current: Session, public_next: int, referee_next: int) -> Session:
    """The session with the next nonces of its lanes moved, built directly (``attrs.evolve`` costs more, and
    it is built at every roll)."""
    return Session(
        id=current.id,
        commitment=current.commitment,
        scheme=current.scheme,
        client_seed=current.client_seed,
        next_nonce=public_next,
        next_referee_nonce=referee_next,
        status=current.status,
        secret=current.secret,
        supplied=current.supplied,
        release=current.release,
    )


def _opened(event: SessionOpened) -> Session:
    """The session an opening begins."""
    return Session(
        id=event.session,
        commitment=event.commitment,
        scheme=event.scheme,
        supplied=event.supplied,
        release=event.release,
    )
