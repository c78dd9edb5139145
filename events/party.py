"""Party events: who travels, and what modifiers they carry."""

from __future__ import annotations

from typing import ClassVar

import attrs

from hexlog.events.base import Event


@attrs.frozen(kw_only=True)
class MemberAdded(Event):
    """A character joined the party."""

    type_name: ClassVar[str] = "party.member_added"
    name: str
    cha: int = 10
    wis: int = 10
    dex: int = 10
    strength: int = 10
    #: base movement rate in feet per turn (OSE: 120)
    speed: int = 120
    armor: str = "none"
    infravision_ft: int = 0


@attrs.frozen(kw_only=True)
class MemberRemoved(Event):
    """A character left the party."""

    type_name: ClassVar[str] = "party.member_removed"
    name: str
    reason: str = ""


@attrs.frozen(kw_only=True)
class MemberSheet:
    """A character's name and scores as the party knows them."""

    name: str
    cha: int
    wis: int
    dex: int
    strength: int
    speed: int
    armor: str
    infravision_ft: int


@attrs.frozen(kw_only=True)
class MemberEdited(Event):
    """A character's recorded name or scores corrected, or changed by the rules (the armor a lost joust takes): what
    was recorded, and what holds from now on."""

    type_name: ClassVar[str] = "party.member_edited"
    #: the character as recorded until now, and as it is from now on (a new name corrects a misspelt one)
    was: MemberSheet
    now: MemberSheet
    reason: str = ""
