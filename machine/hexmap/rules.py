"""The tables the hex map reads (REFERENCE §4.8-4.9): which terrains exist and how hard each is."""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs

from hexlog.machine.kit.rules import rule


class Difficulty(enum.StrEnum):
    """How hard a hex is to cross and to search (Dolmenwood, §4.8)."""

    LIGHT = "light"
    MODERATE = "moderate"
    DIFFICULT = "difficult"


class OddRow(enum.StrEnum):
    """A row of the OD&D p.18 lost and encounter table (§4.7)."""

    CLEAR = "clear"
    WOODS = "woods"
    RIVER = "river"
    SWAMP = "swamp"
    MOUNTAINS = "mountains"
    DESERT = "desert"
    CITY = "city"


@attrs.frozen(kw_only=True)
class TerrainOptions:
    """How the rules read a terrain the Dolmenwood difficulty table does not rate (§4.8, A21)."""

    section: ClassVar[str] = "options"

    unrated_terrain_difficulty: Difficulty = rule(
        Difficulty.LIGHT,
        help=(
            "§4.8 / A21 DEFAULT: the difficulty of a terrain tables.terrain_difficulty does not rate (REFERENCE gives "
            "the OD&D rows clear, woods, river, mountains, desert and city, and settlement, no travel-point cost): "
            "what entering and searching one costs (tables.terrain_cost), whether mounts and vehicles may enter "
            "(tables.terrain_access), its search range and its Dolmenwood lost and encounter row. light (2 TP, as "
            "rules recorded before it was read), moderate or difficult; tables.terrain_difficulty.<terrain> rates one "
            "terrain alone. A move or search in such a hex names the reading."
        ),
    )


@attrs.frozen(kw_only=True)
class MapTables:
    """The terrains a map may use, and their difficulty and OD&D row."""

    section: ClassVar[str] = "tables"

    terrain_difficulty: dict[str, Difficulty] | None = rule(
        None, help="§4.8 each Dolmenwood terrain's difficulty: light, moderate or difficult (C1 [DVDM])."
    )
    terrain_odd_row: dict[str, OddRow] | None = rule(
        None, help="§4.8 DEFAULT (A21): each terrain's row of the OD&D p.18 lost and encounter table."
    )

    def terrains(self) -> list[str]:
        """Every terrain a hex may have: a Dolmenwood terrain, a mapped one, or an OD&D row itself."""
        found = list(self.terrain_difficulty or {})
        found += [t for t in self.terrain_odd_row or {} if t not in found]
        found += [r.value for r in OddRow if r.value not in found]
        return found

    def difficulty(self, terrain: str, unrated: Difficulty = Difficulty.LIGHT) -> Difficulty:
        """A terrain's difficulty; a terrain the Dolmenwood list lacks (river, settlement, an OD&D row) is ``unrated``
        (option ``unrated_terrain_difficulty``)."""
        return (self.terrain_difficulty or {}).get(terrain, unrated)

    def rated(self, terrain: str) -> bool:
        """Whether the Dolmenwood difficulty table rates a terrain."""
        return terrain in (self.terrain_difficulty or {})

    def unrated(self) -> list[str]:
        """The terrains a map may use that the Dolmenwood difficulty table does not rate."""
        return [t for t in self.terrains() if not self.rated(t)]

    def odd_row(self, terrain: str) -> str:
        """A terrain's OD&D row (an OD&D row is its own)."""
        mapped = (self.terrain_odd_row or {}).get(terrain)
        return mapped.value if mapped is not None else terrain
