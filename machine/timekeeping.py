"""The referee lets game time pass: ``hexlog clock advance 3 turns``.

The clock is advanced one unit at a time, each time followed by every check that falls due (in
registry order: light burning down, wandering checks, rest owed), so advancing N units at once
records exactly what advancing one unit N times records. No machine runs here; a procedure whose
time runs in rounds (an encounter) refuses the command while it is under way, by its own guard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.clock import ClockAdvanced
from hexlog.machine.commands import Command, arg
from hexlog.machine.kit import calendar
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.kit.procedure import Procedure

if TYPE_CHECKING:
    from hexlog.machine.kit.context import StepContext


@attrs.frozen(kw_only=True)
class AdvanceClock(Command):
    """Let game time pass, running every check that falls due on the way."""

    duration: str = arg(help="how long: a whole number and a unit, e.g. '3 turns', '2h', '1 day', '1 watch'")
    reason: str = arg("", help="why time passes (shown in the log)")


def advance_clock(ctx: StepContext, command: AdvanceClock) -> None:
    """Advance one unit at a time, ``count`` times; each unit's due checks run after it."""
    wanted = calendar.duration(command.duration)
    options = ctx.part(ClockOptions)
    calendar.check_length(wanted, options)
    reason = command.reason or f"the referee lets {wanted.text} pass"
    ctx.advance(wanted.span(options), reason=reason, times=wanted.count)


CLOCK = Procedure(
    name="clock",
    title="Let game time pass: every check that falls due runs, in order, as events.",
    steps={AdvanceClock: advance_clock},
    events=(ClockAdvanced,),
)
