"""The audit of a log: chain, positions, decoding, commitments, every revealed roll, transitions, decisions.

Every finding is collected into an ``AuditReport`` instead of stopping at the first. Findings are
kept in log order; an event found out of order counts at the place its version belongs, so
``first_bad`` names the event that was moved rather than the gap it left. A finding whose ``cause``
is false only shows an earlier fault (a broken link, a gap after a deleted event).

The audit of a whole SQLite store whose events table is as hexlog made it reads its rows once in log
order, and proves the streams of plain sessions and rolls sound from the rows themselves
(``hexlog.replay.plain_audit``); every other stream, and every stream in which anything at all is
unusual, is read again and audited in full, so the report is the one the full audit of every stream
gives.

The full audit of a stream (of a campaign, or of a whole store) reads it page by page and checks each event
as it comes (``hexlog.replay.stream_audit``), so that its memory does not grow with the stream's length; a
stream in which that finds anything is read again and audited held whole, which words every finding as it
always has. A SQLite or PostgreSQL events table rebuilt by hand (other keys, another collation) may make paged
reads skip rows or mix streams: a campaign's stream in one is read whole, and the report says first, in one
finding, how the table differs from hexlog's (``_table_finding``).
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import CorruptLogError, NotFoundError, UsageError
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import CheckedTable
from hexlog.events.streams import stream_for
from hexlog.machine.registry import REGISTRY
from hexlog.replay.audit_report import (
    AuditReport,
    Tally,
    add_streamed,
    audit_streams,
    id_twins,
    in_capitals,
    report,
    versions_named,
)
from hexlog.replay.chain_audit import TABLE, Finding, Item, Positions, check_positions, malformed
from hexlog.replay.explain import explain_roll
from hexlog.replay.row_audit import Placed, audit_placed, audit_rows
from hexlog.replay.stream_audit import audit_stream

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from hexlog.events.chain import Envelope
    from hexlog.events.store import EventStore
    from hexlog.machine.kit.registry import Registry
    from hexlog.replay.receipts import Receipt

__all__ = ["AuditReport", "Finding", "audit_envelopes", "audit_store", "explain_roll"]


def audit_envelopes(
    envelopes_in_order: Sequence[Envelope],
    positions: Sequence[int] | None = None,
    *,
    contiguous: bool = True,
    registry: Registry = REGISTRY,
    expect: Sequence[Receipt] = (),
) -> AuditReport:
    """Audit envelopes in log order; ``positions`` (their global positions) adds the position checks.

    With ``contiguous`` false (one stream of a larger log), positions need only increase with
    the stream versions, not run 1 to n. Each receipt of ``expect`` must name an event the log holds.
    """
    if positions is not None and len(positions) != len(envelopes_in_order):
        msg = f"{len(positions)} positions for {len(envelopes_in_order)} envelopes"
        raise UsageError(msg)
    items = [
        Item(index=i, env=env, position=None if positions is None else positions[i])
        for i, env in enumerate(envelopes_in_order)
    ]
    findings: list[Finding] = []
    if positions is not None and contiguous:
        check_positions(items, findings)
    streams: dict[str, list[Item]] = {}
    capitals: set[str] = set()
    for item in items:
        problem = malformed(item.env)
        if problem is not None:
            findings.append(item.finding("envelope", problem))
            continue
        streams.setdefault(item.env.subject, []).append(item)
        if in_capitals(item.env.id):
            capitals.add(item.env.id.lower())
    if capitals and len(streams) > 1:
        findings.extend(id_twins((item for item in items if item.env.subject in streams), capitals))
    kept = {stream_for(receipt.campaign) for receipt in expect}
    return report(len(items), findings, audit_streams(streams.items(), findings, registry, kept), expect)


def log_items(store: EventStore, events: int) -> Iterator[Item]:
    """The first ``events`` events of a store's log, in log order, as items (for ``id_twins``)."""
    for index, record in enumerate(itertools.islice(store.read_all(), events)):
        yield Item(index=index, env=record.envelope, position=record.position)


