"""The inverse audit uses: the command that made a recorded camp decision.

Only the gatherers, the terrain and the watches' guards are taken from the record (the referee named them); the
firewood and the night's wandering check are decided again from the recorded rolls, and the watches' hours and the
morning's sleep by the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import camp as ev
from hexlog.machine.camp.commands import (
    BreakCamp,
    CheckNight,
    CheckNightWatchOnEncounter,
    GatherFirewood,
    SetWatches,
)
from hexlog.machine.kit.procedure import Inverse

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.commands import Command


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


def command_before(event: Event, version: int) -> Command | None:
    """The command that made a decision recorded at an earlier schema version of its event: a night's check before
    ``camp.night_checked`` version 2 rolled the watch's die only on an encounter."""
    if isinstance(event, ev.NightChecked) and version < WATCH_EVERY_CHECK_SINCE:
        return CheckNightWatchOnEncounter(terrain=event.terrain)
    return command_for(event)


INVERSE = Inverse(
    command_for=command_for,
    command_before=command_before,
    decides={"firewood": (ev.FirewoodGathered,), "check": (ev.NightChecked,), "break": (ev.CampBroken,)},
    reruns=frozenset({ev.WatchesSet, ev.CampBroken}),
)
