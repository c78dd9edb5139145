"""Decoding an event straight from the JSON text a store holds, by ``msgspec``: the event the codec would make of
that text, made in one pass in C, for the texts hexlog writes.

``text_decoder(converter, cls)`` gives, for a class whose every field is of a plain kind (``str``, ``int``,
``bool``, ``float``, ``None``, an enum of string or integer values, tuples, dicts with string keys, unions of
these and attrs classes made of them, none within itself, each structured by cattrs' own hooks, and no attrs
converter, validator or init hook: JSON nested a few levels at most, never free-form), a function that takes the
JSON text of a payload and returns either the event or ``SLOW``. It returns the event only when the text is
exactly what the event encodes to (its keys sorted, no space, every field written): the canonical JSON hexlog
records. That one check rules out what ``msgspec``
reads otherwise than the codec does (a key the class does not have is skipped by ``msgspec`` and refused by
the codec; a value of another JSON type is converted by cattrs where ``msgspec`` refuses it), since neither
can be in a text that an event writes. For any other text, and for any other class, the caller reads the
text as JSON and gives it to the codec, which decodes it or says what is wrong, as it always did.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable
from typing import Any

import attrs
import cattrs
import msgspec

from hexlog.events import strict
from hexlog.events.structure import SLOW

TextDecoder = Callable[[str], Any]

_SCALARS = (str, int, bool, float, type(None))
#: what reading a text the codec reads otherwise may raise: msgspec's refusals, a lone surrogate, and a value nested
#: past the interpreter's depth (a key the class does not have holds what msgspec skips by recursing)
_FAILED = (msgspec.ValidationError, msgspec.DecodeError, UnicodeEncodeError, TypeError, ValueError, RecursionError)


def _cattrs_own(converter: cattrs.Converter, hint: Any) -> bool:
    """Whether cattrs structures ``hint`` by a hook of its own, or by a strict hook of ``hexlog.events.strict``
    (cattrs' own, given only a value of the field's JSON type: ``msgspec`` refuses any other too), not by another hook
    hexlog registered (a function of hexlog's, or a partial or method of one)."""
    try:
        hook = converter.get_structure_hook(hint)
    except cattrs.errors.StructureHandlerNotFoundError:
        return False
    if strict.is_scalar(hook) or strict.is_strict_tuple(hook):
        return True
    for part in (hook, getattr(hook, "func", None), getattr(hook, "__func__", None)):
        module = getattr(part, "__module__", None) or ""
        if module.startswith("hexlog"):
            return False
    return True


def _settable(field: attrs.Attribute[Any]) -> bool:
    """Whether a field is set as read: under its own name, public, without a converter, a validator or a default
    made of the instance."""
    takes_self = getattr(field.default, "takes_self", False) is True  # a default factory given the instance
    plain_field = field.converter is None and field.validator is None and not takes_self
    return field.init and field.alias == field.name and not field.name.startswith("_") and plain_field


def _plain_attrs(converter: cattrs.Converter, cls: type, within: frozenset[type]) -> bool:
    """Whether ``cls`` is an attrs class that both read alike: its fields plain, set as given, no init hook, and not
    within itself (``within``: the classes whose fields hold it), so that its JSON is nested a few levels at most."""
    if cls in within:
        return False
    if any(hasattr(cls, hook) for hook in ("__attrs_pre_init__", "__attrs_post_init__", "__attrs_init__")):
        return False
    hints = typing.get_type_hints(cls)
    inner = within | {cls}
    return all(_settable(field) and plain(converter, hints[field.name], inner) for field in attrs.fields(cls))


def plain(converter: cattrs.Converter, hint: Any, within: frozenset[type] = frozenset()) -> bool:  # noqa: PLR0911 - one return per kind of type
    """Whether values of ``hint`` are read alike by ``msgspec`` and by the converter (see the module's text), and
    nested a few levels at most: ``Any`` is not plain (free-form JSON may be nested past what ``json`` reads)."""
    if hint is type(None):
        return True
    if hint is Any or not _cattrs_own(converter, hint):
        return False
    if hint in _SCALARS:
        return True
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        values = [member.value for member in hint]
        kinds = {value.__class__ for value in values}
        return bool(values) and kinds in ({str}, {int}) and len(hint.__members__) == len(set(values))
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in {typing.Union, types.UnionType}:
        return all(plain(converter, arg, within) for arg in args)
    if origin is tuple:
        items = args[:1] if len(args) == 2 and args[1] is Ellipsis else args  # noqa: PLR2004 - X and the ellipsis
        return all(plain(converter, arg, within) for arg in items)
    if origin is dict:
        return len(args) == 2 and args[0] is str and plain(converter, args[1], within)  # noqa: PLR2004 - key, value
    if isinstance(hint, type) and attrs.has(hint):
        return _plain_attrs(converter, hint, within)
    return False


def text_decoder(converter: cattrs.Converter, cls: type) -> TextDecoder | None:
    """A function giving the event of ``cls`` a payload's JSON text holds, or ``SLOW``; None when ``cls`` has a
    field of another kind than ``plain`` allows (or one ``msgspec`` cannot read)."""
    if not (isinstance(cls, type) and attrs.has(cls) and _plain_attrs(converter, cls, frozenset())):
        return None
    try:
        decode = msgspec.json.Decoder(cls).decode
    except (TypeError, ValueError):  # a union msgspec does not read (two kinds of string, say)
        return None
    encode = msgspec.json.Encoder(order="sorted").encode

    def decoded(text: str) -> Any:
        try:
            raw = text.encode()
            event = decode(raw)
            if encode(event) == raw:
                return event
        except _FAILED:
            pass
        return SLOW

    return decoded
