"""Export a campaign as CloudEvents JSON lines, read such a file back, and import it into a store."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.chain import GENESIS, canonical_json, from_cloudevent, seal
from hexlog.events.errors import (
    ConcurrencyError,
    CorruptLogError,
    NotFoundError,
    UsageError,
)
from hexlog.events.files import MAX_LINE_BYTES, FileContentError, loads_json
from hexlog.events.store import AppendResult, NewEvent
from hexlog.events.streams import campaign_of, source_for, stream_for
from hexlog.machine.campaign import check_campaign_id
from hexlog.replay.audit import audit_envelopes

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from hexlog.events.chain import Envelope
    from hexlog.events.store import EventStore


@attrs.frozen(kw_only=True)
class ImportResult:
    """What an import wrote: the campaign, its stream, how many events and the head hash."""

    campaign: str
    stream_id: str
    events: int
    head: str
    append: AppendResult


def campaigns(store: EventStore) -> list[str]:
    """The campaign ids of a store, from its stream ids ``campaign-<id>``, in order of creation."""
    return [c for c in map(campaign_of, store.streams()) if c is not None]


def export_lines(store: EventStore, campaign: str) -> Iterator[str]:
    """One CloudEvents JSON object per line (no newline), in stream order; ``NotFoundError`` if none."""
    records = store.read_stream(stream_for(campaign))
    if not records:
        msg = f"campaign {campaign!r} has no events"
        raise NotFoundError(msg)
    return (_line(r.envelope) for r in records)


def _line(envelope: Envelope) -> str:
    """One exported line; ``data`` keys in canonical order, so every backend exports the same text."""
    obj = envelope.to_cloudevent()
    obj["data"] = json.loads(canonical_json(envelope.data))
    return json.dumps(obj, ensure_ascii=False)


#: an event id: a UUID written in its usual 8-4-4-4-12 hex form
UUID_TEXT = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
#: an RFC 3339 date-time (its digits ASCII: ``\d`` alone takes full-width ones too)
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})", re.ASCII)


def _envelope_problem(obj: Any) -> str | None:
    """What is wrong with an exported event's id or time, which the chain does not judge."""
    if not isinstance(obj, dict):
        return None
    id_, time = obj.get("id"), obj.get("time")
    if isinstance(id_, str) and not UUID_TEXT.fullmatch(id_):
        return f"id {id_[:80]!r} is not a UUID"
    if isinstance(time, str):
        valid = RFC3339.fullmatch(time) is not None
        if valid:
            try:  # the fields in range: a real day and time, an offset of at most 23:59
                datetime.strptime(time[:19].upper(), "%Y-%m-%dT%H:%M:%S")  # noqa: DTZ007 - the offset is checked below
                offset = time[-6:]
                if offset[0] in "+-" and (int(offset[1:3]) > 23 or int(offset[4:6]) > 59):  # noqa: PLR2004 - clock limits
                    valid = False
            except ValueError:
                valid = False
        if not valid:
            return f"time {time[:80]!r} is not an RFC 3339 date-time"
    return None


def _parse_line(number: int, text: str) -> Envelope:
    """One exported event from its line's text; ``CorruptLogError`` naming the line."""
    try:
        obj = loads_json(text)
    except json.JSONDecodeError as err:
        msg = f"line {number}: bad JSON ({err.msg} at column {err.colno})"
        raise CorruptLogError(msg) from err
    except FileContentError as err:
        msg = f"line {number}: refused JSON ({err})"
        raise CorruptLogError(msg) from err
    problem = _envelope_problem(obj)
    if problem is not None:
        msg = f"line {number}: {problem}"
        raise CorruptLogError(msg)
    try:
        return from_cloudevent(obj)
    except ValueError as err:
        msg = f"line {number}: {err}"
        raise CorruptLogError(msg) from err


def read_export(lines: Iterable[str | bytes]) -> list[Envelope]:
    """Parse exported lines; ``CorruptLogError`` names the first bad line and what is wrong.

    Only ``\\n`` ends a line: give a file's bytes split on ``b"\\n"`` (or its lines as read).
    A line that is empty (or only a line ending) is an error, except after the last event; a file
    with no event at all is refused. Each line is strict JSON (``events.files.loads_json``) of at
    most ``MAX_LINE_BYTES``, and each event's id is a UUID and its time an RFC 3339 date-time.
    """
    envelopes: list[Envelope] = []
    blank: int | None = None
    for number, raw in enumerate(lines, start=1):
        if len(raw) > MAX_LINE_BYTES:
            msg = f"line {number}: longer than {MAX_LINE_BYTES} bytes"
            raise CorruptLogError(msg)
        try:
            text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        except UnicodeDecodeError as err:
            msg = f"line {number}: not UTF-8 ({err.reason} at byte {err.start})"
            raise CorruptLogError(msg) from err
        text = text.removesuffix("\n")
        if not text:
            blank = number if blank is None else blank
            continue
        if blank is not None:
            msg = f"line {blank}: an empty line inside the export"
            raise CorruptLogError(msg)
        envelopes.append(_parse_line(number, text))
    if not envelopes:
        msg = "the export holds no events (an empty file)"
        raise CorruptLogError(msg)
    return envelopes


