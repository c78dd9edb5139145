"""The inverse audit uses: the command that made a recorded chase decision; and the exhaustion modifier.

Only what the referee typed is taken from the record (the item dropped); the rest the step decides
again from the recorded rolls and the state before it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import chase as ev
from hexlog.events.dice import RollModifier
from hexlog.events.vocabulary import Side
from hexlog.machine.chase import hand
from hexlog.machine.chase.commands import Drop, Evade, RepeatSteps, Run
from hexlog.machine.chase.state import PROCEDURE, ChaseState
from hexlog.machine.kit.procedure import Inverse

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.base import Event
    from hexlog.machine.commands import Command
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.table import Table

#: the first word of the purposes of the rolls exhaustion worsens (attack and damage rolls)
EXHAUSTED_ROLLS = frozenset({"attack", "damage"})


def command_for(event: Event) -> Command | None:
    """The command that made a recorded decision (None: the event is not a dice-driven decision)."""
    match event:
        case ev.StepsRepeated():
            return RepeatSteps()
        case ev.ItemDropped():
            return Drop(item=str(event.item))
        case ev.WaterEvasionRolled():
            return Evade()
        case ev.RoundRun():
            return Run(
                obstacle=event.obstacle,
                slows_ft=event.slowed_ft,
                stops=event.stopped,
                out_of_sight=event.out_of_sight,
            )
    return None


def by_hand(event: Event, ctx: StepContext) -> str | None:
    """What the referee declared by hand in a chase event, in words (None: nothing): an obstacle, and the fleeing
    side out of the pursuers' sight where the line of sight does not put it there."""
    if isinstance(event, ev.ChaseStarted):
        return hand.started_by_hand(event, ctx)
    if not isinstance(event, ev.RoundRun):
        return None
    said = []
    if event.obstacle:
        effect = "stopping the pursuit" if event.stopped else f"costing the pursuers {event.slowed_ft} ft"
        said.append(f"an obstacle declared in round {event.round}: {event.obstacle}, {effect}")
    state = ctx.state(PROCEDURE)
    sight = state.started.line_of_sight_ft if isinstance(state, ChaseState) else 0
    if event.out_of_sight and not (sight > 0 and event.gap_after > sight):
        said.append(f"the fleeing side declared out of the pursuers' sight in round {event.round}")
    return "; ".join(said) or None


INVERSE = Inverse(
    command_for=command_for,
    typed={
        ev.ItemDropped: frozenset({"item"}),
        ev.RoundRun: frozenset({"obstacle", "stopped", "out_of_sight", "reason"}),
    },
    by_hand=by_hand,
    decides={"run": (ev.RoundRun,), "drop": (ev.ItemDropped,)},
    reruns=frozenset({ev.RoundRun}),
)


def exhausted_penalty(table: Table, made_for: str) -> int:
    """The penalty exhaustion from running imposes on a character (or the party side): 0 when none."""
    state = table.procedures.get(PROCEDURE)
    if not isinstance(state, ChaseState) or not made_for or state.exhaustion is None:
        return 0
    members = state.exhausted
    hit = bool(members) if made_for.lower() == Side.PARTY.value else made_for in members
    return state.exhaustion.penalty if hit else 0


def modifiers(table: Table, made_for: str, purpose: str) -> Sequence[RollModifier]:
    """The modifier source: exhaustion on the attack and damage rolls made for an exhausted character."""
    first = purpose.strip().lower().replace(".", " ").split(" ", 1)[0]
    if first not in EXHAUSTED_ROLLS:
        return ()
    penalty = exhausted_penalty(table, made_for)
    if not penalty:
        return ()
    state = table.procedures[PROCEDURE]
    e = state.exhaustion
    why = f"exhausted by running ({e.rested_turns} of {e.recover_after_turns} turns of rest)"
    return (RollModifier(source=why, value=penalty),)
