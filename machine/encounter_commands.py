"""The encounter's commands (imperative names) and the trigger each one fires."""

from __future__ import annotations

import attrs

from hexlog.events import encounter as ev
from hexlog.machine.commands import Command


@attrs.frozen(kw_only=True)
class StartEncounter(Command):
    """Open an encounter: the place, who is already aware, lights, noise and the monsters."""

    #: ``dungeon``, ``wilderness`` or ``waterborne`` (OSE, 004); ``indoors`` or ``outdoors`` (AD&D)
    #: "" for the ruleset's first setting (dungeon, or indoors under AD&D)
    setting: str = ""
    name: str = ""
    party_aware: bool = False
    monsters_aware: bool = False
    party_light: bool = False
    monsters_light: bool = False
    party_noisy: bool = False
    monsters_noisy: bool = False
    monster_count: int = 1
    intelligent: bool = True
    #: the monsters' base movement rate, feet per turn like the party's
    monster_speed: int = 120
    terrains: tuple[str, ...] = ()
    line_of_sight_ft: int | None = None
    area_ft: int | None = None
    light_radius_ft: int | None = None
    vision_ft: int | None = None
    hiding: bool = False


@attrs.frozen(kw_only=True)
class CheckSurprise(Command):
    """Roll surprise for every side that is not already aware."""


@attrs.frozen(kw_only=True)
class DetermineDistance(Command):
    """Roll the encounter distance, or record the one the situation makes obvious (``value``)."""

    value: int | None = None


@attrs.frozen(kw_only=True)
class TakeFreeAction(Command):
    """The side that surprised the other uses its free single action or free segments."""

    action: str = "attack"
    note: str = ""


@attrs.frozen(kw_only=True)
class RollInitiative(Command):
    """Roll 1d6 for each side that is not surprised."""


@attrs.frozen(kw_only=True)
class RollReaction(Command):
    """Roll the monsters' reaction with the CHA modifier of the character who speaks, if any."""

    speaker: str = ""
    modifier: int = 0


@attrs.frozen(kw_only=True)
class RerollReaction(Command):
    """Roll an uncertain reaction once more after a round (the same speaker unless named)."""

    speaker: str | None = None
    modifier: int = 0


@attrs.frozen(kw_only=True)
class Parley(Command):
    """A side tries to talk."""

    side: str = ev.PARTY
    note: str = ""


@attrs.frozen(kw_only=True)
class Wait(Command):
    """A side waits to see what the other does."""

    side: str = ev.PARTY
    note: str = ""


@attrs.frozen(kw_only=True)
class PlayRound(Command):
    """Let one round of the encounter pass."""

    note: str = ""


@attrs.frozen(kw_only=True)
class Fight(Command):
    """A side attacks, casts or moves tactically: combat begins."""

    side: str = ev.PARTY
    note: str = ""


@attrs.frozen(kw_only=True)
class Evade(Command):
    """A side flees before combat; the other side then decides whether to pursue."""

    side: str = ev.PARTY
    note: str = ""


@attrs.frozen(kw_only=True)
class DecidePursuit(Command):
    """The side fled from pursues or not; for monsters, leave ``pursue`` unset to follow the reaction."""

    pursue: bool | None = None
    note: str = ""


@attrs.frozen(kw_only=True)
class Avoid(Command):
    """AD&D: a side that surprised the other (or faces a noisy one) slips away unnoticed."""

    side: str = ev.PARTY
    #: the side's movement in inches per segment (default: its speed / 10)
    rate_inches: int | None = None
    detection_range_ft: int | None = None


@attrs.frozen(kw_only=True)
class ConcludeEncounter(Command):
    """End the encounter; the clock advances by at least one turn."""

    outcome: str = "resolved"
    note: str = ""


#: each command's trigger
TRIGGERS: dict[type[Command], str] = {
    StartEncounter: "start", CheckSurprise: "check_surprise", DetermineDistance: "determine_distance",
    TakeFreeAction: "take_free_action", RollInitiative: "roll_initiative", RollReaction: "react",
    RerollReaction: "reroll_reaction", Parley: "parley", Wait: "wait", PlayRound: "round",
    Fight: "fight", Evade: "evade", DecidePursuit: "decide_pursuit", Avoid: "avoid",
    ConcludeEncounter: "conclude",
}
