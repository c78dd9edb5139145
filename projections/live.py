"""Live projections: folds of a stream kept as rows in the store, written in the same transaction as
the events they fold, so that a command reads and writes the same few rows at any length of campaign.

A live projection is a pure fold (``initial``, ``evolve``) whose state is split into a fixed set of
named parts. After a batch only the parts that changed are written (``attrs.evolve`` keeps an
unchanged part the same object, so identity tells), with the rows an event adds on its own (the
ledger writes one row per roll) and a mark row ``@`` holding the stream version folded to, the id
of the event at that version and the projection's revision. Loading reads the parts, the mark and
the log from the mark's event on, never the event rows.

Rows are a cache, and a command decides on them, so they are checked before they are used: rows of
another revision, a mark ahead of the log, a mark that names another event than the log's event at
its version, a part written at a version later than the mark's, or parts that do not decode are all
ignored; the projection is then folded again from the log and its rows are written anew with the
next append. (A part edited in place, its version kept, is only caught by ``hexlog replay``, which
compares every row with a fold of the log; ``hexlog replay --repair`` rewrites them.)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import attrs

from hexlog.events.codec import decode_record
from hexlog.events.errors import CorruptLogError, HexlogError
from hexlog.events.store import EVERY_ROW, Later, ProjectionRow, row_value

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence

    from hexlog.events.base import Event
    from hexlog.events.store import LiveStore, ProjectionStore, Recorded, StoredEvent

S = TypeVar("S")
MARK = "@"
#: the events a rebuild folds at a time into a projection whose rows it does not keep
CHUNK = 500


class Projection(Protocol[S]):
    """What a live projection declares."""

    #: the projection's name in the store
    name: str
    #: bumped whenever the saved form changes: saved rows of another revision are rebuilt
    revision: int

    def initial(self) -> S:
        """The state before any event."""
        ...

    def evolve(self, state: S, event: Event) -> S:
        """The state after one event (pure)."""
        ...

    def evolve_all(self, state: S, events: Sequence[Event]) -> S:
        """The state after ``events`` in order: what ``evolve`` gives event by event (it may build it once)."""
        ...

    def parts(self, state: S) -> Mapping[str, Any]:
        """The state's parts by key (the same keys for every state); an unchanged part is the same object."""
        ...

    def encode(self, key: str, part: Any) -> Any:
        """A part as JSON-ready data."""
        ...

    def assemble(self, parts: Mapping[str, Any]) -> S:
        """The state from its decoded parts (raises when they do not fit)."""
        ...

    def event_rows(self, before: S, after: S, event: Event) -> Mapping[str, Any]:
        """Rows one event adds besides the parts (key -> data, or None to delete)."""
        ...


def decode_recorded(recorded: Recorded) -> Event:
    """The event of a stored record; ``CorruptLogError`` naming the event if it does not decode."""
    try:
        return decode_record(recorded)
    except CorruptLogError:
        raise  # ``decode_record`` names the event already
    except HexlogError as err:
        env = recorded.envelope
        msg = f"{env.subject} version {env.streamversion} (event {env.id}) does not decode: {err}"
        raise CorruptLogError(msg) from err


def chunked(events: Iterable[Event]) -> Iterator[list[Event]]:
    """``events`` (read as they come) in lists of ``CHUNK``: what ``rebuild_all`` folds."""
    stream = iter(events)
    while chunk := list(itertools.islice(stream, CHUNK)):
        yield chunk


@attrs.define
class Reading:
    """What a pass over a stream's payloads noted as they went by: the last version and event, and the event ids at
    the ``wanted`` versions (those the stored marks of a replay name)."""

    wanted: set[int] = attrs.field(factory=set)
    version: int = 0
    event: str = ""
    ids: dict[int, str] = attrs.field(factory=dict)

    def pages(self, pages: Iterable[Sequence[StoredEvent]]) -> Iterator[list[Event]]:
        """The events of ``pages`` of a stream's stored events (``EventStore.event_pages``), a page at a time, noting
        what the checks need as they go by (the last version and event once they are all read)."""
        wanted, ids = self.wanted, self.ids
        for page in pages:
            if not page:
                continue
            if wanted:
                ids.update((version, event_id) for version, event_id, _ in page if version in wanted)
            self.version, self.event = page[-1][0], page[-1][1]
            yield [stored[2] for stored in page]


def mark_row(projection: Projection[Any], version: int, event: str) -> ProjectionRow:
    """The row that records how far the projection has folded (the stream ``version`` and ``event``, the
    id of the event at that version, "" before any event), and in which revision."""
    return ProjectionRow(projection.name, MARK, version, {"revision": projection.revision, "event": event})


