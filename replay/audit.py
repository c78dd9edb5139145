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
always has. A SQLite events table rebuilt by hand (other keys, another collation) may make paged reads skip
rows or mix streams: a campaign's stream in one is read whole, and the report says first, in one finding, how
the table differs from hexlog's (``_table_finding``).
"""

from __future__ import annotations

import array
import bisect
import math
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.chain import Envelope
from hexlog.events.codec import decode
from hexlog.events.errors import CorruptLogError, HexlogError, NotFoundError, UsageError
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.sqlite_schema import recorded, table_differences
from hexlog.events.streams import campaign_of, source_for, stream_for
from hexlog.machine.registry import REGISTRY
from hexlog.machine.text import counted
from hexlog.replay.chain_audit import (
    TABLE,
    Finding,
    Item,
    Positions,
    check_chain,
    check_order,
    check_positions,
    malformed,
)
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.dice_audit import check_dice
from hexlog.replay.explain import explain_roll
from hexlog.replay.plain_audit import PlainRules, PlainStream
from hexlog.replay.procedure_audit import check_procedures
from hexlog.replay.receipts import Receipt, mismatch
from hexlog.replay.stream_audit import StreamResult, audit_stream
from hexlog.replay.verdict import Verdict, caveats

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

    from hexlog.events.store import EventStore
    from hexlog.machine.kit.registry import Registry

__all__ = ["AuditReport", "Finding", "audit_envelopes", "audit_store", "explain_roll"]


@attrs.frozen(kw_only=True)
class AuditReport:
    """Everything an audit found, in log order, and what it could verify."""

    events: int
    streams: tuple[str, ...]
    findings: tuple[Finding, ...]
    #: rolls of sessions whose secret is not revealed yet, or never will be (abandoned): not failures
    unverifiable: tuple[Finding, ...]
    sessions: int
    rolls: int
    rolls_verified: int
    #: encounter decisions re-derived from their recorded rolls (``hexlog.replay.decisions``)
    decisions: int = 0
    #: what keeps rolls from being verified, or from protecting the players: one line per session and reason
    caveats: tuple[str, ...] = ()
    #: what the referee decided by hand (modifiers, distances set, house rules), where
    by_hand: tuple[str, ...] = ()
    #: the receipts given, each matched
    receipts: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the audit found nothing wrong."""
        return not self.findings

    @property
    def verdict(self) -> Verdict:
        """FAILED when anything is wrong, INCOMPLETE when some rolls are unverified or unprotected, else VERIFIED."""
        if self.findings:
            return Verdict.FAILED
        return Verdict.INCOMPLETE if self.caveats else Verdict.VERIFIED

    @property
    def first_bad(self) -> Finding | None:
        """The first finding in log order: the first bad event and why."""
        return self.findings[0] if self.findings else None

    def text(self) -> str:
        """A readable account: counts, the verdict, the findings or caveats, receipts, the referee's hand."""
        head = (
            f"{counted(self.events, 'event')} in {counted(len(self.streams), 'stream')}, "
            f"{counted(self.sessions, 'session')}, "
            f"{self.rolls_verified} of {self.rolls} rolls re-derived, "
            f"{counted(self.decisions, 'decision')} re-derived"
        )
        lines = [head]
        verdict = self.verdict
        if verdict is Verdict.FAILED:
            lines.append(f"{verdict}: {counted(len(self.findings), 'finding')}; first bad event:")
            lines.extend("  " + f.text() for f in self.findings)
        elif verdict is Verdict.INCOMPLETE:
            lines.append(f"{verdict}: nothing is wrong, but not every roll is verified and protected:")
        else:
            lines.append(f"{verdict}: every roll re-derived, every decision re-run")
        lines.extend(f"  - {caveat}" for caveat in self.caveats)
        lines.extend(f"receipt {receipt}: held" for receipt in self.receipts)
        if self.by_hand:
            lines.append("decided by the referee's hand:")
            lines.extend(f"  - {line}" for line in self.by_hand)
        return "\n".join(lines)


def _check_source(stream: str, ordered: list[Item], out: list[Finding]) -> None:
    """A campaign stream's events carry the source ``hexlog:<campaign id>``."""
    campaign = campaign_of(stream)
    if campaign is None:
        return
    expected = source_for(campaign)
    out.extend(
        item.finding("source", f"source {item.env.source!r} where {expected!r} was expected")
        for item in ordered
        if item.env.source != expected
    )


def _decode(ordered: list[Item], out: list[Finding]) -> None:
    """Decode every event; an unknown type or a failed decode is a finding."""
    for item in ordered:
        try:
            item.event = decode(item.env)
        except HexlogError as err:
            out.append(item.finding("decode", str(err)))


