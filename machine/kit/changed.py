"""A folded state with some fields changed: what ``attrs.evolve`` makes, at about half its cost.

A fold makes a new state at nearly every event it reads, and ``attrs.evolve`` walks the class's fields
each time to gather the arguments. ``changed`` compiles, once per class, a function that calls the class
with each init argument by name, taken from the changes or else from the instance: the same call
``attrs.evolve`` makes, so validators, converters and defaults run as they always did.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import attrs

T = TypeVar("T")

#: a compiled function: the instance and the changes, and the instance of the same class with them
Maker = Callable[[Any, Mapping[str, Any]], Any]

#: per class, its compiled function and the init arguments it takes
_MAKERS: dict[type, tuple[Maker, frozenset[str]]] = {}


def changed(inst: T, **changes: Any) -> T:
    """``attrs.evolve(inst, **changes)``: a new instance of ``inst``'s attrs class, ``changes`` given by init
    argument name and every other argument taken from ``inst``."""
    cls = inst.__class__
    found = _MAKERS.get(cls)
    if found is None:
        found = _MAKERS[cls] = _maker(cls)
    make, known = found
    if not known.issuperset(changes):  # attrs refuses an argument the class does not take, in its own words
        make = _evolve
    result: T = make(inst, changes)
    return result


def _evolve(inst: Any, changes: Mapping[str, Any]) -> Any:
    return attrs.evolve(inst, **changes)


def _maker(cls: type) -> tuple[Maker, frozenset[str]]:
    fields = [field for field in attrs.fields(cls) if field.init]
    arguments = ", ".join(f"{field.alias}=get({field.alias!r}, inst.{field.name})" for field in fields)
    source = f"def changed(inst, changes):\n    get = changes.get\n    return cls({arguments})\n"
    names: dict[str, Any] = {"cls": cls}
    code = compile(source, f"<hexlog changed {cls.__qualname__}>", "exec")
    exec(code, names)  # noqa: S102 - source made above from the class's own field names
    return names["changed"], frozenset(field.alias for field in fields)
