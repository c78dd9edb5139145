"""The audit of a whole store in log order: where each stream's events sit, the full audit of one stream read again
at its place, and the pass over a SQLite store's rows, which several processes may share.

The pass reads every row once in log order, checks the global positions, and hands each row to its stream's
``PlainStream``; each stream that proves not plain is read again and audited in full. Shared by several
processes, a log whose positions run 1, 2, 3 ... (so that none of them is a finding) has its streams dealt out in
the order the log first meets them (the n-th to process n modulo their number); each process reads its own
streams' rows alone, up to the last position the audit began with, so that all read the same log. The report adds
each stream's share up in the order the log met them: one process or several, it is the same report.
"""

from __future__ import annotations

import array
import bisect
import functools
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.sqlite import SQLiteStore
from hexlog.events.sqlite_schema import recorded
from hexlog.events.streams import stream_for
from hexlog.machine.kit.registry import Registry
from hexlog.replay.audit_report import (
    AuditReport,
    Tally,
    add_streamed,
    audit_items,
    id_twins,
    in_capitals,
    report,
    versions_named,
)
from hexlog.replay.chain_audit import Finding, Item, Positions, malformed
from hexlog.replay.forked import run_parts
from hexlog.replay.plain_audit import PlainRules, PlainStream
from hexlog.replay.receipts import Receipt
from hexlog.replay.stream_audit import audit_stream

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from hexlog.events.store import EventStore

__all__ = ["MAX_JOBS", "Placed", "audit_placed", "audit_rows"]

#: the most processes an audit runs on
MAX_JOBS = 64


@attrs.define
class Placed:
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


def _placed_items(store: EventStore, stream: str, placed: Placed) -> Callable[[], Iterator[Item]]:
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


def audit_placed(  # noqa: PLR0913, PLR0917 - a stream, where it sits, and what its audit adds to
    store: EventStore,
    stream: str,
    where: Placed,
    findings: list[Finding],
    registry: Registry,
    tally: Tally,
    expect: Sequence[Receipt],
) -> None:
    """Audit one stream of a whole store: read as it comes when its positions rise, and held whole when it holds a
    finding (or they do not rise)."""
    kept = any(stream_for(receipt.campaign) == stream for receipt in expect)
    if where.rising:
        result = audit_stream(stream, _placed_items(store, stream, where), registry, versions_named(expect, stream))
        if result is not None:
            if result.events:
                add_streamed(stream, result, tally, kept=kept)
            return
    items = _stream_items(store, stream, where, findings)
    if items:
        tally.streams.append(stream)
        audit_items(stream, items, findings, registry, tally)
        if kept:
            tally.sound.extend(item.env for item in items)


def _stream_items(store: EventStore, stream: str, placed: Placed, findings: list[Finding]) -> list[Item]:
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


#: a stream no row is of (the stream of the row before the first)
_NONE = object()


@attrs.frozen
class _Job:
    """What every process of one audit reads: the store's file, the procedures, the receipts, the last position."""

    path: Path
    registry: Registry
    expect: Sequence[Receipt]
    last: int
    #: the file the audit began on (``SQLiteStore.file_id``; None: no file another connection can open)
    file: tuple[int, int] | None = None
    #: the process each stream belongs to (the n-th stream the log meets to process n modulo their number)
    owner: dict[Any, int] = attrs.field(factory=dict)


#: what one stream adds to the audit: its tally and its findings
Share = tuple[Tally, list[Finding]]


def _pass(store: SQLiteStore, job: _Job, findings: list[Finding]) -> tuple[int, dict[str, Share]]:
    """The pass in log order over every row up to ``job.last``: the global positions checked, each row handed to
    its stream's ``PlainStream``; the rows read, and each stream's share in the order the log meets them."""
    rules = PlainRules(job.registry)
    placed: dict[str, Placed] = {}
    plain: dict[str, PlainStream] = {}
    #: made at the first position out of the run 1, 2, 3 ... (in a sound log, never)
    checker: Positions | None = None
    count = 0
    last: object = _NONE
    where, checks = Placed(), PlainStream(None, rules)
    capitals: dict[Any, set[str]] = {}
    for page in store.read_event_rows(job.last):
        for row in page:
            position, stream = row[0], row[1]
            if checker is None and (type(position) is not int or position != count + 1):
                checker = Positions.after_run(count)
            if checker is not None:
                checker.check(Item(index=count, env=recorded(row).envelope, position=position), findings)
            if stream != last:  # a stream's rows mostly come together: look it up once for them
                if stream not in placed:
                    placed[stream], plain[stream] = Placed(), PlainStream(stream, rules)
                where, checks, last = placed[stream], plain[stream], stream
            where.add(count, position)
            checks.feed(row)
            if in_capitals(row[3]):
                capitals.setdefault(stream, set()).add(row[3].lower())
            count += 1
    return count, {
        stream: _share(store, job, stream, at, plain[stream], capitals.get(stream, set()))
        for stream, at in placed.items()
    }


