"""Every command a user gives, of every registered procedure, as an HTTP route, built from the registry: nothing
here names one.

A command of procedure ``P`` is ``POST /campaigns/{campaign}/P/STEP``: ``STEP`` is its trigger as the
command line spells it (``check-surprise``), or, for a procedure without a machine, its class name
in the same spelling (``open-session``). A command of a procedure with a machine that no trigger names is
hexlog's own (the audit's re-run of an older log): it has no route, as it has no subcommand. The body is a
JSON object of the command's fields, with the JSON Schema and the sentences of their ``arg(help=...)``. A field
that names a file on the command line (``file``) takes the file's text over HTTP: the service never reads a path
a client gives.
"""

from __future__ import annotations

import enum
import re
import types
import typing
from typing import TYPE_CHECKING, Any

import attrs
from cattrs import transform_error
from cattrs.errors import BaseValidationError

from hexlog.events import strict
from hexlog.events.codec import converter
from hexlog.events.errors import Advice, UsageError
from hexlog.machine import commands as c
from hexlog.machine import text
from hexlog.machine.commands import (
    FLAG,
    HELP,
    LEAST,
    NEEDED,
    NEGATE,
    POSITIONAL,
    WITHIN,
    field_limits,
    unset_when_empty,
)
from hexlog.machine.kit.procedure import Procedure
from hexlog.service import render

if TYPE_CHECKING:
    from hexlog.machine.kit.registry import Registry

#: the fields whose command-line value is a file's path; over HTTP they carry the file's text
FILE_FIELDS = frozenset({"file"})
#: the widest integer a body may carry (no rule of the game needs more)
INT_LIMIT = 2**31 - 1
#: the pattern of text that holds more than spaces: a field that empty text leaves unset takes no blank text
NOT_BLANK = r"\S"


def player_may(command: c.Command) -> bool:
    """Whether a player's token may send this command: the client seed, and a roll everyone sees."""
    if isinstance(command, c.SetClientSeed):
        return True
    return isinstance(command, c.RollDice) and not command.secret


def kebab(name: str) -> str:
    """``OpenSession`` -> ``open-session``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


@attrs.frozen
class CommandRoute:
    """One command class and where it is sent."""

    procedure: Procedure
    cls: type[c.Command]
    step: str

    @property
    def path(self) -> str:
        """The route's path template."""
        return f"/campaigns/{{campaign}}/{self.procedure.name}/{self.step}"

    @property
    def name(self) -> str:
        """``procedure/step``: how logs and responses name the command."""
        return f"{self.procedure.name}/{self.step}"

    @property
    def player(self) -> bool:
        """Whether a player's token may send some command of this route."""
        return self.cls in {c.SetClientSeed, c.RollDice}

    @property
    def referee(self) -> bool:
        """Whether the referee's token may send this route's command: all but the players' client seed, whose worth is
        that the referee, who knows the session's secret, did not choose it."""
        return self.cls is not c.SetClientSeed

    def schema(self, *, told: bool = True) -> dict[str, Any]:
        """The JSON Schema of the body: as the document tells it (``told``), a number gives the range its step holds
        it to (``arg(within=...)``); as a body is checked against it, that range is left to the step, which refuses
        a number outside it in its own words, as on the command line."""
        hints = typing.get_type_hints(self.cls)
        properties: dict[str, Any] = {}
        required = []
        for field in attrs.fields(self.cls):
            limits = field_limits(field) or (field.metadata.get(LEAST), None)
            within = field.metadata.get(WITHIN) if told else None
            if within is not None:
                limits = (within.least, within.most)
            prop = json_schema(hints[field.name], *limits)
            if field.name in FILE_FIELDS:
                prop = {"type": "string", "maxLength": 1_000_000}
                prop["description"] = (
                    "the text of the file (over HTTP the service never reads a path); the whole body is held to the "
                    "service's --max-body (256 KiB unless it is given more)"
                )
            else:
                if field.name not in text.NOT_TEXT:  # free text: as long as the core lets it be
                    _text_limit(prop, text.limit_of(field.name))
                if field.metadata.get(HELP):
                    prop["description"] = field.metadata[HELP]
            if _presence(field, prop):
                required.append(field.name)
            properties[field.name] = prop
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        if required:
            schema["required"] = required
        return schema

    def command(self, body: Any) -> c.Command:
        """The command a body asks for; ``UsageError`` in the command line's words when it is not one."""
        problems = validate(body, self.schema(told=False), "body", option_hints(self.cls))
        if problems:
            raise UsageError("; ".join(problems[:3]))
        try:
            return converter.structure(body, self.cls)
        except BaseValidationError as err:  # a value the schema lets by and the codec's strict hooks refuse
            found = "; ".join(transform_error(err, path="body", format_exception=strict.described)[:3])
            msg = f"the body is not a {self.name} command: {found}"
            raise UsageError(msg) from None
        except (ValueError, TypeError) as err:
            msg = f"the body is not a {self.name} command: {err}"
            raise UsageError(msg) from None


