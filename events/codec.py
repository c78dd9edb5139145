"""The cattrs codec: event objects to envelope data and back, with upcasting of old versions."""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import cattrs
from cattrs.preconf.json import make_converter

from hexlog.events import strict
from hexlog.events.base import Event, event_class
from hexlog.events.errors import CorruptLogError, HexlogError
from hexlog.events.structure import SLOW, Structure, fast_structure
from hexlog.events.text_decoder import TextDecoder, text_decoder
from hexlog.events.vocabulary import open_word

if TYPE_CHECKING:
    from hexlog.events.store import Payload, Recorded

converter = make_converter(forbid_extra_keys=True)
strict.install(converter)  # a value of another JSON type than its field's is refused, never converted


def _open_word_kind(hint: Any) -> type[enum.StrEnum] | None:
    """The word type of an open field's type ``Word | str`` (see ``hexlog.events.vocabulary``), else None."""
    if typing.get_origin(hint) not in {typing.Union, types.UnionType}:
        return None
    words = [a for a in typing.get_args(hint) if a is not str]
    if len(words) != 1 or len(typing.get_args(hint)) != 2:  # noqa: PLR2004 - exactly the word and str
        return None
    kind = words[0]
    return kind if isinstance(kind, type) and issubclass(kind, enum.StrEnum) else None


def _structure_open_word(value: Any, hint: Any) -> enum.StrEnum | str:
    """A known value as its word, any other string kept as written; anything else is not a string."""
    if not isinstance(value, str):
        raise strict.wrong(strict.EXPECTED[str], value)
    kind = _open_word_kind(hint)
    assert kind is not None  # noqa: S101 - the predicate matched
    return open_word(kind, value)


converter.register_structure_hook_func(lambda hint: _open_word_kind(hint) is not None, _structure_open_word)


def _is_tuple_of(hint: Any) -> bool:
    """Whether ``hint`` is ``tuple[X, ...]``."""
    args = typing.get_args(hint)
    return typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis  # noqa: PLR2004 - X and ...


def _unstructure_tuple_of(hint: Any, owner: cattrs.Converter) -> Callable[[Sequence[Any]], list[Any]]:
    """What cattrs unstructures a ``tuple[X, ...]`` to, the list of its items each unstructured by ``owner`` (the
    converter or a copy of it), made by a list comprehension rather than a list of a generator, and for an empty tuple
    (most are) the empty list, several times faster (every event is unstructured when it is appended)."""
    unstructure_item = owner.get_unstructure_hook(typing.get_args(hint)[0], cache_result=False)
    if unstructure_item is cattrs.fns.identity:
        return list

    def unstructure(items: Sequence[Any]) -> list[Any]:
        return [unstructure_item(item) for item in items] if items else []

    return unstructure


converter.register_unstructure_hook_factory(_is_tuple_of, _unstructure_tuple_of)

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

#: (type name, from version) -> a pure function giving the data of version + 1. An event class may
#: instead carry its upcasters as static methods ``upcast_v<N>_v<N+1>``; this table is looked at first.
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(cls: type[Event], version: int) -> Upcaster | None:
    """The function that turns data of ``version`` into data of ``version + 1`` for ``cls``, if any."""
    found = UPCASTERS.get((cls.type_name, version))
    if found is None:
        found = getattr(cls, f"upcast_v{version}_v{version + 1}", None)
    return found


def to_data(event: Event) -> dict[str, Any]:
    """The JSON-ready payload of an event."""
    data: dict[str, Any] = converter.unstructure(event)
    return data


#: each event class's fast structuring function (None where it has none), made on its first decoding
_FAST: dict[type[Event], Structure | None] = {}


def _fast(cls: type[Event]) -> Structure | None:
    try:
        return _FAST[cls]
    except KeyError:
        fast = _FAST[cls] = fast_structure(converter, cls)
        return fast


