"""Fast structuring of event payloads: the event cattrs would make of a payload, made without its
per-field dispatch, for the payloads a log holds (every field present, each of its exact JSON type).

``fast_structure(converter, cls)`` compiles, once per class, a function that takes a payload and returns
either the event or ``SLOW``. It returns the event only where the converter would return an equal one:
a field typed ``str``, ``int``, ``bool`` or ``float`` must hold exactly that type (cattrs would call
``str(value)`` and so on, and the strict hooks of ``hexlog.events.strict`` take it as it is: either gives the value
itself); an enum field must hold one of its values (cattrs would call ``Kind(value)``, which looks the value up);
a ``tuple[int, ...]`` (or of str, bool, float) must be a list of exactly that type; an empty list is an empty
tuple of any kind; every other field is handed to ``converter.structure`` as cattrs would hand it. Every field
must be present and no other key (the converter forbids extra keys). Anything else, and any error, is ``SLOW``:
the caller then asks the converter itself, which decodes the payload or says what is wrong with it.

The event is made as the converter makes it, by calling the class; where the class's ``__init__`` is
attrs' own and only sets each field in turn (no validator, converter, default factory or hook), its slots
are set directly instead, which is what that ``__init__`` does, in two thirds of the time.
"""

from __future__ import annotations

import enum
import itertools
import linecache
import types
import typing
from collections.abc import Callable
from typing import Any

import attrs
import cattrs

from hexlog.events import strict

#: what a compiled function returns for a payload it leaves to the converter
SLOW: Any = object()

Structure = Callable[[dict[str, Any]], Any]

_EXACT = (str, int, bool, float)
_CALL = cattrs.BaseConverter._structure_call  # noqa: SLF001 - how cattrs structures str, int, bool, float, enums


def _calls(converter: cattrs.Converter, hint: Any) -> bool:
    """Whether the converter structures ``hint`` by calling it (``hint(value)``), as cattrs does by default, or by the
    strict hooks (``hexlog.events.strict.HOOKS``), which take a value of its own JSON type and refuse any
    other: on a value of exactly the field's type, both give the value itself (or the enum's member)."""
    hook = converter.get_structure_hook(hint)
    return hook is _CALL or strict.is_scalar(hook)


def _structures_tuple(converter: cattrs.Converter, hint: Any) -> bool:
    """Whether the converter structures ``hint`` by cattrs' own tuple hook, or the strict one that gives it only a
    list (or a tuple)."""
    hook = converter.get_structure_hook(hint)
    return hook == converter._structure_tuple or strict.is_strict_tuple(hook)  # noqa: SLF001


def _enum_values(hint: Any) -> dict[Any, enum.Enum] | None:
    """An enum's members by value, when every value is a str or an int (so that a lookup is ``Kind(value)``)."""
    if not (isinstance(hint, type) and issubclass(hint, enum.Enum)):
        return None
    values = dict(hint._value2member_map_)
    if not values or any(v.__class__ not in (str, int) for v in values) or len(hint.__members__) > len(values):
        return None
    return values


def _homogeneous(hint: Any) -> Any:
    """X of ``tuple[X, ...]``, else None."""
    if typing.get_origin(hint) is not tuple:
        return None
    args = typing.get_args(hint)
    return args[0] if len(args) == 2 and args[1] is Ellipsis else None  # noqa: PLR2004 - X and the ellipsis


