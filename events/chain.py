"""hexlog-chain-v1: the CloudEvents envelope and its hash chain.

Each event's envelope is a CloudEvents 1.0 JSON object with the extension attributes
``streamversion``, ``schemaversion``, ``prevhash`` and ``hash``. ``hash`` is the SHA-256 hex of
the canonical JSON of the envelope without ``hash``; ``prevhash`` of a stream's first event is
64 zeros.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

import attrs
import orjson

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.store import NewEvent

SCHEME = "hexlog-chain-v1"
GENESIS = "0" * 64
SPECVERSION = "1.0"
CONTENT_TYPE = "application/json"

ENVELOPE_KEYS = frozenset(
    {
        "specversion",
        "id",
        "source",
        "type",
        "subject",
        "time",
        "datacontenttype",
        "data",
        "streamversion",
        "schemaversion",
        "prevhash",
        "hash",
    }
)


#: the encoder of the canonical form (what ``json.dumps`` would build anew on every call with these options)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_SORTED = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


def _not_json(value: Any) -> Any:
    msg = f"Object of type {value.__class__.__name__} is not JSON serializable"
    raise TypeError(msg)


def canonical_json(obj: Any) -> str:
    """The canonical JSON text both published schemes hash: ``json.dumps(obj, sort_keys=True, separators=(",",
    ":"), ensure_ascii=False)``.

    ``orjson`` writes that very text, an order of magnitude faster, for every value but a few: what it
    refuses (an integer beyond 64 bits, a key that is not a string, a lone surrogate, a type ``json`` refuses
    too), and floats below 1e-4, NaN and the infinities, which it writes otherwise. Its text is kept only when
    it holds none of the marks such a float leaves; anything else, and any text that merely holds such a mark
    in a string, is written by ``json`` itself.
    """
    try:
        out = _dumps(obj, default=_not_json, option=_SORTED).decode()
    except TypeError:
        return _CANONICAL.encode(obj)
    # what in orjson's text may stand where json writes otherwise: a float below 1e-4 (0.00001, 2.5e-8 for 1e-05,
    # 2.5e-08) and a NaN or an infinity (null for NaN, Infinity); a mark with a - or a . is looked for only where the
    # text holds that character, which is found several times faster than the mark
    if ("-" in out and "e-" in out) or ("." in out and "0.0000" in out) or "null" in out:
        return _CANONICAL.encode(obj)
    return out


_dumps = orjson.dumps


def sha256_hex(text: str) -> str:
    """SHA-256 of the UTF-8 bytes of ``text``, in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@attrs.frozen(kw_only=True)
class Envelope:
    """One event as the chain records it (the hashed part of a stored row)."""

    id: str
    source: str
    type: str
    subject: str
    time: str
    data: dict[str, Any]
    streamversion: int
    schemaversion: int
    prevhash: str
    hash: str

    def unhashed(self) -> dict[str, Any]:
        """The CloudEvents object without ``hash``: what ``hash`` is computed over."""
        return {
            "specversion": SPECVERSION,
            "id": self.id,
            "source": self.source,
            "type": self.type,
            "subject": self.subject,
            "time": self.time,
            "datacontenttype": CONTENT_TYPE,
            "data": self.data,
            "streamversion": self.streamversion,
            "schemaversion": self.schemaversion,
            "prevhash": self.prevhash,
        }

    def computed_hash(self) -> str:
        """The hash this envelope's fields give, which a sound envelope carries."""
        text = _unhashed_utf8(
            self.id,
            self.source,
            self.type,
            self.subject,
            self.time,
            canonical_json(self.data),
            self.streamversion,
            self.schemaversion,
            self.prevhash,
        )
        return _sha256(text).hexdigest()

    def to_cloudevent(self) -> dict[str, Any]:
        """The full CloudEvents object, as exported."""
        return {**self.unhashed(), "hash": self.hash}


_new = object.__new__
_ENVELOPE_SLOTS = (
    "id",
    "source",
    "type",
    "subject",
    "time",
    "data",
    "streamversion",
    "schemaversion",
    "prevhash",
    "hash",
)
_SET_ID, _SET_SOURCE, _SET_TYPE, _SET_SUBJECT, _SET_TIME, _SET_DATA, _SET_VERSION, _SET_SCHEMA, _SET_PREV, _SET_HASH = (
    Envelope.__dict__[name].__set__ for name in _ENVELOPE_SLOTS
)


