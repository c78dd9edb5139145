"""The roll ledger: every session and every roll of a campaign, one row each.

The ledger never holds a growing document: its state is the latest session (the session lifecycle
fold), and each event writes the rows it changes: ``session/<id>`` when a session opens, takes a
seed, rolls or ends, ``commitment/<commitment>`` when a session opens (so that a command can ask
whether a secret was used before by reading one row), and ``roll/<id>/<nonce>`` for each roll
(``roll/<id>/referee/<nonce>`` for a secret roll of a hexlog-dice-v2 session, whose nonces count apart).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events.codec import converter, to_data
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.session import SessionOpened
from hexlog.projections import sessions

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from hexlog.events.base import Event

NAME = "ledger"


def session_key(session: str) -> str:
    """The ledger row of a session."""
    return f"session/{session}"


def commitment_key(commitment: str) -> str:
    """The ledger row that records that a session committed to ``commitment`` (and which)."""
    return f"commitment/{commitment}"


def roll_key(session: str, nonce: int, *, own_lane: bool = False) -> str:
    """The ledger row of a roll (nonces padded so that rows sort in roll order); ``own_lane`` for a secret
    roll of a hexlog-dice-v2 session, whose nonces count apart from the public ones."""
    if own_lane:
        return f"roll/{session}/{Visibility.REFEREE}/{nonce:09d}"
    return f"roll/{session}/{nonce:09d}"


class Ledger:
    """The live projection of the roll ledger; its state is the latest session, or None."""

    name = NAME
    #: 2: sessions count their secret rolls apart (hexlog-dice-v2) and say whether the secret was supplied;
    #: 3: a secret roll of a v2 session has a row of its own lane;
    #: 4: a row per commitment, so that a reused secret is refused without a row that grows;
    #: 5: a session names the release of hexlog that opened it
    revision = 5

    def initial(self) -> sessions.Session | None:
        """No session yet."""
        return None

    def evolve(self, state: sessions.Session | None, event: Event) -> sessions.Session | None:
        """The latest session after one event (the shared lifecycle fold)."""
        return sessions.latest(state, event)

    def evolve_all(self, state: sessions.Session | None, events: Sequence[Event]) -> sessions.Session | None:
        """The latest session after ``events`` in order, a run of its rolls folded at once."""
        return sessions.latest_of(state, events)

    def parts(self, state: sessions.Session | None) -> Mapping[str, Any]:
        """One part: the latest session."""
        return {"current": state}

    def encode(self, key: str, part: Any) -> Any:  # noqa: ARG002 - one part only
        """The session as JSON-ready data, wrapped so that no session yet is still a row."""
        return {"v": converter.unstructure(part)}

    def assemble(self, parts: Mapping[str, Any]) -> sessions.Session | None:
        """The latest session from its saved part (a missing part raises: the ledger is folded again)."""
        data = parts["current"]["v"]
        return None if data is None else converter.structure(data, sessions.Session)

    def event_rows(
        self, before: sessions.Session | None, after: sessions.Session | None, event: Event
    ) -> Mapping[str, Any]:
        """The session's row when it changed, a new commitment's row, and a roll's own row."""
        rows: dict[str, Any] = {}
        if after is not None and after is not before:
            rows[session_key(after.id)] = converter.unstructure(after)
        if isinstance(event, SessionOpened):
            rows[commitment_key(event.commitment)] = {"session": event.session}
        if isinstance(event, DiceRolled) and after is not None and event.session == after.id:
            own_lane = after.lanes and event.visibility == Visibility.REFEREE
            rows[roll_key(event.session, event.nonce, own_lane=own_lane)] = to_data(event)
        return rows


LEDGER = Ledger()