def _field_code(converter: cattrs.Converter, i: int, name: str, hint: Any, names: dict[str, Any]) -> list[str]:
    """The lines that put field ``name``'s value in ``v{i}`` (or return SLOW)."""
    v = f"v{i}"
    lines = [f"    {v} = o[{name!r}]"]
    values = _enum_values(hint)
    item = _homogeneous(hint)
    if hint in _EXACT and _calls(converter, hint):
        lines.append(f"    if {v}.__class__ is not {hint.__name__}: return SLOW")
    elif values is not None and _calls(converter, hint):
        names[f"m{i}"] = values
        lines += [
            f"    if {v}.__class__ is not str and {v}.__class__ is not int: return SLOW",
            f"    {v} = m{i}.get({v}, SLOW)",
            f"    if {v} is SLOW: return SLOW",
        ]
    elif item is not None and _structures_tuple(converter, hint):
        names[f"t{i}"] = hint
        lines.append(f"    if {v}.__class__ is not list: return SLOW")
        if item in _EXACT and _calls(converter, item):
            lines += [
                f"    for x in {v}:",
                f"        if x.__class__ is not {item.__name__}: return SLOW",
                f"    {v} = tuple({v})",
            ]
        else:
            lines.append(f"    {v} = structure({v}, t{i}) if {v} else ()")
    else:
        names[f"t{i}"] = hint
        lines.append(f"    {v} = structure({v}, t{i})")
    return lines


def _init_only_sets(cls: type, names: list[str]) -> bool:
    """Whether ``cls.__init__`` is attrs' own and does nothing but set each field in turn (no default
    factory, converter, validator, hook or cached hash)."""
    code = getattr(getattr(cls, "__init__", None), "__code__", None)
    if code is None or not code.co_filename.startswith("<attrs generated"):
        return False
    source = "".join(linecache.getlines(code.co_filename))
    start = source.find("def __init__(")
    if start < 0:
        return False
    body = source[start:].split("\n")[1:]
    body = [line.strip() for line in itertools.takewhile(lambda line: line.startswith(" "), body)]
    expected = ["_setattr = _cached_setattr_get(self)", *(f"_setattr('{name}', {name})" for name in names)]
    return body == expected


def _slot_setters(cls: type, names: list[str]) -> list[Callable[[Any, Any], None]] | None:
    """The slot setter of each field, when setting them is all ``cls.__init__`` does (else None)."""
    if not _init_only_sets(cls, names):
        return None
    setters = []
    for name in names:
        slot = next((klass.__dict__[name] for klass in cls.__mro__ if name in klass.__dict__), None)
        if type(slot) is not types.MemberDescriptorType:
            return None
        setters.append(slot.__set__)
    return setters


def fast_structure(converter: cattrs.Converter, cls: type) -> Structure | None:
    """A function giving the event of ``cls`` a payload holds, or ``SLOW``; None where ``cls`` is not an attrs
    class that cattrs structures with its own generated function, field by field under their own names."""
    if not attrs.has(cls):
        return None
    hook = converter.get_structure_hook(cls)
    if getattr(hook, "__name__", "") != f"structure_{cls.__name__}" or not hook.__code__.co_filename.startswith(
        "<cattrs generated"
    ):
        return None
    fields = attrs.fields(cls)
    if any(not f.init or f.alias != f.name for f in fields):
        return None
    hints = typing.get_type_hints(cls)
    names: dict[str, Any] = {"SLOW": SLOW, "structure": converter.structure, "cls": cls}
    lines = ["def structure_fast(o):"]
    for i, f in enumerate(fields):
        lines += _field_code(converter, i, f.name, hints[f.name], names)
    lines.append(f"    if len(o) != {len(fields)}: return SLOW")
    setters = _slot_setters(cls, [f.name for f in fields])
    if setters is None:
        lines.append("    return cls(" + ", ".join(f"{f.name}=v{i}" for i, f in enumerate(fields)) + ")")
    else:  # what its __init__ does, without its setattr calls: set each slot
        names["new"] = object.__new__
        names.update({f"set{i}": setter for i, setter in enumerate(setters)})
        lines.append("    e = new(cls)")
        lines += [f"    set{i}(e, v{i})" for i in range(len(fields))]
        lines.append("    return e")
    code = compile("\n".join(lines), f"<hexlog fast structure {cls.__qualname__}>", "exec")
    exec(code, names)  # noqa: S102 - source made above from the class's own field names
    compiled: Structure = names["structure_fast"]
    return compiled