def stored_envelope(  # noqa: PLR0913, PLR0917 - the attributes of an envelope, in their order
    id: str,  # noqa: A002 - the CloudEvents attribute name
    source: str,
    type: str,  # noqa: A002 - the CloudEvents attribute name
    subject: str,
    time: str,
    data: dict[str, Any],
    streamversion: int,
    schemaversion: int,
    prevhash: str,
    hash: str,  # noqa: A002 - the CloudEvents attribute name
) -> Envelope:
    """The envelope ``Envelope(...)`` makes of these attributes, made in half the time (a log is read by the
    million): ``Envelope`` has no validator, converter or hook, so its slots are set as given."""
    envelope = _new(Envelope)
    _SET_ID(envelope, id)
    _SET_SOURCE(envelope, source)
    _SET_TYPE(envelope, type)
    _SET_SUBJECT(envelope, subject)
    _SET_TIME(envelope, time)
    _SET_DATA(envelope, data)
    _SET_VERSION(envelope, streamversion)
    _SET_SCHEMA(envelope, schemaversion)
    _SET_PREV(envelope, prevhash)
    _SET_HASH(envelope, hash)
    return envelope


def seal(  # noqa: PLR0913 - the attributes of an envelope
    *,
    id: str,  # noqa: A002 - the CloudEvents attribute name
    source: str,
    type: str,  # noqa: A002 - the CloudEvents attribute name
    subject: str,
    time: str,
    data: dict[str, Any],
    streamversion: int,
    schemaversion: int,
    prevhash: str,
) -> Envelope:
    """Build an envelope and compute its hash."""
    hashed = _unhashed_utf8(
        id, source, type, subject, time, canonical_json(data), streamversion, schemaversion, prevhash
    )
    return stored_envelope(
        id, source, type, subject, time, data, streamversion, schemaversion, prevhash, _sha256(hashed).hexdigest()
    )


def seal_batch(stream_id: str, version: int, prevhash: str, events: Sequence[NewEvent]) -> list[Envelope]:
    """Seal a batch appended after stream ``version`` whose last hash is ``prevhash``: the one place
    every store turns new events into chained envelopes (a store only records what this returns)."""
    return [envelope for envelope, _ in seal_rows(stream_id, version, prevhash, events)]


def seal_rows(stream_id: str, version: int, prevhash: str, events: Sequence[NewEvent]) -> list[tuple[Envelope, str]]:
    """``seal_batch``, each envelope with the canonical JSON of its data (what a store writes of it)."""
    return [
        (stored_envelope(id_, source, type_, subject, time, new.data, at, schema, prev, hash_), data)
        for new, (subject, at, id_, type_, schema, source, time, data, prev, hash_) in zip(
            events, sealed_rows(stream_id, version, prevhash, events), strict=True
        )
    ]


def sealed_rows(
    stream_id: str, version: int, prevhash: str, events: Sequence[NewEvent], texts: Sequence[str] | None = None
) -> list[tuple[Any, ...]]:
    """The batch sealed as a store writes it, without building envelopes: for each event ``(subject,
    streamversion, id, type, schemaversion, source, time, data, prevhash, hash)``, its data as canonical JSON
    (the columns of a stored row, in order, but its position). ``texts``: each event's canonical JSON, written
    beforehand (``canonical_json`` of its data)."""
    rows: list[tuple[Any, ...]] = []
    append, unhashed, sha256, canonical = rows.append, _unhashed_utf8, _sha256, canonical_json
    for at, (streamversion, new) in enumerate(enumerate(events, start=version + 1)):
        id_, source, type_, time, schema, data = new
        text = canonical(data) if texts is None else texts[at]
        hash_ = sha256(unhashed(id_, source, type_, stream_id, time, text, streamversion, schema, prevhash)).hexdigest()
        append((stream_id, streamversion, id_, type_, schema, source, time, text, prevhash, hash_))
        prevhash = hash_
    return rows


_encode_str = json.encoder.encode_basestring  # what ``_CANONICAL`` writes a string with (ensure_ascii=False)


def _json_value(value: Any) -> str:
    """``canonical_json(value)`` for one attribute: strings and integers written directly as json would."""
    if value.__class__ is str:
        return _encode_str(value)
    if value.__class__ is int:
        return int.__repr__(value)
    return canonical_json(value)


_sha256 = hashlib.sha256
_Fragment = orjson.Fragment


