"""How a decision re-derived by the rules differs from the one recorded, in words a player reads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.codec import to_data
from hexlog.machine import dice as hexdice

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.base import Event
    from hexlog.events.dice import DiceRolled, RollModifier
    from hexlog.machine.kit.procedure import Inverse


def show(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return str(value)


def _name(roll: DiceRolled) -> str:
    return hexdice.nonce_name(roll.nonce, secret=roll.visibility == hexdice.REFEREE_LANE)


def rolls_text(rolls: Sequence[DiceRolled]) -> str:
    shown = ", ".join(f"{_name(r)} ({r.expression} = {r.total})" for r in rolls)
    if not rolls:
        return " with no roll"
    return f" from roll{'s' if len(rolls) > 1 else ''} {shown}"


def differences(inverse: Inverse, recorded: Event, expected: Event) -> list[str]:
    """Each field the rules decide differently, in words."""
    out: list[str] = []
    skip = set(inverse.typed.get(type(recorded), ()))
    if inverse.compare is not None:
        worded, judged = inverse.compare(recorded, expected)
        out.extend(worded)
        skip |= judged
    for field in attrs.fields(type(recorded)):
        name = field.name
        mine, theirs = getattr(recorded, name), getattr(expected, name)
        if name in skip or mine == theirs:
            continue
        out.append(f"{name} {show(mine)} recorded, but the rules give {show(theirs)}")
    return out


def show_data(event: Event) -> str:
    return ", ".join(f"{k}={show(v)}" for k, v in to_data(event).items())


def event_text(event: Event) -> str:
    """An event in words: its type and data."""
    return f"{event.type_name} {show_data(event)}"


def tail_difference(emitted: Sequence[Event], events: Sequence[Event | None], places: Sequence[int]) -> str | None:
    """The first event after the decision that differs from what the step records after it, each looked for at its
    place in ``events`` (None as well where one of them did not decode: the decode check names it, where it is)."""
    for place, want in zip(places, emitted, strict=True):
        found = events[place] if place < len(events) else None
        if found == want:
            continue
        if found is None and place < len(events):
            return None
        wanted = f"{want.type_name} {show_data(want)}"
        if found is None:
            return f"after it the rules record {wanted}, but the log has no such event there"
        if type(found) is type(want):
            diffs = [
                f"{f.name} {show(getattr(found, f.name))} where the rules give {show(getattr(want, f.name))}"
                for f in attrs.fields(type(want))
                if getattr(found, f.name) != getattr(want, f.name)
            ]
            return f"the {want.type_name} after it differs: {'; '.join(diffs)}"
        return f"after it the rules record {wanted}, but the log has {found.type_name} there"
    return None


def prelude_difference(want: Event | None, found: Event | None) -> str:
    """How an event a step records before its decision (of a kind a due check records too: the exhaustion a travel
    day starts with) differs from the log's event there (None: none on that side)."""
    if want is None:
        assert found is not None  # noqa: S101 - one of them is there
        return f"{event_text(found)} is recorded by no step here, and by no check that falls due as game time passes"
    if found is None:
        return f"the rules record {event_text(want)} before it, which the log left out"
    return f"the rules record {event_text(want)} before it, but the log has {event_text(found)} there"


def modifiers_text(modifiers: Sequence[RollModifier]) -> str:
    """Modifiers and their sources, in words (``no modifier`` for none)."""
    if not modifiers:
        return "no modifier"
    return ", ".join(f"{m.value:+d} for {m.source}" for m in modifiers)


def roll_label(roll: DiceRolled) -> str:
    made = f", made for {roll.made_for}" if roll.made_for else ""
    mods = f", {modifiers_text(roll.modifiers)}" if roll.modifiers else ""
    low = ", low is good" if roll.low_is_good else ""
    return f"{roll.expression} for {roll.purpose} ({roll.visibility}{made}{mods}{low})"
