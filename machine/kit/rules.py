"""Typed rules: each procedure declares the options and tables it reads as attrs classes.

A ruleset's ``[options]`` and ``[tables]`` are plain data (TOML). Each procedure declares one class
per section it reads (``section = "options"`` or ``"tables"``), one field per key, with the sentence
that explains it (``rule(help=...)``); the ruleset is structured into those classes when it is
loaded, so a wrong type, an unknown choice or a value out of range is refused at ``init`` or
``rules change``, naming the key. A key no class declares is not used by any procedure.

The validators here (``in_range``, ``non_empty``, ``dice_rule``, ``rollable_by``, ``bands``) refuse
what would crash or make nonsense later, in play: each raises ``ValueError("key: why")``, and the
key (with table keys and indexes, ``scale[0][1]``) is joined to its dotted path in the refusal.
"""

from __future__ import annotations

import collections.abc
import enum
import math
import re
import types
import typing
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeAlias, TypeVar

import attrs
import cattrs
from cattrs.errors import ClassValidationError, IterableValidationError

from hexlog.events.errors import DiceExpressionError, UsageError
from hexlog.machine import dice

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    #: an attrs validator: (instance, attribute, value) -> None, raising ``ValueError("key: why")``
    Validator: TypeAlias = Callable[[Any, attrs.Attribute[Any], Any], None]

T = TypeVar("T")

HELP = "help"
SECTIONS = ("options", "tables")


class RulesError(UsageError):
    """A ruleset name, an override file or a value in a ruleset that cannot be used."""


class RulesPart(Protocol):
    """An attrs class that reads one section of a ruleset: ``options`` or ``tables``."""

    section: ClassVar[str]
    __attrs_attrs__: ClassVar[Any]


#: the metadata key of the options a rule is read under (``rule(read_when=...)``)
READ_WHEN = "read_when"
#: options of the ``options`` section, each with the values under which a rule is read: it is read while any holds
ReadWhen: TypeAlias = tuple[tuple[str, tuple[str, ...]], ...]
#: the metadata key of the option that names the one entry of a table the procedures read (``chosen_by``)
ENTRY_BY = "entry_by"


def rule(
    default: Any = attrs.NOTHING,
    *,
    help: str,  # noqa: A002 - the sentence's name
    validator: Any = None,
    factory: Any = None,
    read_when: ReadWhen | None = None,
) -> Any:
    """A field of a rules class: its default (a ruleset may leave it out) and the sentence explaining it; with
    ``read_when`` (options of the ``options`` section, each with values), the procedures read it only while one of
    those options holds one of its values (``rules show`` says when it is not read)."""
    metadata: dict[str, Any] = {HELP: help}
    if read_when is not None:
        metadata[READ_WHEN] = read_when
    if factory is not None:
        return attrs.field(factory=factory, validator=validator, metadata=metadata, kw_only=True)
    return attrs.field(default=default, validator=validator, metadata=metadata, kw_only=True)


