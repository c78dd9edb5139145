"""Rulesets as data: the built-in TOML files, referee overrides, and the content hash."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import attrs

from hexlog.events.chain import canonical_json, sha256_hex
from hexlog.events.errors import UsageError

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
    return sorted(p.stem for p in RULESET_DIR.glob("*.toml"))


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


def merge(base: dict[str, Any], overrides: dict[str, Any], path: str = "") -> dict[str, Any]:
    """``base`` with ``overrides`` laid over it; unknown keys and wrong types are refused by name."""
    merged = copy.deepcopy(base)
    choices: dict[str, Any] = base.get("choices", {}) if not path else {}
    for key, value in overrides.items():
        where = f"{path}.{key}" if path else key
        if key in {"name", "choices"} and not path:
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
        numeric = {_kind(old), _kind(value)} <= {"integer", "number"}
        if _kind(old) != _kind(value) and not numeric:
            msg = f"{where}: expected {_kind(old)}, got {_kind(value)}"
            raise RulesError(msg)
        merged[key] = value
    if not path:
        _check_choices(merged, choices)
    return merged


def _check_choices(content: dict[str, Any], choices: dict[str, Any]) -> None:
    options = content.get("options", {})
    for option, allowed in choices.items():
        value = options.get(option)
        if value is not None and value not in allowed:
            shown = ", ".join(str(a) for a in allowed)
            msg = f"options.{option}: {value!r} is not one of {shown}"
            raise RulesError(msg)


def from_recorded(name: str, content: dict[str, Any]) -> Ruleset:
    """The ruleset exactly as a campaign event recorded it."""
    return Ruleset(name=name, content=copy.deepcopy(content))
