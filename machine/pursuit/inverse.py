"""The inverse audit uses: the command that made a recorded pursuit decision (every one re-rolls as recorded)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import pursuit as ev
from hexlog.machine.kit.procedure import Inverse
from hexlog.machine.pursuit.commands import Catch, ContinueCheck, Flee, Rest, RollEvasion

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.commands import Command


def command_for(event: Event) -> Command | None:
    """The command that made a recorded decision (None: not a dice-driven decision)."""
    match event:
        case ev.PursuitEvasionRolled():
            return RollEvasion()
        case ev.PursuitFled():
            return Flee()
        case ev.CatchRolled():
            return Catch()
        case ev.ContinueChecked():
            return ContinueCheck()
        case ev.PursuitRested():
            return Rest()
    return None


INVERSE = Inverse(command_for=command_for)
