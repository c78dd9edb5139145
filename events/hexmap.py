"""Hex map events: the map the referee draws, and what a search finds on it.

A hex is named ``"col,row"`` (flat-topped hexes, odd columns half a hex lower). Hidden features are
the referee's: the log holds only a commitment to each (``HiddenFeaturePlaced``), its text and hex stay
in the referee's key keeper, and a feature becomes known only when ``FeatureFound`` (a search),
``FeatureFoundLost`` (a search by a party that is lost, the referee's for its session), before
``travel.search_rolled`` version 3, ``FeatureLocated`` (any search since, the referee's for its session, told to
the players by ``FeatureTold`` without its hex) or ``FeatureRevealed`` (``hexlog map reveal``) opens its commitment.
"""

from __future__ import annotations

import hashlib
import json
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


def commitment(hex_name: str, feature: str, *, lair: bool, salt: str) -> str:
    """The commitment to a hidden feature: sha256 (hex) of its salt's bytes, then the canonical JSON of
    ``{"feature", "hex", "lair"}`` (keys sorted, no spaces, UTF-8); "" when the salt is not hex (it opens nothing)."""
    try:
        salted = bytes.fromhex(salt)
    except ValueError:
        return ""
    body = json.dumps({"feature": feature, "hex": hex_name, "lair": lair}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(salted + body.encode("utf-8")).hexdigest()


@attrs.frozen(kw_only=True)
class HiddenFeaturePlaced(Event):
    """A feature only a search can find (a lair, a ruin), committed to: the log holds neither its hex nor its text.

    ``commitment`` is sha256 (hex) of a random 32-byte salt followed by the canonical JSON of
    ``{"feature", "hex", "lair"}`` (see ``commitment``). The feature and its salt stay with the
    referee's key keeper; ``FeatureFound`` or ``FeatureRevealed`` open the commitment later, and anyone
    can check the opening against it.
    """

    type_name: ClassVar[str] = "map.hidden_placed"
    commitment: str


@attrs.frozen(kw_only=True)
class FeatureFound(Event):
    """A search found a hidden feature: it opens the feature's commitment (hex, feature, lair, salt)."""

    type_name: ClassVar[str] = "map.feature_found"
    hex: str
    feature: str
    lair: bool = False
    #: the salt of the commitment (64 hex digits)
    salt: str

    @property
    def commitment(self) -> str:
        """The commitment this opening matches."""
        return commitment(self.hex, self.feature, lair=self.lair, salt=self.salt)


@attrs.frozen(kw_only=True)
class FeatureFoundLost(Event):
    """A search by a party that is lost (and does not know it) found a hidden feature: it opens the feature's
    commitment like ``FeatureFound``, but its hex is the party's true one, which the players do not know.
    So it is the referee's until its session ends; until then (or until the party learns it is lost) a
    player's views show the feature found, not where."""

    type_name: ClassVar[str] = "map.feature_found_lost"
    referee_only: ClassVar[str] = "session"
    hex: str
    feature: str
    lair: bool = False
    #: the salt of the commitment (64 hex digits)
    salt: str

    @property
    def commitment(self) -> str:
        """The commitment this opening matches."""
        return commitment(self.hex, self.feature, lair=self.lair, salt=self.salt)


@attrs.frozen(kw_only=True)
class FeatureRevealed(Event):
    """The referee revealed a hidden feature no search found (``hexlog map reveal``, at a campaign's end):
    it opens the feature's commitment like ``FeatureFound``, but the party has not found it."""

    type_name: ClassVar[str] = "map.feature_revealed"
    hex: str
    feature: str
    lair: bool = False
    #: the salt of the commitment (64 hex digits)
    salt: str

    @property
    def commitment(self) -> str:
        """The commitment this opening matches."""
        return commitment(self.hex, self.feature, lair=self.lair, salt=self.salt)


@attrs.frozen(kw_only=True)
class FeatureTold(Event):
    """What a search found, as the players are told it: the feature, never where (a search recorded since
    ``travel.search_rolled`` version 3). ``FeatureLocated`` follows it with the opening, the referee's."""

    type_name: ClassVar[str] = "map.feature_told"
    feature: str
    lair: bool = False


@attrs.frozen(kw_only=True)
class FeatureLocated(Event):
    """Where a search found a hidden feature: it opens the feature's commitment like ``FeatureFound``. It is the
    referee's until its session ends whether or not the party was lost (``lost``), so that the players' view of a
    find is the same wherever the party truly stands (since ``travel.search_rolled`` version 3; before, a find
    was ``FeatureFound`` in public, or ``FeatureFoundLost`` held back, and the kind told a party it was lost)."""

    type_name: ClassVar[str] = "map.feature_located"
    referee_only: ClassVar[str] = "session"
    hex: str
    feature: str
    lair: bool = False
    #: the salt of the commitment (64 hex digits)
    salt: str
    #: the party was lost, and did not know it: the hex is not the one it believed it searched
    lost: bool = False

    @property
    def commitment(self) -> str:
        """The commitment this opening matches."""
        return commitment(self.hex, self.feature, lair=self.lair, salt=self.salt)


#: the events that record a find (each opens its feature's commitment)
FINDS = (FeatureFound, FeatureFoundLost, FeatureLocated)
#: the events that open a feature's commitment, found or revealed
OPENINGS = (*FINDS, FeatureRevealed)


for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, Event) and _cls.__module__ == __name__:
        attrs.resolve_types(_cls)  # field types as classes, not strings, for every reader
del _cls