def _presence(field: attrs.Attribute[Any], prop: dict[str, Any]) -> bool:
    """Whether a body must give a field; its default, or what it may not be, in its schema ``prop``."""
    if field.metadata.get(NEEDED):  # a default the step refuses: required, and never empty
        prop["minItems" if prop.get("type") == "array" else "minLength"] = 1
        return True
    if field.default is attrs.NOTHING:
        return True
    if unset_when_empty(field):  # empty text is the field left out: a body gives text, or leaves it out
        prop.update(minLength=1, pattern=NOT_BLANK)
    elif not isinstance(field.default, attrs.Factory):  # type: ignore[arg-type]
        prop["default"] = _jsonable(field.default)
    return False


def option_hints(cls: type[c.Command]) -> dict[str, str]:
    """What to say of a body key that is not a field of ``cls`` but names one of its command-line options
    (``monsters``, ``party-surprise-mod``, ``party_surprise_mod``): which field that option sets."""
    found = _HINTS.get(cls)
    if found is not None:
        return found
    hints: dict[str, str] = {}
    names = {field.name for field in attrs.fields(cls)}
    for field in attrs.fields(cls):
        if field.metadata.get(POSITIONAL):
            continue  # given by position on the command line: no option to confuse with the field
        flags = (field.metadata.get(FLAG) or "--" + field.name.replace("_", "-")).split("/")
        for index, flag in enumerate(flags):
            if field.metadata.get(NEGATE) or index == 1:
                value = " set to false"
            elif len(flags) == 2:  # noqa: PLR2004 - a pair: the flag that sets it true, the one that sets it false
                value = " set to true"
            else:
                value = ""
            for key in (flag.removeprefix("--"), flag.removeprefix("--").replace("-", "_")):
                if key not in names:
                    hints.setdefault(key, f"; the option {flag} is the field {field.name}{value}")
    _HINTS[cls] = hints
    return hints


#: per command class, the hint for each body key that names one of its options instead of its field
_HINTS: dict[type, dict[str, str]] = {}


def _text_limit(schema: dict[str, Any], limit: int) -> None:
    """Give every string the schema of a field holds (itself, its items, its options) the field's longest text."""
    if schema.get("type") == "string" and "enum" not in schema:
        schema["maxLength"] = limit
    for inner in (schema.get("items"), *schema.get("anyOf", ())):
        if isinstance(inner, dict):
            _text_limit(inner, limit)


