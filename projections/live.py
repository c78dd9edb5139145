"""The live projections: rebuilt by pure folds, or kept in the store per stream and caught up.

Each live projection is saved under ``f"{stream_id}/{name}"`` with the *stream version* it has
folded to (the ``position`` of ``save_projection``) and its state as canonical JSON; ``refresh``
folds only the stream's events after that version.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol

import cattrs

from hexlog.events.chain import canonical_json
from hexlog.events.codec import converter, decode
from hexlog.events.errors import CorruptLogError, HexlogError
from hexlog.events.store import EventStore, ProjectionStore
from hexlog.projections import clock, ledger, party
from hexlog.projections.base import fold

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from hexlog.events.base import Event
    from hexlog.events.store import Recorded

#: projection name -> (initial state, evolve); every state is an attrs class cattrs can round-trip
PROJECTIONS: dict[str, tuple[Any, Callable[[Any, Event], Any]]] = {
    "party": (party.Party(), party.evolve),
    "clock": (clock.Clock(), clock.evolve),
    "ledger": (ledger.Ledger(), ledger.evolve),
}


class LiveStore(EventStore, ProjectionStore, Protocol):
    """A store that keeps both the log and the projections' saved states."""


def projection_key(stream_id: str, name: str) -> str:
    """The name a stream's projection is saved under."""
    return f"{stream_id}/{name}"


def rebuild(events: Iterable[Event]) -> dict[str, Any]:
    """Every projection folded from ``events`` (a pure fold, nothing is read or saved)."""
    listed = list(events)
    return {name: fold(evolve, listed, initial) for name, (initial, evolve) in PROJECTIONS.items()}


def to_json(state: Any) -> str:
    """A projection state as canonical JSON."""
    return canonical_json(converter.unstructure(state))


def from_json(name: str, text: str) -> Any:
    """A projection state read back from its JSON; ``CorruptLogError`` if it does not decode."""
    initial, _ = PROJECTIONS[name]
    try:
        return converter.structure(json.loads(text), type(initial))
    except (ValueError, cattrs.BaseValidationError) as err:
        msg = f"the saved state of projection {name} does not decode: {err}"
        raise CorruptLogError(msg) from err


def decode_recorded(recorded: Recorded) -> Event:
    """The event of a stored record; ``CorruptLogError`` naming the event if it does not decode."""
    try:
        return decode(recorded.envelope)
    except HexlogError as err:
        env = recorded.envelope
        msg = f"{env.subject} version {env.streamversion} (event {env.id}) does not decode: {err}"
        raise CorruptLogError(msg) from err


def _saved(store: LiveStore, stream_id: str, name: str, current: int) -> tuple[Any, int, bool]:
    """A projection's saved state and version, or the initial state when the save is unusable."""
    initial = PROJECTIONS[name][0]
    saved = store.load_projection(projection_key(stream_id, name))
    if saved is None or saved[0] > current:  # missing, or a cache ahead of the log
        return initial, 0, False
    try:
        return from_json(name, saved[1]), saved[0], True
    except CorruptLogError:
        return initial, 0, False  # a saved state is only a cache: rebuild it from the log


def refresh(store: LiveStore, stream_id: str, cache: dict[str, tuple[Any, int]] | None = None) -> dict[str, Any]:
    """Catch every live projection of a stream up with the log, save it, and return the states.

    ``cache`` (projection name -> (state, version)), when given, stands in for the saved states it
    holds and is updated in place: a long-lived caller then never re-reads a large saved state. The
    states are pure folds of the log, so a cached state is as good as the saved one of its version.
    """
    current = store.stream_version(stream_id)
    loaded = {
        name: (*cache[name], True) if cache is not None and name in cache and cache[name][1] <= current
        else _saved(store, stream_id, name, current)
        for name in PROJECTIONS
    }
    start = min(version for _, version, _ in loaded.values())
    tail = [(r.version, decode_recorded(r)) for r in store.read_stream(stream_id, start + 1)]
    states: dict[str, Any] = {}
    for name, (saved_state, version, usable) in loaded.items():
        evolve, state = PROJECTIONS[name][1], saved_state
        for event_version, event in tail:
            if event_version > version:
                state = evolve(state, event)
        states[name] = state
        reached = max(version, tail[-1][0]) if tail else version
        if not usable or reached != version:
            store.save_projection(projection_key(stream_id, name), reached, to_json(state))
        if cache is not None:
            cache[name] = (state, reached)
    return states
