"""The audit's checks of a stream's envelopes as a chain: their shape, global positions, links, order.

``hexlog-chain-v1`` asks that each stream's versions run 1, 2, 3, ... with each ``prevhash`` the hash
of the event before and each ``hash`` the hash of the event's own contents; a store's global positions
run 1, 2, 3, ... too. A finding names the event that is wrong, or (``cause`` false) the place where an
earlier fault shows.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import attrs

from hexlog.events import releases
from hexlog.events.base import TYPE_PREFIX, Event
from hexlog.events.chain import GENESIS, Envelope, verify_stream
from hexlog.events.errors import UsageError
from hexlog.machine import shapes
from hexlog.machine.commands import oversized

#: the check of a store's events table (``hexlog.replay.audit``): a finding about no one event
TABLE = "events table"


@attrs.frozen(kw_only=True)
class Finding:
    """One thing wrong with (or, in ``unverifiable``, not checkable about) one event."""

    stream: str
    streamversion: int | None
    event_id: str
    position: int | None
    #: which check: envelope, positions, chain, order, source, id, schema, decode, hex, session, nonce,
    #: commitment, dice, transition, procedure, decision or (about the store itself) events table
    check: str
    reason: str
    #: true when this event itself is wrong, false when an earlier fault shows here
    cause: bool = True
    #: where the finding sits in log order (the event's position, else its index)
    order: float = 0
    #: the event's index in the audited sequence (its line - 1 in an export)
    index: int = 0

    def text(self) -> str:
        """The finding as one line."""
        if self.check == TABLE:  # about the store, not any one event
            return f"{self.check}: {self.reason}"
        where = f"{self.stream} version {self.streamversion}"
        if self.position is not None:
            where += f" (position {self.position})"
        if self.event_id:  # a receipt the log does not hold names no event
            where += f", event {self.event_id}"
        return f"{where}: {self.check}: {self.reason}"


@attrs.define
class Item:
    """One audited envelope, where it sits, and its event once decoded."""

    index: int
    env: Envelope
    position: Any = None
    event: Event | None = None

    @property
    def key(self) -> int:
        """Its place in the audited order: the global position when known, else the index."""
        p = self.position
        return p if isinstance(p, int) and not isinstance(p, bool) else self.index

    def finding(self, check: str, reason: str, *, cause: bool = True, order: float | None = None) -> Finding:
        """A finding about this event."""
        env = self.env
        version = getattr(env, "streamversion", None)
        p = self.position
        return Finding(
            stream=str(getattr(env, "subject", "")),
            streamversion=version if isinstance(version, int) else None,
            event_id=str(getattr(env, "id", "")),
            position=p if isinstance(p, int) else None,
            check=check,
            reason=reason,
            cause=cause,
            order=self.key if order is None else order,
            index=self.index,
        )


_FIELDS: dict[str, type] = {
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


def malformed(env: Any) -> str | None:
    """What is wrong with the shape of an envelope, if anything."""
    if not isinstance(env, Envelope):
        return "not an envelope"
    for name, kind in _FIELDS.items():
        value = getattr(env, name)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f"attribute {name!r} is {value!r}, not a {kind.__name__}"
    huge = oversized([env.data, env.streamversion, env.schemaversion])
    if huge is not None:
        return f"it holds the integer {huge}, past 2**53 - 1 (a JSON reader would not read it exactly)"
    return None


#: positions below this are remembered one bit each; any other (a tampered log's) in a set
BITMAP_LIMIT = 1 << 27


@attrs.define
class Positions:
    """Checks that global positions run 1, 2, 3 … in the order the items come, one item at a time."""

    previous: int = 0
    #: the positions seen below ``BITMAP_LIMIT``, one bit each
    seen: bytearray = attrs.field(factory=bytearray)
    #: the positions seen outside it
    others: set[int] = attrs.field(factory=set)

    @classmethod
    def after_run(cls, last: int) -> Positions:
        """A checker that has seen positions 1 to ``last``, in order."""
        checker = cls(previous=last)
        below = min(last, BITMAP_LIMIT - 1)
        if below > 0:
            checker.seen = bytearray(((1 << (below + 1)) - 2).to_bytes((below >> 3) + 1, "little"))
        checker.others.update(range(BITMAP_LIMIT, last + 1))
        return checker

    def check(self, item: Item, out: list[Finding]) -> None:
        """Check one item's position against those before it."""
        p, previous = item.position, self.previous
        if not isinstance(p, int) or isinstance(p, bool):
            out.append(item.finding("positions", f"position {p!r} is not a whole number"))
        elif self._seen(p):
            out.append(item.finding("positions", f"position {p} appears more than once"))
        elif p <= previous:
            out.append(item.finding("positions", f"position {p} comes after position {previous}"))
        elif p != previous + 1:
            gap = f"position {previous + 1}" if p == previous + 2 else f"positions {previous + 1} to {p - 1}"
            out.append(item.finding("positions", f"{gap} missing before this event", cause=False))
        if isinstance(p, int):
            self._add(int(p))
            self.previous = max(previous, p)

    def _seen(self, p: int) -> bool:
        if 0 <= p < BITMAP_LIMIT:
            byte = p >> 3
            return byte < len(self.seen) and bool(self.seen[byte] & (1 << (p & 7)))
        return p in self.others

    def _add(self, p: int) -> None:
        if not 0 <= p < BITMAP_LIMIT:
            self.others.add(p)
            return
        byte = p >> 3
        if byte >= len(self.seen):
            self.seen.extend(bytes(max(byte + 1 - len(self.seen), len(self.seen))))
        self.seen[byte] |= 1 << (p & 7)


