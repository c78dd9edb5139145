"""The words procedures share: sides, settings and units. They are written in logs as their values.

Most fields of a word's type hold one of its values. An *open* field (typed ``Word | str``) holds one of
them too when hexlog writes it today, but a released hexlog could write other strings there: 0.1.0
copied a unit or a reaction band from the ruleset, and house rules could name any (``m`` for a unit,
``wary`` for a reaction). The codec decodes a known value of an open field to the word itself and keeps
any other string exactly as written, so such a log still decodes, and re-exports the same bytes.
"""

from __future__ import annotations

import enum
from typing import TypeVar

W = TypeVar("W", bound=enum.StrEnum)


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
    """Where an encounter happens (OSE and explore name three places; the AD&D text two)."""

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


def open_word(kind: type[W], value: str) -> W | str:
    """``value`` as a word of ``kind`` when it is one, else the string as written (an open field's value)."""
    try:
        return kind(value)
    except ValueError:
        return value