@attrs.define
class _Tally:
    """What the streams of one audit add up to."""

    sessions: int = 0
    rolls: int = 0
    verified: int = 0
    decisions: int = 0
    caveats: list[str] = attrs.field(factory=list)
    hand: list[str] = attrs.field(factory=list)
    #: what could not be verified (not failures)
    notes: list[Finding] = attrs.field(factory=list)
    #: the streams audited, in the order met
    streams: list[str] = attrs.field(factory=list)
    #: the envelopes of the streams the receipts name
    sound: list[Envelope] = attrs.field(factory=list)


def _check_events(
    ordered: list[Item], findings: list[Finding], notes: list[Finding], registry: Registry, tally: _Tally
) -> None:
    """Sessions, nonces, commitments, every revealed roll, phase changes and hand-offs, every decision; added to
    ``tally``."""
    events = [item.event for item in ordered]
    result = check_dice(events, registry)
    versions = [item.env.streamversion for item in ordered]
    decided = check_decision_events(events, versions, [item.env.schemaversion for item in ordered], registry)
    ran = check_procedures(events, registry, versions)
    for issue in (*result.issues, *decided.issues, *ran):
        finding = ordered[issue.at].finding(issue.check, issue.reason, cause=issue.cause)
        (notes if issue.note else findings).append(finding)
    tally.sessions += len(result.sessions)
    tally.rolls += result.rolls
    tally.verified += result.verified
    tally.decisions += decided.checked
    prefix = f"{ordered[0].env.subject}: " if ordered else ""
    tally.caveats.extend(prefix + line for line in caveats(result.sessions))
    tally.caveats.extend(prefix + line for line in decided.doubts)
    tally.hand.extend(prefix + line for line in decided.hand)


def _audit_stream(
    stream: str, stream_items: list[Item], findings: list[Finding], registry: Registry, tally: _Tally
) -> None:
    """Audit one stream's items (well-formed envelopes), adding to ``tally``."""
    ordered = sorted(stream_items, key=lambda it: (it.env.streamversion, it.index))
    check_order(ordered, findings, check_chain(ordered, findings))
    _check_source(stream, ordered, findings)
    _decode(ordered, findings)
    _check_events(ordered, findings, tally.notes, registry, tally)


def _add_streamed(stream: str, result: StreamResult, tally: _Tally, *, kept: bool) -> None:
    """Add what a stream audited as it came (``hexlog.replay.stream_audit``) adds up to."""
    tally.streams.append(stream)
    tally.sessions += result.sessions
    tally.rolls += result.rolls
    tally.verified += result.verified
    tally.decisions += result.decisions
    tally.caveats.extend(f"{stream}: {line}" for line in result.caveats)
    tally.hand.extend(f"{stream}: {line}" for line in result.hand)
    tally.notes.extend(result.notes)
    if kept:
        tally.sound.extend(result.kept)


def _versions(expect: Sequence[Receipt], stream: str) -> frozenset[int]:
    """The versions of ``stream`` the receipts name."""
    return frozenset(receipt.version for receipt in expect if stream_for(receipt.campaign) == stream)


def _audit_streams(
    streams: Iterable[tuple[str, list[Item]]], findings: list[Finding], registry: Registry, kept: set[str]
) -> _Tally:
    """Audit each stream's items (well-formed envelopes) in turn, keeping the envelopes of the streams in
    ``kept`` (those the receipts name)."""
    tally = _Tally()
    for stream, stream_items in streams:
        tally.streams.append(stream)
        _audit_stream(stream, stream_items, findings, registry, tally)
        if stream in kept:
            tally.sound.extend(item.env for item in stream_items)
    return tally


def _report(events: int, findings: list[Finding], tally: _Tally, expect: Sequence[Receipt]) -> AuditReport:
    """The report of an audit: the receipts matched, the findings in log order."""
    held = []
    for receipt in expect:
        problem = mismatch(receipt, tally.sound)
        if problem is None:
            held.append(str(receipt))
        else:
            findings.append(_receipt_finding(receipt, problem, events))
    single = len(tally.streams) == 1
    return AuditReport(
        events=events,
        streams=tuple(tally.streams),
        findings=tuple(sorted(findings, key=lambda f: (f.order, not f.cause))),
        unverifiable=tuple(sorted(tally.notes, key=lambda f: f.order)),
        sessions=tally.sessions,
        rolls=tally.rolls,
        rolls_verified=tally.verified,
        decisions=tally.decisions,
        caveats=tuple(line.split(": ", 1)[1] if single else line for line in tally.caveats),
        by_hand=tuple(line.split(": ", 1)[1] if single else line for line in tally.hand),
        receipts=tuple(held),
    )


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
    for item in items:
        problem = malformed(item.env)
        if problem is not None:
            findings.append(item.finding("envelope", problem))
            continue
        streams.setdefault(item.env.subject, []).append(item)
    kept = {stream_for(receipt.campaign) for receipt in expect}
    return _report(len(items), findings, _audit_streams(streams.items(), findings, registry, kept), expect)