def mark_problem(projection: Projection[Any], mark: tuple[int, Any] | None, current: int) -> str | None:
    """Why a stored mark cannot be trusted as it stands (None when it can, but for the event it names):
    no mark, another revision, no event named, or a version outside the log of ``current`` events."""
    if mark is None:
        return "it has no mark"
    at, data = mark
    if not isinstance(data, dict) or data.get("revision") != projection.revision:
        revision = data.get("revision") if isinstance(data, dict) else data
        return f"its rows are of revision {revision!r}, not {projection.revision}"
    if not isinstance(data.get("event"), str):
        return "its mark names no event"
    if not 0 <= at <= current:
        return f"its mark is at version {at}, outside the log's 0 to {current}"
    return None


def newer_than_mark(rows: Mapping[str, tuple[int, Any]], at: int) -> list[str]:
    """The keys of rows written at a later stream version than the mark's ``at``: a mark moved back."""
    return sorted(key for key, (version, _) in rows.items() if version > at)


def _row(projection: Projection[Any], key: str, version: int, data: Any) -> ProjectionRow:
    return ProjectionRow(projection.name, key, version, data)  # in order: half the time of naming each field


@attrs.define
class Live(Generic[S]):
    """One projection of one stream as last folded: its state and the stream version it reached.

    ``pending`` holds rows the store still needs before it holds this state (after a catch-up or a
    rebuild); they are written with the next append, in its transaction, ahead of that append's rows.
    """

    projection: Projection[S]
    state: S
    version: int
    pending: tuple[ProjectionRow, ...] = ()
    #: the id of the event at ``version`` ("" before any event)
    event: str = ""
    #: the parts of ``state`` (``projection.parts``), when ``settle`` has made them already
    parts: Mapping[str, Any] | None = attrs.field(default=None, eq=False, repr=False)

    def fold(self, events: Iterable[Event], version: int, event: str) -> tuple[Live[S], list[ProjectionRow]]:
        """The projection after ``events`` (reaching stream ``version``, whose event has the id ``event``)
        and every row to write for them."""
        p, state = self.projection, self.state
        extra: dict[str, Any] = {}
        for one in events:
            after = p.evolve(state, one)
            extra.update(p.event_rows(state, after, one))
            state = after
        return self.settle(state, version, event, extra)

    def settle(
        self, state: S, version: int, event: str, extra: Mapping[str, Any] | None = None
    ) -> tuple[Live[S], list[ProjectionRow]]:
        """The projection moved to ``state``, already folded up to ``version`` (whose event has the id
        ``event``), and every row to write.

        The rows are those still pending, each part that is not the very object it was, the event
        rows in ``extra``, and the mark.
        """
        p = self.projection
        old = p.parts(self.state) if self.parts is None else self.parts
        parts = p.parts(state)
        rows = list(self.pending)
        rows += [
            _row(p, k, version, Later(partial(p.encode, k, part))) for k, part in parts.items() if old[k] is not part
        ]
        rows += [_row(p, k, version, v) for k, v in (extra or {}).items()]
        rows.append(mark_row(p, version, event))
        return Live(p, state, version, event=event, parts=parts), rows

    def row(self, store: ProjectionStore, stream_id: str, key: str) -> Any | None:
        """The data of one of the projection's rows as it stands once the pending rows are written."""
        for pending in reversed(self.pending):
            if pending.key == key:
                return row_value(pending.data)
            if pending.key == EVERY_ROW and pending.data is None:
                return None
        found = store.read_rows(stream_id, self.projection.name, [key]).get(key)
        return None if found is None else found[1]


def rebuild(projection: Projection[S], events: Iterable[Event]) -> tuple[S, Mapping[str, Any]]:
    """The projection folded from scratch over ``events`` (read as they come), and the data of every row it keeps
    (the mark left out)."""
    state, data = rebuild_all([projection], chunked(events))[0]
    return state, data


def rebuild_all(
    projections: Sequence[Projection[Any]],
    chunks: Iterable[Sequence[Event]],
    rows: Sequence[bool] | None = None,
    holder: Callable[[], MutableMapping[str, Any]] = dict,
) -> list[tuple[Any, MutableMapping[str, Any]]]:
    """Each projection folded from scratch in one pass over the events of ``chunks`` (lists of events, in order,
    which may be read as they come: ``chunked`` makes them of any iterable of events), and the data of every row it
    keeps (the mark left out), each projection's in a ``holder()`` (a dict by default).

    ``rows`` says, projection by projection, whether its rows are wanted (all are by default); a projection whose
    rows are not wanted is only folded, and its rows are given as an empty ``holder()``.
    """
    wanted = [True] * len(projections) if rows is None else list(rows)
    states = [projection.initial() for projection in projections]
    extras = [holder() for _ in projections]
    folded = [i for i in range(len(projections)) if not wanted[i]]
    kept = [(i, projection, extras[i]) for i, projection in enumerate(projections) if wanted[i]]
    for chunk in chunks:
        for i in folded:
            states[i] = projections[i].evolve_all(states[i], chunk)
        for i, projection, extra in kept:
            state = states[i]
            for event in chunk:
                after = projection.evolve(state, event)
                for key, value in projection.event_rows(state, after, event).items():
                    if value is None:
                        extra.pop(key, None)
                    else:
                        extra[key] = value
                state = after
            states[i] = state
    for i, projection, extra in kept:
        for key, part in projection.parts(states[i]).items():
            if key not in extra:  # an event's own row of the same key is the one kept
                extra[key] = projection.encode(key, part)
    return list(zip(states, extras, strict=True))


