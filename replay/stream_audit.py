"""The full audit of one stream read as it comes: what it holds does not grow with the stream's length.

``audit_stream`` takes a stream's items in version order, read page by page from the store, and runs every
check of the full audit (``hexlog.replay.audit``) on each as it comes: shape, chain and order, source,
schema versions, decoding, sessions, nonces, commitments and rolls (``dice_audit.StreamChecker``), decisions
(``decisions.StreamWalker``) and procedures (``procedure_audit.Walker``). It keeps only what they need: the
chain's tail, the ids and commitments of the sessions so far, the open session's rolls, the folded table, the
procedures' phases, the counts.

A stream in which any check finds anything at all is audited again whole, by the audit that holds it (``None``
is returned): that one words every finding, which may need events read long before or after it (a moved
event's neighbours, a duplicated id, which sessions reveal their secret later). So the report is the one the
full audit gives, and a sound stream of any length is audited in a bounded memory.

The map's hidden features are the one thing a check needs from the whole stream before it starts (a search is
re-run knowing every feature the log opens): a stream that holds one is read once more first for those events
alone (``hidden_audit.check_hidden``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import hexmap as map_events
from hexlog.events.base import event_class
from hexlog.events.chain import GENESIS, Envelope
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import HexlogError
from hexlog.events.session import SessionAbandoned, SessionClosed, SessionOpened
from hexlog.events.streams import campaign_of, source_for
from hexlog.machine.keeper import MemoryKeeper
from hexlog.replay.chain_audit import (
    STARTED,
    Finding,
    Opened,
    SchemaVersions,
    WallClock,
    malformed,
    other_campaign,
)
from hexlog.replay.decisions import StreamWalker
from hexlog.replay.dice_audit import Recent, StreamChecker
from hexlog.replay.hex_names import hex_problem
from hexlog.replay.hidden_audit import HiddenCheck, check_hidden
from hexlog.replay.procedure_audit import Walker

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable

    from hexlog.events.base import Event
    from hexlog.machine.kit.registry import Registry
    from hexlog.replay.chain_audit import Item

__all__ = ["StreamResult", "audit_stream"]

#: the events whose contents the re-run of a search needs from the whole stream
_HIDDEN = (map_events.HiddenFeaturePlaced, *map_events.OPENINGS)


class _WholeError(Exception):
    """The stream is to be audited whole: something in it is a finding."""


class _HiddenError(Exception):
    """The stream holds a hidden feature: its openings are to be read first."""


@attrs.define
class StreamResult:
    """What a sound stream adds to the audit."""

    events: int = 0
    sessions: int = 0
    rolls: int = 0
    verified: int = 0
    decisions: int = 0
    #: the caveats of its sessions, then the doubts of its decisions
    caveats: list[str] = attrs.field(factory=list)
    hand: list[str] = attrs.field(factory=list)
    #: what the audit notes that leaves the verdict as it is
    asides: list[str] = attrs.field(factory=list)
    #: its rolls that cannot be verified (not failures)
    notes: list[Finding] = attrs.field(factory=list)
    #: the envelopes at the versions a receipt names, and the last one
    kept: list[Envelope] = attrs.field(factory=list)
    #: each session's commitment and where it opened (``audit_report.reused``)
    opened: list[Opened] = attrs.field(factory=list)


class _Pass:
    """One pass over a stream's items, in version order."""

    def __init__(self, stream: str, registry: Registry, hidden: HiddenCheck | None, wanted: Collection[int]) -> None:
        campaign = campaign_of(stream)
        self.source = source_for(campaign) if campaign is not None else None
        self.campaign = campaign
        self.registry = registry
        self.optimistic = hidden is None
        self.dice = StreamChecker(registry)
        self.decisions = StreamWalker(registry, hidden or HiddenCheck((), MemoryKeeper(), 0))
        self.procedures = Walker(registry, Recent(0))
        self.schemas = SchemaVersions()
        self.clock = WallClock()
        self.wanted = wanted
        self.result = StreamResult()
        self.stream = stream
        #: where each roll of the open session is (index, position, order, id, version), for its note should the
        #: session end unrevealed
        self.places: dict[int, tuple[int, Any, int, str, int]] = {}

    def run(self, items: Iterable[Item]) -> StreamResult:  # noqa: C901 - one check after another, on each event
        version, head, key = 0, GENESIS, None
        source, campaign, result, wanted = self.source, self.campaign, self.result, self.wanted
        dice, decisions, procedures = self.dice, self.decisions, self.procedures
        last: Envelope | None = None
        for at, item in enumerate(items):
            result.events += 1
            env = item.env
            if malformed(env) is not None:
                raise _WholeError
            if env.streamversion != version + 1 or env.prevhash != head or env.computed_hash() != env.hash:
                raise _WholeError
            if (
                (key is not None and item.key <= key)
                or (source is not None and env.source != source)
                or (campaign is not None and env.type == STARTED and other_campaign(campaign, env) is not None)
                or env.id != env.id.lower()  # hexlog writes none: the whole audit compares ids without their case
                or self.schemas.older(env) is not None
            ):
                raise _WholeError
            version, head, key, last = env.streamversion, env.hash, item.key, env
            self.clock.step(env)
            if version in wanted:
                result.kept.append(env)
            event = _decoded(env)
            if self.optimistic and isinstance(event, _HIDDEN):
                raise _HiddenError
            self._opened(item, event)
            dice.step(at, event, dice.open_rolls)
            self._noted()
            if isinstance(event, DiceRolled) and at in dice.open_rolls:
                self.places[at] = (item.index, item.position, item.key, env.id, env.streamversion)
            decisions.feed(at, event, env.streamversion, env.schemaversion)
            procedures.step(at, event)
            if decisions.issues or decisions.failed or procedures.issues:
                raise _WholeError
            if isinstance(event, SessionClosed | SessionAbandoned):
                self.places = {i: f for i, f in self.places.items() if i in dice.open_rolls}
        dice.finish()
        self._noted()
        decisions.finish()
        procedures.finish()
        if decisions.failed or procedures.issues:
            raise _WholeError
        if last is not None and last.streamversion not in wanted and wanted:
            result.kept.append(last)
        result.sessions = len(dice.ids)
        result.rolls, result.verified, result.decisions = dice.rolls, dice.verified, decisions.checked
        result.caveats = [*dice.caveat_lines, *decisions.doubts]
        result.hand = decisions.hand
        result.asides = [*decisions.asides(), *filter(None, [self.clock.aside()])]
        return result

    def _opened(self, item: Item, event: Event) -> None:
        """Note where a session opened and what it commits to (``audit_report.reused``)."""
        if isinstance(event, SessionOpened):
            self.result.opened.append(Opened(event.commitment, event.session, item.finding("commitment", "")))

    def _noted(self) -> None:
        """The dice check's notes so far as findings; anything else it found sends the stream to the whole audit."""
        issues = self.dice.issues
        if not issues:
            return
        for issue in issues:
            place = self.places.get(issue.at)
            if not issue.note or place is None:
                raise _WholeError
            index, position, order, event_id, version = place
            self.result.notes.append(  # as ``Item.finding`` words it
                Finding(
                    stream=self.stream,
                    streamversion=version,
                    event_id=event_id,
                    position=position if isinstance(position, int) else None,
                    check=issue.check,
                    reason=issue.reason,
                    cause=issue.cause,
                    order=order,
                    index=index,
                )
            )
        issues.clear()


