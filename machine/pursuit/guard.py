"""The invariants the pursuit owns: while it runs, the journey waits and game time is the pursuit's: the referee's
clock is refused, and so is another procedure's step that would let time pass meanwhile (``own_time``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events.errors import RuleRefusedError
from hexlog.machine.kit.procedure import own_time
from hexlog.machine.pursuit.state import PROCEDURE, Phase, PursuitState
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.machine.travel.commands import TRIGGERS as TRAVEL_TRIGGERS

if TYPE_CHECKING:
    from hexlog.machine.commands import Command
    from hexlog.machine.table import Table


def running(table: Table) -> bool:
    state = table.procedures.get(PROCEDURE)
    return isinstance(state, PursuitState) and state.phase not in {Phase.IDLE, Phase.CAUGHT, Phase.ESCAPED}


def guard(table: Table, command: Command) -> None:
    """While a pursuit runs, the journey waits and the clock is the pursuit's: refuse both."""
    if not running(table):
        return
    if isinstance(command, AdvanceClock) or type(command) in TRAVEL_TRIGGERS:
        msg = f"a pursuit is under way; {type(command).__name__} waits until it ends (caught or escaped)"
        raise RuleRefusedError(msg)


#: the pursuit's hold on game time (``kit.procedure.own_time``)
OWN_TIME = own_time(
    PROCEDURE,
    running,
    "a pursuit is under way and game time is the pursuit's; this {running} step would let time pass meanwhile: "
    "play the pursuit to its end (caught or escaped) first",
)
