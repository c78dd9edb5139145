"""The event catalogue: every event type, its schema version and its fields, as JSON Schema.

The schemas are generated from the event classes, so they cannot drift from what hexlog writes; the
published copies live in ``events/schemas/`` (one file per type, ``<type>.json``) and a test keeps them
equal to what this module generates. ``hexlog schema [TYPE]`` prints them.
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
from typing import Any

import attrs

from hexlog.events.base import TYPE_PREFIX, Event, registered

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _kind(hint: Any) -> dict[str, Any]:  # noqa: PLR0911 - one return per kind of type
    """The JSON Schema of one field's type."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in {typing.Union, types.UnionType}:
        return {"anyOf": [_kind(arg) for arg in args]}
    if hint is type(None):
        return {"type": "null"}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return {"type": "string", "enum": [member.value for member in hint]}
    simple = {str: "string", bool: "boolean", int: "integer", float: "number"}
    if hint in simple:
        return {"type": simple[hint]}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:  # noqa: PLR2004 - tuple[X, ...]
            return {"type": "array", "items": _kind(args[0])}
        return {"type": "array", "prefixItems": [_kind(a) for a in args], "items": False}
    if origin in {dict, typing.Dict} or hint is dict:  # noqa: UP006 - both spellings
        return {"type": "object"}
    if attrs.has(hint):
        return _object(hint)
    return {}


def _field_docs(cls: type) -> dict[str, str]:
    """The ``#:`` comments written above each field of a class, by field name."""
    try:
        lines, _ = inspect.getsourcelines(cls)
    except (OSError, TypeError):
        return {}
    docs: dict[str, str] = {}
    pending: list[str] = []
    for line in lines:
        text = line.strip()
        if text.startswith("#:"):
            pending.append(text[2:].strip())
            continue
        name = text.split(":", 1)[0].strip()
        if pending and name.isidentifier() and ":" in text:
            docs[name] = " ".join(pending)
        pending = []
    return docs


def _object(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    fields = attrs.fields(cls)
    docs = _field_docs(cls)
    properties = {}
    for f in fields:
        shape = _kind(hints[f.name])
        if f.name in docs:
            shape = {"description": docs[f.name], **shape}
        properties[f.name] = shape
    return {
        "type": "object",
        "properties": properties,
        "required": [f.name for f in fields],
        "additionalProperties": False,
    }


def schema(cls: type[Event]) -> dict[str, Any]:
    """The JSON Schema of the ``data`` of an event type at its current schema version."""
    doc = inspect.getdoc(cls) or ""
    return {
        "$schema": DIALECT,
        "$id": f"urn:hexlog:event:{cls.type_name}:v{cls.schema_version}",
        "title": TYPE_PREFIX + cls.type_name,
        "description": doc,
        "x-hexlog-type": TYPE_PREFIX + cls.type_name,
        "x-hexlog-schema-version": cls.schema_version,
        **_object(cls),
    }


def catalogue() -> dict[str, dict[str, Any]]:
    """Every registered event type's schema, by type name, in name order."""
    return {name: schema(cls) for name, cls in sorted(registered().items())}
