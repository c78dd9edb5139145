"""What a player may see: a secret roll stays hidden, with every decision that used it, until its
session ends (closes with the reveal, or is abandoned). The command line and the service both ask this.

An event class may also declare itself the referee's (``referee_only = "session"``): it is hidden like a
secret roll, until the session it happened in ends. (A hidden feature of the map is not such an event:
the log holds only a commitment to it, see ``hexlog.events.hexmap``.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.session import SessionAbandoned, SessionClosed
from hexlog.projections import sessions
from hexlog.projections.ledger import roll_key

PUBLIC, REFEREE = Visibility.PUBLIC.value, Visibility.REFEREE.value
#: how long an event class marked ``referee_only`` stays the referee's
SESSION = "session"

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from hexlog.events.base import Event


def ended_sessions(events: Iterable[Event]) -> frozenset[str]:
    """The sessions that closed or were abandoned among ``events``."""
    return frozenset(e.session for e in events if isinstance(e, SessionClosed | SessionAbandoned))


class PlayerView:
    """Walks a stream in order and says which events a player may not see yet.

    ``ended`` names the sessions that have ended as of the moment the view is for: their secret
    rolls are shown, every other secret roll is hidden, and so is every event that names one (in
    ``rolls``, or under hexlog-dice-v2 in ``referee_rolls``).
    """

    def __init__(self, ended: Iterable[str]) -> None:
        self.ended = frozenset(ended)
        self.lifecycle = sessions.SessionLog()
        self.hidden: set[tuple[str, str, int]] = set()

    @property
    def current(self) -> str:
        """The latest session so far (the one a decision's rolls belong to), or ""."""
        current = self.lifecycle.current
        return current.id if current is not None else ""

    def hides(self, event: Event) -> bool:
        """Whether a player may not see this event (call it for each event, in stream order)."""
        self.lifecycle = sessions.evolve(self.lifecycle, event)
        if referee_only(event) == SESSION:
            return self.current not in self.ended
        current = self.lifecycle.current
        lanes = current is not None and current.lanes
        if isinstance(event, DiceRolled):
            secret = event.visibility is Visibility.REFEREE and event.session not in self.ended
            if secret:
                self.hidden.add((event.session, REFEREE if lanes else "", event.nonce))
            return secret
        if not self.hidden:
            return False
        named = [(PUBLIC if lanes else "", n) for n in _names(event, "rolls")]
        named += [(REFEREE if lanes else "", n) for n in _names(event, "referee_rolls")]
        return any((self.current, lane, n) in self.hidden for lane, n in named)

    def copy(self) -> PlayerView:
        """A view that walks on from where this one is, on its own (its lifecycle is immutable, its sets copied)."""
        other = PlayerView(self.ended)
        other.lifecycle = self.lifecycle
        other.hidden = set(self.hidden)
        return other

    def hidden_rolls(self) -> set[tuple[str, str, int]]:
        """(session, lane, nonce) of every secret roll hidden so far (the lane is "" in a v1 session)."""
        return set(self.hidden)


def resumed(lifecycle: sessions.SessionLog, ledger_row: Callable[[str], Any]) -> PlayerView:
    """The view a walk from the stream's start has reached where ``lifecycle`` is the session lifecycle, judged as of
    the moment its latest session is as ``lifecycle`` holds it (ended or not, rolled how far): what a player's view
    begun past the start takes up. ``ledger_row(key)`` gives the data of a row of the roll ledger (None without one).

    An event only names the rolls of the latest session, which ends before the next opens: only its secret rolls can
    hide an event after this point, and only while it has not ended. A hexlog-dice-v2 session's secret rolls are its
    own lane, every nonce below the next; a hexlog-dice-v1 session's are those of its rolls the ledger says are the
    referee's. (Rolls the session makes after this point are hidden too: an event names only rolls made before it.)
    """
    current = lifecycle.current
    view = PlayerView(() if current is None or current.open else (current.id,))
    view.lifecycle = lifecycle
    if current is None or not current.open:
        return view
    if current.lanes:
        view.hidden = {(current.id, REFEREE, nonce) for nonce in range(current.next_referee_nonce)}
        return view
    for nonce in range(current.next_nonce):
        row = ledger_row(roll_key(current.id, nonce))
        if isinstance(row, dict) and row.get("visibility") == REFEREE:
            view.hidden.add((current.id, "", nonce))
    return view


def _names(event: Event, field: str) -> tuple[int, ...]:
    found = getattr(event, field, ())
    return found if isinstance(found, tuple) else ()


def hidden_rolls(events: Iterable[Event], ended: Iterable[str] | None = None) -> set[tuple[str, str, int]]:
    """(session, lane, nonce) of every secret roll a player may not see; ``ended`` defaults to the events' own."""
    listed = list(events)
    view = PlayerView(ended_sessions(listed) if ended is None else ended)
    for event in listed:
        view.hides(event)
    return view.hidden_rolls()


def withheld_sessions(events: Iterable[Event]) -> set[str]:
    """The sessions of every event a player may not see yet: a secret roll, a decision naming one, or an
    event only the referee may know (the true hex of a lost party, a find it made)."""
    listed = list(events)
    view = PlayerView(ended_sessions(listed))
    return {view.current for event in listed if view.hides(event)}


def referee_only(event: Event) -> str:
    """How long an event is the referee's alone: ``session``, or "" (an event like any other)."""
    return str(getattr(type(event), "referee_only", ""))