@attrs.define
class _Placed:
    """Where one stream's events sit in the global log: their indices in log order and their positions."""

    indices: array.array[int] = attrs.field(factory=lambda: array.array("q"))
    positions: array.array[int] = attrs.field(factory=lambda: array.array("q"))
    #: whether its positions are whole numbers, each above the one before
    rising: bool = True

    def add(self, index: int, position: Any) -> None:
        """Note the stream's next event in log order."""
        if self.rising and (type(position) is not int or (len(self.positions) > 0 and position <= self.positions[-1])):
            self.rising = False
        self.indices.append(index)
        self.positions.append(position)


def _placed_items(store: EventStore, stream: str, placed: _Placed) -> Callable[[], Iterator[Item]]:
    """What reads a stream's items again from the store, page by page, each at its place in the global log
    (``placed.positions`` rising)."""
    positions, indices = placed.positions, placed.indices

    def items() -> Iterator[Item]:
        for record in store.iter_stream(stream):
            position = record.position
            at = bisect.bisect_left(positions, position)
            if at < len(positions) and positions[at] == position:  # else appended after the pass in log order
                yield Item(index=indices[at], env=record.envelope, position=position)

    return items


def _audit_placed(  # noqa: PLR0913, PLR0917 - a stream, where it sits, and what its audit adds to
    store: EventStore,
    stream: str,
    where: _Placed,
    findings: list[Finding],
    registry: Registry,
    tally: _Tally,
    expect: Sequence[Receipt],
) -> None:
    """Audit one stream of a whole store: read as it comes when its positions rise, and held whole when it holds a
    finding (or they do not rise)."""
    kept = any(stream_for(receipt.campaign) == stream for receipt in expect)
    if where.rising:
        result = audit_stream(stream, _placed_items(store, stream, where), registry, _versions(expect, stream))
        if result is not None:
            if result.events:
                _add_streamed(stream, result, tally, kept=kept)
            return
    items = _stream_items(store, stream, where, findings)
    if items:
        tally.streams.append(stream)
        _audit_stream(stream, items, findings, registry, tally)
        if kept:
            tally.sound.extend(item.env for item in items)


def _stream_items(store: EventStore, stream: str, placed: _Placed, findings: list[Finding]) -> list[Item]:
    """A stream's well-formed items, read again from the store, each at its place in the global log."""
    index_of = dict(zip(placed.positions, placed.indices, strict=True))
    items = []
    for record in store.iter_stream(stream):
        index = index_of.get(record.position)
        if index is None:
            continue  # appended after the pass in log order: not part of this audit
        item = Item(index=index, env=record.envelope, position=record.position)
        problem = malformed(item.env)
        if problem is not None:
            findings.append(item.finding("envelope", problem))
            continue
        items.append(item)
    return items


def _audit_whole_store(store: EventStore, registry: Registry, expect: Sequence[Receipt]) -> AuditReport:
    """Audit every stream of a store without holding the log whole: one pass in log order checks the global
    positions and notes where each stream's events sit; each stream is then read and audited in turn."""
    findings: list[Finding] = []
    placed: dict[str, _Placed] = {}
    checker = Positions()
    count = 0
    for index, record in enumerate(store.read_all()):
        checker.check(Item(index=index, env=record.envelope, position=record.position), findings)
        placed.setdefault(record.envelope.subject, _Placed()).add(index, record.position)
        count += 1
    tally = _Tally()
    for stream, where in placed.items():
        _audit_placed(store, stream, where, findings, registry, tally, expect)
    return _report(count, findings, tally, expect)


