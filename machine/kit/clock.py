"""One game clock: every procedure advances it through the step context, which runs the checks that fall due."""

from __future__ import annotations

from typing import ClassVar

import attrs

from hexlog.events.clock import ClockAdvanced
from hexlog.machine.kit.rules import in_range, rule

DAY_SECONDS = 86400


@attrs.frozen(kw_only=True)
class ClockOptions:
    """The units of game time a ruleset counts in."""

    section: ClassVar[str] = "options"
    round_seconds: int = rule(
        help="Seconds in one round (A1: OSE 10 s, 60 rounds a turn; AD&D and seed 004 one minute).",
        validator=in_range(1, DAY_SECONDS),
    )
    turn_seconds: int = rule(
        help="Seconds in one turn (ten minutes in every text).", validator=in_range(1, DAY_SECONDS)
    )
    watch_seconds: int = rule(
        7200,
        help="Seconds in one watch of the night (A34: two hours in seed 004; a night is four watches).",
        validator=in_range(1, DAY_SECONDS),
    )
    day_start_hour: int = rule(
        0,
        help="The hour a travel day starts: one begun earlier waits for it on the clock (seed 004: 8, after "
        "an 8-hour night in camp from midnight; 0: at midnight, as rules recorded before it was read).",
        validator=in_range(0, 23),
    )


@attrs.frozen(kw_only=True)
class Span:
    """A stretch of game time: ``seconds`` long, also counted in whole rounds and turns."""

    seconds: int

    def event(self, options: ClockOptions, reason: str) -> ClockAdvanced:
        """The clock event of one such span."""
        return ClockAdvanced(
            seconds=self.seconds,
            rounds=self.seconds // options.round_seconds,
            turns=self.seconds // options.turn_seconds,
            reason=reason,
        )


def turns(options: ClockOptions, count: int) -> Span:
    """``count`` turns."""
    return Span(seconds=count * options.turn_seconds)


def rounds(options: ClockOptions, count: int) -> Span:
    """``count`` rounds."""
    return Span(seconds=count * options.round_seconds)
