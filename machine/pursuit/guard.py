"""The invariants the pursuit owns: while it runs, the journey waits and game time is the pursuit's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events.errors import RuleRefusedError
from hexlog.machine.pursuit.state import PROCEDURE, Phase, PursuitState
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.machine.travel.commands import TRIGGERS as TRAVEL_TRIGGERS

if TYPE_CHECKING:
    from hexlog.machine.commands import Command
    from hexlog.machine.table import Table


def guard(table: Table, command: Command) -> None:
    """While a pursuit runs, the journey waits and the clock is the pursuit's: refuse both."""
    state = table.procedures.get(PROCEDURE)
    running = isinstance(state, PursuitState) and state.phase not in {Phase.IDLE, Phase.CAUGHT, Phase.ESCAPED}
    if not running:
        return
    if isinstance(command, AdvanceClock) or type(command) in TRAVEL_TRIGGERS:
        msg = f"a pursuit is under way; {type(command).__name__} waits until it ends (caught or escaped)"
        raise RuleRefusedError(msg)