@attrs.frozen
class Opened:
    """A session's commitment, its session, and where it opened (a ``commitment`` finding there, to be worded)."""

    commitment: str
    session: str
    at: Finding


#: the events that record a whole ruleset (its name and content), whose shape may show how far their build had come
RULES_RECORDED = frozenset({TYPE_PREFIX + "campaign.started", TYPE_PREFIX + "campaign.rules_changed"})
#: the event that names the release that wrote it (``session.opened`` since schema version 3: ``release``)
RELEASE_RECORDED = TYPE_PREFIX + "session.opened"


@attrs.frozen
class Shown:
    """The latest release the events of a stream so far show wrote it, and what shows it: an event's type and schema
    version, the rules recorded in a built-in's shape (their label, ``rules``), or the release a session names
    (``named``)."""

    release: int = 0
    by: str = ""
    version: int = 0
    at: int = 0
    rules: bool = False
    named: bool = False

    def __str__(self) -> str:
        if self.rules:
            return f"the rules recorded at stream version {self.at}, {self.by}"
        if self.named:
            return f"the {self.by} naming release {self.release} (at stream version {self.at})"
        return f"{self.by} schema version {self.version} (at stream version {self.at})"


@attrs.define
class SchemaVersions:
    """The highest schema version of each event type a stream holds so far, met in version order, and the latest
    release (``hexlog.events.releases``) that its events show wrote one of them.

    A release writes each type at its current version and an upgrade only raises them, so an honest stream never
    holds a type at a version below one it already holds, nor at a version the release that wrote an earlier event
    had left behind: an event re-labelled as older, to be judged by the older rules, is a finding. A session opened
    since ``session.opened`` version 3 names the release that opened it: the stream's from there on, so one naming a
    release no release is yet, or one before what the stream already shows, is a finding too.
    """

    #: each type's highest schema version so far, and the stream version of the first event at it
    highest: dict[str, tuple[int, int]] = attrs.field(factory=dict)
    #: the latest release the events so far show wrote the stream (0: any), and what shows it
    newest: Shown = Shown()

    def older(self, env: Envelope) -> str | None:
        """Why the event's schema version is below one its type already had in this stream, or one its type had left
        behind in a release that wrote an earlier event, or why the release it names cannot have written it; None
        when it is none of these."""
        kind, version = env.type, env.schemaversion
        before = self.highest.get(kind)
        if before is not None and version < before[0]:
            return (
                f"{kind} schema version {version} after schema version {before[0]} (at stream version {before[1]}): "
                "older than a version this stream already holds"
            )
        newest = self.newest
        gone = releases.left_behind(kind, version)
        if gone is not None and gone <= newest.release:
            if newest.rules:  # the floor of rules recorded in a shape of a built-in
                return (
                    f"{kind} schema version {version} after {newest}: every build that shipped them writes {kind} at "
                    f"schema version {version + 1} or later (re-labelled by hand, or house rules laid on an earlier "
                    "build to equal that shape)"
                )
            if newest.named:
                return (
                    f"{kind} schema version {version} after {newest}: every release from {newest.release} on "
                    f"writes {kind} at schema version {version + 1} or later"
                )
            return (
                f"{kind} schema version {version} after {newest}: every release that writes the one writes {kind} at "
                f"schema version {version + 1} or later"
            )
        if before is None or version > before[0]:
            self.highest[kind] = (version, env.streamversion)
        written = releases.raised_at(kind, version)
        if written > newest.release:
            self.newest = Shown(written, kind, version, env.streamversion)
        if kind in RULES_RECORDED:
            self.rules_floor(env)
        if kind == RELEASE_RECORDED:
            return self.release_named(env)
        return None

    def release_named(self, env: Envelope) -> str | None:
        """Why the release a session names cannot have opened it (none is that release yet, or the stream already
        shows a later one: an upgrade never goes back); None when it can, and the stream is then that release's on."""
        named = env.data.get("release")
        if type(named) is not int:
            return None  # none (before version 3), or malformed: the decoding check names it
        if named > releases.CURRENT:
            return (
                f"{env.type} names release {named}, after release {releases.CURRENT}, the latest there is: no release "
                "of hexlog wrote it"
            )
        newest = self.newest
        if named < newest.release:
            return (
                f"{env.type} names release {named}, before release {newest.release}, which {newest} shows wrote the "
                "stream: an upgrade never goes back to an earlier release"
            )
        if named > newest.release:
            self.newest = Shown(named, env.type, env.schemaversion, env.streamversion, named=True)
        return None

    def rules_floor(self, env: Envelope) -> None:
        """Raise the releases made to the floor of the rules an event records, when they are exactly a shape a
        build shipped a built-in in (``hexlog.machine.shapes``)."""
        name, content = env.data.get("ruleset"), env.data.get("rules")
        if not isinstance(name, str) or not isinstance(content, dict):
            return  # malformed: the decoding check names it
        try:
            made, label = shapes.floor(name, content)
        except (UsageError, TypeError, ValueError):
            return  # rules no build could record: the decisions check names them
        if made > self.newest.release:
            self.newest = Shown(made, label, 0, env.streamversion, rules=True)


