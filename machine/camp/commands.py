"""The camp's commands (imperative names), the trigger each one fires, and what each argument means."""

from __future__ import annotations

import attrs

from hexlog.events.errors import Advice
from hexlog.machine.commands import SPEED, Command, arg, intelligent_arg
from hexlog.machine.encounter.commands import MONSTERS


@attrs.frozen(kw_only=True)
class MakeCamp(Command):
    """Set up camp for the night: clear the ground, raise the tents, prepare the fire pit."""

    weather: str = arg("", help="the day's weather (a key of tables.weather_flags); wet weather means less firewood")
    winter: bool = arg(False, help="it is winter: less firewood")  # noqa: FBT003 - a default
    terrain: str = arg(
        "",
        help=(
            "the camp's ground, a terrain a hex may have (tangled_forest, swamp, woods): the night's wandering check "
            "reads its row of the chances, and a pursuit from the camp is handed it"
        ),
    )


@attrs.frozen(kw_only=True)
class GatherFirewood(Command):
    """Each gatherer brings back hours of fuel."""

    gatherers: tuple[str, ...] = arg(
        (), help="a party member who gathers (repeat for each)", flag="--by", member=True, needed=True
    )


@attrs.frozen(kw_only=True)
class SetWatches(Command):
    """Assign the night's watches before sleeping: at least one guard each."""

    watches: tuple[str, ...] = arg(
        (),
        help="one watch: its number, =, and its guards separated by commas (1=Aldric,Brom); repeat for each",
        flag="--watch",
        needed=True,
    )


@attrs.frozen(kw_only=True)
class CheckNight(Command):
    """The referee's secret wandering check of the night; on an encounter, the die picks the watch."""

    terrain: str = arg(
        "",
        help=(
            "the ground the check is made on, if not given when the camp was made (a pursuit from the night's "
            "encounter is handed it then)"
        ),
    )


@attrs.frozen(kw_only=True)
class CheckNightByRow(Command):
    """Issued by the audit, never by a user: a night's check recorded at ``camp.night_checked`` version 2, whose
    releases read the row of the chances its terrain named, is re-run as they ran it."""

    terrain: str = arg("", help="the row of the chances the check read")


@attrs.frozen(kw_only=True)
class CheckNightWatchOnEncounter(Command):
    """Issued by the audit, never by a user: a night's check recorded before ``camp.night_checked`` version 2, whose
    releases rolled the watch's die only on an encounter, is re-run as they ran it."""

    terrain: str = arg("", help="the row of the chances the check read")


@attrs.frozen(kw_only=True)
class MeetEncounter(Command):
    """The night's encounter comes: describe the monsters, and the encounter begins in the dark."""

    name: str = arg("", help="a name for the encounter")
    monster_count: int = arg(1, help="how many monsters", flag="--monsters", least=1, within=MONSTERS)
    intelligent: bool = intelligent_arg()
    monster_speed: int = arg(120, help="the monsters' base rate, feet per turn", least=1, within=SPEED)
    monsters_light: bool = arg(False, help="the monsters carry light")  # noqa: FBT003 - a default
    monsters_noisy: bool = arg(False, help="the monsters are making noise")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class BreakCamp(Command):
    """Morning: the night passes on the clock and each member's sleep is judged."""


#: the commands only hexlog gives, each with the refusal's words to a referee who gives one
INTERNAL: dict[type[Command], tuple[str | Advice, ...]] = {
    older: ("is the audit's, re-running an older release's night check; use ", Advice(CheckNight.__name__, (), "camp"))
    for older in (CheckNightWatchOnEncounter, CheckNightByRow)
}

#: each command's trigger, in the order a referee meets them
TRIGGERS: dict[type[Command], str] = {
    MakeCamp: "make",
    GatherFirewood: "firewood",
    SetWatches: "watches",
    CheckNight: "check",
    MeetEncounter: "meet",
    BreakCamp: "break",
}
