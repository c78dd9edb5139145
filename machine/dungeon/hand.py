"""What the referee typed into a delve that steers its rolls, in the audit's words (its account of the referee's hand):
a delve entered as dangerous or with its own wandering checks, a door's facts (locked, its key, a thievery chance, not
stuck, a tool), a thief's listening skill, a move short of the party's rate and a search where no door is.

A door's facts are named only where the referee's word decided them: a door the party already knows to be locked,
stuck, spiked or opened before is as the delve's state says, whatever was typed, and a tool only where the door was
forced (the bonus and the breakage die read it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import dungeon as ev
from hexlog.machine.dungeon.doors import must_force
from hexlog.machine.dungeon.rules import DungeonTables
from hexlog.machine.dungeon.state import PROCEDURE, DelveState

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.kit.context import StepContext


def by_hand(event: Event, ctx: StepContext) -> str | None:
    """What the referee decided by hand in a delve event, in words (None: nothing)."""
    match event:
        case ev.DelveEntered():
            return _entered_by_hand(event, ctx)
        case ev.DoorOpened():
            return _door_by_hand(event, ctx)
        case ev.DoorListened(thief_skill=True):
            return (
                f"{event.by} listened at {_door(event.door)} by a thief's skill of {len(event.hears_on)} in 6 the "
                "referee gave (the secret die reads it)"
            )
        case ev.PartyMoved(feet=feet, rate=rate) if feet != rate:
            return f"the party moved {feet} ft in turn {event.turn}, not its rate of {rate} ft, as the referee gave it"
        case ev.SecretDoorSearched(present=False):
            return (
                f"a search for secret doors by {', '.join(event.searchers)} where the referee said none is (nothing "
                "could be found)"
            )
    return None


def _door(label: str) -> str:
    return f"door {label}" if label else "a door"


def _door_by_hand(event: ev.DoorOpened, ctx: StepContext) -> str | None:
    """The facts of a door the referee typed into ``dungeon door open`` that the delve's state did not give."""
    delve = ctx.state(PROCEDURE)
    known = delve.doors.get(event.door) if isinstance(delve, DelveState) and event.door else None
    said = []
    if event.locked and not (known is not None and known.locked):
        said.append("locked")
    if event.unlocked is ev.Unlock.KEY:
        said.append("its key in hand")
    if event.locked and event.pick_out_of:
        said.append(f"a thievery chance of {event.pick_chance} in {event.pick_out_of} for {event.by}")
    turn = ctx.part(DungeonTables).dungeon
    stick_again = turn is not None and turn.doors_stick_again
    if not event.stuck and must_force(known, free=False, stick_again=stick_again):
        said.append("not stuck")
    forced = event.stuck and (not event.locked or event.unlocked is not ev.Unlock.NONE)
    if event.tool and forced:
        said.append(f"forced with {'an' if event.tool[0] in 'aeiou' else 'a'} {event.tool}")
    if not said:
        return None
    tried = "opened" if event.opened else "tried"
    return f"{_door(event.door)} {tried} by {event.by} as the referee said: {', '.join(said)} (its rolls read them)"


def _entered_by_hand(event: ev.DelveEntered, ctx: StepContext) -> str | None:
    """A delve the referee called dangerous, and wandering checks at other turns or faces than the rules give it
    (``dungeon enter --danger --every-turns --wandering-on``): each secret check reads them."""
    table = ctx.part(DungeonTables).dungeon
    if table is None:
        return None
    every = table.danger_every_turns if event.danger else table.wandering_every_turns
    faces = table.danger_wandering_on if event.danger else table.wandering_on
    said = ["a dangerous place"] if event.danger else []
    if event.check_every_turns != every:
        said.append(f"wandering checks every {event.check_every_turns} turns, not the rules' {every}")
    if tuple(event.wandering_on) != tuple(faces):
        shown = ", ".join(map(str, event.wandering_on))
        said.append(f"wandering monsters on a d6 of {shown}, not the rules' {', '.join(map(str, faces))}")
    return f"delve {event.number} entered by the referee's word as {'; '.join(said)}" if said else None
