"""What an audit adds up to and how it reports it: the tally of its streams, the full audit of one stream's
items, and the ``AuditReport`` the tally and the findings make."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.chain import Envelope
from hexlog.events.codec import decode
from hexlog.events.errors import HexlogError
from hexlog.events.streams import campaign_of, source_for, stream_for
from hexlog.machine.text import counted
from hexlog.replay.chain_audit import (
    Finding,
    Item,
    Opened,
    WallClock,
    check_chain,
    check_order,
    check_schemas,
    other_campaign,
)
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.dice_audit import check_dice
from hexlog.replay.hex_names import HEX, hex_problem
from hexlog.replay.procedure_audit import check_procedures
from hexlog.replay.receipts import Receipt, mismatch
from hexlog.replay.verdict import Verdict, caveats

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence

    from hexlog.machine.kit.registry import Registry
    from hexlog.replay.stream_audit import StreamResult

__all__ = [
    "AuditReport",
    "Tally",
    "add_streamed",
    "audit_items",
    "audit_streams",
    "id_twins",
    "in_capitals",
    "report",
    "versions_named",
]


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
    #: what the audit notes that leaves the verdict as it is (hidden features no search depended on)
    asides: tuple[str, ...] = ()

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
        lines.extend(f"note: {aside}" for aside in self.asides)
        lines.extend(f"receipt {receipt}: held" for receipt in self.receipts)
        if self.by_hand:
            lines.append("decided by the referee's hand:")
            lines.extend(f"  - {line}" for line in self.by_hand)
        return "\n".join(lines)


def _check_source(stream: str, ordered: list[Item], out: list[Finding]) -> None:
    """A campaign stream's events carry the source ``hexlog:<campaign id>``, and its ``campaign.started`` names
    that campaign (``other_campaign``)."""
    campaign = campaign_of(stream)
    if campaign is None:
        return
    expected = source_for(campaign)
    for item in ordered:
        if item.env.source != expected:
            out.append(item.finding("source", f"source {item.env.source!r} where {expected!r} was expected"))
        named = other_campaign(campaign, item.env)
        if named is not None:
            out.append(item.finding("source", named))


def _check_ids(ordered: list[Item], out: list[Finding]) -> None:
    """No two events share an id (a store keeps them unique; a table rebuilt without that key, or a resealed
    export, may not): each later one is a finding naming the first. An id is a UUID, the same in capitals or not, so
    one written again in other capitals is the same id."""
    first: dict[str, Item] = {}
    for item in ordered:
        earlier = first.setdefault(item.env.id.lower(), item)
        if earlier is not item:
            out.append(
                item.finding("id", f"event id {item.env.id!r} is also the id of version {earlier.env.streamversion}")
            )


def in_capitals(event_id: object) -> bool:
    """Whether an event id is text written with capitals (hexlog writes ids in small letters)."""
    return type(event_id) is str and event_id != event_id.lower()


def id_twins(items: Iterable[Item], capitals: Collection[str]) -> list[Finding]:
    """A finding for each event whose id an event of another stream has before it in log order in other capitals
    (a store's unique ids compare case; within a stream ``_check_ids`` names it). ``capitals``: the ids written with
    capitals, in small letters (only they can have such a twin, so only they are looked for)."""
    first: dict[str, Item] = {}
    out = []
    for item in items:
        event_id = item.env.id
        key = event_id.lower() if type(event_id) is str else None
        if key is None or key not in capitals:
            continue
        earlier = first.setdefault(key, item)
        if earlier.env.subject != item.env.subject:
            where = f"{earlier.env.subject} version {earlier.env.streamversion}"
            out.append(item.finding("id", f"event id {event_id!r} is also the id of {where}"))
    return out


def _decode(ordered: list[Item], out: list[Finding]) -> None:
    """Decode every event; an unknown type or a failed decode is a finding, and so is a hex the map does not write
    (``hex_names``)."""
    for item in ordered:
        try:
            item.event = decode(item.env)
        except HexlogError as err:
            out.append(item.finding("decode", str(err)))
            continue
        problem = hex_problem(item.event)
        if problem is not None:
            out.append(item.finding(HEX, problem))


def reused(opened: Sequence[Opened]) -> list[Finding]:
    """A session of one campaign that commits to the secret an earlier session of another committed to: its rolls were
    predictable to anyone who saw the first revealed (within one campaign the dice check names it)."""
    first: dict[str, Opened] = {}
    out = []
    for one in sorted(opened, key=lambda o: o.at.order):
        earlier = first.setdefault(one.commitment, one)
        if earlier.at.stream != one.at.stream:
            where = campaign_of(earlier.at.stream) or earlier.at.stream
            reason = (
                f"session {one.session} commits to the secret of session {earlier.session} of campaign {where}: "
                "its rolls were predictable"
            )
            out.append(attrs.evolve(one.at, reason=reason))
    return out


@attrs.define
class Tally:
    """What the streams of one audit add up to."""

    sessions: int = 0
    rolls: int = 0
    verified: int = 0
    decisions: int = 0
    caveats: list[str] = attrs.field(factory=list)
    hand: list[str] = attrs.field(factory=list)
    asides: list[str] = attrs.field(factory=list)
    #: what could not be verified (not failures)
    notes: list[Finding] = attrs.field(factory=list)
    #: the streams audited, in the order met
    streams: list[str] = attrs.field(factory=list)
    #: the envelopes of the streams the receipts name
    sound: list[Envelope] = attrs.field(factory=list)
    #: each session's commitment, its session and where it opened (a finding to be worded), across the streams
    opened: list[Opened] = attrs.field(factory=list)
    #: the event ids written with capitals, in small letters (``id_twins``)
    capitals: set[str] = attrs.field(factory=set)

    def add(self, other: Tally) -> None:
        """Add what ``other`` (the streams after this one's) adds up to."""
        self.sessions += other.sessions
        self.rolls += other.rolls
        self.verified += other.verified
        self.decisions += other.decisions
        self.caveats.extend(other.caveats)
        self.hand.extend(other.hand)
        self.asides.extend(other.asides)
        self.notes.extend(other.notes)
        self.streams.extend(other.streams)
        self.sound.extend(other.sound)
        self.opened.extend(other.opened)
        self.capitals.update(other.capitals)


def _check_events(
    ordered: list[Item], findings: list[Finding], notes: list[Finding], registry: Registry, tally: Tally
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
    tally.opened.extend(
        Opened(record.commitment, record.id, ordered[record.opened_at].finding("commitment", ""))
        for record in result.sessions.values()
    )
    tally.rolls += result.rolls
    tally.verified += result.verified
    tally.decisions += decided.checked
    prefix = f"{ordered[0].env.subject}: " if ordered else ""
    tally.caveats.extend(prefix + line for line in caveats(result.sessions))
    tally.caveats.extend(prefix + line for line in decided.doubts)
    tally.hand.extend(prefix + line for line in decided.hand)
    tally.asides.extend(prefix + line for line in decided.asides)


def audit_items(
    stream: str, stream_items: list[Item], findings: list[Finding], registry: Registry, tally: Tally
) -> None:
    """Audit one stream's items (well-formed envelopes), adding to ``tally``."""
    ordered = sorted(stream_items, key=lambda it: (it.env.streamversion, it.index))
    unsound = check_chain(ordered, findings)
    check_order(ordered, findings, unsound)
    _check_source(stream, ordered, findings)
    _check_ids(ordered, findings)
    check_schemas(ordered, findings, unsound)
    _decode(ordered, findings)
    _check_events(ordered, findings, tally.notes, registry, tally)
    clock = WallClock()
    for item in ordered:
        clock.step(item.env)
    aside = clock.aside()
    if aside is not None:
        tally.asides.append(f"{stream}: {aside}")


def add_streamed(stream: str, result: StreamResult, tally: Tally, *, kept: bool) -> None:
    """Add what a stream audited as it came (``hexlog.replay.stream_audit``) adds up to."""
    tally.streams.append(stream)
    tally.sessions += result.sessions
    tally.rolls += result.rolls
    tally.verified += result.verified
    tally.decisions += result.decisions
    tally.caveats.extend(f"{stream}: {line}" for line in result.caveats)
    tally.hand.extend(f"{stream}: {line}" for line in result.hand)
    tally.asides.extend(f"{stream}: {line}" for line in result.asides)
    tally.notes.extend(result.notes)
    tally.opened.extend(result.opened)
    if kept:
        tally.sound.extend(result.kept)


def versions_named(expect: Sequence[Receipt], stream: str) -> frozenset[int]:
    """The versions of ``stream`` the receipts name."""
    return frozenset(receipt.version for receipt in expect if stream_for(receipt.campaign) == stream)


def audit_streams(
    streams: Iterable[tuple[str, list[Item]]], findings: list[Finding], registry: Registry, kept: set[str]
) -> Tally:
    """Audit each stream's items (well-formed envelopes) in turn, keeping the envelopes of the streams in
    ``kept`` (those the receipts name)."""
    tally = Tally()
    for stream, stream_items in streams:
        tally.streams.append(stream)
        audit_items(stream, stream_items, findings, registry, tally)
        if stream in kept:
            tally.sound.extend(item.env for item in stream_items)
    return tally


def report(events: int, findings: list[Finding], tally: Tally, expect: Sequence[Receipt]) -> AuditReport:
    """The report of an audit: the receipts matched, a secret committed to in two campaigns, the findings in log
    order."""
    findings = [*findings, *reused(tally.opened)]
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
        asides=tuple(line.split(": ", 1)[1] if single else line for line in tally.asides),
    )


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