def _read_rows(
    store: SQLiteStore, rules: PlainRules, findings: list[Finding]
) -> tuple[dict[str, _Placed], dict[str, PlainStream], int]:
    """The pass in log order over a SQLite store's rows: the global positions checked, where each stream's rows
    sit, each row handed to its stream's ``PlainStream``; and how many rows there were."""
    placed: dict[str, _Placed] = {}
    plain: dict[str, PlainStream] = {}
    #: made at the first position out of the run 1, 2, 3 ... (in a sound log, never)
    checker: Positions | None = None
    count = 0
    last: object = None
    where, checks = _Placed(), PlainStream(None, rules)
    for page in store.read_event_rows():
        for row in page:
            position, stream = row[0], row[1]
            if checker is None and (type(position) is not int or position != count + 1):
                checker = Positions.after_run(count)
            if checker is not None:
                checker.check(Item(index=count, env=recorded(row).envelope, position=position), findings)
            if stream != last:  # a stream's rows mostly come together: look it up once for them
                if stream not in placed:
                    placed[stream], plain[stream] = _Placed(), PlainStream(stream, rules)
                where, checks, last = placed[stream], plain[stream], stream
            where.add(count, position)
            checks.feed(row)
            count += 1
    return placed, plain, count


def _audit_rows(store: SQLiteStore, registry: Registry, expect: Sequence[Receipt]) -> AuditReport:
    """``_audit_whole_store`` from a SQLite store's rows: a stream its ``PlainStream`` proved sound adds its
    counts without being read again; every other stream is read again and audited in full."""
    findings: list[Finding] = []
    placed, plain, count = _read_rows(store, PlainRules(registry), findings)
    kept = {stream_for(receipt.campaign) for receipt in expect}
    tally = _Tally()
    for stream, where in placed.items():
        result = None if stream in kept else plain[stream].result()
        if result is not None:
            tally.streams.append(stream)
            tally.sessions += result.sessions
            tally.rolls += result.rolls
            tally.verified += result.verified
            tally.caveats.extend(f"{stream}: {line}" for line in result.caveats)
            continue
        _audit_placed(store, stream, where, findings, registry, tally, expect)
    return _report(count, findings, tally, expect)


def _receipt_finding(receipt: Receipt, problem: str, after: int) -> Finding:
    """A receipt the log does not hold: a finding placed after every event."""
    return Finding(
        stream=stream_for(receipt.campaign),
        streamversion=receipt.version,
        event_id="",
        position=None,
        check="receipt",
        reason=problem,
        order=after + 1,
        index=after,
    )


def _audit_campaign(
    store: EventStore, stream: str, registry: Registry, expect: Sequence[Receipt]
) -> AuditReport | None:
    """A campaign's audit from its stream read page by page (``hexlog.replay.stream_audit``); None when the stream is
    to be audited whole (it holds a finding, or it has no events)."""

    def items() -> Iterator[Item]:
        for index, record in enumerate(store.iter_stream(stream)):
            yield Item(index=index, env=record.envelope, position=record.position)

    result = audit_stream(stream, items, registry, _versions(expect, stream))
    if result is None or not result.events:
        return None
    tally = _Tally()
    _add_streamed(stream, result, tally, kept=any(stream_for(r.campaign) == stream for r in expect))
    return _report(result.events, [], tally, expect)


def _table_finding(store: SQLiteStore, report: AuditReport) -> Finding | None:
    """The finding that a store's events table is not as hexlog made it, when that may be why the audit found
    what it found, or the table holds rows a reader paging through it may skip or mix up; None otherwise (a table
    rebuilt with other keys that holds nothing of the kind is read as hexlog's is)."""
    differences = table_differences(store.events_table())
    if not differences:
        return None
    hazards = store.events_hazards()
    if not hazards and report.ok:
        return None
    reason = f"the events table is not as hexlog made it ({'; '.join(differences)})"
    if hazards:
        reason += f", and it holds {'; '.join(hazards)}"
    reason += (
        ": a reader paging through it may skip rows, or read another stream's rows with a stream's own, so what "
        "this audit read may not be the log as it is"
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
    store: EventStore, campaign: str | None = None, registry: Registry = REGISTRY, expect: Sequence[Receipt] = ()
) -> AuditReport:
    """Audit every stream of a store (with the global positions), or one campaign's stream.

    A SQLite store whose events table is not as hexlog made it is audited as far as its reads go (a campaign's
    stream read whole, not page by page), and the report says so first when that may matter (``_table_finding``).
    """
    report = _audit_store(store, campaign, registry, expect)
    if isinstance(store, SQLiteStore) and not store.events_as_made():
        found = _table_finding(store, report)
        if found is not None:
            report = attrs.evolve(report, findings=(found, *report.findings))
    return report


def _audit_store(store: EventStore, campaign: str | None, registry: Registry, expect: Sequence[Receipt]) -> AuditReport:
    made = not isinstance(store, SQLiteStore) or store.events_as_made()
    try:
        if campaign is None and isinstance(store, SQLiteStore) and made:
            return _audit_rows(store, registry, expect)
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
