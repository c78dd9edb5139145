"""The dice event: every die hexlog rolls is one of these."""

from __future__ import annotations

from typing import ClassVar

import attrs

from hexlog.events.base import Event

PUBLIC = "public"
REFEREE = "referee"


@attrs.frozen(kw_only=True)
class DiceRolled(Event):
    """One roll of one or more dice, derived by hexlog-dice-v1 from the session's seed."""

    type_name: ClassVar[str] = "dice.rolled"
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
    visibility: str = PUBLIC

    @property
    def expression(self) -> str:
        """The roll written as dice notation, e.g. ``2d6+1``."""
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