def in_range(low: float, high: float) -> Validator:
    """A validator: the value (each value, for a tuple, named by its index) lies in ``low..high``; None passes."""

    def check(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        values = enumerate(value) if isinstance(value, tuple) else ((None, value),)
        for i, one in values:
            if one is not None and not low <= one <= high:
                where = attribute.name if i is None else f"{attribute.name}[{i}]"
                msg = f"{where}: {one} is out of range; allowed {_num(low)} to {_num(high)}"
                raise ValueError(msg)

    return check


def non_empty(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    """A validator: a table or an array has at least one entry; None (left out) passes."""
    if value is not None and not value:
        msg = f"{attribute.name}: is empty; at least one entry is needed"
        raise ValueError(msg)


def dice_rule(*, required: bool = False, lowest: int | None = None) -> Validator:
    """A validator: a dice expression hexlog can roll, whose lowest total is at least ``lowest``.

    "" means none, unless ``required``: then it is refused, as it could never be rolled.
    """

    def check(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if not value:
            if required:
                msg = f"{attribute.name}: is empty; this entry needs a dice expression (NdS, NdS+K, NdS-K or dS)"
                raise ValueError(msg)
            return
        least = totals(value, attribute.name)[0]
        if lowest is not None and least < lowest:
            msg = f"{attribute.name}: {value!r} can total {least}; allowed lowest total {lowest} or more"
            raise ValueError(msg)

    return check


def totals(expression: str, name: str) -> tuple[int, int]:
    """The lowest and highest total of a dice expression; ``ValueError`` naming the field if it does not parse."""
    try:
        spec = dice.parse(expression)
    except DiceExpressionError as err:
        msg = f"{name}: {err}"
        raise ValueError(msg) from err
    return spec.lowest, spec.highest


def rollable_by(field: str) -> Validator:
    """A validator: each value of a tuple is a total the dice expression in ``field`` can show."""

    def check(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        expression = getattr(instance, field)
        if value and not expression:
            msg = f"{attribute.name}: {field} is empty, so no total can be rolled; leave it empty too"
            raise ValueError(msg)
        if not value:
            return
        low, high = totals(expression, field)
        for i, one in enumerate(value):
            if not low <= one <= high:
                msg = f"{attribute.name}[{i}]: {one} is not a total {expression} can show; allowed {low} to {high}"
                raise ValueError(msg)

    return check


def bands(*, scores: tuple[int, int], values: tuple[int, int]) -> Validator:
    """A validator for ``[lowest score, value]`` bands (an array, or the arrays of a table).

    Each array has a band, starts at the lowest score (so every score has a value), and rises:
    each lowest score above the one before, every score and value in its range.
    """

    def check(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        arrays = value.items() if isinstance(value, dict) else ((None, value),)
        for key, rows in arrays:
            where = attribute.name if key is None else f"{attribute.name}.{key}"
            problem = _bands_problem(rows, scores, values)
            if problem:
                msg = f"{where}{problem}"
                raise ValueError(msg)

    return check


def _bands_problem(rows: tuple[tuple[int, int], ...] | None, scores: tuple[int, int], values: tuple[int, int]) -> str:
    """What is wrong with one array of bands ("" when nothing), starting with where in it."""
    if not rows:
        return "" if rows is None else f": is empty; at least one band [lowest score, value] from {scores[0]} is needed"
    if rows[0][0] != scores[0]:
        return f"[0][0]: the first band starts at {rows[0][0]}; it must start at {scores[0]}, so every score has one"
    for i, (least, mod) in enumerate(rows):
        wrong = ""
        if not scores[0] <= least <= scores[1]:
            wrong = f"[{i}][0]: {least} is out of range; allowed {scores[0]} to {scores[1]}"
        elif not values[0] <= mod <= values[1]:
            wrong = f"[{i}][1]: {mod} is out of range; allowed {values[0]} to {values[1]}"
        elif i and least <= rows[i - 1][0]:
            wrong = f"[{i}][0]: {least} does not rise above the band before ({rows[i - 1][0]}); list them low to high"
        if wrong:
            return wrong
    return ""


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def help_of(cls: type, name: str) -> str:
    """The sentence that explains a field of a rules class."""
    field = attrs.fields_dict(cls)[name]
    return str(field.metadata.get(HELP, ""))


def read_when(cls: type, name: str) -> ReadWhen | None:
    """The options a field of a rules class is read under, each with the values it is read at (None: read whatever
    the options hold)."""
    found: ReadWhen | None = attrs.fields_dict(cls)[name].metadata.get(READ_WHEN)
    return found


def chosen_by(option: str, field: Any) -> Any:
    """A ``rule`` that is a table of named entries of which the procedures read only the one ``option`` (of the
    ``options`` section) names: ``rules show`` says the others are not read."""
    field.metadata[ENTRY_BY] = option
    return field


def entry_by(cls: type, name: str) -> str:
    """The option that names the one entry of a table field the procedures read ("" when they read every entry)."""
    return str(attrs.fields_dict(cls)[name].metadata.get(ENTRY_BY, ""))


#: how a value is named in a refusal, by its Python type (bool before int: a bool is an int)
_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a number"),
    (str, "a string"),
    ((list, tuple), "an array"),
    (dict, "a table"),
)


def kind_of(value: Any) -> str:
    """How a value is named in a refusal: ``an integer``, ``a table``, ..."""
    return next((name for kind, name in _KINDS if isinstance(value, kind)), type(value).__name__)


def _strict(kind: type, name: str) -> Callable[[Any, Any], Any]:
    def structure(value: Any, target: Any) -> Any:
        if isinstance(target, type) and issubclass(target, enum.Enum):
            return _structure_enum(value, target)  # a StrEnum is a str: its hook is this one
        if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
            if not math.isfinite(value):
                msg = f"{value} is not allowed; use a finite number"
                raise ValueError(msg)
            return float(value)
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return value
        msg = f"expected {name}, got {kind_of(value)}"
        raise ValueError(msg)

    return structure


def _structure_enum(value: Any, kind: type[enum.Enum]) -> enum.Enum:
    for member in kind:
        if member.value == value and type(member.value) is type(value):
            return member
    shown = ", ".join(str(m.value) for m in kind)
    msg = f"{value!r} is not one of {shown}"
    raise ValueError(msg)


def _converter() -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
    for kind, name in ((int, "an integer"), (float, "a number"), (str, "a string"), (bool, "a boolean")):
        conv.register_structure_hook(kind, _strict(kind, name))
    conv.register_structure_hook_func(lambda t: isinstance(t, type) and issubclass(t, enum.Enum), _structure_enum)
    return conv


converter = _converter()


def _path(path: str) -> str:
    """cattrs' ``$.a['b'][0]`` written as the dotted TOML key ``a.b[0]``."""
    return re.sub(r"\['([^']*)'\]", r".\1", path).removeprefix("$").lstrip(".")


def _messages(err: BaseException, where: str) -> list[str]:
    def describe(exc: BaseException, _: Any) -> str:
        if isinstance(exc, KeyError):
            return f"missing {exc.args[0]}" if exc.args else "missing key"
        if isinstance(exc, cattrs.ForbiddenExtraKeysError):
            return _EXTRA + ",".join(sorted(exc.extra_fields))
        return str(exc)

    if isinstance(err, ClassValidationError | IterableValidationError):
        found = cattrs.transform_error(err, format_exception=describe)
    else:
        found = [f"{describe(err, None)} @ $"]
    out: list[str] = []
    for line in found:
        text, _, path = line.rpartition(" @ ")
        key = _path(path)
        if text.startswith(_EXTRA):
            base = f"{where}.{key}" if key else where
            out.extend(f"unknown key '{base}.{extra}'" for extra in text.removeprefix(_EXTRA).split(","))
            continue
        named = _FIELD_MESSAGE.match(text)  # a validator's "field: why"
        if named is not None:
            key, text = ".".join(filter(None, (key, named[1]))), named[2]
        out.append(f"{where}.{key}: {text}" if key else f"{where}: {text}")
    return out


_EXTRA = "unknown keys: "


#: a validator's "key: why", the key a field name, maybe with table keys and indexes (``faces[2]``, ``scale[0][1]``)
_FIELD_MESSAGE = re.compile(r"^([a-z_][a-z0-9_]*(?:\.[A-Za-z0-9_-]+|\[\d+\])*): (.*)$", re.DOTALL)


def _shape(kind: Any, value: Any, path: str) -> list[str]:
    """Where ``value`` is not even of the shape ``kind`` asks for (a table, an array), before structuring."""
    origin = typing.get_origin(kind)
    if origin in {typing.Union, types.UnionType}:
        kinds = [a for a in typing.get_args(kind) if a is not type(None)]
        return _shape(kinds[0], value, path) if value is not None and len(kinds) == 1 else []
    if attrs.has(kind) or origin in {dict, collections.abc.Mapping}:
        return _table_shape(kind, value, path)
    if origin is tuple:
        return _array_shape(kind, value, path)
    return []


def _table_shape(kind: Any, value: Any, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected a table, got {kind_of(value)}"]
    if typing.get_origin(kind) is not None:  # a dict: every value of the same kind
        inner = typing.get_args(kind)[1]
        return [p for key, item in value.items() for p in _shape(inner, item, f"{path}.{key}")]
    hints = typing.get_type_hints(kind)
    return [p for key, item in value.items() if key in hints for p in _shape(hints[key], item, f"{path}.{key}")]


def _array_shape(kind: Any, value: Any, path: str) -> list[str]:
    if not isinstance(value, list | tuple):
        return [f"{path}: expected an array, got {kind_of(value)}"]
    args = typing.get_args(kind)
    kinds = [args[0]] * len(value) if args[-1] is Ellipsis else list(args)
    return [p for i, (k, item) in enumerate(zip(kinds, value, strict=False)) for p in _shape(k, item, f"{path}[{i}]")]


def structure(cls: type[T], section: Mapping[str, Any], where: str) -> T:
    """The part of ``section`` that ``cls`` reads, structured; ``RulesError`` naming every bad key."""
    names = set(keys_of(cls))
    data = {k: v for k, v in section.items() if k in names}
    hints = typing.get_type_hints(cls)
    wrong = [p for key, value in data.items() for p in _shape(hints[key], value, f"{where}.{key}")]
    if wrong:
        raise RulesError("; ".join(wrong))
    try:
        return converter.structure(data, cls)
    except (ClassValidationError, IterableValidationError, ValueError, TypeError, KeyError) as err:
        raise RulesError("; ".join(_messages(err, where))) from err


def keys_of(cls: type) -> list[str]:
    """The keys a rules class reads (the fields of an attrs class)."""
    return list(attrs.fields_dict(cls))


def unstructure(value: Any) -> Any:
    """A typed rules value back as plain data, as a ruleset file holds it."""
    return converter.unstructure(value)
