"""The inverse audit uses: the command that made a recorded delve decision.

Only what the referee typed is taken from the record (who acts, the door, the tool, the chances the
referee gave, the searchers and whether a door is there, how far the party moves and whether it maps or flees); the
rest the step decides again from the recorded rolls, or from the state where no dice decide it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import dungeon as ev
from hexlog.machine.dungeon.commands import (
    CheckWandering,
    LeaveDungeon,
    LightSource,
    Listen,
    Move,
    OpenDoor,
    RefillLantern,
    SearchRoll,
    SpikeDoor,
)
from hexlog.machine.dungeon.hand import by_hand
from hexlog.machine.kit.procedure import Inverse

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.commands import Command

PERCENT = 100


def command_for(event: Event) -> Command | None:
    """The command that made a recorded decision (None: the event is not a dice-driven decision), or that lit a light
    (no dice decide it, but the rules give how long it burns: ``Inverse.reruns``), moved the party a turn (the rules
    give its rate, and the turn on the clock) or left the dungeon (the rules count the delve's turns)."""
    command: Command | None = None
    match event:
        case ev.WanderingChecked():
            command = CheckWandering(at_seconds=event.at_seconds)
        case ev.SecretDoorSearched():
            command = SearchRoll(searchers=event.searchers, present=event.present)
        case ev.DoorListened():
            skill = len(event.hears_on) if event.thief_skill else None
            command = Listen(by=event.by, door=event.door, skill_in_6=skill)
        case ev.DoorSpiked():
            command = SpikeDoor(held_open=event.how == "open", door=event.door)
        case ev.DoorOpened():
            picked = event.locked and event.unlocked is not ev.Unlock.KEY
            command = OpenDoor(
                by=event.by,
                door=event.door,
                tool=event.tool,
                locked=event.locked,
                key=event.unlocked is ev.Unlock.KEY,
                pick_chance=event.pick_chance if picked and event.pick_out_of == PERCENT else None,
                pick_in_6=event.pick_chance if picked and event.pick_out_of != PERCENT else None,
                free=not event.stuck,
            )
        case ev.LightLit():
            command = LightSource(kind=event.kind.value, by=event.carrier)
        case ev.LanternRefilled():
            command = RefillLantern(by=event.carrier)
        case ev.PartyMoved():
            command = Move(feet=event.feet, mapping=event.mapping, fleeing=event.fleeing)
        case ev.DelveLeft():
            command = LeaveDungeon(note=event.note)
    return command


INVERSE = Inverse(
    command_for=command_for,
    by_hand=by_hand,
    decides={"door": (ev.DoorOpened,), "listen": (ev.DoorListened,)},
    reruns=frozenset({ev.LightLit, ev.LanternRefilled, ev.PartyMoved, ev.DelveLeft}),
)
