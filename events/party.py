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