def _unhashed_utf8(  # noqa: PLR0913, PLR0917 - the attributes of an envelope, in their order
    id: str,  # noqa: A002 - the CloudEvents attribute name
    source: str,
    type: str,  # noqa: A002 - the CloudEvents attribute name
    subject: str,
    time: str,
    data: str,
    streamversion: int,
    schemaversion: int,
    prevhash: str,
) -> bytes:
    """The UTF-8 of ``canonical_json`` of the unhashed CloudEvents object, given its data already as canonical JSON:
    what the hash is taken of. The same text, its keys in sorted order, without writing the data twice: by
    ``orjson`` (the data as the fragment it is, the keys in the order given) when every attribute is exactly a
    string or an integer, which ``orjson`` writes as ``json`` does; attribute by attribute as ``json`` writes them
    otherwise, or where ``orjson`` refuses a value (a lone surrogate, an integer beyond 64 bits)."""
    if (
        id.__class__ is str
        and source.__class__ is str
        and type.__class__ is str
        and subject.__class__ is str
        and time.__class__ is str
        and data.__class__ is str
        and streamversion.__class__ is int
        and schemaversion.__class__ is int
        and prevhash.__class__ is str
    ):
        try:
            return _dumps(
                {
                    "data": _Fragment(data),
                    "datacontenttype": CONTENT_TYPE,
                    "id": id,
                    "prevhash": prevhash,
                    "schemaversion": schemaversion,
                    "source": source,
                    "specversion": SPECVERSION,
                    "streamversion": streamversion,
                    "subject": subject,
                    "time": time,
                    "type": type,
                }
            )
        except TypeError:
            pass
    v = _json_value
    return (
        f'{{"data":{data},"datacontenttype":"{CONTENT_TYPE}","id":{v(id)},"prevhash":{v(prevhash)},'
        f'"schemaversion":{v(schemaversion)},"source":{v(source)},"specversion":"{SPECVERSION}",'
        f'"streamversion":{v(streamversion)},"subject":{v(subject)},"time":{v(time)},"type":{v(type)}}}'
    ).encode()


def from_cloudevent(obj: dict[str, Any]) -> Envelope:
    """Read an exported CloudEvents object; raise ``ValueError`` naming what is wrong."""
    if not isinstance(obj, dict):
        msg = "an event must be a JSON object"
        raise ValueError(msg)  # noqa: TRY004 - one error kind for every malformed envelope
    missing = sorted(ENVELOPE_KEYS - obj.keys())
    if missing:
        msg = f"missing attributes: {', '.join(missing)}"
        raise ValueError(msg)
    extra = sorted(obj.keys() - ENVELOPE_KEYS)
    if extra:
        msg = f"unknown attributes: {', '.join(extra)}"
        raise ValueError(msg)
    if obj["specversion"] != SPECVERSION or obj["datacontenttype"] != CONTENT_TYPE:
        msg = "specversion must be '1.0' and datacontenttype 'application/json'"
        raise ValueError(msg)
    checks = {
        "id": str,
        "source": str,
        "type": str,
        "subject": str,
        "time": str,
        "data": dict,
        "streamversion": int,
        "schemaversion": int,
        "prevhash": str,
        "hash": str,
    }
    for key, kind in checks.items():
        value = obj[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            msg = f"attribute {key!r} must be {kind.__name__}"
            raise ValueError(msg)
    return Envelope(**{k: obj[k] for k in checks})


@attrs.frozen
class ChainFault:
    """The first place a stream's chain breaks, and why."""

    streamversion: int
    event_id: str
    reason: str


def verify_stream(envelopes: list[Envelope], hashes: Sequence[str] | None = None) -> ChainFault | None:
    """Check one stream's envelopes in order: versions 1, 2, 3 …, links and hashes (``hashes``: their computed
    hashes, when the caller has them already)."""
    prev = GENESIS
    for expected, env in enumerate(envelopes, start=1):
        if env.streamversion != expected:
            return ChainFault(
                env.streamversion, env.id, f"stream version {env.streamversion} where {expected} was expected"
            )
        if env.prevhash != prev:
            return ChainFault(env.streamversion, env.id, "prevhash does not match the previous event's hash")
        if (env.computed_hash() if hashes is None else hashes[expected - 1]) != env.hash:
            return ChainFault(env.streamversion, env.id, "hash does not match the event's contents")
        prev = env.hash
    return None


def reseal(envelopes: list[Envelope]) -> list[Envelope]:
    """The envelopes renumbered 1, 2, 3 … and linked anew: a chain that verifies whatever they hold.

    This is what a forger who rebuilds the whole chain gets, so checks beyond the chain (commitments,
    re-derived dice and decisions) are what catch such a forgery; tests of those checks use it.
    """
    out: list[Envelope] = []
    prev = GENESIS
    for version, env in enumerate(envelopes, start=1):
        sealed = seal(
            id=env.id,
            source=env.source,
            type=env.type,
            subject=env.subject,
            time=env.time,
            data=env.data,
            streamversion=version,
            schemaversion=env.schemaversion,
            prevhash=prev,
        )
        out.append(sealed)
        prev = sealed.hash
    return out
