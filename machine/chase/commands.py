"""The chase's commands (imperative names), the trigger each one fires, and what each argument means.

Where a roll decides how the chase goes on (pursuers halted by something dropped, a vessel's
evasion), the step that rolled fires ``settle`` itself (``StepContext.follow``): no command does.
"""

from __future__ import annotations

import attrs

from hexlog.machine.commands import SPEED, Bounds, Command, arg

#: a length along a chase, in feet (the gap, the line of sight): the texts' chases start at an encounter's distance,
#: at most 4d6 x 10 yards on water (720 ft; 2d6 x 10 ft in the dungeon); about a mile leaves the referee room for a
#: vessel sighted far off, and sides farther apart than that are not chased round by round
DISTANCE_FT = Bounds(0, 5000)
#: a side's rate in a chase, feet per round (each runs its full base rate: the fastest in the texts is 480), and the
#: feet an obstacle costs the pursuers in a round (at most all of a round's running)
RATE_FT = Bounds(0, SPEED.most)


@attrs.frozen(kw_only=True)
class StartChase(Command):
    """A pursuit begins, in the dungeon (rounds of running) or on water (an evasion roll, then rounds)."""

    setting: str = arg("dungeon", help="dungeon or waterborne")
    fleeing: str = arg(
        "", help="who flees: party or monsters (default: who fled the encounter --from-encounter names, else the party)"
    )
    from_encounter: int = arg(
        0, help="the number of the concluded encounter it follows (its distance and rates are the defaults)", least=0
    )
    gap_ft: int | None = arg(
        None, help="the gap between the sides, in feet (default: the encounter's distance)", least=0, within=DISTANCE_FT
    )
    fleeing_ft: int | None = arg(
        None,
        help="the fleeing side's rate, feet per round (default: the party's slowest, or the encounter's monsters)",
        least=0,
        within=RATE_FT,
    )
    pursuers_ft: int | None = arg(
        None,
        help="the pursuers' rate, feet per round (default: the encounter's monsters, or the party's slowest)",
        least=0,
        within=RATE_FT,
    )
    name: str = arg("", help="a name for the chase")
    likes_treasure: bool = arg(False, help="the pursuers like treasure (dropped treasure may stop them)")  # noqa: FBT003 - a default
    hungry: bool = arg(False, help="the pursuers are hungry (dropped food may stop them)")  # noqa: FBT003 - a default
    intelligent: bool | None = arg(
        None,
        help="the pursuers are intelligent or not (default: the encounter's)",
        flag="--intelligent/--unintelligent",
    )
    relentless: bool = arg(False, help="the pursuers do not give up once the fleeing side is out of sight")  # noqa: FBT003 - a default
    line_of_sight_ft: int = arg(
        0, help="how far the pursuers can see along the way (out of sight beyond it)", least=0, within=DISTANCE_FT
    )
    forced_to_stop: bool = arg(False, help="the fleeing side is forced to stop (no automatic escape)")  # noqa: FBT003 - a default
    note: str = arg("", help="what happens, in words")


@attrs.frozen(kw_only=True)
class RepeatSteps(Command):
    """A18: roll surprise (1d6 each side) and the distance again before the running starts."""


@attrs.frozen(kw_only=True)
class Run(Command):
    """One round of running: each side runs its rate, the gap changes by the difference (a round passes)."""

    obstacle: str = arg("", help="an obstacle the referee declares this round (burning oil, a portcullis)")
    slows_ft: int = arg(0, help="the feet the obstacle costs the pursuers this round", least=0, within=RATE_FT)
    stops: bool = arg(False, help="the obstacle stops the pursuit")  # noqa: FBT003 - a default
    out_of_sight: bool = arg(False, help="the fleeing side is out of the pursuers' sight after this round")  # noqa: FBT003 - a default
    note: str = arg("", help="what happens, in words")


@attrs.frozen(kw_only=True)
class Drop(Command):
    """The fleeing side drops treasure or food: pursuers who care stop on the rules' chance in 6."""

    item: str = arg(help="treasure or food", positional=True)


@attrs.frozen(kw_only=True)
class Evade(Command):
    """The fleeing vessel tries to evade: a percentile roll against the chance by how much slower it is."""


#: each command's trigger, in the order a referee meets them
TRIGGERS: dict[type[Command], str] = {
    StartChase: "start",
    RepeatSteps: "repeat",
    Run: "run",
    Drop: "drop",
    Evade: "evade",
}

#: the trigger a step fires itself once its roll has decided the way on
SETTLE = "settle"
