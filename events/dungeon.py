"""Dungeon events: a delve from its entry to its exit, turn by turn (seed 004 §4.2, OSE light §1).

Times are seconds of game time since the campaign began (as the clock counts them). Every decision
that used dice names the nonces of its public rolls in ``rolls`` and of its secret rolls (the
referee's, hidden from the players until the session ends) in ``referee_rolls``.
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar

import attrs

from hexlog.events.base import Event


class LightKind(enum.StrEnum):
    """A light source the party carries."""

    TORCH = "torch"
    LANTERN = "lantern"


class Unlock(enum.StrEnum):
    """How a locked door was unlocked, if it was."""

    NONE = "none"
    KEY = "key"
    PICK = "pick"


@attrs.frozen(kw_only=True)
class DelveEntered(Event):
    """The party entered a dungeon: a delve begins, in the dark unless it carries light."""

    type_name: ClassVar[str] = "dungeon.entered"
    #: 1 for the campaign's first delve, 2 for the next, ...
    number: int
    name: str = ""
    ruleset: str
    party: tuple[str, ...]
    #: the clock when it began (seconds since the campaign began)
    at_seconds: int
    #: a wandering check falls due every this many turns of the delve
    check_every_turns: int
    #: the d6 faces that bring a wandering monster
    wandering_on: tuple[int, ...]
    #: the referee called the place dangerous (its checks are the rules' danger values)
    danger: bool = False


@attrs.frozen(kw_only=True)
class DelveLeft(Event):
    """The party left the dungeon: the delve concludes."""

    type_name: ClassVar[str] = "dungeon.left"
    #: whole turns the delve lasted
    turns: int
    note: str = ""


@attrs.frozen(kw_only=True)
class LightLit(Event):
    """A party member lit a torch or a lantern (a lantern burns one flask of oil)."""

    type_name: ClassVar[str] = "dungeon.light_lit"
    carrier: str
    kind: LightKind
    #: turns it burns
    turns: int
    radius_ft: int
    at_seconds: int
    #: when it goes out (seconds since the campaign began)
    out_at_seconds: int


@attrs.frozen(kw_only=True)
class LanternRefilled(Event):
    """A lantern was filled with a fresh flask of oil (and lit): it burns a flask's turns from now."""

    type_name: ClassVar[str] = "dungeon.lantern_refilled"
    carrier: str
    turns: int
    at_seconds: int
    out_at_seconds: int


@attrs.frozen(kw_only=True)
class LightBurnedOut(Event):
    """A light went out as game time passed; ``dark`` when the party has no light left."""

    type_name: ClassVar[str] = "dungeon.light_burned_out"
    carrier: str
    kind: LightKind
    at_seconds: int
    dark: bool


@attrs.frozen(kw_only=True)
class PartyMoved(Event):
    """One turn of exploration: the party moved up to its rate, mapping or not."""

    type_name: ClassVar[str] = "dungeon.moved"
    #: the turn of the delve it moved in (1 = the first)
    turn: int
    feet: int
    #: the party's rate in feet per turn (its slowest member's)
    rate: int
    slowest_member: str
    mapping: bool
    fleeing: bool
    #: whether the party carried light
    lit: bool
    #: why it did not map, in words ("" when it mapped)
    why_not_mapping: str = ""


@attrs.frozen(kw_only=True)
class PartyRested(Event):
    """The party rested (one turn in each hour of delving)."""

    type_name: ClassVar[str] = "dungeon.rested"
    turns: int
    #: when the rest ended (seconds since the campaign began)
    at_seconds: int


@attrs.frozen(kw_only=True)
class WanderingChecked(Event):
    """The referee's secret wandering-monster die at a check that fell due."""

    type_name: ClassVar[str] = "dungeon.wandering_checked"
    #: the turn of the delve whose end the check fell due at
    turn: int
    at_seconds: int
    face: int
    #: the modifiers applied to the die (0: none)
    modifier: int = 0
    wandering_on: tuple[int, ...]
    monster: bool
    rolls: tuple[int, ...] = ()
    referee_rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class DoorOpened(Event):
    """An attempt to open a door: a locked one needs its key or a pick, a stuck one a feat of strength."""

    type_name: ClassVar[str] = "dungeon.door_opened"
    door: str = ""
    by: str
    locked: bool = False
    unlocked: Unlock = Unlock.NONE
    #: the thievery chance the referee gave, out of ``pick_out_of`` (100 or 6; 0: no pick tried)
    pick_chance: int = 0
    pick_out_of: int = 0
    pick_face: int = 0
    stuck: bool = True
    strength: int = 10
    #: the chance in 6 to force it (STR band plus a tool's bonus), 0 when not forced
    chance_in_6: int = 0
    face: int = 0
    #: the modifiers applied to the character's rolls (0: none)
    modifier: int = 0
    #: ``crowbar`` or ``axe`` (a wooden door), "" for bare hands
    tool: str = ""
    break_face: int = 0
    tool_broke: bool = False
    opened: bool
    #: a failed attempt makes noise and spoils surprise
    noisy: bool = False
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class DoorListened(Event):
    """A character listened at a door; the referee rolls, and only the referee knows the result."""

    type_name: ClassVar[str] = "dungeon.door_listened"
    door: str = ""
    by: str
    #: a thief listened by their own skill in 6 (else the rules' chance)
    thief_skill: bool = False
    #: the faces that hear (the rules' 1-in-6, or 1..N for a thief's N-in-6 skill)
    hears_on: tuple[int, ...]
    face: int
    modifier: int = 0
    heard: bool
    rolls: tuple[int, ...] = ()
    referee_rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class SecretDoorSearched(Event):
    """A turn of searching for secret doors: the secret die of the party's turn (since version 2, under the rules'
    ``party`` roll) or of each searcher; found when one hits and one is there."""

    type_name: ClassVar[str] = "dungeon.secret_door_searched"
    schema_version: ClassVar[int] = 2
    searchers: tuple[str, ...]
    #: the dice as rolled: one for each searcher, in their order, or the party's one die (``party_die``)
    faces: tuple[int, ...]
    #: the modifiers applied to each die of ``faces`` (0: none)
    modifiers: tuple[int, ...] = ()
    finds_on: tuple[int, ...]
    #: the referee's fact: a secret door is there to be found
    present: bool = True
    #: who found it: the searchers whose die hit, or every searcher when the party's one die hit
    found_by: tuple[str, ...] = ()
    found: bool
    #: one die was rolled for the party's turn of searching, made for the party side, whoever searched
    #: (``tables.dungeon.secret_door_roll = "party"``); false: one for each searcher, made for them
    party_die: bool = False
    rolls: tuple[int, ...] = ()
    referee_rolls: tuple[int, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 rolled a die for each searcher, made for them."""
        return {**data, "party_die": False}


@attrs.frozen(kw_only=True)
class DoorSpiked(Event):
    """A door was spiked open (the spike may slip and the door close) or shut (it then counts as stuck)."""

    type_name: ClassVar[str] = "dungeon.door_spiked"
    door: str = ""
    #: ``open`` or ``shut``
    how: str
    face: int = 0
    slips_on: tuple[int, ...] = ()
    slipped: bool = False
    rolls: tuple[int, ...] = ()
