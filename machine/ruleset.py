"""Rulesets as data: the built-in TOML files, referee overrides, and the content hash."""

from __future__ import annotations

import copy
import math
import tomllib
from pathlib import Path
from typing import Any

import attrs

from hexlog.events.chain import canonical_json, sha256_hex
from hexlog.events.errors import DiceExpressionError, UsageError
from hexlog.machine import dice

DEFAULT_RULESET = "ose"
RULESET_DIR = Path(__file__).parent / "rulesets"


class RulesError(UsageError):
    """A ruleset name, or an override file, that cannot be used."""


@attrs.frozen
class Ruleset:
    """A resolved ruleset: its name, options, tables and the hash of their content."""

    name: str
    content: dict[str, Any]

    @property
    def hash(self) -> str:
        """SHA-256 of the canonical JSON of the whole content."""
        return sha256_hex(canonical_json(self.content))

    @property
    def title(self) -> str:
        """The human name of the ruleset."""
        return str(self.content.get("title", self.name))

    def option(self, name: str) -> Any:
        """The value of an option; ``RulesError`` if the ruleset has no such option."""
        try:
            return self.content["options"][name]
        except KeyError:
            msg = f"ruleset {self.name} has no option {name!r}"
            raise RulesError(msg) from None

    def table(self, name: str) -> Any:
        """A table; ``RulesError`` if the ruleset has no such table."""
        try:
            return self.content["tables"][name]
        except KeyError:
            msg = f"ruleset {self.name} has no table {name!r}"
            raise RulesError(msg) from None


def builtin_names() -> list[str]:
    """The names of the rulesets shipped with hexlog."""
    return sorted(p.stem for p in RULESET_DIR.glob("*.toml") if not p.stem.startswith("_"))


def _builtin_content(name: str) -> dict[str, Any]:
    if name not in builtin_names():
        msg = f"unknown ruleset {name!r}; known: {', '.join(builtin_names())}"
        raise RulesError(msg)
    text = (RULESET_DIR / f"{name}.toml").read_text("utf-8")
    return tomllib.loads(text)


def load(name: str, overrides: dict[str, Any] | None = None) -> Ruleset:
    """A built-in ruleset with the referee's overrides applied and checked."""
    content = _builtin_content(name)
    if overrides:
        content = merge(content, overrides)
    check_values(content)
    return Ruleset(name=name, content=content)