def check_schemas(ordered: list[Item], out: list[Finding], unsound: set[int]) -> None:
    """No event type's schema version goes down along a stream; events whose hash fails are left out."""
    versions = SchemaVersions()
    for item in ordered:
        if item.index not in unsound:
            reason = versions.older(item.env)
            if reason is not None:
                out.append(item.finding("schema", reason))


def check_positions(items: list[Item], out: list[Finding]) -> None:
    """Global positions run 1, 2, 3 … in the order given, without gaps or repeats."""
    checker = Positions()
    for item in items:
        checker.check(item, out)


def check_chain(ordered: list[Item], out: list[Finding]) -> set[int]:
    """hexlog-chain-v1 over one stream in version order; the indices of events whose hash fails."""
    prev_hash, prev_version = GENESIS, 0
    flagged: set[int] = set()
    unsound: set[int] = set()
    #: each event's hash as computed, computed once
    hashes: list[str] = []
    for item in ordered:
        env = item.env
        before = len(out)
        if env.streamversion < 1:
            out.append(item.finding("chain", f"stream version {env.streamversion} is below 1"))
        elif env.streamversion == prev_version:
            out.append(item.finding("chain", f"stream version {env.streamversion} appears more than once"))
        elif env.streamversion != prev_version + 1:
            reason = f"stream version {env.streamversion} where {prev_version + 1} was expected"
            out.append(item.finding("chain", reason, cause=False))
        hashes.append(env.computed_hash())
        if hashes[-1] != env.hash:
            out.append(item.finding("chain", "hash does not match the event's contents"))
            unsound.add(item.index)
        if env.prevhash != prev_hash:
            link = "the genesis hash (64 zeros)" if prev_version == 0 else f"the hash of stream version {prev_version}"
            out.append(item.finding("chain", f"prevhash does not match {link}", cause=False))
        if len(out) > before:
            flagged.add(item.index)
        prev_hash, prev_version = env.hash, env.streamversion
    fault = verify_stream([item.env for item in ordered], hashes)
    if fault is not None:
        culprit = next((i for i in ordered if i.env.id == fault.event_id), None)
        if culprit is not None and culprit.index not in flagged:
            out.append(culprit.finding("chain", fault.reason))
    return unsound


def _increasing_run(keys: list[int]) -> set[int]:
    """The indices of a longest strictly increasing run of ``keys`` (not necessarily contiguous).

    Among the longest, it keeps the most elements already at their own rank, so a swap of two
    events flags those two rather than an innocent one between them.
    """
    ranks = {key: rank for rank, key in enumerate(sorted(set(keys)), start=1)}
    by_rank = sorted(range(len(keys)), key=lambda i: keys[i])
    in_place = [0] * len(keys)
    for rank, i in enumerate(by_rank):
        in_place[i] = int(rank == i)
    tree: list[tuple[int, int, int]] = [(0, 0, -1)] * (len(ranks) + 1)  # Fenwick tree of prefix maxima
    parent = [-1] * len(keys)
    best: tuple[int, int, int] = (0, 0, -1)
    for i, key in enumerate(keys):
        r, prefix = ranks[key] - 1, (0, 0, -1)
        while r > 0:
            prefix = max(prefix, tree[r])
            r -= r & -r
        parent[i] = prefix[2]
        score = (prefix[0] + 1, prefix[1] + in_place[i], i)
        best = max(best, score)
        r = ranks[key]
        while r < len(tree):
            tree[r] = max(tree[r], score)
            r += r & -r
    keep: set[int] = set()
    i = best[2]
    while i >= 0:
        keep.add(i)
        i = parent[i]
    return keep


