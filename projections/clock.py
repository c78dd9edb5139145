"""The clock read model: game time passed, in seconds, rounds and turns."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.clock import ClockAdvanced

if TYPE_CHECKING:
    from hexlog.events.base import Event

SECONDS_PER_DAY = 86400


@attrs.frozen(kw_only=True)
class Clock:
    """Game time since the campaign began."""

    seconds: int = 0
    rounds: int = 0
    turns: int = 0

    @property
    def text(self) -> str:
        """The time as days, hours and minutes."""
        days, rest = divmod(self.seconds, SECONDS_PER_DAY)
        hours, rest = divmod(rest, 3600)
        minutes, seconds = divmod(rest, 60)
        parts = [f"day {days + 1}", f"{hours:02d}:{minutes:02d}"]
        if seconds:
            parts[-1] += f":{seconds:02d}"
        return " ".join(parts)


#: the events ``evolve`` reads (a subclass of one too): it leaves the clock as it is at any other
READS = (ClockAdvanced,)


def evolve(clock: Clock, event: Event) -> Clock:
    """The clock after one event."""
    if isinstance(event, ClockAdvanced):
        return Clock(
            seconds=clock.seconds + event.seconds,
            rounds=clock.rounds + event.rounds,
            turns=clock.turns + event.turns,
        )
    return clock