def _own_pass(store: SQLiteStore, job: _Job, part: int) -> dict[str, Share]:
    """``_pass`` of one process's streams, in a log whose positions run 1 to ``job.last``: only their rows read,
    each at its place (position 1 the first)."""
    rules = PlainRules(job.registry)
    own = {stream for stream, owner in job.owner.items() if owner == part}
    placed: dict[str, Placed] = {}
    plain: dict[str, PlainStream] = {}
    last: object = _NONE
    where, checks = Placed(), PlainStream(None, rules)
    capitals: dict[Any, set[str]] = {}
    for page in store.read_event_rows(job.last, own):
        for row in page:
            position, stream = row[0], row[1]
            if stream != last:
                if stream not in placed:
                    placed[stream], plain[stream] = Placed(), PlainStream(stream, rules)
                where, checks, last = placed[stream], plain[stream], stream
            where.add(position - 1, position)
            checks.feed(row)
            if in_capitals(row[3]):
                capitals.setdefault(stream, set()).add(row[3].lower())
    return {
        stream: _share(store, job, stream, at, plain[stream], capitals.get(stream, set()))
        for stream, at in placed.items()
    }


def _share(  # noqa: PLR0913, PLR0917 - a stream, where it sits, its rows' checks and the ids they wrote in capitals
    store: SQLiteStore, job: _Job, stream: Any, where: Placed, plain: PlainStream, capitals: set[str]
) -> Share:
    """What one stream adds to the audit: its counts when it proved plain and sound (and no receipt names it),
    else what its full audit, read again, adds and finds; and the ids its rows wrote in capitals."""
    tally, findings = Tally(capitals=capitals), list[Finding]()
    if type(stream) is not str:  # no stream can be read by such an id: each of its rows is a finding
        findings.extend(_unread(stream, where))
        return tally, findings
    named = any(stream_for(receipt.campaign) == stream for receipt in job.expect)
    result = None if named else plain.result()
    if result is None:
        audit_placed(store, stream, where, findings, job.registry, tally, job.expect)
    else:
        tally.streams.append(stream)
        tally.sessions, tally.rolls, tally.verified = result.sessions, result.rolls, result.verified
        tally.caveats.extend(f"{stream}: {line}" for line in result.caveats)
        tally.hand.extend(f"{stream}: {line}" for line in result.hand)
    return tally, findings


def _unread(stream: object, where: Placed) -> list[Finding]:
    """A finding for each row of a stream whose id is not text (stored as a number, bytes or NULL)."""
    reason = f"the stream id {stream!r} is not text: the row cannot be read as any stream's"
    return [
        Finding(
            stream=str(stream),
            streamversion=None,
            event_id="",
            position=position,
            check="envelope",
            reason=reason,
            order=position,
            index=index,
        )
        for index, position in zip(where.indices, where.positions, strict=True)
    ]


def _part(job: _Job, part: int) -> dict[str, Share]:
    """Part ``part`` of the audit, in a process of its own, on a connection of its own to the same file: its
    streams' shares (a file not the one the audit began on raises: the audit is then made in one process)."""
    store = SQLiteStore(job.path, readonly=True)
    try:
        if store.file_id() != job.file:
            msg = f"{job.path} is not the file the audit began on"
            raise ValueError(msg)
        return _own_pass(store, job, part)
    finally:
        store.close()


def _shares(job: _Job, parts: int) -> dict[str, Share] | None:
    """Every stream's share, each process's streams audited in a process of its own; None when any part failed
    (a damaged row, a process that died), for the pass in one process to audit the log and word what it finds."""
    shares: dict[str, Share] = {}
    for done in run_parts(functools.partial(_part, job), parts):
        if done is None:
            return None
        shares.update(done)
    return shares


def _shared(store: SQLiteStore, job: _Job, jobs: int) -> dict[str, Share] | None:
    """Each stream's share in the order the log met them, from ``jobs`` processes; None when the audit is to be
    made in one (one job, a store that is no file of its own, positions that do not run 1, 2, 3 ..., fewer than
    two streams, or a part that failed)."""
    if jobs <= 1 or job.file is None or not store.runs_to(job.last):
        return None
    order = store.streams_met(job.last)
    parts = min(jobs, len(order))
    if parts <= 1:
        return None
    dealt = _shares(attrs.evolve(job, owner={stream: n % parts for n, stream in enumerate(order)}), parts)
    if dealt is None or dealt.keys() != set(order):
        return None
    return {stream: dealt[stream] for stream in order}


def audit_rows(store: SQLiteStore, registry: Registry, expect: Sequence[Receipt], jobs: int = 1) -> AuditReport:
    """The audit of every stream of a SQLite store whose events table is as hexlog made it, from its rows: a stream
    its ``PlainStream`` proved sound adds its counts without being read again; every other stream is read again
    and audited in full.

    With ``jobs`` above one, a store that is a file and whose positions run 1, 2, 3 ... (so that none is a finding)
    is audited on that many processes, each reading its own streams' rows alone; any other in this one, and so is
    one whose shared audit any part failed (a damaged row, a process that died): the report, or the error, is
    always the one a single process gives.
    """
    job = _Job(
        path=store.path, registry=registry, expect=tuple(expect), last=store.last_position(), file=store.file_id()
    )
    findings: list[Finding] = []
    shares = _shared(store, job, min(jobs, MAX_JOBS))
    if shares is not None:
        count = job.last
    else:
        count, shares = _pass(store, job, findings)
    tally = Tally()
    for share, found in shares.values():
        tally.add(share)
        findings.extend(found)
    if tally.capitals:
        findings.extend(id_twins(_log_items(store, job.last), tally.capitals))
    return report(count, findings, tally, expect)


def _log_items(store: SQLiteStore, last: int) -> Iterator[Item]:
    """The log's events up to position ``last`` (those the audit read), in log order, as items (``id_twins``)."""
    for index, record in enumerate(store.read_all()):
        if type(record.position) is int and record.position > last:
            return
        yield Item(index=index, env=record.envelope, position=record.position)
