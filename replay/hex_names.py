"""The hexes an event names, each as the map writes it: ``col,row`` in its canonical form (``grid.normal``).

Every command names its hex in any spelling the map reads (``" 3 , 04"``) and every step records it as the map
writes it (``"3,4"``), so a hex recorded in any other form (``"0,0x"``, ``"03,4"``, ``"3,4\\n"``) was written by
hand: no release recorded it, and the rules re-run would read it as no hex or another. The audit names it where it
stands (``hex_problem``) rather than at the decisions that later cannot read it.
"""

from __future__ import annotations

import itertools
import typing
from typing import Any

import attrs

from hexlog.events.errors import UsageError
from hexlog.machine.hexmap import grid

__all__ = ["HEX", "hex_problem"]

#: the audit's check of the hexes an event names
HEX = "hex"
#: the fields that name a hex (an empty ``believed``, no hex believed, is recorded by some releases)
_NAMES = ("hex", "believed")
#: each class: its fields that name a hex, and those that hold records (or tuples of them) that may
_FIELDS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _holds_records(hint: Any) -> bool:
    """Whether a field of this type may hold a record (an attrs class), alone or in a tuple or union."""
    return attrs.has(hint) or any(_holds_records(arg) for arg in typing.get_args(hint))


def _fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    found = _FIELDS.get(cls)
    if found is None:
        fields = attrs.fields(cls) if attrs.has(cls) else ()
        hints = typing.get_type_hints(cls) if fields else {}
        hexes = tuple(f.name for f in fields if f.name in _NAMES)
        nested = tuple(f.name for f in fields if f.name not in _NAMES and _holds_records(hints.get(f.name)))
        found = _FIELDS[cls] = hexes, nested
    return found


def _written(name: str, written: object) -> str | None:
    """Why a hex field's value is not a hex as the map writes it, or None (an empty text is no hex named)."""
    if not isinstance(written, str) or not written:
        return None
    try:
        canonical = grid.normal(written)
    except UsageError:
        return f"{name} {written[:40]!r} is not a hex (col,row: two numbers 0 to {grid.MAX_COORD})"
    return (
        None if canonical == written else f"{name} {written[:40]!r} is not written as the map writes it ({canonical!r})"
    )


def _problem(value: Any) -> str | None:
    """The first hex named in ``value`` (a record, or a tuple of them) that is not in the map's form."""
    if isinstance(value, tuple):
        return next(filter(None, map(_problem, value)), None)
    if not attrs.has(type(value)):
        return None
    hexes, nested = _fields(type(value))
    found = (_written(name, getattr(value, name)) for name in hexes)
    inner = (_problem(getattr(value, name)) for name in nested)
    return next(filter(None, itertools.chain(found, inner)), None)


def hex_problem(event: object) -> str | None:
    """Why a hex an event names (at any depth of its records) is not one the map writes, or None."""
    hexes, nested = _fields(type(event))
    if not hexes and not nested:
        return None
    return _problem(event)