def anew(projection: Projection[S], data: Mapping[str, Any], version: int, event: str) -> tuple[ProjectionRow, ...]:
    """Every row of a projection written anew: wipe what was there, then all rows and the mark."""
    rows = [_row(projection, EVERY_ROW, version, None)]
    rows += [_row(projection, k, version, v) for k, v in data.items()]
    rows.append(mark_row(projection, version, event))
    return tuple(rows)


def last_event(records: Sequence[Recorded]) -> str:
    """The id of the last of ``records`` ("" when there is none)."""
    return records[-1].envelope.id if records else ""


def _from_mark(store: LiveStore, stream_id: str, at: int, event: str) -> list[Recorded] | None:
    """The records after version ``at``, if the log's event at ``at`` is the one the mark names (else None).

    The one event at the mark is read with the tail: a command still reads a constant number of events.
    """
    if at == 0:
        return store.read_stream(stream_id, 1) if not event else None
    records = store.read_stream(stream_id, at)
    if not records or records[0].version != at or records[0].envelope.id != event:
        return None
    return records[1:]


def _assembled(projection: Projection[S], parts: Mapping[str, Any]) -> list[S]:
    """The state the saved parts give, as a list of one; none when they do not fit (then fold again)."""
    try:
        return [projection.assemble(parts)]
    except Exception:  # noqa: BLE001 - any failure to read a cache means folding the log again
        return []


def _saved(store: LiveStore, stream_id: str, projection: Projection[S]) -> Live[S] | None:
    """The projection from its saved parts and mark, caught up with the tail; None when they cannot be trusted.

    The mark is checked against the log by the tail read from it: a mark past the end of the log, or one
    naming another event than the log's at its version, finds no tail to catch up with.
    """
    keys = [*projection.parts(projection.initial()), MARK]
    rows = store.read_rows(stream_id, projection.name, keys)
    mark = rows.pop(MARK, None)
    if mark is None or mark_problem(projection, mark, max(mark[0], 0)) or newer_than_mark(rows, mark[0]):
        return None
    at, event = mark[0], mark[1]["event"]
    tail = _from_mark(store, stream_id, at, event)
    if tail is None:
        return None
    for saved_state in _assembled(projection, {key: data for key, (_, data) in rows.items()}):
        live = Live(projection, saved_state, at, event=event)
        if not tail:
            return live
        version = tail[-1].version
        caught, written = live.fold([decode_recorded(r) for r in tail], version, last_event(tail))
        return Live(projection, caught.state, version, tuple(written), event=caught.event)
    return None


def load(store: LiveStore, stream_id: str, projection: Projection[S]) -> Live[S]:
    """The projection as of the end of the stream: its saved parts caught up with the tail of the log.

    The parts, the mark and the log from the mark's event on are read. When the rows cannot be
    trusted the projection is folded from the whole log and all its rows are pending, to be written
    anew.
    """
    saved = _saved(store, stream_id, projection)
    if saved is not None:
        return saved
    read = Reading()
    state, data = rebuild_all([projection], read.pages(store.event_pages(stream_id)))[0]
    return Live(projection, state, read.version, anew(projection, data, read.version, read.event), event=read.event)


def catch_up(store: LiveStore, stream_id: str, live: Live[S]) -> Live[S]:
    """A projection held in memory caught up with the log, trusting the store's rows only if they match.

    When another writer appended, its rows hold the new state if its mark names the end of the
    stream (its version and its last event); otherwise the projection is loaded again from the store.
    """
    tail = store.read_stream(stream_id, live.version + 1)
    if not tail:
        return live
    version, event = tail[-1].version, last_event(tail)
    mark = store.read_rows(stream_id, live.projection.name, [MARK]).get(MARK)
    trusted = (
        mark is not None
        and mark_problem(live.projection, mark, version) is None
        and mark[0] == version
        and mark[1]["event"] == event
    )
    if not trusted:
        return load(store, stream_id, live.projection)
    caught, _ = live.fold([decode_recorded(r) for r in tail], version, event)
    return caught


def refresh(store: LiveStore, stream_id: str, projections: Iterable[Projection[Any]]) -> dict[str, Any]:
    """Load every projection of a stream, write the rows it still needed, and return the states."""
    states: dict[str, Any] = {}
    for projection in projections:
        live = load(store, stream_id, projection)
        if live.pending:
            store.write_rows(stream_id, live.pending, at_version=live.version)
        states[projection.name] = live.state
    return states
