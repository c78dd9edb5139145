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
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.base import TYPE_PREFIX
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.session import SessionAbandoned, SessionClosed, SessionOpened
from hexlog.machine.registry import REGISTRY
from hexlog.projections.visibility import PlayerView, ended_sessions
from hexlog.service import render
from hexlog.service.render_campaign import roll_name
from hexlog.service.render_context import Context

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from hexlog.events.base import Event
    from hexlog.events.chain import Envelope
    from hexlog.events.store import Recorded
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
class _Mark:
    """Where the last session opened: the viewer as it stood just before its opening, at ``version``."""

    session: str
    version: int
    viewer: Viewer


class PlayerCache:
    """One campaign's events as a player sees them, kept between requests and caught up with the log.

    Events appended since the last request are judged and added; when one of them ends a session,
    the events that session hid may now be shown, so the view is made anew from that session's opening,
    with the viewer kept as it stood just before it (nothing before that opening is judged otherwise; an
    older session ending, or the log no longer holding the last event judged as it was, makes it anew from
    version 1). A follower starts from a copy of its viewer (``since``), so that no follower walks the
    campaign from version 1 again.
    """

    def __init__(self, registry: Registry = REGISTRY) -> None:
        self.registry = registry
        self._lock = threading.Lock()
        self._viewer = Viewer(player=True, registry=registry)
        #: the view of version v is ``_items[v - 1]``: the viewer is fed every version from 1 on, in order
        self._items: list[tuple[dict[str, Any], str]] = []
        #: where the last session opened, to judge its events again when it ends
        self._mark: _Mark | None = None

    def items(self, read: Callable[[int], Sequence[Recorded]], first: int = 1) -> list[tuple[dict[str, Any], str]]:
        """The campaign's events from version ``first`` on as a player sees them; ``read(v)`` gives the records
        from version v on."""
        with self._lock:
            self._catch_up(read)
            return self._from(first)

    def since(
        self, read: Callable[[int], Sequence[Recorded]], first: int
    ) -> tuple[list[tuple[dict[str, Any], str]], Viewer]:
        """The events from version ``first`` on as a player sees them, and a viewer of its own that goes on after
        the last of them (each later batch judged as a viewer fed from version 1 would judge it)."""
        with self._lock:
            self._catch_up(read)
            return self._from(first), self._viewer.copy()

    def _from(self, first: int) -> list[tuple[dict[str, Any], str]]:
        start = max(first, 1) - 1
        if start < len(self._items) and self._items[start][0]["streamversion"] != first:  # pragma: no cover - a gap
            return [item for item in self._items if item[0]["streamversion"] >= first]
        return self._items[start:]

    def _catch_up(self, read: Callable[[int], Sequence[Recorded]]) -> None:
        """Judge the events appended since; judged again from a session's opening when one of them ends it, or
        made anew from version 1 when the last event judged is no longer in the log as it was (the campaign made
        anew: dropped and imported)."""
        version = self._viewer.version
        fresh: Sequence[Recorded] = read(max(version, 1))
        if version:
            same = self._viewer.holds(fresh)
            fresh = fresh[1:] if same else ()
            earlier = _sessions(fresh, ENDINGS) - _sessions(fresh, OPENINGS)
            mark = self._mark
            if same and earlier and mark is not None and earlier == {mark.session}:
                self._viewer, self._items = mark.viewer.copy(), self._items[: mark.version]
                fresh = read(mark.version + 1)
            elif not same or earlier:
                self._viewer, self._items, self._mark = Viewer(player=True, registry=self.registry), [], None
                fresh = read(1)
        self._judge(fresh)

    def _judge(self, fresh: Sequence[Recorded]) -> None:
        """Add ``fresh`` to the view, marking the viewer before each session's opening (fed in pieces that end
        there: a session ends before the next opens, so each piece holds the ending of the session it holds)."""
        if not fresh:
            return
        start = 0
        for at, record in enumerate(fresh):
            if record.envelope.type in OPENINGS:
                self._items.extend(self._viewer.feed(fresh[start:at]))
                session = str(record.envelope.data.get("session", ""))
                self._mark = _Mark(session, self._viewer.version, self._viewer.copy())
                start = at
        self._items.extend(self._viewer.feed(fresh[start:]))
