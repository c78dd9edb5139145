"""The inverse audit uses: the command that made a recorded camp decision.

Only the gatherers, the terrain and the watches' guards are taken from the record (the referee named them); the
firewood and the night's wandering check are decided again from the recorded rolls, and the watches' hours and the
morning's sleep by the rules. A night's check recorded before ``camp.night_checked`` version 3 read the row of the
chances its terrain named (``CheckNightByRow``), and one before version 2 rolled the watch's die only on an encounter
(``CheckNightWatchOnEncounter``); the referee's hand in a camp's terrain, or a check's, is judged by the rows both
read, as the release that recorded them named them (a row before ``camp.made`` version 2 and ``camp.night_checked``
version 3, ground since).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import camp as ev
from hexlog.machine.camp.commands import (
    BreakCamp,
    CheckNight,
    CheckNightByRow,
    CheckNightWatchOnEncounter,
    GatherFirewood,
    MakeCamp,
    SetWatches,
)
from hexlog.machine.camp.state import PROCEDURE, CampState
from hexlog.machine.camp.steps import from_the_journey
from hexlog.machine.kit.procedure import Inverse
from hexlog.machine.travel.terrain import terrain_row

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.commands import Command
    from hexlog.machine.kit.context import StepContext


def command_for(event: Event) -> Command | None:
    """The command that made a recorded decision (None: the event is not a dice-driven decision), or that set the
    watches or broke camp (no dice decide them, but the rules give the watches' hours and judge the sleep:
    ``Inverse.reruns``)."""
    match event:
        case ev.FirewoodGathered():
            return GatherFirewood(gatherers=tuple(g.name for g in event.gathered))
        case ev.NightChecked():
            return CheckNight(terrain=event.terrain)
        case ev.WatchesSet():
            return SetWatches(watches=tuple(f"{w.number}={','.join(w.guards)}" for w in event.watches))
        case ev.CampBroken():
            return BreakCamp()
    return None


#: the schema version of ``camp.night_checked`` since which the watch's die is rolled at every check
WATCH_EVERY_CHECK_SINCE = 2
#: the schema version of ``camp.night_checked`` since which its terrain is ground, whose row the check reads
GROUND_SINCE = 3


def command_before(event: Event, version: int) -> Command | None:
    """The command that made a decision recorded at an earlier schema version of its event: a night's check before
    ``camp.night_checked`` version 3 read the row its terrain named, and one before version 2 rolled the watch's die
    only on an encounter."""
    if isinstance(event, ev.NightChecked) and version < WATCH_EVERY_CHECK_SINCE:
        return CheckNightWatchOnEncounter(terrain=event.terrain)
    if isinstance(event, ev.NightChecked) and version < GROUND_SINCE:
        return CheckNightByRow(terrain=event.terrain)
    return command_for(event)


def _row(ctx: StepContext, terrain: str, *, ground: bool) -> str:
    """The row of the chances a camp's or a check's terrain reads: its ground's, or the row it names (``ground``
    false: recorded before ``camp.made`` version 2 or ``camp.night_checked`` version 3)."""
    return terrain_row(ctx.rules, terrain)[0] if ground else terrain


def by_hand(event: Event, ctx: StepContext) -> str | None:
    """A camp's terrain, weather or winter given by the referee against the journey under way, or off a journey, where
    none gives them (the night's secret check reads the row of the terrain's encounter range; wet weather and winter
    mean less firewood), and a night's check on another row than its camp's: the referee, who knows the secret dice,
    chose the range they fall in."""
    match event:
        case ev.CampMade():
            return _made_by_hand(event, ctx)
        case ev.NightChecked():
            return _checked_by_hand(event, ctx, ground=True)
    return None


def by_hand_before(event: Event, ctx: StepContext, version: int) -> str | None:
    """``by_hand`` for an event recorded at an earlier schema version: a night's check before ``camp.night_checked``
    version 3 named the row it read, compared by name with its camp's (a camp's own version is in its record:
    ``terrain_is_ground``)."""
    if isinstance(event, ev.NightChecked) and version < GROUND_SINCE:
        return _checked_by_hand(event, ctx, ground=False)
    return by_hand(event, ctx)


def _checked_by_hand(event: ev.NightChecked, ctx: StepContext, *, ground: bool) -> str | None:
    camp = ctx.state(PROCEDURE)
    made = camp.made if isinstance(camp, CampState) else None
    if made is None:
        return None
    if not made.terrain and event.terrain:  # the camp had none: the check was given one
        return f"night check {event.check} of camp {made.number} made on terrain {event.terrain} by the referee"
    if not ground:  # a row, by name, as its release compared them
        if made.terrain and event.terrain != made.terrain:
            return (
                f"night check {event.check} of camp {made.number} made on terrain {event.terrain} by the referee, "
                f"not the camp's {made.terrain}"
            )
        return None
    checked, camped = _row(ctx, event.terrain, ground=True), _row(ctx, made.terrain, ground=made.terrain_is_ground)
    if made.terrain and checked != camped:
        return (
            f"night check {event.check} of camp {made.number} made on terrain {event.terrain} (row {checked}) by the "
            f"referee, not the camp's {made.terrain} (row {camped})"
        )
    return None


def _made_by_hand(event: ev.CampMade, ctx: StepContext) -> str | None:
    ground = event.terrain_is_ground
    journey = from_the_journey(ctx, MakeCamp(), by_row=not ground)
    said = []
    given, hex_row = _row(ctx, event.terrain, ground=ground), _row(ctx, journey.terrain, ground=ground)
    if journey.terrain and not ground and event.terrain != journey.terrain:
        said.append(
            f"terrain {event.terrain}, not {journey.terrain}, the row of the hex the party believes it is in (the "
            "night's wandering check reads it)"
        )
    elif journey.terrain and ground and given != hex_row:
        said.append(
            f"terrain {event.terrain} (row {given}), not {journey.terrain} (row {hex_row}), the ground of the hex the "
            "party believes it is in (the night's wandering check reads its row)"
        )
    elif not journey.terrain and event.terrain:  # off a journey no hex gives one: the referee's alone
        said.append(f"terrain {event.terrain} (the night's wandering check reads it)")
    if journey.weather and event.weather != journey.weather:
        said.append(f"weather {event.weather}, not the day's {journey.weather}")
    elif not journey.weather and event.weather:  # off a journey (or before its first day) no day gives one
        said.append(f"weather {event.weather} (the firewood reads it)")
    if event.winter and not journey.winter:
        said.append(
            "winter, out of the journey's season" if journey != MakeCamp() else "winter (the firewood reads it)"
        )
    return f"camp {event.number} made by the referee in {'; '.join(said)}" if said else None


INVERSE = Inverse(
    command_for=command_for,
    command_before=command_before,
    by_hand=by_hand,
    by_hand_before=by_hand_before,
    decides={"firewood": (ev.FirewoodGathered,), "check": (ev.NightChecked,), "break": (ev.CampBroken,)},
    reruns=frozenset({ev.WatchesSet, ev.CampBroken}),
)
