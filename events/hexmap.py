"""Hex map events: the map the referee draws, and what a search finds on it.

A hex is named ``"col,row"`` (flat-topped hexes, odd columns half a hex lower). Hidden features are
the referee's: ``HiddenFeaturePlaced`` is ``referee_only`` (no player's view shows it), and a feature
becomes known to the players only through ``FeatureFound``.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from hexlog.events.base import Event


@attrs.frozen(kw_only=True)
class MapLoaded(Event):
    """The referee loaded a map file; one ``HexSet`` per hex follows."""

    type_name: ClassVar[str] = "map.loaded"
    #: the file's name, as the referee gave it
    source: str
    hexes: int


@attrs.frozen(kw_only=True)
class HexSet(Event):
    """One hex's public facts: its terrain, road or track, and landmarks (replacing what it had)."""

    type_name: ClassVar[str] = "map.hex_set"
    #: ``col,row``
    hex: str
    #: a Dolmenwood terrain or an OD&D p.18 row of the rules in force
    terrain: str
    road: bool = False
    track: bool = False
    landmarks: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class HiddenFeaturePlaced(Event):
    """A feature only a search can find (a lair, a ruin): the referee's secret until it is found."""

    type_name: ClassVar[str] = "map.hidden_placed"
    #: no player's view shows it, ever; ``FeatureFound`` reveals it
    referee_only: ClassVar[str] = "found"
    hex: str
    feature: str
    #: a lair (the dvdm search table finds lairs on their own faces)
    lair: bool = False

    def revealed_by(self, event: Event) -> bool:
        """Whether ``event`` makes this feature known to the players."""
        return isinstance(event, FeatureFound) and (event.hex, event.feature) == (self.hex, self.feature)


@attrs.frozen(kw_only=True)
class FeatureFound(Event):
    """A search found a hidden feature: from now on the players know it."""

    type_name: ClassVar[str] = "map.feature_found"
    hex: str
    feature: str


for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, Event) and _cls.__module__ == __name__:
        attrs.resolve_types(_cls)  # field types as classes, not strings, for every reader
del _cls
