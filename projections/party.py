"""The party read model: its members and the modifiers the rules read from them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import UnknownMemberError
from hexlog.events.party import MemberAdded, MemberEdited, MemberRemoved

if TYPE_CHECKING:
    from hexlog.events.base import Event


@attrs.frozen(kw_only=True)
class Member:
    """One character of the party."""

    name: str
    cha: int = 10
    wis: int = 10
    dex: int = 10
    strength: int = 10
    speed: int = 120
    armor: str = "none"
    infravision_ft: int = 0


@attrs.frozen(kw_only=True)
class Party:
    """The party as the log tells it."""

    members: tuple[Member, ...] = ()

    def member(self, name: str) -> Member | None:
        """The member called ``name``, if any."""
        return next((m for m in self.members if m.name == name), None)

    def named(self, name: str, *, also: str = "") -> Member:
        """The member called ``name``; ``UnknownMemberError`` naming the members there are (and ``also``, what
        else the field may name) when the party has none of that name."""
        member = self.member(name)
        if member is None:
            known = ", ".join(m.name for m in self.members)
            there = f"its members: {known}" if known else "the party has no members"
            called = f"called {name}" if name.strip() else f"with an empty name {name!r}: give one"
            msg = f"the party has no member {called} ({there}{also})"
            raise UnknownMemberError(msg)
        return member

    @property
    def slowest_speed(self) -> int:
        """The speed of the slowest member (the party moves at it), 0 for an empty party."""
        return min((m.speed for m in self.members), default=0)


#: the events ``evolve`` reads (a subclass of one too): it leaves the party as it is at any other
READS = (MemberAdded, MemberRemoved, MemberEdited)


def evolve(party: Party, event: Event) -> Party:
    """The party after one event."""
    match event:
        case MemberAdded():
            member = Member(
                name=event.name,
                cha=event.cha,
                wis=event.wis,
                dex=event.dex,
                strength=event.strength,
                speed=event.speed,
                armor=event.armor,
                infravision_ft=event.infravision_ft,
            )
            return attrs.evolve(party, members=(*party.members, member))
        case MemberRemoved(name=name):
            return attrs.evolve(party, members=tuple(m for m in party.members if m.name != name))
        case MemberEdited(was=was, now=now):
            edited = Member(**attrs.asdict(now))
            return attrs.evolve(party, members=tuple(edited if m.name == was.name else m for m in party.members))
    return party