def from_data(cloud_type: str, schema_version: int, data: dict[str, Any]) -> Event:
    """Decode a payload of ``cloud_type`` at ``schema_version`` into the current event class.

    A payload of the current version is first given to the class's fast function
    (``hexlog.events.structure``), which makes the event the converter would make, or leaves it to the
    converter.
    """
    cls = event_class(cloud_type)
    if schema_version == cls.schema_version and data.__class__ is dict:
        fast = _fast(cls)
        if fast is not None:
            try:
                event = fast(data)
            except Exception:  # noqa: BLE001 - the converter below decodes it, or says what is wrong
                event = SLOW
            if event is not SLOW:
                return event  # type: ignore[no-any-return]
    _check_decodable(cls, cloud_type, schema_version, data)
    version = schema_version
    payload = dict(data)
    while version < cls.schema_version:
        upcast = upcaster(cls, version)
        if upcast is None:
            msg = f"no upcaster for {cloud_type} from schema version {version}"
            raise CorruptLogError(msg)
        upcast_payload = upcast(payload)
        # an upcaster adds the fields its version lacked and keeps every other as it was: one it writes over with
        # another value was not a field of that version (a forger's, which the upgrade would otherwise hide)
        over = sorted(key for key, value in payload.items() if upcast_payload.get(key, value) != value)
        if over:
            extra = ", ".join(over)
            msg = f"{cloud_type} does not decode: extra fields found ({extra}) for schema version {schema_version}"
            raise CorruptLogError(msg)
        payload = upcast_payload
        version += 1
    try:
        return converter.structure(payload, cls)
    except cattrs.BaseValidationError as err:
        detail = "; ".join(cattrs.transform_error(err, format_exception=strict.described))
        msg = f"{cloud_type} does not decode: {detail}"
        raise CorruptLogError(msg) from err


def _check_decodable(cls: type[Event], cloud_type: str, schema_version: int, data: Any) -> None:
    """``CorruptLogError`` for a payload no version of the class reads: its version not a whole number (a damaged
    row: a database column holds any value), newer than the class, or its data no JSON object."""
    if schema_version.__class__ is not int:
        msg = f"{cloud_type} schema version must be a whole number, not {schema_version!r}"
        raise CorruptLogError(msg)
    if schema_version > cls.schema_version:
        msg = f"{cloud_type} schema version {schema_version} is newer than this hexlog knows ({cls.schema_version})"
        raise CorruptLogError(msg)
    if not isinstance(data, dict):
        msg = f"{cloud_type} data must be a JSON object, not {type(data).__name__}"
        raise CorruptLogError(msg)


#: the fast structuring function of each (CloudEvents type, current schema version) decoded so far (None where the
#: class has none): what ``from_data`` looks up in three steps, found in one
_FAST_BY_TYPE: dict[tuple[str, int], Structure | None] = {}


def _fast_by_type(key: tuple[str, int]) -> Structure | None:
    """The fast function ``from_data`` would give a payload of this (type, version), noted (None: it gives none)."""
    try:
        cls = event_class(key[0])
    except HexlogError:
        return None  # ``from_data`` says what is wrong; nothing is noted for a type no class has
    fast = _FAST_BY_TYPE[key] = _fast(cls) if key[1] == cls.schema_version else None
    return fast


def decode_payload(cloud_type: str, schema_version: int, data: Any) -> Event:
    """``from_data(cloud_type, schema_version, data)``, by the fast function of the type and version found in one
    lookup where there is one."""
    if data.__class__ is dict:
        key = (cloud_type, schema_version)
        fast = _FAST_BY_TYPE[key] if key in _FAST_BY_TYPE else _fast_by_type(key)
        if fast is not None:
            try:
                event = fast(data)
            except Exception:  # noqa: BLE001 - ``from_data`` below decodes it, or says what is wrong
                event = SLOW
            if event is not SLOW:
                return event  # type: ignore[no-any-return]
    return from_data(cloud_type, schema_version, data)