def load_overrides(text: str, source: str = "rules file") -> dict[str, Any]:
    """Parse a referee's TOML override file."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        msg = f"{source} is not valid TOML: {err}"
        raise RulesError(msg) from err


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


#: top-level keys a referee's overrides may not touch
FIXED_KEYS = frozenset({"name", "seed", "choices"})


def merge(base: dict[str, Any], overrides: dict[str, Any], path: str = "") -> dict[str, Any]:
    """``base`` with ``overrides`` laid over it; unknown keys and wrong types are refused by name.

    Tables merge key by key; an array is replaced whole, and each of its elements must be of the
    kind the built-in array holds (for an array of tables: only known keys, every required key).
    """
    merged = copy.deepcopy(base)
    choices: dict[str, Any] = base.get("choices", {}) if not path else {}
    for key, value in overrides.items():
        where = f"{path}.{key}" if path else key
        if key in FIXED_KEYS and not path:
            msg = f"{where}: cannot be overridden"
            raise RulesError(msg)
        if key not in base:
            msg = f"unknown key {where!r}"
            raise RulesError(msg)
        old = base[key]
        if isinstance(old, dict):
            if not isinstance(value, dict):
                msg = f"{where}: expected a table, got {_kind(value)}"
                raise RulesError(msg)
            merged[key] = merge(old, value, where)
            continue
        _check_like(old, value, where)
        merged[key] = copy.deepcopy(value)
    if not path:
        _check_choices(merged, choices)
    return merged


def _check_scalar(old: Any, value: Any, where: str) -> None:
    kinds = (_kind(old), _kind(value))
    if kinds[0] != kinds[1] and kinds != ("number", "integer"):
        msg = f"{where}: expected {kinds[0]}, got {kinds[1]}"
        raise RulesError(msg)


def _check_like(template: Any, value: Any, where: str, required: set[str] | None = None) -> None:
    """Refuse ``value`` unless it has the shape of ``template`` (arrays: of its element kind)."""
    if isinstance(template, dict):
        _check_table(template, value, where, required)
    elif isinstance(template, list):
        _check_array(template, value, where)
    else:
        _check_scalar(template, value, where)


def _check_table(template: dict[str, Any], value: Any, where: str, required: set[str] | None) -> None:
    if not isinstance(value, dict):
        msg = f"{where}: expected a table, got {_kind(value)}"
        raise RulesError(msg)
    for key, item in value.items():
        if key not in template:
            dotted = f"{where}.{key}"
            msg = f"unknown key {dotted!r}"
            raise RulesError(msg)
        _check_like(template[key], item, f"{where}.{key}")
    missing = sorted((set(template) if required is None else required) - set(value))
    if missing:
        msg = f"{where}: missing {', '.join(missing)}"
        raise RulesError(msg)


def _check_array(template: list[Any], value: Any, where: str) -> None:
    if not isinstance(value, list):
        msg = f"{where}: expected array, got {_kind(value)}"
        raise RulesError(msg)
    if not template:
        return  # an empty built-in array is a slot that takes any array
    if all(isinstance(item, dict) for item in template):
        union: dict[str, Any] = {}
        for item in template:
            for key, val in item.items():
                union.setdefault(key, val)
        common = set.intersection(*(set(item) for item in template))
        for i, item in enumerate(value):
            _check_like(union, item, f"{where}[{i}]", common)
        return
    element = next((item for item in template if isinstance(item, list) and item), template[0])
    kinds = {_kind(item) for item in template}
    for i, item in enumerate(value):
        if isinstance(element, list) and isinstance(item, list):
            _check_like(element, item, f"{where}[{i}]")
        elif _kind(item) not in kinds and not (_kind(item) == "integer" and "number" in kinds):
            shown = " or ".join(sorted(kinds))
            msg = f"{where}[{i}]: expected {shown}, got {_kind(item)}"
            raise RulesError(msg)


def _check_choices(content: dict[str, Any], choices: dict[str, Any]) -> None:
    options = content.get("options", {})
    for option, allowed in choices.items():
        value = options.get(option)
        values = value if isinstance(value, list) else [value]
        for one in values:
            if one is not None and one not in allowed:
                shown = ", ".join(str(a) for a in allowed)
                msg = f"options.{option}: {one!r} is not one of {shown}"
                raise RulesError(msg)


#: the allowed ranges of values, inclusive, kept as data beside the rulesets
_BOUNDS = tomllib.loads((RULESET_DIR / "_bounds.toml").read_text("utf-8"))
#: the allowed range of every numeric option of the built-in rulesets, by option name
OPTION_BOUNDS: dict[str, tuple[int, int]] = {k: (int(v[0]), int(v[1])) for k, v in _BOUNDS["options"].items()}
#: the allowed range of a numeric table value by the end of its key (the whole key, or ``_`` + the end)
TABLE_BOUNDS: dict[str, tuple[int, int]] = {k: (int(v[0]), int(v[1])) for k, v in _BOUNDS["table_keys"].items()}
#: options that must not exceed another: option -> the option it is at most
AT_MOST: dict[str, str] = {str(k): str(v) for k, v in _BOUNDS["at_most"].items()}


def check_values(content: dict[str, Any]) -> None:
    """Refuse values a procedure cannot use: NaN or infinities, out-of-range options, bad dice."""
    _check_finite(content, "")
    _check_option_bounds(content.get("options", {}))
    _check_tables(content.get("tables", {}), "tables")


def _check_finite(value: Any, where: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        msg = f"{where}: {value} is not allowed; use a finite number"
        raise RulesError(msg)
    if isinstance(value, dict):
        for key, item in value.items():
            _check_finite(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_finite(item, f"{where}[{i}]")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_range(value: Any, bounds: tuple[int, int], where: str) -> None:
    low, high = bounds
    if not low <= value <= high:
        msg = f"{where}: {value} is out of range; allowed {low} to {high}"
        raise RulesError(msg)


def _check_option_bounds(options: dict[str, Any]) -> None:
    for name, value in options.items():
        if not _is_number(value):
            continue
        where = f"options.{name}"
        bounds = OPTION_BOUNDS.get(name)
        if bounds is None:
            msg = f"{where}: no allowed range is known for this option"
            raise RulesError(msg)
        _check_range(value, bounds, where)
    for low_name, high_name in AT_MOST.items():
        low, high = options.get(low_name), options.get(high_name)
        if isinstance(low, int | float) and isinstance(high, int | float) and low > high:
            msg = f"options.{low_name}: {low} is above options.{high_name} {high}"
            raise RulesError(msg)


def _table_bounds(key: str) -> tuple[int, int] | None:
    for end, bounds in TABLE_BOUNDS.items():
        if key == end or key.endswith(f"_{end}"):
            return bounds
    return None


def _is_dice_key(key: str) -> bool:
    return key == "dice" or key.endswith("_dice")


def _check_tables(value: Any, where: str) -> None:
    """Walk the tables: dice expressions must parse, divisors must be at least 1."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_tables(item, f"{where}[{i}]")
        return
    if not isinstance(value, dict):
        return
    for key, item in value.items():
        dotted = f"{where}.{key}"
        if _is_dice_key(str(key)) and isinstance(item, str) and item:
            try:
                dice.parse(item)
            except DiceExpressionError as err:
                msg = f"{dotted}: {err}"
                raise RulesError(msg) from err
        bounds = _table_bounds(str(key))
        if bounds is not None and _is_number(item):
            _check_range(item, bounds, dotted)
        _check_tables(item, dotted)