def check_order(stream_items: list[Item], out: list[Finding], unsound: set[int]) -> None:
    """Sound events sit in the log in the order of their versions; a moved one counts where it belongs.

    Events whose hash fails are left out: their version cannot be trusted, and they are flagged.
    """
    ordered = [item for item in stream_items if item.index not in unsound]
    keep = _increasing_run([item.key for item in ordered])

    def at(item: Item) -> str:
        return f"position {item.position}" if item.position is not None else f"entry {item.index + 1}"

    belongs = 0.5  # just after the last event that is in its place
    for i, item in enumerate(ordered):
        if i in keep:
            belongs = item.key + 0.5
            continue
        around = [
            f"version {ordered[j].env.streamversion} is at {at(ordered[j])}"
            for j in (i - 1, i + 1)
            if 0 <= j < len(ordered)
        ]
        reason = f"stream version {item.env.streamversion} is at {at(item)}, out of order ({'; '.join(around)})"
        out.append(item.finding("order", reason, order=belongs))


#: the cloud type of a campaign's start
STARTED = TYPE_PREFIX + "campaign.started"


def other_campaign(campaign: str, env: Envelope) -> str | None:
    """Why an event of campaign ``campaign``'s stream is not of that campaign by what it records: a
    ``campaign.started`` that names another campaign (the start of one campaign copied into another's stream); None
    when it is none such. A ``campaign`` that is not text is the decoding's finding."""
    if env.type != STARTED:
        return None
    named = env.data.get("campaign") if isinstance(env.data, dict) else None
    if not isinstance(named, str) or named == campaign:
        return None
    return f"campaign.started names campaign {named[:80]!r}, but it is in the stream of campaign {campaign!r}"


#: an RFC 3339 date-time: its date and time to the second, its fraction of a second, its offset
_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})", re.ASCII)


def instant(text: object) -> tuple[datetime, int] | None:
    """The moment an RFC 3339 date-time names, to the nanosecond (to compare times of any offset), or None when it is
    none (a time that is no date-time is the schema check's finding)."""
    found = _TIME.fullmatch(text) if isinstance(text, str) else None
    if found is None:
        return None
    day, clock, fraction, offset = found.groups()
    try:
        moment = datetime.fromisoformat(f"{day}T{clock}{'+00:00' if offset in 'Zz' else offset}")
    except ValueError:
        return None
    return moment, int((fraction or "").ljust(9, "0"))


#: the time as hexlog writes it (UTC to the microsecond): two such compare as text as they do in time
_WRITTEN = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z", re.ASCII)


def _before(text: object, earlier: str) -> bool | None:
    """Whether ``text`` names a moment before ``earlier`` (a time ``instant`` reads); None when it names none."""
    if isinstance(text, str) and _WRITTEN.fullmatch(text) and _WRITTEN.fullmatch(earlier):
        return text < earlier
    now, then = instant(text), instant(earlier)
    return None if now is None or then is None else now < then


@attrs.define
class WallClock:
    """The wall-clock ``time`` of a stream's events in version order, and where it goes back.

    A time going back is no finding: the chain, not the time, orders a log, and the time is the writer's clock, which
    may be set back, or differ between the machines that write one database. It is noted (``aside``), as events
    written by hand may show it too."""

    #: the latest event's time as written, and its version
    last: tuple[str, int] | None = None
    #: how many times the time went back, and the first
    back: int = 0
    first: str = ""

    def step(self, env: Envelope) -> None:
        """Note the stream's next event (a time that is no date-time is passed over)."""
        text = env.time
        if self.last is None:
            if instant(text) is not None:
                self.last = (text, env.streamversion)
            return
        before, version = self.last
        back = _before(text, before)
        if back is None:
            return
        if back:
            self.back += 1
            if not self.first:
                self.first = (
                    f"at stream version {env.streamversion} ({text[:40]}, before version {version}'s {before[:40]})"
                )
        self.last = (text, env.streamversion)

    def aside(self) -> str | None:
        """The note that the time went back, where first and how many times; None when it never did."""
        if not self.back:
            return None
        more = f", and {self.back - 1} more time{'s' if self.back > 2 else ''}" if self.back > 1 else ""  # noqa: PLR2004
        return (
            f"the wall-clock time of its events goes back {self.first}{more}: a clock set back or differing between "
            "the machines that wrote them, or events written by hand (the chain, not the time, orders the log)"
        )
