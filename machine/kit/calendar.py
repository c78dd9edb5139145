"""One calendar for every procedure: rounds, turns, watches, hours and days, and how the referee writes them.

A duration is a whole number and a unit (``3 turns``, ``2h``, ``1 day``); a moment is a day and,
optionally, a time within it (``day 4``, ``day 4 turn 3``, ``day 4 watch 2``, ``day 4 14:30``),
counted from the campaign's start (day 1, 00:00). Rounds, turns and watches are as long as the
rules in force say (``round_seconds``, ``turn_seconds``, ``watch_seconds``).
"""

from __future__ import annotations

import enum
import re

import attrs

from hexlog.events.errors import UsageError
from hexlog.machine.kit.clock import DAY_SECONDS, ClockOptions, Span

#: the most units one command may let pass, and the longest span (a year)
MAX_UNITS = 10_000
MAX_SECONDS = 366 * DAY_SECONDS


class Unit(enum.Enum):
    """A unit of game time."""

    ROUND = "round"
    MINUTE = "minute"
    TURN = "turn"
    HOUR = "hour"
    WATCH = "watch"
    DAY = "day"

    def seconds(self, options: ClockOptions) -> int:
        """How long one unit lasts under these rules."""
        fixed = {Unit.MINUTE: 60, Unit.HOUR: 3600, Unit.DAY: DAY_SECONDS}
        ruled = {
            Unit.ROUND: options.round_seconds,
            Unit.TURN: options.turn_seconds,
            Unit.WATCH: options.watch_seconds,
        }
        return fixed[self] if self in fixed else ruled[self]


#: every spelling of each unit the referee may type
SPELLINGS: dict[str, Unit] = {
    **dict.fromkeys(("r", "round", "rounds", "rd", "rds"), Unit.ROUND),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), Unit.MINUTE),
    **dict.fromkeys(("t", "turn", "turns"), Unit.TURN),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), Unit.HOUR),
    **dict.fromkeys(("w", "watch", "watches"), Unit.WATCH),
    **dict.fromkeys(("d", "day", "days"), Unit.DAY),
}
_DURATION = re.compile(r"^\s*([0-9]+)\s*([a-z]+)\s*$")
_MOMENT = re.compile(
    r"^\s*day\s+([0-9]+)(?:\s*,?\s*(?:(round|turn|watch|hour)\s+([0-9]+)|([0-9]{1,2}):([0-9]{2})))?\s*$"
)


@attrs.frozen(kw_only=True)
class Duration:
    """``count`` units of game time."""

    count: int
    unit: Unit

    def span(self, options: ClockOptions) -> Span:
        """One unit of it, as a span of game time."""
        return Span(seconds=self.unit.seconds(options))

    @property
    def text(self) -> str:
        """How it reads: ``3 turns``."""
        name = self.unit.value
        plural = "watches" if self.unit is Unit.WATCH else f"{name}s"
        return f"{self.count} {name if self.count == 1 else plural}"


def duration(text: str) -> Duration:
    """The duration the referee wrote (``3 turns``, ``2h``, ``1 day``); ``UsageError`` naming the form."""
    found = _DURATION.match(text.lower())
    unit = SPELLINGS.get(found.group(2)) if found else None
    if found is None or unit is None:
        spelled = ", ".join(sorted({u.value for u in Unit}, key=[u.value for u in Unit].index))
        msg = f"duration {text!r} is not a whole number and a unit ({spelled}), e.g. '3 turns', '2h', '1 day'"
        raise UsageError(msg)
    count = int(found.group(1))
    if not 1 <= count <= MAX_UNITS:
        msg = f"duration {text!r}: the count must be 1 to {MAX_UNITS}"
        raise UsageError(msg)
    return Duration(count=count, unit=unit)


def check_length(wanted: Duration, options: ClockOptions) -> None:
    """Refuse a duration longer than a year of game time in one command."""
    if wanted.count * wanted.unit.seconds(options) > MAX_SECONDS:
        msg = f"{wanted.text} is longer than one command may let pass (366 days); advance in steps"
        raise UsageError(msg)


def moment(text: str, options: ClockOptions) -> int:
    """Seconds since the campaign began at the end of the moment written (``day 4 turn 3``: its third turn)."""
    found = _MOMENT.match(text.lower())
    if found is None:
        msg = (
            f"moment {text!r} is not 'day N' optionally followed by 'turn N', 'watch N', 'round N', "
            "'hour N' or 'HH:MM' (e.g. 'day 4 turn 3', 'day 2 14:30')"
        )
        raise UsageError(msg)
    day = int(found.group(1))
    if day < 1:
        msg = f"moment {text!r}: days count from day 1"
        raise UsageError(msg)
    within = DAY_SECONDS
    if found.group(2):
        within = int(found.group(3)) * Unit(found.group(2)).seconds(options)
    elif found.group(4):
        hours, minutes = int(found.group(4)), int(found.group(5))
        if hours > 24 or minutes > 59 or (hours == 24 and minutes):  # noqa: PLR2004 - the clock's own limits
            msg = f"moment {text!r}: {hours:02d}:{minutes:02d} is not a time of day"
            raise UsageError(msg)
        within = hours * 3600 + minutes * 60
    if within > DAY_SECONDS:
        msg = f"moment {text!r}: that is past the end of day {day}"
        raise UsageError(msg)
    return (day - 1) * DAY_SECONDS + within


def is_whole_day(text: str) -> bool:
    """Whether the moment written is a whole day (``day 3``: its end) rather than a time within one."""
    found = _MOMENT.match(text.lower())
    return found is not None and not found.group(2) and not found.group(4)
