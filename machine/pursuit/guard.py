"""The invariants the pursuit owns: while it runs, the journey waits and game time is the pursuit's: the referee's
clock is refused, and so is another procedure's step that would let time pass meanwhile (``own_time``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events.errors import RuleRefusedError
from hexlog.machine.pursuit.state import PROCEDURE, Phase, PursuitState
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.machine.travel.commands import TRIGGERS as TRAVEL_TRIGGERS

if TYPE_CHECKING:
    from hexlog.machine.commands import Command
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.table import Table


def _running(table: Table) -> bool:
    state = table.procedures.get(PROCEDURE)
    return isinstance(state, PursuitState) and state.phase not in {Phase.IDLE, Phase.CAUGHT, Phase.ESCAPED}


def guard(table: Table, command: Command) -> None:
    """While a pursuit runs, the journey waits and the clock is the pursuit's: refuse both."""
    if not _running(table):
        return
    if isinstance(command, AdvanceClock) or type(command) in TRAVEL_TRIGGERS:
        msg = f"a pursuit is under way; {type(command).__name__} waits until it ends (caught or escaped)"
        raise RuleRefusedError(msg)


def own_time(ctx: StepContext, start: int, end: int) -> None:  # noqa: ARG001 - a due check's signature
    """A due check that records nothing: while a pursuit runs, game time passes only by its own steps and those of the
    procedures it handed off to (the encounter of a catch, or of its rest); another procedure's step that lets time
    pass (a delve's move, a camp's night) is refused, and nothing is written. The audit's re-runs take what a log
    recorded as its release let it be."""
    running = ctx.running_outside(PROCEDURE)
    if ctx.as_recorded or running is None or not _running(ctx.table):
        return
    msg = (
        f"a pursuit is under way and game time is the pursuit's; this {running} step would let time pass meanwhile: "
        "play the pursuit to its end (caught or escaped) first"
    )
    raise RuleRefusedError(msg)
