"""The hex map's folded state: each hex's public facts, the commitments to hidden features, those opened.

The state holds no hidden feature's text or hex: only its commitment (``placed``) until a search finds
it or the referee reveals it (``opened``); the text and hex of the others are in the referee's keeper
(``hidden``).
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import hexmap as ev
from hexlog.events.codec import converter
from hexlog.events.procedure import PhaseChanged
from hexlog.events.session import SessionAbandoned, SessionClosed
from hexlog.events.travel import LostRevealed
from hexlog.machine.kit.changed import changed

if TYPE_CHECKING:
    from hexlog.events.base import Event

PROCEDURE = "map"


class Phase(enum.Enum):
    """Whether a map has been drawn (a drawn map is never 'under way': it blocks nothing)."""

    EMPTY = "empty"
    DRAWN = "drawn"


@attrs.frozen(kw_only=True)
class Feature:
    """A hidden feature of a hex whose commitment was opened, and whether a search found it (or the referee
    revealed it)."""

    text: str
    lair: bool = False
    found: bool = False
    #: found in secret (by any search since ``travel.search_rolled`` version 3, by a lost party before): the
    #: players do not know its hex until the party learns it is lost or the session ends
    astray: bool = False


@attrs.frozen(kw_only=True)
class Hex:
    """One hex of the map."""

    terrain: str
    road: bool = False
    track: bool = False
    landmarks: tuple[str, ...] = ()
    #: the hidden features whose commitment was opened (a hex's others are known only to the keeper)
    features: tuple[Feature, ...] = ()

    @property
    def found(self) -> tuple[str, ...]:
        """The features found so far."""
        return tuple(f.text for f in self.features if f.found)

    @property
    def known_found(self) -> tuple[str, ...]:
        """The features found here that the players know are here (not those found while lost, yet)."""
        return tuple(f.text for f in self.features if f.found and not f.astray)


_HEX_KEYS = frozenset(field.name for field in attrs.fields(Hex))
_FEATURE_KEYS = frozenset(field.name for field in attrs.fields(Feature))


def _feature(data: dict[str, Any]) -> Feature:
    if not data.keys() <= _FEATURE_KEYS:
        msg = f"a feature has unknown keys {sorted(data.keys() - _FEATURE_KEYS)}"
        raise ValueError(msg)
    return Feature(
        text=str(data["text"]),
        lair=bool(data.get("lair", False)),
        found=bool(data.get("found", False)),
        astray=bool(data.get("astray", False)),
    )


def _structure_hex(data: dict[str, Any], _: type) -> Hex:
    """A hex from its saved data, written out: a map holds thousands, and a new handler reads them all
    (the generic hook structures each tuple item by item, four times slower)."""
    if not data.keys() <= _HEX_KEYS:
        msg = f"a hex has unknown keys {sorted(data.keys() - _HEX_KEYS)}"
        raise ValueError(msg)
    return Hex(
        terrain=str(data["terrain"]),
        road=bool(data.get("road", False)),
        track=bool(data.get("track", False)),
        landmarks=tuple(str(mark) for mark in data.get("landmarks", ())),
        features=tuple(_feature(one) for one in data.get("features", ())),
    )


converter.register_structure_hook(Hex, _structure_hex)


@attrs.frozen(kw_only=True)
class MapState:
    """The map: hexes by name (``col,row``)."""

    phase: Phase = Phase.EMPTY
    hexes: dict[str, Hex] = attrs.field(factory=dict)
    #: the commitment of every hidden feature placed, in order
    placed: tuple[str, ...] = ()
    #: the commitments opened so far (found by a search, or revealed)
    opened: tuple[str, ...] = ()

    @property
    def unopened(self) -> tuple[str, ...]:
        """The commitments of the hidden features still hidden, in order."""
        done = set(self.opened)
        return tuple(c for c in self.placed if c not in done)

    def hex(self, name: str) -> Hex | None:
        """A hex of the map, or None."""
        return self.hexes.get(name)


#: the events ``evolve`` reads: it leaves the state as it is at any other
READS: tuple[type[Event], ...] = (
    PhaseChanged,
    ev.HexSet,
    ev.HiddenFeaturePlaced,
    *ev.OPENINGS,
    LostRevealed,
    SessionClosed,
    SessionAbandoned,
)


def evolve(state: MapState | None, event: Event) -> MapState | None:
    """The map after one event."""
    match event:
        case PhaseChanged(procedure="map", dest=dest):
            return changed(state or MapState(), phase=Phase[dest])
        case ev.HexSet():
            before = state or MapState()
            old = before.hexes.get(event.hex)
            new = Hex(
                terrain=event.terrain,
                road=event.road,
                track=event.track,
                landmarks=event.landmarks,
                features=old.features if old is not None else (),
            )
            return changed(before, hexes={**before.hexes, event.hex: new})
        case ev.HiddenFeaturePlaced():
            before = state or MapState()
            return changed(before, placed=(*before.placed, event.commitment))
        case ev.FeatureFound() | ev.FeatureFoundLost() | ev.FeatureLocated() | ev.FeatureRevealed() if (
            state is not None
        ):
            return _opened(state, event)
        case LostRevealed() | SessionClosed() | SessionAbandoned() if state is not None:
            return _located(state)
    return state


def _located(state: MapState) -> MapState:
    """The map once the players may know where every feature found while lost lies: the party learned it was
    lost, or the session ended."""
    astray = [name for name, place in state.hexes.items() if place.features and any(f.astray for f in place.features)]
    if not astray:
        return state
    hexes = dict(state.hexes)
    for name in astray:
        place = hexes[name]
        hexes[name] = changed(place, features=tuple(changed(f, astray=False) for f in place.features))
    return changed(state, hexes=hexes)


def _opened(
    state: MapState, event: ev.FeatureFound | ev.FeatureFoundLost | ev.FeatureLocated | ev.FeatureRevealed
) -> MapState:
    """The map once a hidden feature's commitment is opened (unchanged by an opening of no commitment still
    hidden: the audit names it)."""
    key = event.commitment
    if key not in state.unopened:
        return state
    state = changed(state, opened=(*state.opened, key))
    old = state.hexes.get(event.hex)
    if old is None:
        return state
    found = Feature(
        text=event.feature,
        lair=event.lair,
        found=isinstance(event, ev.FINDS),
        astray=isinstance(event, ev.FeatureFoundLost | ev.FeatureLocated),
    )
    return changed(state, hexes={**state.hexes, event.hex: changed(old, features=(*old.features, found))})