def decode_payloads(payloads: Iterable[Payload]) -> list[Event]:
    """The event of each payload (``(stream version, id, type, schema version, data)``), in order: what
    ``decode_payload`` gives each, made in one loop (a log is decoded by the page); raised as ``decode_payload``
    raises at the first payload that does not decode."""
    events: list[Event] = []
    append, found, slow = events.append, _FAST_BY_TYPE.get, SLOW
    for payload in payloads:
        data = payload[4]
        fast = found((payload[2], payload[3]))
        if fast is not None and data.__class__ is dict:
            try:
                event = fast(data)
            except Exception:  # noqa: BLE001 - ``decode_payload`` below decodes it, or says what is wrong
                event = slow
            if event is not slow:
                append(event)
                continue
        append(decode_payload(payload[2], payload[3], data))
    return events


#: the text decoder of each (CloudEvents type, current schema version) met so far (None where the class has none)
_TEXT_BY_TYPE: dict[tuple[str, int], TextDecoder | None] = {}
#: what ``_TEXT_BY_TYPE`` gives for a type and version not met yet
_UNKNOWN: Any = object()


def _text_by_type(key: tuple[str, int]) -> TextDecoder | None:
    """The text decoder of a payload of this (type, version), noted (None: there is none, and the text is read as
    JSON and given to ``decode_payload``)."""
    try:
        cls = event_class(key[0])
    except HexlogError:
        return None  # ``from_data`` says what is wrong; nothing is noted for a type no class has
    found = _TEXT_BY_TYPE[key] = text_decoder(converter, cls) if key[1] == cls.schema_version else None
    return found


def text_decoder_of(cloud_type: str, schema_version: int) -> TextDecoder | None:
    """The text decoder of payloads of this type and version (``hexlog.events.text_decoder``), or None: what reads
    the JSON text a store holds straight into the event, or leaves it (``SLOW``) to be read as JSON and given to
    ``decode_payload``."""
    key = (cloud_type, schema_version)
    return _TEXT_BY_TYPE[key] if key in _TEXT_BY_TYPE else _text_by_type(key)


def decode_stored(stream_id: str, payload: Payload) -> Event:
    """The event of a stored payload of the stream (``EventStore.iter_payloads``); ``CorruptLogError`` naming the
    event if it does not decode."""
    version, event_id, cloud_type, schema_version, data = payload
    try:
        return decode_payload(cloud_type, schema_version, data)
    except CorruptLogError as err:
        msg = f"{stream_id} version {version} (event {event_id}): {err}"
        raise CorruptLogError(msg) from err
    except HexlogError as err:
        msg = f"{stream_id} version {version} (event {event_id}) does not decode: {err}"
        raise CorruptLogError(msg) from err


def decode_page(stream_id: str, page: Sequence[Payload]) -> list[Event]:
    """The events of a page of the stream's payloads, in order (``decode_stored`` of each: raised as it raises, naming
    the first event that does not decode)."""
    try:
        return decode_payloads(page)
    except HexlogError:
        return [decode_stored(stream_id, payload) for payload in page]


def decode_record(record: Recorded) -> Event:
    """Decode a stored record: ``decode(record.envelope)``, without building the envelope unless it fails, and read
    straight from the stored JSON text where the record has not read its data and its type's text decoder reads it."""
    cloud_type, schema_version, raw = record.raw_payload()
    if raw.__class__ is str:
        key = (cloud_type, schema_version)
        decoder = _TEXT_BY_TYPE.get(key, _UNKNOWN)
        if decoder is _UNKNOWN:
            decoder = _text_by_type(key)
        if decoder is not None:
            event = decoder(raw)
            if event is not SLOW:
                return event  # type: ignore[no-any-return]
    try:
        return decode_payload(*record.payload())
    except CorruptLogError as err:
        envelope = record.envelope
        msg = f"{envelope.subject} version {envelope.streamversion} (event {envelope.id}): {err}"
        raise CorruptLogError(msg) from err


def decode(envelope: Any) -> Event:
    """Decode a sealed envelope (``hexlog.events.chain.Envelope``); a failure names the event."""
    try:
        return from_data(envelope.type, envelope.schemaversion, envelope.data)
    except CorruptLogError as err:
        msg = f"{envelope.subject} version {envelope.streamversion} (event {envelope.id}): {err}"
        raise CorruptLogError(msg) from err
