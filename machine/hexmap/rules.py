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

    def difficulty(self, terrain: str) -> Difficulty:
        """A terrain's difficulty; a terrain the Dolmenwood list lacks (river, settlement, an OD&D row) is light."""
        return (self.terrain_difficulty or {}).get(terrain, Difficulty.LIGHT)

    def odd_row(self, terrain: str) -> str:
        """A terrain's OD&D row (an OD&D row is its own)."""
        mapped = (self.terrain_odd_row or {}).get(terrain)
        return mapped.value if mapped is not None else terrain