def _audit_whole_store(store: EventStore, registry: Registry, expect: Sequence[Receipt]) -> AuditReport:
    """Audit every stream of a store without holding the log whole: one pass in log order checks the global
    positions and notes where each stream's events sit; each stream is then read and audited in turn."""
    findings: list[Finding] = []
    placed: dict[str, Placed] = {}
    checker = Positions()
    count = 0
    capitals: set[str] = set()
    for index, record in enumerate(store.read_all()):
        checker.check(Item(index=index, env=record.envelope, position=record.position), findings)
        placed.setdefault(record.envelope.subject, Placed()).add(index, record.position)
        if in_capitals(record.envelope.id):
            capitals.add(record.envelope.id.lower())
        count += 1
    if capitals:
        findings.extend(id_twins(log_items(store, count), capitals))
    tally = Tally()
    for stream, where in placed.items():
        audit_placed(store, stream, where, findings, registry, tally, expect)
    return report(count, findings, tally, expect)


def _audit_campaign(
    store: EventStore, stream: str, registry: Registry, expect: Sequence[Receipt]
) -> AuditReport | None:
    """A campaign's audit from its stream read page by page (``hexlog.replay.stream_audit``); None when the stream is
    to be audited whole (it holds a finding, or it has no events)."""

    def items() -> Iterator[Item]:
        for index, record in enumerate(store.iter_stream(stream)):
            yield Item(index=index, env=record.envelope, position=record.position)

    result = audit_stream(stream, items, registry, versions_named(expect, stream))
    if result is None or not result.events:
        return None
    tally = Tally()
    add_streamed(stream, result, tally, kept=any(stream_for(r.campaign) == stream for r in expect))
    return report(result.events, [], tally, expect)


def _table_finding(store: CheckedTable, audited: AuditReport) -> Finding | None:
    """The finding that a store's events table is not as hexlog made it, when that may be why the audit found
    what it found, or the table holds rows a reader paging through it may skip or mix up; None otherwise (a table
    rebuilt with other keys that holds nothing of the kind is read as hexlog's is)."""
    differences = store.events_differences()
    if not differences:
        return None
    hazards = store.events_hazards()
    if not hazards and audited.ok:
        return None
    reason = f"the events table is not as hexlog made it ({'; '.join(differences)})"
    if hazards:
        reason += f", and it holds {'; '.join(hazards)}"
    reason += (
        ": a reader paging through it may skip rows, or read another stream's rows with a stream's own (and one "
        "looking an event up by its id take another for it), so what this audit read may not be the log as it is"
    )
    return Finding(
        stream="",
        streamversion=None,
        event_id="",
        position=None,
        check=TABLE,
        reason=reason,
        order=-math.inf,
        index=-1,
    )


def audit_store(
    store: EventStore,
    campaign: str | None = None,
    registry: Registry = REGISTRY,
    expect: Sequence[Receipt] = (),
    *,
    jobs: int = 1,
) -> AuditReport:
    """Audit every stream of a store (with the global positions), or one campaign's stream.

    ``jobs`` processes share the audit of a whole SQLite database as hexlog made it, each auditing its share of the
    streams (``hexlog.replay.row_audit``); the report is the one a single process gives.

    A SQLite or PostgreSQL store whose events table is not as hexlog made it is audited as far as its reads go (a
    campaign's stream read whole, not page by page), and the report says so first when that may matter
    (``_table_finding``).
    """
    try:
        audited = _audit_store(store, campaign, registry, expect, jobs)
    except CorruptLogError as err:
        differences = store.events_differences() if isinstance(store, CheckedTable) else []
        if not differences:
            raise
        msg = f"{err}; the events table is not as hexlog made it ({'; '.join(differences)})"
        raise CorruptLogError(msg) from err
    if isinstance(store, CheckedTable) and not store.events_as_made():
        found = _table_finding(store, audited)
        if found is not None:
            audited = attrs.evolve(audited, findings=(found, *audited.findings))
    return audited


def _audit_store(
    store: EventStore, campaign: str | None, registry: Registry, expect: Sequence[Receipt], jobs: int
) -> AuditReport:
    made = not isinstance(store, CheckedTable) or store.events_as_made()
    try:
        if campaign is None and isinstance(store, SQLiteStore) and made:
            return audit_rows(store, registry, expect, jobs)
        if campaign is None:
            return _audit_whole_store(store, registry, expect)
        streamed = _audit_campaign(store, stream_for(campaign), registry, expect) if made else None
        if streamed is not None:
            return streamed
        records = store.read_stream(stream_for(campaign))
    except (ValueError, TypeError) as err:
        msg = f"the store could not read its events: {err}"
        raise CorruptLogError(msg) from err
    if campaign is not None and not records:
        msg = f"campaign {campaign!r} has no events"
        raise NotFoundError(msg)
    return audit_envelopes(
        [r.envelope for r in records],
        [r.position for r in records],
        contiguous=campaign is None,
        registry=registry,
        expect=expect,
    )
