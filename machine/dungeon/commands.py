"""The delve's commands (imperative names), the trigger each one fires, and what each argument means.

``CheckWandering`` and ``SearchRoll`` are not the referee's: the kit's clock makes the first as
game time passes, and ``Search`` makes the second before its turn passes. Each is the command the
audit re-runs for the decision it recorded; the referee cannot give them (``guards``).
"""

from __future__ import annotations

import attrs

from hexlog.events.errors import Advice
from hexlog.machine.commands import SPEED, Bounds, Command, arg, intelligent_arg
from hexlog.machine.encounter.commands import MONSTERS

BY_HELP = "the party member who does it"
#: a d6 face (a wandering monster comes on it)
FACE = Bounds(1, 6)
#: a chance in 6 (a thief's pick or listening skill): 0 never, 6 always
IN_6 = Bounds(0, 6)
#: a chance in percent (a thief's pick)
PCT = Bounds(0, 100)
#: how far the party moves in a turn: at most its slowest member's rate, and no member is faster than ``SPEED``
TURN_FT = Bounds(0, SPEED.most)
DOOR_HELP = "which door, in the referee's words (the delve remembers a labelled door: locked, stuck, forced, spiked)"


@attrs.frozen(kw_only=True)
class EnterDungeon(Command):
    """The party enters a dungeon: a delve begins (in the dark unless someone lights a torch or lantern)."""

    name: str = arg("", help="a name for the place")
    danger: bool = arg(False, help="a dangerous place: wandering checks at the rules' danger values")  # noqa: FBT003 - a default
    every_turns: int | None = arg(None, help="check for wandering monsters every N turns (overrides)", least=1)
    wandering_on: tuple[int, ...] = arg(
        (), help="a d6 face that brings a wandering monster (repeat; overrides)", within=FACE
    )


@attrs.frozen(kw_only=True)
class LeaveDungeon(Command):
    """The party leaves the dungeon: the delve concludes."""

    note: str = arg("", help="what happens, in words")


@attrs.frozen(kw_only=True)
class LightSource(Command):
    """A party member lights a torch (6 turns) or a lantern (a flask: 24 turns), by the rules in force."""

    kind: str = arg(help="torch or lantern", positional=True)
    by: str = arg(help=BY_HELP, member=True)


@attrs.frozen(kw_only=True)
class RefillLantern(Command):
    """A party member fills their lantern with a fresh flask of oil and lights it."""

    by: str = arg(help=BY_HELP, member=True)


@attrs.frozen(kw_only=True)
class Move(Command):
    """One turn of exploration at the party's rate (its slowest member's), mapping unless dark or fleeing."""

    feet: int | None = arg(None, help="how far, in feet (at most the rate; default the rate)", least=0, within=TURN_FT)
    mapping: bool | None = arg(None, help="map as the party goes (default: when it can)", flag="--mapping/--no-mapping")
    fleeing: bool = arg(False, help="the party flees (no mapping)")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class OpenDoor(Command):
    """A character tries to open a door: a key or a pick for a locked one, a feat of strength for a stuck one."""

    action: str = arg("open", help="open", positional=True)
    by: str = arg(help=BY_HELP, member=True)
    door: str = arg("", help=DOOR_HELP)
    tool: str = arg("", help="crowbar or axe (a wooden door): a better chance, but it may break")
    locked: bool = arg(False, help="the door is locked")  # noqa: FBT003 - a default
    key: bool = arg(False, help="the character has its key")  # noqa: FBT003 - a default
    pick_chance: int | None = arg(
        None, help="a locked door: the character's thievery chance in percent", least=0, within=PCT
    )
    pick_in_6: int | None = arg(None, help="a locked door: the thievery chance in 6", least=0, within=IN_6)
    free: bool = arg(False, help="the door is not stuck (noted by the referee)")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class Listen(Command):
    """A character listens at a door; the referee rolls in secret (1-in-6, a thief's skill in 6)."""

    by: str = arg(help=BY_HELP, member=True)
    door: str = arg("", help=DOOR_HELP)
    skill_in_6: int | None = arg(None, help="a thief's listening skill, in 6", least=0, within=IN_6)


@attrs.frozen(kw_only=True)
class Search(Command):
    """A turn of searching for secret doors: 1-in-6 for the party (or each searcher, as the rules say), in secret."""

    searchers: tuple[str, ...] = arg(
        (), help="a party member who searches (repeat; default: all)", flag="--by", member=True
    )
    nothing_there: bool = arg(False, help="the referee knows no secret door is here")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class SpikeDoor(Command):
    """Spike a door open (the spike may slip and the door close) or shut (it then counts as stuck)."""

    held_open: bool = arg(help="spike it open, or shut", flag="--open/--shut")
    door: str = arg("", help=DOOR_HELP)


@attrs.frozen(kw_only=True)
class Rest(Command):
    """The party rests, as it must one turn in each hour of delving."""


@attrs.frozen(kw_only=True)
class Meet(Command):
    """The party meets monsters (the wandering monster due, or others): the encounter takes over until it ends."""

    name: str = arg("", help="a name for the encounter (default: the wandering monster)")
    monster_count: int = arg(1, help="how many monsters", flag="--monsters", least=1, within=MONSTERS)
    intelligent: bool = intelligent_arg()
    monster_speed: int = arg(120, help="the monsters' base rate, feet per turn", least=1, within=SPEED)
    monsters_light: bool = arg(False, help="the monsters carry light")  # noqa: FBT003 - a default
    party_noisy: bool = arg(False, help="the party is making noise")  # noqa: FBT003 - a default
    monsters_noisy: bool = arg(False, help="the monsters are making noise")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class CheckWandering(Command):
    """Issued by the clock, never by a user: the secret wandering die of the check due at ``at_seconds``."""

    at_seconds: int


@attrs.frozen(kw_only=True)
class SearchRoll(Command):
    """Issued by ``search``, never by a user: the secret die of the turn (the party's, or each searcher's)."""

    searchers: tuple[str, ...]
    present: bool = True


#: each command's trigger, in the order a referee meets them
TRIGGERS: dict[type[Command], str] = {
    EnterDungeon: "enter",
    LightSource: "light",
    RefillLantern: "refill",
    Move: "move",
    OpenDoor: "door",
    Listen: "listen",
    Search: "search",
    SpikeDoor: "spike",
    Rest: "rest",
    Meet: "meet",
    LeaveDungeon: "leave",
}

#: the commands only hexlog gives, each with the refusal's words to a referee who gives one
_AS_TIME_PASSES = (
    "is made by hexlog as time passes or a search goes on; use ",
    Advice(Move.__name__, (), "dungeon"),
    ", ",
    Advice(Search.__name__, (), "dungeon"),
    " or ",
    Advice(Rest.__name__, (), "dungeon"),
)
INTERNAL: dict[type[Command], tuple[str | Advice, ...]] = {CheckWandering: _AS_TIME_PASSES, SearchRoll: _AS_TIME_PASSES}