def _decoded(env: Envelope) -> Event:
    """The event of an envelope; ``_WholeError`` when it does not decode, or names a hex the map does not write."""
    try:
        event = decode(env)
    except HexlogError:
        raise _WholeError from None
    if hex_problem(event) is not None:
        raise _WholeError
    return event


def _hidden(items: Iterable[Item]) -> HiddenCheck | None:
    """What the stream's hidden features and their openings come to, read from those events alone; None when an
    opening is a finding (or one of them does not read)."""
    hidden: list[Event | None] = []
    kinds: dict[str, bool] = {}
    for item in items:
        kind = getattr(item.env, "type", None)
        if not isinstance(kind, str):
            continue
        chosen = kinds.get(kind)
        if chosen is None:
            try:
                chosen = kinds[kind] = issubclass(event_class(kind), _HIDDEN)
            except HexlogError:
                chosen = kinds[kind] = False
        if chosen:
            try:
                hidden.append(decode(item.env))
            except HexlogError:
                return None
    found = check_hidden(hidden)
    return None if found.issues else found


def audit_stream(
    stream: str, items: Callable[[], Iterable[Item]], registry: Registry, wanted: Collection[int] = ()
) -> StreamResult | None:
    """The audit of a stream whose items (well-formed or not, in version order) ``items`` reads anew each time it
    is called; None when the stream is to be audited whole (something in it is a finding). ``wanted``: the
    versions whose envelopes the receipts need."""
    try:
        return _Pass(stream, registry, None, wanted).run(items())
    except _WholeError:
        return None
    except _HiddenError:
        pass
    hidden = _hidden(items())
    if hidden is None:
        return None
    try:
        return _Pass(stream, registry, hidden, wanted).run(items())
    except _WholeError:
        return None
