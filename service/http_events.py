"""The events a role may see, as CloudEvents envelopes of hexlog-chain-v1.

A referee sees every envelope as recorded. A player sees the same envelopes, except that an event
the player view hides (``hexlog.projections.visibility``: a secret roll and every decision that used
it until its session ends, an event marked ``referee_only``) is a placeholder: the envelope keeps its
``type``, ``time``, ``streamversion``, ``prevhash`` and ``hash`` (so a follower checks the links of
the chain live, and the event itself once its session has ended and it is shown in full), ``data``
holds only ``{"hidden": true}`` (for a secret roll, its session, nonce and lane, and its purpose when
a procedure made it), and the extension attribute ``redacted`` is ``true``.

The placeholder has no ``id``. The hash covers the event's random id and its data; a hidden event's
data is often one of a few (a d6's face, a lost party's heading, a hex of the map), so with the id a
player could hash each candidate and find the one that matches. Without the id's 122 random bits the
hash says nothing of the data.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.base import TYPE_PREFIX
from hexlog.events.codec import converter, decode
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.session import SessionAbandoned, SessionClosed, SessionOpened
from hexlog.events.streams import stream_for
from hexlog.machine.registry import REGISTRY
from hexlog.machine.table import TableProjection
from hexlog.projections import live, sessions
from hexlog.projections.ledger import LEDGER, session_key
from hexlog.projections.visibility import PlayerView, ended_sessions, resumed
from hexlog.service import render
from hexlog.service.render_campaign import roll_name
from hexlog.service.render_context import Context

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from hexlog.events.base import Event
    from hexlog.events.chain import Envelope
    from hexlog.events.store import LiveStore, Recorded
    from hexlog.machine.kit.registry import Registry

#: the purpose a placeholder gives for a secret roll whose purpose is the referee's own words
SECRET_PURPOSE = "secret roll"  # noqa: S105 - words, not a password


def placeholder(envelope: Envelope, event: Event, registry: Registry = REGISTRY) -> dict[str, Any]:
    """The envelope of a hidden event as a player receives it: links and hash kept, content and id withheld."""
    data: dict[str, Any] = {"hidden": True}
    if isinstance(event, DiceRolled):
        # a procedure's purpose is a word of the rules; a free roll's purpose is the referee's text
        purpose = event.purpose if registry.reserved(event.purpose) is not None else SECRET_PURPOSE
        data |= {"session": event.session, "nonce": event.nonce, "visibility": Visibility.REFEREE.value}
        data["purpose"] = purpose
    shown = {key: value for key, value in envelope.to_cloudevent().items() if key != "id"}
    return {**shown, "data": data, "redacted": True}


def placeholder_text(event: Event) -> str:
    """The timeline's line for a hidden event (the command line's player view says the same)."""
    if isinstance(event, DiceRolled):
        return f"roll {roll_name(event)} {render.HIDDEN}"
    return f"{event.type_name} {render.HIDDEN}"


class Viewer:
    """Walks one campaign's records in stream order and gives each as a role sees it.

    Feed it every record from version 1 on (a player's view of an event depends on what came
    before it); each batch is judged with the sessions ended up to the end of that batch, so a
    secret roll of a session that has closed by then is shown in full.
    """

    def __init__(self, *, player: bool, registry: Registry = REGISTRY, told: Context | None = None) -> None:
        self.player = player
        self.registry = registry
        self._view = PlayerView(()) if player else None
        self._ended: set[str] = set()
        self.version = 0
        #: the hash of the last record fed ("" before the first): a reader checks the log still holds it as it was
        self.last = ""
        #: the events fed so far that a later line reads back to (``told``: what a reader that starts past version 1
        #: knows of those before)
        self._told = Context() if told is None else told

    @classmethod
    def resumed(cls, view: PlayerView, record: Recorded, told: Context, registry: Registry = REGISTRY) -> Viewer:
        """A player's viewer that has judged every record up to ``record`` as ``view`` stands (``visibility.resumed``),
        its lines reading back to ``told``."""
        viewer = cls(player=True, registry=registry, told=told.copy())
        viewer._view = view
        viewer._ended = set(view.ended)
        viewer.version, viewer.last = record.version, record.envelope.hash
        return viewer

    def copy(self) -> Viewer:
        """A viewer that walks on from the version this one reached, on its own."""
        other = Viewer(player=self.player, registry=self.registry)
        other._view = None if self._view is None else self._view.copy()
        other._ended = set(self._ended)
        other.version, other.last = self.version, self.last
        other._told = self._told.copy()
        return other

    def holds(self, records: Sequence[Recorded]) -> bool:
        """Whether ``records``, read from this viewer's version on, begin with the last record it was fed, as it was
        (not so when the campaign was made anew under it: dropped and imported)."""
        return bool(records) and records[0].version == self.version and records[0].envelope.hash == self.last

    def feed(self, records: Sequence[Recorded]) -> list[tuple[dict[str, Any], str]]:
        """Each record as this role sees it: its CloudEvents object and its line of text."""
        fresh = [r for r in records if r.version > self.version]
        if not fresh:
            return []
        events = [decode(r.envelope) for r in fresh]
        self.version, self.last = fresh[-1].version, fresh[-1].envelope.hash
        view = self._view
        if view is not None:
            self._ended |= ended_sessions(events)
            view.ended = frozenset(self._ended)
        shown = []
        for record, event in zip(fresh, events, strict=True):
            self._told.note(event)
            if view is not None and view.hides(event):
                shown.append((placeholder(record.envelope, event, self.registry), placeholder_text(event)))
            else:
                shown.append((record.envelope.to_cloudevent(), render.describe(event, self._told)))
        return shown


def seen(
    records: Sequence[Recorded], *, player: bool, first: int = 1, told: Context | None = None
) -> list[tuple[dict[str, Any], str]]:
    """The records from version ``first`` on as a role sees them (``records`` start at version 1, or for the
    referee at ``first``, with ``told`` what their lines read back to before it: ``render.context``)."""
    viewer = Viewer(player=player, told=told)
    return [item for item in viewer.feed(records) if item[0]["streamversion"] >= first]


#: the CloudEvents types of the events that end a session (and so reveal what it kept secret)
ENDINGS = frozenset(f"{TYPE_PREFIX}{cls.type_name}" for cls in (SessionClosed, SessionAbandoned))
OPENINGS = frozenset({f"{TYPE_PREFIX}{SessionOpened.type_name}"})


def _sessions(records: Iterable[Recorded], types: frozenset[str]) -> set[str]:
    """The sessions named by the records of ``types`` (a session's opening or ending)."""
    return {str(r.envelope.data.get("session", "")) for r in records if r.envelope.type in types}


@attrs.frozen
class Head:
    """What a campaign's stored rows say as of a version of its stream (the referee's table and roll ledger, loaded as
    a command loads them): what a player's view begun past version 1 takes up from."""

    version: int
    #: the session lifecycle
    lifecycle: sessions.SessionLog
    #: what the lines of the events about to be told read back to (``render.context`` of the table)
    told: Context
    #: the data of a row of the roll ledger by key (None without one)
    ledger_row: Callable[[str], Any]


def stored_head(store: LiveStore, campaign: str, registry: Registry = REGISTRY) -> Head | None:
    """What a campaign's stored rows say at the end of its stream: its table and roll ledger loaded as a command
    loads them (their rows caught up with the tail of the log, or folded from the log where they cannot be trusted);
    None when the two reached different versions (an append came between their reads)."""
    stream = stream_for(campaign)
    table = live.load(store, stream, TableProjection(registry))
    ledger = live.load(store, stream, LEDGER)
    if table.version != ledger.version:
        return None
    return Head(
        version=table.version,
        lifecycle=table.state.sessions,
        told=render.context(table.state),
        ledger_row=lambda key: ledger.row(store, stream, key),
    )


def _lifecycle(head: Head, records: Sequence[Recorded]) -> sessions.SessionLog | None:
    """The session lifecycle as of the first of ``records`` (read from it to the head): the head's, when no session
    opened after it; else the one before the first that opened after it, as the ledger holds it (hexlog names the
    sessions of a campaign in the order they open); None when the rows do not say."""
    opened = [str(r.envelope.data.get("session", "")) for r in records[1:] if r.envelope.type in OPENINGS]
    before = head.lifecycle.count - len(opened)
    if not opened:
        return head.lifecycle
    if before < 0 or opened[0] != sessions.session_id(before + 1):
        return None
    if before == 0:
        return sessions.SessionLog()
    row = head.ledger_row(session_key(sessions.session_id(before)))
    try:
        current = converter.structure(row, sessions.Session)
    except Exception:  # noqa: BLE001 - a row that does not decode is not trusted: the view is walked from version 1
        return None
    return sessions.SessionLog(current=current, count=before)


def resumed_viewer(head: Head, records: Sequence[Recorded], registry: Registry = REGISTRY) -> Viewer | None:
    """A player's viewer as a walk from version 1 stands after the first of ``records`` (read from a version after 0
    to the head's version), judged as of the head; None when the rows do not say (the view is then walked from
    version 1)."""
    if not records or records[-1].version != head.version:
        return None
    lifecycle = _lifecycle(head, records)
    if lifecycle is None:
        return None
    return Viewer.resumed(resumed(lifecycle, head.ledger_row), records[0], head.told, registry)


@attrs.frozen
class _Mark:
    """Where the last session opened: the viewer as it stood just before its opening, at ``version``."""

    session: str
    version: int
    viewer: Viewer


class PlayerCache:
    """One campaign's events as a player sees them, kept between requests and caught up with the log.

    It holds the view of every version after the one it began at. With ``head`` (what the stored rows say at the end
    of the stream: ``Head``) it begins just before the first version asked for, taking up the view a walk from version
    1 would have reached there from the rows (``resumed_viewer``), so that its first request reads what it gives
    and a few rows, however long the campaign; without it, or where the rows do not say, it walks from version 1. A
    request for versions before the one it began at begins it again there. (Begun so, the lines of its events read
    back to what the table at the head holds, as the lines of a command's answer do: ``render.context``.)

    Events appended since the last request are judged and added; when one of them ends a session,
    the events that session hid may now be shown, so the view is made anew from that session's opening,
    with the viewer kept as it stood just before it (nothing before that opening is judged otherwise); a session
    that opened before the view began ending, an older session ending, or the log no longer holding the last event
    judged as it was, begins it anew at the version it began at. A follower starts from a copy of its viewer
    (``since``), so that no follower walks the campaign again.
    """

    def __init__(self, registry: Registry = REGISTRY, head: Callable[[], Head | None] | None = None) -> None:
        self.registry = registry
        self._head = head
        self._lock = threading.Lock()
        #: the version the view began after: the view of version v is ``_items[v - _base - 1]``
        self._base = 0
        #: the viewer, fed every version from ``_base + 1`` on, in order (None before the first request)
        self._viewer: Viewer | None = None
        self._items: list[tuple[dict[str, Any], str]] = []
        #: where the last session opened, to judge its events again when it ends
        self._mark: _Mark | None = None

    def items(self, read: Callable[[int], Sequence[Recorded]], first: int = 1) -> list[tuple[dict[str, Any], str]]:
        """The campaign's events from version ``first`` on as a player sees them; ``read(v)`` gives the records
        from version v on."""
        with self._lock:
            self._catch_up(read, first)
            return self._from(first)

    def since(
        self, read: Callable[[int], Sequence[Recorded]], first: int
    ) -> tuple[list[tuple[dict[str, Any], str]], Viewer]:
        """The events from version ``first`` on as a player sees them, and a viewer of its own that goes on after
        the last of them (each later batch judged as a viewer fed from version 1 would judge it)."""
        with self._lock:
            viewer = self._catch_up(read, first)
            return self._from(first), viewer.copy()

    def _from(self, first: int) -> list[tuple[dict[str, Any], str]]:
        start = max(first, 1) - 1 - self._base
        if start < len(self._items) and self._items[start][0]["streamversion"] != first:  # pragma: no cover - a gap
            return [item for item in self._items if item[0]["streamversion"] >= first]
        return self._items[start:]

    def _begin(self, read: Callable[[int], Sequence[Recorded]], first: int) -> Sequence[Recorded]:
        """Begin the view just before version ``first``, from the rows where they say how it stands there, else at
        version 0; the records after the viewer's version that it has not judged yet."""
        at = max(first, 1) - 1
        begun = self._resumed(read, at) if at and self._head is not None else None
        if begun is None:
            self._base, self._viewer, self._items, self._mark = 0, Viewer(player=True, registry=self.registry), [], None
            return read(1)
        viewer, records = begun
        self._base, self._viewer, self._items, self._mark = viewer.version, viewer, [], None
        return records[1:]

    def _resumed(self, read: Callable[[int], Sequence[Recorded]], at: int) -> tuple[Viewer, Sequence[Recorded]] | None:
        """The viewer ``resumed_viewer`` gives at version ``at`` (at the end of the stream, when ``at`` is past it),
        with the records from there to the version the rows were read at; None when the rows do not say."""
        assert self._head is not None  # noqa: S101 - asked only with a head
        head = self._head()
        if head is None or min(at, head.version) < 1:
            return None
        start = min(at, head.version)
        records = [r for r in read(start) if r.version <= head.version]
        if not records or records[0].version != start:
            return None
        viewer = resumed_viewer(head, records, self.registry)
        return None if viewer is None else (viewer, records)

    def _catch_up(self, read: Callable[[int], Sequence[Recorded]], first: int = 1) -> Viewer:
        """Judge the events appended since (beginning the view first where it does not reach back to ``first``);
        judged again from a session's opening when one of them ends it, or begun anew when the last event judged
        is no longer in the log as it was (the campaign made anew: dropped and imported); the viewer."""
        viewer = self._viewer
        if viewer is None or first <= self._base:
            self._judge(self._begin(read, first))
            viewer = self._viewer
            assert viewer is not None  # noqa: S101 - just begun
        version = viewer.version
        fresh: Sequence[Recorded] = read(max(version, 1))
        if version:
            same = viewer.holds(fresh)
            fresh = fresh[1:] if same else ()
            earlier = _sessions(fresh, ENDINGS) - _sessions(fresh, OPENINGS)
            mark = self._mark
            if same and earlier and mark is not None and earlier == {mark.session}:
                self._viewer, self._items = mark.viewer.copy(), self._items[: mark.version - self._base]
                fresh = read(mark.version + 1)
            elif not same or earlier:
                fresh = self._begin(read, self._base + 1)
        self._judge(fresh)
        assert self._viewer is not None  # noqa: S101 - begun above
        return self._viewer

    def _judge(self, fresh: Sequence[Recorded]) -> None:
        """Add ``fresh`` to the view, marking the viewer before each session's opening (fed in pieces that end
        there: a session ends before the next opens, so each piece holds the ending of the session it holds)."""
        viewer = self._viewer
        if not fresh or viewer is None:
            return
        start = 0
        for at, record in enumerate(fresh):
            if record.envelope.type in OPENINGS:
                self._items.extend(viewer.feed(fresh[start:at]))
                session = str(record.envelope.data.get("session", ""))
                self._mark = _Mark(session, viewer.version, viewer.copy())
                start = at
        self._items.extend(viewer.feed(fresh[start:]))
