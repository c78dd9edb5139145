"""The encounter's conclusion, shared by every step that ends one: at least one full turn passes (seed 000)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import encounter as ev
from hexlog.machine.kit.clock import ClockOptions, turns

if TYPE_CHECKING:
    from hexlog.machine.encounter.state import EncounterState
    from hexlog.machine.kit.context import StepContext


def conclude_encounter(ctx: StepContext, state: EncounterState, outcome: str, reason: str) -> None:
    """The conclusion: at least one full turn passes, or the rounds used rounded up to whole turns."""
    clock = ctx.part(ClockOptions)
    spent = max(1, -(-state.rounds * clock.round_seconds // clock.turn_seconds))
    span = turns(clock, spent)
    label = f"encounter {state.started.number}" + (f" ({state.started.name})" if state.started.name else "")
    ctx.emit(
        ev.EncounterConcluded(
            number=state.started.number,
            outcome=outcome,
            rounds=state.rounds,
            turns=spent,
            seconds=span.seconds,
            reason=reason,
        )
    )
    ctx.advance(span, reason=f"{label}: {outcome}")
