"""The dice event: every die hexlog rolls is one of these."""

from __future__ import annotations

import enum
from typing import Any, ClassVar

import attrs

from hexlog.events.base import Event


class Visibility(enum.StrEnum):
    """Who sees a roll before its session ends: everyone, or only the referee (a secret roll)."""

    PUBLIC = "public"
    REFEREE = "referee"


PUBLIC = Visibility.PUBLIC
REFEREE = Visibility.REFEREE


@attrs.frozen(kw_only=True)
class RollModifier:
    """A modifier the state imposed on a roll (exhaustion, say), and where it came from."""

    #: what imposed it, in words a referee reads (``exhaustion (2 days without rest)``)
    source: str
    value: int


@attrs.frozen(kw_only=True)
class DiceRolled(Event):
    """One roll of one or more dice, derived from the session's committed seed.

    ``modifier`` is everything added to the faces: the expression's own constant and every entry of
    ``modifiers``, so ``total == sum(faces) + modifier`` always holds, save for the faces of ``dropped``
    dice, which a keep or drop (``4d6kh3``, written in ``notation``) leaves out of the total.

    On a roll where a low total is good (``low_is_good``, since version 4) the state's modifiers count the
    other way, so that a penalty still counts against the one the roll is made for: exhaustion of 2 is
    ``-2`` on an attack roll and ``+2`` on a percentile evasion. Before version 4 every modifier was added
    as its source gave it, whichever way the roll was read.
    """

    type_name: ClassVar[str] = "dice.rolled"
    schema_version: ClassVar[int] = 4
    session: str
    nonce: int
    #: what the rules rolled it for, such as ``encounter.surprise.party``
    purpose: str
    #: one entry per die
    sides: tuple[int, ...]
    faces: tuple[int, ...]
    modifier: int
    total: int
    #: ``public``, or ``referee`` for a secret roll
    visibility: Visibility = Visibility.PUBLIC
    #: the character or side the roll is made for ("" when it is made for nobody in particular)
    made_for: str = ""
    #: the modifiers the state imposed on this roll, each with its source (included in ``modifier``)
    modifiers: tuple[RollModifier, ...] = ()
    #: the expression as hexlog read it when it keeps or drops dice (``4d6kh3``, ``2d20kl1``), "" otherwise
    notation: str = ""
    #: the indices of the dice whose faces do not count (ascending; ties keep the earlier die)
    dropped: tuple[int, ...] = ()
    #: a low total is the good one (an N-in-6, a percentage at most a chance): the state's modifiers were counted
    #: against it, a penalty raising the total (false before version 4, which added them as given on every roll)
    low_is_good: bool = False

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 had no ``made_for`` and no ``modifiers``: it was made for nobody, unmodified."""
        return {**data, "made_for": "", "modifiers": []}

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 kept every die: no notation of a keep or drop, nothing dropped."""
        return {**data, "notation": "", "dropped": []}

    @staticmethod
    def upcast_v3_v4(data: dict[str, Any]) -> dict[str, Any]:
        """Version 3 added every modifier as its source gave it, whichever way the roll was read: none was counted
        against a low total."""
        return {**data, "low_is_good": False}

    @property
    def counted(self) -> int:
        """The sum of the faces that count (every face but the dropped ones)."""
        return sum(f for k, f in enumerate(self.faces) if k not in self.dropped)

    @property
    def expression(self) -> str:
        """The roll written as dice notation, e.g. ``2d6+1`` (``4d6kh3`` as written, with the state's modifiers)."""
        if self.notation:
            extra = sum(m.value for m in self.modifiers)
            return self.notation + (f" {extra:+d}" if extra else "")
        groups: list[str] = []
        i = 0
        while i < len(self.sides):
            j = i
            while j < len(self.sides) and self.sides[j] == self.sides[i]:
                j += 1
            groups.append(f"{j - i}d{self.sides[i]}")
            i = j
        text = "+".join(groups)
        if self.modifier:
            text += f"{self.modifier:+d}"
        return text