def _campaign_of(envelopes: Sequence[Envelope]) -> str:
    """The one campaign the envelopes belong to; ``CorruptLogError`` otherwise."""
    subjects = {env.subject for env in envelopes}
    if len(subjects) != 1:
        msg = f"an import holds one campaign stream, not {len(subjects)}: {', '.join(sorted(subjects))}"
        raise CorruptLogError(msg)
    (stream_id,) = subjects
    campaign = campaign_of(stream_id)
    if campaign is None:
        msg = f"subject {stream_id!r} is not a campaign stream (campaign-<id>)"
        raise CorruptLogError(msg)
    try:
        check_campaign_id(campaign)  # no command could name it once imported
    except UsageError as err:
        msg = f"subject {stream_id!r}: {err}"
        raise CorruptLogError(msg) from None
    for line, env in enumerate(envelopes, start=1):
        if env.source != source_for(campaign):
            msg = f"line {line}: source {env.source!r} does not match subject {stream_id!r}"
            raise CorruptLogError(msg)
    return campaign


def _check_ids(envelopes: Sequence[Envelope]) -> None:
    """``CorruptLogError`` naming the first event whose id an earlier one has (the chain does not judge ids, the
    store keeps them unique): the lines are numbered as ``read_export`` reads them, one event a line. An id is a UUID,
    the same in capitals or not."""
    first: dict[str, int] = {}
    for line, env in enumerate(envelopes, start=1):
        earlier = first.setdefault(env.id.lower(), line)
        if earlier != line:
            msg = (
                f"line {line} (version {env.streamversion}): event id {env.id!r} is also the id of line {earlier} "
                f"(version {envelopes[earlier - 1].streamversion}); two events may not share an id"
            )
            raise CorruptLogError(msg)


def _held_id(store: EventStore, envelopes: Sequence[Envelope]) -> str | None:
    """Why an import is refused when an event of the export has the id of an event the store holds (of another
    campaign), in small letters or capitals (a UUID, the same either way, which the store's unique ids tell apart),
    naming the first such line and the event; None when none has. Asks the store for the export's ids
    (``events_with_ids``) instead of reading its log."""
    line_of = {env.id.lower(): line for line, env in enumerate(envelopes, start=1)}
    found = store.events_with_ids(line_of)
    if not found:
        return None
    held, stream, version = min(found, key=lambda hit: line_of[hit[0].lower()])
    line = line_of[held.lower()]
    given = envelopes[line - 1].id
    written = "" if given == held else f" (written {held!r} there)"
    return (
        f"line {line}: event id {given!r} is already the id of {stream} version {version} in this store{written}; "
        "two events may not share an id, nothing was imported"
    )


def import_envelopes(store: EventStore, envelopes: Sequence[Envelope], *, audited: bool = False) -> ImportResult:
    """Verify an exported campaign (``checked``), then append it as a new stream in one batch, or write nothing."""
    campaign = checked(envelopes, audited=audited)
    stream_id = stream_for(campaign)
    if store.stream_version(stream_id) != 0:
        msg = f"campaign {campaign!r} already exists in this store; nothing was imported"
        raise UsageError(msg)
    held = _held_id(store, envelopes)
    if held is not None:
        raise UsageError(held)
    new = [NewEvent(e.id, e.source, e.type, e.time, e.schemaversion, e.data) for e in envelopes]
    try:
        result = store.append(stream_id, new, expected_version=0)
    except ConcurrencyError as err:
        msg = f"campaign {campaign!r} could not be imported, nothing was written: {err}"
        if store.stream_version(stream_id) == 0:  # no other import of it wrote first: an id the store holds
            msg = _held_id(store, envelopes) or msg
        raise UsageError(msg) from err
    stored = [r.envelope.hash for r in store.read_stream(stream_id)]
    if stored != [e.hash for e in envelopes]:
        msg = f"the store sealed {stream_id} with other hashes than the export's"
        raise CorruptLogError(msg)
    return ImportResult(campaign=campaign, stream_id=stream_id, events=len(new), head=envelopes[-1].hash, append=result)


def checked(envelopes: Sequence[Envelope], *, audited: bool = False) -> str:
    """The campaign of an export, once everything an import verifies before it opens a store holds: one campaign
    stream of a campaign id a command could name, no id twice, the audit (unless ``audited`` already), and each
    envelope as the store will seal it. A refusal here leaves no database, file or schema behind."""
    if not envelopes:
        msg = "the export holds no events"
        raise CorruptLogError(msg)
    campaign = _campaign_of(envelopes)
    _check_ids(envelopes)
    if not audited:
        bad = audit_envelopes(envelopes).first_bad
        if bad is not None:
            msg = f"line {bad.index + 1}: the export does not verify: {bad.text()}"
            raise CorruptLogError(msg)
    stream_id = stream_for(campaign)
    prev = GENESIS
    for env in envelopes:  # the store will seal exactly these: check before writing anything
        resealed = seal(
            id=env.id,
            source=env.source,
            type=env.type,
            subject=stream_id,
            time=env.time,
            data=env.data,
            streamversion=env.streamversion,
            schemaversion=env.schemaversion,
            prevhash=prev,
        )
        if resealed != env:
            msg = f"{stream_id} version {env.streamversion}: resealing gives another envelope"
            raise CorruptLogError(msg)
        prev = env.hash
    return campaign
