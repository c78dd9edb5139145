"""The audit of a whole store in log order: where each stream's events sit, the full audit of one stream read again
at its place, and the pass over a SQLite store's rows, which several processes may share.

The pass reads every row once in log order. The first process checks the global positions and notes the order in
which the log meets its streams; each stream belongs to one process (the n-th stream met to process n modulo their
number), which hands its rows to a ``PlainStream`` and audits in full, read again, each of its streams that proves
not plain. Each process reads the rows up to the last position the audit began with, so all read the same log. The
report adds each stream's share up in the order the log met them: one process or several, it is the same report.
"""

from __future__ import annotations

import array
import bisect
import itertools
import multiprocessing
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.sqlite import SQLiteStore
from hexlog.events.sqlite_schema import recorded
from hexlog.events.streams import stream_for
from hexlog.machine.kit.registry import Registry
from hexlog.replay.audit_report import AuditReport, Tally, add_streamed, audit_items, report, versions_named
from hexlog.replay.chain_audit import Finding, Item, Positions, malformed
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


@attrs.frozen
class _Part:
    """One process's part of the audit of a whole SQLite store."""

    #: the rows read, and the findings of the global positions (the first process's part only)
    count: int
    findings: list[Finding]
    #: every stream in the order the log first met it (the first process's part only)
    order: list[str]
    #: what each of this part's streams adds to the audit: its tally and its findings
    shares: dict[str, tuple[Tally, list[Finding]]]


@attrs.frozen
class _Job:
    """What every process of one audit reads: the store's file, the procedures, the receipts, the last position."""

    path: Path
    registry: Registry
    expect: Sequence[Receipt]
    last: int


def _pass(store: SQLiteStore, job: _Job, part: int, parts: int) -> _Part:
    """One process's pass over the rows up to ``job.last``: the positions and the streams' order when it is the
    first, and the streams that are its own handed each its rows; then the share of each of its streams."""
    rules = PlainRules(job.registry)
    findings: list[Finding] = []
    placed: dict[str, Placed] = {}
    plain: dict[str, PlainStream] = {}
    owner: dict[Any, bool] = {}
    order: list[str] = []
    first = part == 0
    #: made at the first position out of the run 1, 2, 3 ... (in a sound log, never)
    checker: Positions | None = None
    count = 0
    last: object = None
    own, where, checks = False, Placed(), PlainStream(None, rules)
    for page in store.read_event_rows(job.last):
        for row in page:
            position, stream = row[0], row[1]
            if first and (checker is not None or type(position) is not int or position != count + 1):
                checker = checker or Positions.after_run(count)
                checker.check(Item(index=count, env=recorded(row).envelope, position=position), findings)
            if stream != last:  # a stream's rows mostly come together: look it up once for them
                found = owner.get(stream)
                if found is None:
                    found = owner[stream] = len(owner) % parts == part
                    order.append(stream)
                    if found:
                        placed[stream], plain[stream] = Placed(), PlainStream(stream, rules)
                own = found
                if own:
                    where, checks = placed[stream], plain[stream]
                last = stream
            if own:
                where.add(count, position)
                checks.feed(row)
            count += 1
    shares = {stream: _share(store, job, stream, at, plain[stream]) for stream, at in placed.items()}
    return _Part(count=count, findings=findings, order=order if first else [], shares=shares)


def _share(
    store: SQLiteStore, job: _Job, stream: str, where: Placed, plain: PlainStream
) -> tuple[Tally, list[Finding]]:
    """What one stream adds to the audit: its counts when it proved plain and sound (and no receipt names it),
    else what its full audit, read again, adds and finds."""
    tally, findings = Tally(), list[Finding]()
    named = any(stream_for(receipt.campaign) == stream for receipt in job.expect)
    result = None if named else plain.result()
    if result is None:
        audit_placed(store, stream, where, findings, job.registry, tally, job.expect)
    else:
        tally.streams.append(stream)
        tally.sessions, tally.rolls, tally.verified = result.sessions, result.rolls, result.verified
        tally.caveats.extend(f"{stream}: {line}" for line in result.caveats)
    return tally, findings


#: each audit that runs on several processes, by number, while it runs: a process it starts finds its job here
_JOBS: dict[int, _Job] = {}
_NUMBERS = itertools.count()


def _other_part(number: int, part: int, parts: int) -> _Part | str:
    """A part of audit ``number`` run in a process of its own, on a connection of its own: the part, or why the
    store could not be read."""
    job = _JOBS[number]
    store = SQLiteStore(job.path, readonly=True)
    try:
        return _pass(store, job, part, parts)
    except (ValueError, TypeError) as err:
        return str(err)
    finally:
        store.close()


def _parts(store: SQLiteStore, job: _Job, jobs: int) -> list[_Part]:
    """Every part of the audit: the first in this process, the others each in a process of its own (forked, so
    that each finds the job it is given the number of)."""
    number = next(_NUMBERS)
    _JOBS[number] = job
    try:
        with multiprocessing.get_context("fork").Pool(jobs - 1) as pool:
            others = pool.starmap_async(_other_part, [(number, part, jobs) for part in range(1, jobs)])
            first = _pass(store, job, 0, jobs)
            done = others.get()
    finally:
        del _JOBS[number]
    parts = [first]
    for part in done:
        if isinstance(part, str):  # the store could not be read: as the first part says it when it cannot
            raise ValueError(part)  # noqa: TRY004 - a damaged store, not a wrong type
        parts.append(part)
    return parts


def audit_rows(store: SQLiteStore, registry: Registry, expect: Sequence[Receipt], jobs: int = 1) -> AuditReport:
    """The audit of every stream of a SQLite store whose events table is as hexlog made it, from its rows, on
    ``jobs`` processes (one when the store is not a file another connection can open): a stream its
    ``PlainStream`` proved sound adds its counts without being read again; every other stream is read again and
    audited in full."""
    job = _Job(path=store.path, registry=registry, expect=tuple(expect), last=store.last_position())
    parts = min(jobs, MAX_JOBS) if store.path.is_file() else 1
    done = _parts(store, job, parts) if parts > 1 else [_pass(store, job, 0, 1)]
    shares: dict[str, tuple[Tally, list[Finding]]] = {}
    for part in done:
        shares.update(part.shares)
    head = done[0]
    tally, findings = Tally(), list(head.findings)
    for stream in head.order:
        share, found = shares[stream]
        tally.add(share)
        findings.extend(found)
    return report(head.count, findings, tally, expect)
