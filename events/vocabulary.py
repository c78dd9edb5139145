"""The words procedures share: sides, settings and units. They are written in logs as their values."""

from __future__ import annotations

import enum


class Side(enum.StrEnum):
    """Who acts: one of the two sides of an encounter (or both at once)."""

    PARTY = "party"
    MONSTERS = "monsters"
    BOTH = "both"

    @property
    def other(self) -> Side:
        """The opposing side (both stays both)."""
        return {Side.PARTY: Side.MONSTERS, Side.MONSTERS: Side.PARTY}.get(self, self)


#: the two sides, party first
SIDES = (Side.PARTY, Side.MONSTERS)


class Setting(enum.StrEnum):
    """Where an encounter happens (OSE and seed 004 name three places; the AD&D text two)."""

    DUNGEON = "dungeon"
    WILDERNESS = "wilderness"
    WATERBORNE = "waterborne"
    INDOORS = "indoors"
    OUTDOORS = "outdoors"

    @property
    def underground(self) -> bool:
        """Indoors or underground, where distances are in feet."""
        return self in {Setting.DUNGEON, Setting.INDOORS}


class Unit(enum.StrEnum):
    """A unit of distance."""

    FT = "ft"
    YD = "yd"


FEET_PER_YARD = 3
