"""Rulesets as data: the built-in TOML files, referee overrides, the content hash, and typed parts.

A ruleset is its name and its content (``[options]`` and ``[tables]`` as plain data); its hash is
the SHA-256 of the canonical JSON of the content, recorded with it in the log. Procedures never read
the content directly: each reads the typed parts it declares (``Ruleset.part``), structured from the
content the first time they are asked for. A key that no procedure reads is not used: a house rule
may not set it, and ``rules show`` says so.
"""

from __future__ import annotations

import copy
import enum
import functools
import json
import math
import re
import tomllib
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from hexlog.events import files
from hexlog.events.chain import canonical_json, sha256_hex
from hexlog.events.errors import Advice
from hexlog.machine.kit import recorded
from hexlog.machine.kit.rules import (
    SECTIONS,
    RulesError,
    entry_by,
    help_of,
    keys_of,
    kind_of,
    read_when,
    structure,
    unstructure,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

DEFAULT_RULESET = "ose"
RULESET_DIR = Path(__file__).parent / "rulesets"
#: top-level keys a referee's overrides may not touch
FIXED_KEYS = frozenset({"name", "seed"})

T = TypeVar("T")

__all__ = ["DEFAULT_RULESET", "SECTIONS", "RulesError", "Ruleset", "builtin_names", "describe", "diff", "load"]


@attrs.frozen
class Ruleset:
    """A resolved ruleset: its name and content, and the typed parts procedures read from it."""

    name: str
    content: dict[str, Any]
    #: the rules a campaign recorded (``from_recorded``): a part this release refuses is refused as the rules in force
    recorded: bool = attrs.field(default=False, kw_only=True, eq=False)
    #: read as recorded (``as_recorded``): a part this release refuses is read as the recording release took it
    lenient: bool = attrs.field(default=False, kw_only=True, eq=False)
    _parts: dict[type, Any] = attrs.field(factory=dict, init=False, eq=False, repr=False)
    _twin: list[Ruleset] = attrs.field(factory=list, init=False, eq=False, repr=False)

    @property
    def hash(self) -> str:
        """SHA-256 of the canonical JSON of the whole content."""
        return sha256_hex(canonical_json(self.content))

    @property
    def title(self) -> str:
        """The human name of the ruleset."""
        return str(self.content.get("title", self.name))

    def part(self, cls: type[T]) -> T:
        """The typed part ``cls`` of this ruleset (structured once); ``RulesError`` naming a bad key."""
        found = self._parts.get(cls)
        if found is None:
            section: str = cls.section  # type: ignore[attr-defined]
            data = self.content.get(section, {})
            if not isinstance(data, dict):  # not even as recorded: a release records each section as a table
                msg = f"{section}: the rules cannot be read: expected a table, got {kind_of(data)}"
                raise RulesError(msg)
            legacy = getattr(cls, "legacy", None)
            if legacy is not None:
                data = legacy(dict(data), self.name)
            try:
                found = structure(cls, data, section)
            except RulesError as err:
                if self.lenient:
                    found = recorded.structure(cls, data, section)
                elif self.recorded:
                    msg = (
                        f"the rules in force ({self.name}, as the campaign recorded them) have values this hexlog "
                        f"refuses: {err}; put rules it accepts in force with '"
                    )
                    raise RulesError(msg).advising(Advice("ChangeRules"), "'") from err
                else:
                    raise
            self._parts[cls] = found
        return typing.cast("T", found)

    def as_recorded(self) -> Ruleset:
        """The same rules, read as the release that recorded them took them (for the audit's re-runs).

        A part this release reads as it is; one it refuses (a value an earlier release accepted, such
        as a distance unit ``m``) is read by ``kit.recorded``, so a decision recorded under it can be
        re-derived. New play never reads rules this way: it is refused, naming the key.
        """
        if self.lenient:
            return self
        if not self._twin:
            self._twin.append(Ruleset(name=self.name, content=self.content, recorded=True, lenient=True))
        return self._twin[0]

    def check(self, parts: Iterable[type]) -> None:
        """Structure every part procedures read, refusing the ruleset at the first bad key."""
        for cls in parts:
            self.part(cls)


def builtin_names() -> list[str]:
    """The names of the rulesets shipped with hexlog."""
    return sorted(p.stem for p in RULESET_DIR.glob("*.toml") if not p.stem.startswith("_"))


def _builtin_content(name: str) -> dict[str, Any]:
    if name not in builtin_names():
        msg = f"unknown ruleset {name!r}; known: {', '.join(builtin_names())}"
        raise RulesError(msg)
    return tomllib.loads((RULESET_DIR / f"{name}.toml").read_text("utf-8"))


def load(
    name: str,
    overrides: dict[str, Any] | None = None,
    *,
    used: set[tuple[str, str]] | None = None,
    parts: Iterable[type] = (),
) -> Ruleset:
    """A built-in ruleset with the referee's overrides laid over it, checked.

    ``used`` (the keys procedures read) refuses an override of a key no procedure reads; ``parts``
    are structured at once, so a wrong type or value is refused here, naming its key.
    """
    content = _builtin_content(name)
    if overrides:
        content = merge(content, overrides, used=used)
    _check_finite(content, "")
    rules = Ruleset(name=name, content=content)
    rules.check(parts)
    return rules


def load_overrides(text: str, source: str = "rules file") -> dict[str, Any]:
    """Parse a referee's TOML override file."""
    try:
        return files.loads_toml(text)
    except (tomllib.TOMLDecodeError, files.FileContentError) as err:
        msg = f"{source} is not valid TOML: {err}"
        raise RulesError(msg) from err


def merge(
    base: dict[str, Any], overrides: dict[str, Any], *, used: set[tuple[str, str]] | None = None
) -> dict[str, Any]:
    """``base`` with ``overrides`` laid over it: tables merge key by key, anything else is replaced.

    An unknown key, a key that cannot be overridden, a section that is not a table and (given
    ``used``) a key no procedure reads are refused by name. Given ``used``, an option or table a
    procedure reads may be added even where ``base`` leaves it out (OSE has no ``avoid_rule``, and
    a house rule may give it one); its part then checks it like any other.
    """
    merged = copy.deepcopy(base)
    for key, value in overrides.items():
        if key in FIXED_KEYS:
            msg = f"{key}: cannot be overridden"
            raise RulesError(msg)
        if key not in base:
            msg = f"unknown key {key!r}"
            raise RulesError(msg)
        if key not in SECTIONS:
            merged[key] = copy.deepcopy(value)
            continue
        if not isinstance(value, dict):
            msg = f"{key}: expected a table, got {kind_of(value)}"
            raise RulesError(msg)
        for inner, item in value.items():
            where = f"{key}.{inner}"
            read = used is not None and (key, inner) in used
            if inner not in base[key] and not read:
                msg = f"unknown key {where!r}"
                raise RulesError(msg)
            if used is not None and not read:
                msg = f"{where} is not used by any procedure yet, so a house rule cannot change it"
                raise RulesError(msg)
            old = base[key].get(inner)
            merged[key][inner] = copy.deepcopy(item) if old is None else _merged(old, item, where)
    return merged


def _merged(old: Any, new: Any, where: str) -> Any:
    """``new`` laid over ``old``, tables key by key; a table for a value, or a value for a table, is refused."""
    if isinstance(old, dict) != isinstance(new, dict):
        msg = f"{where}: expected {kind_of(old)}, got {kind_of(new)}"
        raise RulesError(msg)
    if isinstance(old, dict):
        out = copy.deepcopy(old)
        for key, value in new.items():
            out[key] = _merged(old[key], value, f"{where}.{key}") if key in old else copy.deepcopy(value)
        return out
    return copy.deepcopy(new)


#: the largest integer a JSON reader holds exactly: a recorded ruleset holds none larger
SAFE_INTEGER = 2**53 - 1


def _check_finite(value: Any, where: str) -> None:
    """TOML allows nan and inf, and integers past 2**53; no rule can use them (a log records them inexactly)."""
    if isinstance(value, float) and not math.isfinite(value):
        msg = f"{where}: {value} is not allowed; use a finite number"
        raise RulesError(msg)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > SAFE_INTEGER:
        msg = f"{where}: {value} is too large; a number in the rules is at most 2**53 - 1 either way"
        raise RulesError(msg)
    if isinstance(value, dict):
        for key, item in value.items():
            _check_finite(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_finite(item, f"{where}[{i}]")


def render_value(value: Any) -> str:
    """A value written compactly, as a referee reads it (``true``, ``1, 2``, ``a=1 b=x``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return " ".join(f"{k}={_render_inner(v)}" for k, v in value.items()) if value else "{}"
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


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _table_rows(path: str, value: Any) -> list[tuple[str, str]]:
    if _is_table_array(value):
        return [(f"{path}[{i}]", render_value(item)) for i, item in enumerate(value)]
    nested = isinstance(value, dict) and any(isinstance(v, dict) or _is_table_array(v) for v in value.values())
    if nested:
        rows: list[tuple[str, str]] = []
        for key, item in value.items():
            rows.extend(_table_rows(f"{path}.{key}", item))
        return rows
    return [(path, render_value(value))]


@attrs.frozen
class Row:
    """One line of ``rules show``: a key, its value, and what it is for."""

    key: str
    value: str
    #: the procedures that read it (empty: not used by any procedure yet)
    readers: tuple[str, ...] = ()
    #: the sentence that explains it
    help: str = ""
    #: the values it may take, for a choice
    choices: tuple[str, ...] = ()
    #: why its readers do not read it under these rules ("" when they do): an option it is read under holds another
    #: value (``rule(read_when=...)``)
    idle: str = ""
    #: when its readers read it ("" when always): ``options.distance_rules is ose``
    when: str = ""


def _explain(parts: Iterable[type], section: str, key: str) -> tuple[str, tuple[str, ...]]:
    for cls in parts:
        if cls.section == section and key in keys_of(cls):  # type: ignore[attr-defined]
            return help_of(cls, key), _choices(typing.get_type_hints(cls)[key])
    return "", ()


def _choices(kind: Any) -> tuple[str, ...]:
    """The values of the enum a field holds (alone, optional, or as the elements of a tuple)."""
    for arg in (kind, *typing.get_args(kind)):
        if isinstance(arg, type) and issubclass(arg, enum.Enum):
            return tuple(str(m.value) for m in arg)
        inner = typing.get_args(arg)
        if inner and isinstance(inner[0], type) and issubclass(inner[0], enum.Enum):
            return tuple(str(m.value) for m in inner[0])
    return ()


def _read_under(rules: Ruleset, parts: list[type], section: str, key: str) -> tuple[str, str]:
    """When the procedures read a key (``rule(read_when=...)``), and why they do not under these rules: ("", "")
    for a key read whatever the options hold."""
    for cls in parts:
        if cls.section != section or key not in keys_of(cls):  # type: ignore[attr-defined]
            continue
        found = read_when(cls, key)
        if found is None:
            return "", ""
        when = " or ".join(f"options.{option} is {' or '.join(values)}" for option, values in found)
        held = [_option_value(rules, parts, option) for option, _ in found]
        if any(value is None for value in held):  # rules that cannot be read: said where they are read
            return when, ""
        if any(value in values for value, (_, values) in zip(held, found, strict=True)):
            return when, ""
        return when, "; ".join(f"options.{option} is {value}" for value, (option, _) in zip(held, found, strict=True))
    return "", ""


def _option_value(rules: Ruleset, parts: list[type], option: str) -> str | None:
    """An option's value under the rules, in words (``(not set)`` when left out and none by default); None when the
    rules cannot be read or no part has the option."""
    for holder in parts:
        if holder.section == "options" and option in keys_of(holder):  # type: ignore[attr-defined]
            try:
                value = getattr(rules.part(holder), option)
            except RulesError:
                return None
            return NOT_SET if value is None else str(value.value if isinstance(value, enum.Enum) else value)
    return None


def describe(rules: Ruleset, readers: Any, parts: Iterable[type], *, left_out: bool = False) -> list[Row]:
    """Every option and table of a ruleset as ``rules show`` prints it.

    ``readers(section, key)`` names the procedures reading a key (``Registry.readers``). With
    ``left_out``, each key a procedure reads that the ruleset leaves out follows its section, shown
    with its default or as not set (a house rule may add it).
    """
    listed = list(parts)
    content = rules.content
    rows = [
        Row("name", rules.name),
        Row("title", rules.title),
        Row("seed", str(content.get("seed", ""))),
        Row("hash", rules.hash),
    ]
    for name, value in content.get("options", {}).items():
        text, choices = _explain(listed, "options", name)
        rows.append(Row(f"options.{name}", render_value(value), tuple(readers("options", name)), text, choices))
    if left_out:
        rows.extend(_left_out(listed, "options", content, readers))
    for name, table in content.get("tables", {}).items():
        text, _ = _explain(listed, "tables", name)
        who = tuple(readers("tables", name))
        rows.extend(Row(key, shown, who, text) for key, shown in _table_rows(f"tables.{name}", table))
        rows.extend(Row(key, shown, who, text) for key, shown in _inner_defaults(listed, name, table))
    if left_out:
        rows.extend(_left_out(listed, "tables", content, readers))
    return [_with_reading(rules, listed, row) for row in rows]


def _with_reading(rules: Ruleset, parts: list[type], row: Row) -> Row:
    """The row with when its readers read it and why they do not under these rules (``rule(read_when=...)``)."""
    section, _, rest = row.key.partition(".")
    if section not in SECTIONS or not row.readers:
        return row
    key = re.split(r"[.\[]", rest, maxsplit=1)[0]
    when, idle = _read_under(rules, parts, section, key)
    row = attrs.evolve(row, when=when, idle=idle) if when else row
    if row.idle:
        return row
    other = _other_entry(rules, parts, section, key, rest[len(key) :])
    return attrs.evolve(row, idle=other) if other else row


def _other_entry(rules: Ruleset, parts: list[type], section: str, key: str, after: str) -> str:
    """Why the procedures do not read this entry of a table of which they read only the one an option names
    (``chosen_by``): ``options.search_table is default`` for ``tables.search.dvdm``; "" when they read it,
    read every entry, or the option is not set."""
    entry = re.split(r"[.\[]", after.removeprefix("."), maxsplit=1)[0] if after.startswith(".") else ""
    if not entry:
        return ""
    for cls in parts:
        if cls.section != section or key not in keys_of(cls):  # type: ignore[attr-defined]
            continue
        option = entry_by(cls, key)
        value = _option_value(rules, parts, option) if option else None
        if value is None or value in (NOT_SET, entry):
            return ""
        return f"options.{option} is {value}"
    return ""


def _inner_defaults(parts: list[type], name: str, table: Any) -> list[tuple[str, str]]:
    """A row for each field of a table the ruleset gives that it leaves to its default (``tables.dungeon``'s
    ``danger_every_turns``): the rules read it all the same."""
    if not isinstance(table, dict):
        return []
    for cls in parts:
        if cls.section != "tables" or name not in attrs.fields_dict(cls):  # type: ignore[attr-defined]
            continue
        hint = typing.get_type_hints(cls).get(name)
        one = [t for t in typing.get_args(hint) if t is not type(None)] if typing.get_args(hint) else [hint]
        if len(one) != 1 or not isinstance(one[0], type) or not attrs.has(one[0]):  # a table of rows: its keys
            return []
        rows = []
        for field_name, field in attrs.fields_dict(one[0]).items():
            default: Any = field.default
            if hasattr(default, "factory"):  # an ``attrs.Factory``
                default = default.factory()
            if field_name in table or default is attrs.NOTHING or default is None or default in ("", (), []):
                continue  # given, or a rule left out by default (nothing to show of it)
            rows.append((f"tables.{name}.{field_name}", f"{render_value(unstructure(default))} (default)"))
        return rows
    return []


#: how ``rules show`` writes an option or table the ruleset leaves out and whose rule then does not apply
NOT_SET = "(not set)"


def _left_out(parts: list[type], section: str, content: dict[str, Any], readers: Any) -> list[Row]:
    """A row for each key a procedure reads that the ruleset leaves out: its default, or not set."""
    present = content.get(section, {})
    rows: list[Row] = []
    for cls in parts:
        if cls.section != section:  # type: ignore[attr-defined]
            continue
        for name, field in attrs.fields_dict(cls).items():
            if name in present or any(r.key == f"{section}.{name}" for r in rows):
                continue
            default: Any = field.default
            if hasattr(default, "factory"):  # an ``attrs.Factory``
                default = default.factory()
            unset = default is None or default is attrs.NOTHING
            shown = NOT_SET if unset else f"{render_value(unstructure(default))} (default)"
            text, choices = _explain(parts, section, name)
            choices = choices if section == "options" else ()  # as for the tables a ruleset has
            rows.append(Row(f"{section}.{name}", shown, tuple(readers(section, name)), text, choices))
    return rows


def flatten(content: dict[str, Any], path: str = "") -> dict[str, Any]:
    """Every leaf of a ruleset by dotted key path; arrays of tables are indexed as ``key[i]``. A key that is not a bare
    word is quoted (``options."a.b"``) and an empty table is a leaf of its own, so that two contents with the same
    leaves are the same content."""
    leaves: dict[str, Any] = {}
    for key, value in content.items():
        _leaves(leaves, f"{path}.{_segment(key)}" if path else _segment(key), value)
    return leaves


def _segment(key: str) -> str:
    """A key as a dotted path names it: bare when it is a bare word, quoted otherwise."""
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _leaves(leaves: dict[str, Any], where: str, value: Any) -> None:
    if isinstance(value, dict) and value:
        leaves.update(flatten(value, where))
    elif _is_table_array(value):
        for i, item in enumerate(value):
            _leaves(leaves, f"{where}[{i}]", item)
    else:
        leaves[where] = value


def diff(a: Ruleset, b: Ruleset) -> list[tuple[str, Any, Any]]:
    """Every dotted key path whose value differs, with ``a``'s then ``b``'s value (None = absent). Values differ as
    their JSON does: ``6`` and ``6.0``, or ``true`` and ``1``, are two values (two hashes), not one."""
    left, right = flatten(a.content), flatten(b.content)
    keys = list(left) + [k for k in right if k not in left]
    return [
        (k, left.get(k), right.get(k))
        for k in keys
        if (k in left) != (k in right) or canonical_json(left[k]) != canonical_json(right[k])
    ]


RELEASED_DIR = RULESET_DIR / "released"


@attrs.frozen
class Origin:
    """Where a ruleset comes from: the built-in it is (or is closest to), and what house rules changed."""

    #: the built-in, and the release that shipped it when it is not the current one (``ose 0.1.0``, or
    #: ``ose 0.1.0 (kept from commit 4e33ebe, 2026-11-29)`` for the shape a later build of it shipped)
    base: str
    #: each key a house rule changed: (dotted key, built-in value, value in force)
    changes: tuple[tuple[str, Any, Any], ...] = ()
    #: whether a built-in of that name exists (of this release or an earlier one): a ruleset under another name is
    #: the referee's own through and through
    builtin: bool = True
    #: whether the built-in is a shape an earlier build shipped rather than today's
    earlier: bool = False
    #: for an earlier shape, each rule today's built-in reads otherwise: (dotted key, value in that shape, today's
    #: value), None where one of them does not set it (the code's default)
    since: tuple[tuple[str, Any, Any], ...] = ()

    @property
    def house_rules(self) -> bool:
        """Whether house rules were laid over the built-in."""
        return bool(self.changes)


def _kept_from(text: str) -> str:
    """Where a kept shape's header says it was shipped from (``commit 4e33ebe, 2026-11-29``), or "" for none."""
    found = re.search(r"from commit (\w+) \(([\d-]+)\)", text.split("\n", 1)[0])
    return f"commit {found[1]}, {found[2]}" if found else ""


@functools.cache
def _known_builtins(name: str) -> tuple[tuple[str, dict[str, Any], str], ...]:
    """The built-in ``name`` of this release and every shape earlier builds shipped it in: (label, content, hash).

    A release's folder holds ``NAME.toml`` and, where its builds changed the built-in, ``NAME.2.toml``, ...: a
    campaign recorded under any of them is that built-in, not house rules over today's. A later build's shape is
    labelled with where its header says it was kept from."""
    return tuple((label, content, known) for _, label, content, known in _shapes(name))


@functools.cache
def _shapes(name: str) -> tuple[tuple[str, str, dict[str, Any], str], ...]:
    """Every shape of the built-in ``name``, today's first: (key, label, content, hash), keyed by ``name`` for
    today's and ``<release>/<file stem>`` for a kept one."""
    found: list[tuple[str, str, dict[str, Any]]] = []
    if name in builtin_names():
        found.append((name, name, _builtin_content(name)))
    for folder in sorted(RELEASED_DIR.glob("*/")):
        for path in sorted(folder.glob("*.toml"), key=lambda p: (len(p.stem), p.stem)):
            if path.stem != name and not (path.stem.startswith(f"{name}.") and path.stem[len(name) + 1 :].isdigit()):
                continue
            text = path.read_text("utf-8")
            kept = _kept_from(text)
            label = f"{name} {folder.name}" + (f" (kept from {kept})" if kept else "")
            found.append((f"{folder.name}/{path.stem}", label, tomllib.loads(text)))
    return tuple((key, label, content, Ruleset(name, content).hash) for key, label, content in found)


def shapes(name: str) -> tuple[tuple[str, str, str], ...]:
    """Every shape a build shipped the built-in ``name`` in: (key, label, hash), today's first (key ``name``; a
    kept one ``<release>/<file stem>``)."""
    return tuple((key, label, known) for key, label, _, known in _shapes(name))


def _since(name: str, content: dict[str, Any], parts: Iterable[type]) -> tuple[tuple[str, Any, Any], ...]:
    """The rules today's built-in ``name`` reads otherwise than a shape of it: each key of ``options`` and
    ``tables`` whose value the two record differently and whose part (of ``parts``) reads differently, so that a key
    one leaves to the code's default and the other records at that default is no change. A key one side leaves out
    holds the default it reads (as ``rules show`` writes it), or None when it reads none."""
    if name not in builtin_names():
        return ()
    then, today = Ruleset(name, content).as_recorded(), Ruleset(name, _builtin_content(name)).as_recorded()
    read: dict[str, tuple[Any, Any]] = {}
    for cls in parts:
        left: Any = then.part(cls)
        right: Any = today.part(cls)
        section: str = cls.section  # type: ignore[attr-defined]
        for field in attrs.fields(cls):
            if getattr(left, field.name) != getattr(right, field.name):
                read[f"{section}.{field.name}"] = (left, right)
    found = []
    for key, was, now in diff(then, today):
        parts_read = read.get(".".join(key.split(".")[:2]).split("[", 1)[0])
        if key.split(".", 1)[0] not in SECTIONS or parts_read is None:
            continue
        path = key.split(".")[1:]
        was_read = _by_default(parts_read[0], path) if was is None else was
        now_read = _by_default(parts_read[1], path) if now is None else now
        found.append((key, was_read, now_read))
    return tuple(found)


def _by_default(part: Any, path: list[str]) -> str | None:
    """The value a typed part reads at a key its ruleset leaves out (``4 (default)``), or None when it reads none."""
    value = part
    for step in path:
        if "[" in step or not attrs.has(type(value)):
            return None
        value = getattr(value, step, None)
    return None if value is None else f"{render_value(unstructure(value))} (default)"


def origin(rules: Ruleset, parts: Iterable[type] = ()) -> Origin:
    """The built-in a ruleset is, or the one it differs from least, and the house rules laid over it; with the rule
    ``parts`` procedures read, what today's built-in reads otherwise than an earlier shape of it."""
    candidates = _known_builtins(rules.name) if rules.name in shipped_names() else ()
    if not candidates:
        return Origin(base=f"{rules.name} (not a built-in)", builtin=False)
    found = rules.hash
    exact = next(((label, content) for label, content, known in candidates if known == found), None)
    changes: list[tuple[str, Any, Any]] = []
    if exact is not None:
        label, content = exact
    else:
        scored = [(diff(Ruleset(rules.name, content), rules), label, content) for label, content, _ in candidates]
        changes, label, content = min(scored, key=lambda item: len(item[0]))
    earlier = label != rules.name
    ruled = {key for key, _, _ in changes}  # a key a house rule sets is told as one, read as the campaign has it
    since = tuple(item for item in _since(rules.name, content, parts) if item[0] not in ruled) if earlier else ()
    return Origin(base=label, changes=tuple(changes), earlier=earlier, since=since)


@functools.cache
def shipped_names() -> frozenset[str]:
    """The names of every built-in of this release or an earlier one (a recorded name is never read as a path)."""
    names = {p.stem for p in RULESET_DIR.glob("*.toml")}
    names |= {p.stem.split(".")[0] for p in RELEASED_DIR.glob("*/*.toml")}
    return frozenset(names)


def display_name(rules: Ruleset) -> str:
    """The name a ruleset is shown by: ``ose``, or ``ose + house rules, hash 1a6e40cb...`` when it was changed; an
    earlier build's shape of a built-in is shown as that shape (``ose 0.1.0 (kept from commit 4e33ebe, 2026-11-29)``),
    so that a referee and the players see that today's built-in reads otherwise."""
    found = origin(rules)
    name = found.base if found.earlier else rules.name
    if not found.house_rules:
        return name
    return f"{name} + house rules, hash {rules.hash[:8]}..."


def from_recorded(name: str, content: dict[str, Any]) -> Ruleset:
    """The ruleset exactly as a campaign event recorded it."""
    return Ruleset(name=name, content=_copied(content), recorded=True)


def from_stored(name: str, content: dict[str, Any]) -> Ruleset:
    """The ruleset a saved table holds (what ``from_recorded`` gives), its content taken as the store gave it: an
    SQL store decodes a new copy for each read, and the memory store gives back the content of the ruleset it was
    given, which, like every ruleset's, nothing changes. A cold command's table is thus built without copying the
    whole ruleset (about 200 values) again."""
    return Ruleset(name=name, content=content, recorded=True)


def _copied(value: Any) -> Any:
    """``copy.deepcopy(value)`` for JSON data (dicts, lists and atoms, copied in a third of the time); any
    other value is deep-copied as it is."""
    kind = value.__class__
    if kind is dict:
        return {key: _copied(item) for key, item in value.items()}
    if kind is list:
        return [_copied(item) for item in value]
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    return copy.deepcopy(value)