def _jsonable(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return list(value)
    return value


def json_schema(  # noqa: C901, PLR0911 - one branch per kind
    kind: Any, least: int | None = None, most: int | None = None
) -> dict[str, Any]:
    """The JSON Schema of a command field's type (a whole number from ``least`` to ``most`` where they are given)."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is bool:
        return {"type": "boolean"}
    if kind is int:
        low, high = -INT_LIMIT if least is None else least, INT_LIMIT if most is None else most
        return {"type": "integer", "minimum": low, "maximum": high}
    if kind is float:
        return {"type": "number"}
    if kind is str:
        return {"type": "string"}
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return {"type": "string", "enum": [m.value for m in kind]}
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin is tuple:
        return {"type": "array", "items": json_schema(args[0], least, most), "maxItems": 100}
    if origin is dict:
        return {"type": "object"}
    if origin in {typing.Union, types.UnionType}:
        others = [a for a in args if a is not type(None)]
        if str in others:  # an open word: a known value, or any text
            inner: dict[str, Any] = {"type": "string"}
        elif len(others) == 1:
            inner = json_schema(others[0], least, most)
        else:
            inner = {"anyOf": [json_schema(a, least, most) for a in others]}
        return {"anyOf": [inner, {"type": "null"}]} if type(None) in args else inner
    return {}


_TYPES: dict[str, tuple[type, ...]] = {
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def validate(  # noqa: C901, PLR0911, PLR0912 - one check per keyword
    value: Any, schema: dict[str, Any], where: str, hints: dict[str, str] | None = None
) -> list[str]:
    """What is wrong with a JSON value against the small part of JSON Schema the command bodies use (``hints``: what
    to add when a key of the object that is not a field is one of these)."""
    if "anyOf" in schema:
        if any(not validate(value, option, where) for option in schema["anyOf"]):
            return []
        others = [option for option in schema["anyOf"] if option.get("type") != "null"]
        if value is not None and len(others) == 1:  # an optional value given: what is wrong with it
            return validate(value, others[0], where)
        return [f"{where} has the wrong type"]
    kind = schema.get("type")
    if kind is not None:
        wanted = _TYPES[kind]
        if not isinstance(value, wanted) or (kind in {"integer", "number"} and isinstance(value, bool)):
            return [f"{where} must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where} must be one of {', '.join(map(str, schema['enum']))}"]
    if isinstance(value, int) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return [f"{where} must be at least {schema['minimum']}"]
        if "maximum" in schema and value > schema["maximum"]:
            return [f"{where} must be at most {schema['maximum']}"]
    if isinstance(value, str) and len(value) > schema.get("maxLength", len(value)):  # in the core's words
        return [f"{where} is {len(value)} characters long; at most {schema['maxLength']}"]
    if isinstance(value, str) and schema.get("pattern") == NOT_BLANK and c.blank(value):
        return [f"{where} {c.BLANK}"]
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        return [f"{where} must not be empty"]
    if isinstance(value, list):
        if len(value) > schema.get("maxItems", len(value)):
            return [f"{where} has more than {schema['maxItems']} items"]
        if len(value) < schema.get("minItems", 0):
            return [f"{where} must name at least {schema['minItems']}"]
        items = schema.get("items", {})
        return [p for i, v in enumerate(value) for p in validate(v, items, f"{where}[{i}]")]
    if isinstance(value, dict) and "properties" in schema:
        problems = [f"{where} has no field {k!r}" for k in schema.get("required", []) if k not in value]
        known = schema["properties"]
        hints = hints or {}
        problems += [f"{where}.{k} is not a field of this command{hints.get(k, '')}" for k in value if k not in known]
        for k, v in value.items():
            if k in known:
                problems += validate(v, known[k], f"{where}.{k}")
        return problems
    return []


#: the reads a refusal may advise, by the name the core gives them (``events.errors.AUDIT``)
READS = {"Audit": "GET /campaigns/{campaign}/audit"}


def route_words(advice: Advice, registry: Registry, campaign: str | None = None) -> str:
    """The route of the command a refusal advises, as an HTTP client sends it (where the command line names its
    subcommand): ``POST /campaigns/main/campaign/abandon-session with {"reason": "TEXT"}``; ``{campaign}`` stands in
    the path when the campaign is not known (the advice's own, when it names another)."""
    campaign = advice.campaign or campaign
    for route in command_routes(registry):
        if route.cls.__name__ == advice.command and advice.procedure in ("", route.procedure.name):
            path = route.path if campaign is None else route.path.replace("{campaign}", campaign)
            body = ", ".join(f'"{field}": "{value}"' for field, value in advice.fields)
            return f"POST {path}" + (f" with {{{body}}}" if body else "")
    read = READS.get(advice.command)
    if read is not None:
        return read if campaign is None else read.replace("{campaign}", campaign)
    return advice.plain()


def command_routes(registry: Registry) -> list[CommandRoute]:
    """One route per command a user gives, of every procedure, in the registry's order: of a procedure with a
    machine, the commands its triggers name (the command line's subcommands); the others are issued by hexlog
    alone (a step's own dice, the audit's re-run of an older log) and get no route, as they get no subcommand."""
    routes = []
    for procedure in registry:
        for cls in procedure.steps:
            trigger = procedure.triggers.get(cls)
            if trigger is None and procedure.has_machine:
                continue
            step = render.subcommand(trigger) if trigger is not None else kebab(cls.__name__)
            routes.append(CommandRoute(procedure, cls, step))
    return routes
