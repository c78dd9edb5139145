"""Strict structuring hooks: a value of another JSON type than its field's is refused, never converted.

cattrs structures ``str``, ``int``, ``bool``, ``float`` and enum fields by calling the type (``str(None)`` is
``"None"``, ``bool(5)`` is ``True``, ``int("3")`` is ``3``, ``int(2.5)`` is ``2``), and a tuple from any iterable
(``"34"`` is ``("3", "4")``). ``install(converter)`` registers hooks that take only a value of the field's own JSON
type: a ``str`` field a string, an ``int`` field an integer (not a boolean, not a float), a ``bool`` field a
boolean, a ``float`` field an integer or a float (not a boolean; an integer is made a float, as cattrs makes it),
an enum field a value of its values' type (then looked up as cattrs looks it up), a tuple a list (or a tuple, as
unstructuring in memory gives). Inside optionals, tuples, dicts and nested attrs classes too: cattrs structures
their parts with the same hooks. Anything else raises ``WrongTypeError``, whose text says what was expected and
what was found (``expected a string, found null``).
"""

from __future__ import annotations

import enum
import functools
import json
import typing
from typing import Any

import cattrs

if typing.TYPE_CHECKING:
    from collections.abc import Callable

#: how each scalar type's JSON type is named
EXPECTED: dict[type, str] = {str: "a string", int: "an integer", bool: "a boolean", float: "a number"}
#: how a tuple's JSON type is named
_LIST = "a list"
#: how long a value found may be shown
_SHOWN = 40


class WrongTypeError(TypeError):
    """A value whose JSON type is not its field's."""


def found(value: Any) -> str:
    """A value as JSON names it: ``null``, ``true``, ``5``, ``"3"`` (cut short), ``a list``, ``an object``."""
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    try:
        text = json.dumps(value)  # escapes control characters: the text cannot forge a line
    except (TypeError, ValueError):
        return f"a {type(value).__name__}"
    if len(text) <= _SHOWN:
        return text
    return text[: _SHOWN - 4] + ('..."' if text.startswith('"') else "...")


def described(err: BaseException, hint: Any) -> str:
    """What is wrong with a value, for ``cattrs.transform_error(..., format_exception=described)``: a value of another
    JSON type than its field's in these hooks' words (``expected a string, found null``), the rest as cattrs says
    it."""
    if isinstance(err, WrongTypeError):
        return str(err)
    return cattrs.v.format_exception(err, hint)


def wrong(expected: str, value: Any) -> WrongTypeError:
    """The error for ``value`` found where ``expected`` (``a string``) belongs."""
    return WrongTypeError(f"expected {expected}, found {found(value)}")


@functools.cache
def _enum_kinds(hint: type[enum.Enum]) -> tuple[tuple[type, ...], str]:
    """The classes of an enum's values (an enum of strings: ``(str,)``) and how their JSON type is named."""
    kinds = tuple(sorted({member.value.__class__ for member in hint}, key=lambda kind: kind.__name__))
    named = " or ".join(EXPECTED.get(kind, f"a {kind.__name__}") for kind in kinds) or "a value"
    return kinds, named


def scalar(value: Any, hint: Any) -> Any:
    """The structuring of a ``str``, ``int``, ``bool``, ``float`` or enum field: the value when it is of the
    field's JSON type (an enum's member for it, an integer as a float), else ``WrongTypeError``. A value of a
    subclass of the type, which only a payload made in memory holds (an enum's member where a ``str`` or an ``int``
    belongs), is called as cattrs calls it (``str(Side.PARTY)`` is ``"party"``), and so is any other class cattrs
    would call (a subclass of ``str`` that is no enum, say)."""
    kind = value.__class__
    if kind is hint and (hint is str or hint is int or hint is bool or hint is float):
        return value
    if hint is str or hint is int or hint is float:
        if isinstance(value, (int, float) if hint is float else hint) and kind is not bool:
            return hint(value)
        raise wrong(EXPECTED[hint], value)
    if hint is bool:
        raise wrong(EXPECTED[bool], value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        kinds, named = _enum_kinds(hint)
        if kind is bool or not isinstance(value, kinds):
            raise wrong(named, value)
    return hint(value)


#: the hook ``install`` registers for each scalar type (a subclass is found under its base: a ``StrEnum`` under
#: ``str``, which ``scalar`` reads as the enum it is)
HOOKS: dict[type, Callable[[Any, Any], Any]] = dict.fromkeys((str, int, bool, float, enum.Enum), scalar)


def is_scalar(hook: Any) -> bool:
    """Whether ``hook`` is the strict scalar hook ``install`` registers."""
    return hook is scalar


class StrictTuple:
    """The structuring of a tuple field: cattrs' own, given only a list (or a tuple)."""

    def __init__(self, converter: cattrs.Converter) -> None:
        self.structure_tuple = converter._structure_tuple  # noqa: SLF001 - cattrs' own tuple hook, wrapped

    def __call__(self, value: Any, hint: Any) -> Any:
        kind = value.__class__
        if kind is not list and kind is not tuple:
            raise wrong(_LIST, value)
        return self.structure_tuple(value, hint)


def install(converter: cattrs.Converter) -> None:
    """Register the strict hooks on ``converter``: ``HOOKS`` for ``str``, ``int``, ``bool``, ``float`` and every
    enum, and ``StrictTuple`` for every tuple type."""
    for hint, hook in HOOKS.items():
        converter.register_structure_hook(hint, hook)
    strict_tuple = StrictTuple(converter)
    converter.register_structure_hook_func(_is_tuple, strict_tuple)


def _is_tuple(hint: Any) -> bool:
    """Whether ``hint`` is a tuple type (``tuple[int, ...]``, ``tuple[str, int]``, ``tuple``): what cattrs' tuple hook
    structures."""
    return hint is tuple or typing.get_origin(hint) is tuple


def is_strict_tuple(hook: Any) -> bool:
    """Whether ``hook`` is the strict tuple hook ``install`` registers."""
    return isinstance(hook, StrictTuple)
