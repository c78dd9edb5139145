"""The inverse audit uses: the command that made a recorded chase decision; and the exhaustion modifier.

Only what the referee typed is taken from the record (the item dropped); the rest the step decides
again from the recorded rolls and the state before it. A chase the referee started by hand (``chase start``) is run
again on the state before it (``typed_steps``), every fact it was started with taken from the record: one the rules
refuse there (following an encounter the log never met, one not the latest or still under way, the side that fled it
said to give chase, a length out of its range) or whose number, runners or surprise, escape at once or phase differ
from what the start records is a finding, in a stream of a release that refuses and records it as today's
(``STARTS_SINCE``). A chase an encounter or a delve hands off is its parent's step's, and judged with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import chase as ev
from hexlog.events import releases
from hexlog.events.base import TYPE_PREFIX
from hexlog.events.dice import RollModifier
from hexlog.events.vocabulary import Side
from hexlog.machine.chase import hand
from hexlog.machine.chase.commands import Drop, Evade, RepeatSteps, Run, StartChase
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
    elif event.stopped or event.slowed_ft:  # an earlier release took a cost or a stop without the obstacle's name
        effect = "stopped" if event.stopped else f"slowed by {event.slowed_ft} ft"
        said.append(f"the pursuers {effect} in round {event.round} by the referee's word, naming no obstacle")
    state = ctx.state(PROCEDURE)
    sight = state.started.line_of_sight_ft if isinstance(state, ChaseState) else 0
    if event.out_of_sight and not (sight > 0 and event.gap_after > sight):
        said.append(f"the fleeing side declared out of the pursuers' sight in round {event.round}")
    return "; ".join(said) or None


def started_by(event: Event) -> StartChase:
    """The start the referee typed (``chase start``): every fact it records that the command gives, as recorded (a
    default the start filled in reads as typed, and gives the same)."""
    assert isinstance(event, ev.ChaseStarted)  # noqa: S101 - declared for this event alone
    return StartChase(
        setting=str(event.setting),
        fleeing=str(event.fleeing),
        from_encounter=event.from_encounter,
        gap_ft=event.gap_ft,
        fleeing_ft=event.fleeing_ft,
        pursuers_ft=event.pursuers_ft,
        name=event.name,
        likes_treasure=event.likes_treasure,
        hungry=event.hungry,
        intelligent=event.intelligent,
        relentless=not event.gives_up_out_of_sight,
        line_of_sight_ft=event.line_of_sight_ft,
        forced_to_stop=event.forced_to_stop,
        note=event.note,
    )


#: the first release every build of which refuses a start whose fleeing side is the one that gave chase in the
#: encounter it follows, and records what today's start records (chase.started version 2's surprise, the lengths in
#: their ranges): the one that raised ``encounter.pursuit_decided`` to version 3 (release 31 refused that side only
#: from one of its builds on, and its starts left without ``--fleeing`` ran the party)
STARTS_SINCE = releases.raised_at(TYPE_PREFIX + "encounter.pursuit_decided", 3)


INVERSE = Inverse(
    command_for=command_for,
    typed={
        ev.ItemDropped: frozenset({"item"}),
        ev.RoundRun: frozenset({"obstacle", "stopped", "out_of_sight", "reason"}),
    },
    by_hand=by_hand,
    decides={"run": (ev.RoundRun,), "drop": (ev.ItemDropped,)},
    reruns=frozenset({ev.RoundRun}),
    typed_steps={ev.ChaseStarted: started_by},
    typed_since=STARTS_SINCE,
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