def render_value(value: Any) -> str:
    """A value written compactly, as a referee reads it (``true``, ``1, 2``, ``a=1 b=x``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return " ".join(f"{k}={_render_inner(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(_render_inner(v) for v in value) + "]"
    return str(value)


def _render_inner(value: Any) -> str:
    if isinstance(value, str):
        plain = value and not any(ch.isspace() or ch in '=,[]{}"' for ch in value)
        return value if plain else f'"{value}"'
    if isinstance(value, dict):
        return "{" + render_value(value) + "}"
    return render_value(value)


def _is_nested(value: Any) -> bool:
    """True for a table holding tables, or an array of tables: shown one row per part."""
    if isinstance(value, dict):
        return any(isinstance(v, dict) or _is_table_array(v) for v in value.values())
    return _is_table_array(value)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _table_rows(path: str, value: Any) -> list[tuple[str, str]]:
    if _is_table_array(value):
        return [(f"{path}[{i}]", render_value(item)) for i, item in enumerate(value)]
    if _is_nested(value):
        rows: list[tuple[str, str]] = []
        for key, item in value.items():
            rows.extend(_table_rows(f"{path}.{key}", item))
        return rows
    return [(path, render_value(value))]


def describe(rules: Ruleset) -> list[tuple[str, str]]:
    """Readable rows for ``rules show``: identity, every option (with its choices), every table."""
    content = rules.content
    rows = [
        ("name", rules.name), ("title", rules.title),
        ("seed", str(content.get("seed", ""))), ("hash", rules.hash),
    ]
    choices = content.get("choices", {})
    for name, value in content.get("options", {}).items():
        text = render_value(value)
        if name in choices:
            text += f"  (choices: {', '.join(render_value(c) for c in choices[name])})"
        rows.append((f"options.{name}", text))
    for name, table in content.get("tables", {}).items():
        rows.extend(_table_rows(f"tables.{name}", table))
    return rows


def flatten(content: dict[str, Any], path: str = "") -> dict[str, Any]:
    """Every leaf of a ruleset by dotted key path; arrays of tables are indexed as ``key[i]``."""
    leaves: dict[str, Any] = {}
    for key, value in content.items():
        where = f"{path}.{key}" if path else key
        if isinstance(value, dict):
            leaves.update(flatten(value, where))
        elif _is_table_array(value):
            for i, item in enumerate(value):
                leaves.update(flatten(item, f"{where}[{i}]"))
        else:
            leaves[where] = value
    return leaves


def diff(a: Ruleset, b: Ruleset) -> list[tuple[str, Any, Any]]:
    """Every dotted key path whose value differs, with ``a``'s then ``b``'s value (None = absent)."""
    left, right = flatten(a.content), flatten(b.content)
    keys = list(left) + [k for k in right if k not in left]
    return [
        (k, left.get(k), right.get(k))
        for k in keys
        if (k in left) != (k in right) or left[k] != right[k]
    ]


def from_recorded(name: str, content: dict[str, Any]) -> Ruleset:
    """The ruleset exactly as a campaign event recorded it."""
    return Ruleset(name=name, content=copy.deepcopy(content))
