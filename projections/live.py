"""Live projections: folds of a stream kept as rows in the store, written in the same transaction as
the events they fold, so that a command reads and writes the same few rows at any length of campaign.

A live projection is a pure fold (``initial``, ``evolve``) whose state is split into a fixed set of
named parts. After a batch only the parts that changed are written (``attrs.evolve`` keeps an
unchanged part the same object, so identity tells), with the rows an event adds on its own (the
ledger writes one row per roll) and a mark row ``@`` holding the stream version folded to and the
projection's revision. Loading reads the parts and the mark only, never the event rows. Rows are a
cache: rows of another revision, rows ahead of the log, or rows that do not decode are ignored, the
projection is folded again from the log, and its rows are written anew.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import attrs

from hexlog.events.codec import decode
from hexlog.events.errors import CorruptLogError, HexlogError
from hexlog.events.store import EVERY_ROW, ProjectionRow

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from hexlog.events.base import Event
    from hexlog.events.store import LiveStore, Recorded

S = TypeVar("S")
MARK = "@"


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
        return decode(recorded.envelope)
    except HexlogError as err:
        env = recorded.envelope
        msg = f"{env.subject} version {env.streamversion} (event {env.id}) does not decode: {err}"
        raise CorruptLogError(msg) from err


def mark_row(projection: Projection[Any], version: int) -> ProjectionRow:
    """The row that records how far the projection has folded, and in which revision."""
    return ProjectionRow(projection=projection.name, key=MARK, version=version, data={"revision": projection.revision})


def _row(projection: Projection[Any], key: str, version: int, data: Any) -> ProjectionRow:
    return ProjectionRow(projection=projection.name, key=key, version=version, data=data)


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

    def fold(self, events: Iterable[Event], version: int) -> tuple[Live[S], list[ProjectionRow]]:
        """The projection after ``events`` (reaching stream ``version``) and every row to write for them."""
        p, state = self.projection, self.state
        extra: dict[str, Any] = {}
        for event in events:
            after = p.evolve(state, event)
            extra.update(p.event_rows(state, after, event))
            state = after
        return self.settle(state, version, extra)

    def settle(
        self, state: S, version: int, extra: Mapping[str, Any] | None = None
    ) -> tuple[Live[S], list[ProjectionRow]]:
        """The projection moved to ``state``, already folded up to ``version``, and every row to write.

        The rows are those still pending, each part that is not the very object it was, the event
        rows in ``extra``, and the mark.
        """
        p = self.projection
        old = p.parts(self.state)
        rows = list(self.pending)
        rows += [_row(p, k, version, p.encode(k, part)) for k, part in p.parts(state).items() if old[k] is not part]
        rows += [_row(p, k, version, v) for k, v in (extra or {}).items()]
        rows.append(mark_row(p, version))
        return Live(p, state, version), rows


def rebuild(projection: Projection[S], events: Iterable[Event]) -> tuple[S, dict[str, Any]]:
    """The projection folded from scratch, and the data of every row it keeps (the mark left out)."""
    state = projection.initial()
    extra: dict[str, Any] = {}
    for event in events:
        after = projection.evolve(state, event)
        for key, value in projection.event_rows(state, after, event).items():
            if value is None:
                extra.pop(key, None)
            else:
                extra[key] = value
        state = after
    data = {key: projection.encode(key, part) for key, part in projection.parts(state).items()}
    data.update(extra)
    return state, data


def _anew(projection: Projection[S], data: Mapping[str, Any], version: int) -> tuple[ProjectionRow, ...]:
    """Every row of a projection written anew: wipe what was there, then all rows and the mark."""
    rows = [_row(projection, EVERY_ROW, version, None)]
    rows += [_row(projection, k, version, v) for k, v in data.items()]
    rows.append(mark_row(projection, version))
    return tuple(rows)


def _mark_ok(projection: Projection[Any], mark: tuple[int, Any] | None, current: int) -> bool:
    return (
        mark is not None
        and isinstance(mark[1], dict)
        and mark[1].get("revision") == projection.revision
        and 0 <= mark[0] <= current
    )


def _events(store: LiveStore, stream_id: str, after: int) -> tuple[list[Event], int]:
    tail = store.read_stream(stream_id, after + 1)
    return [decode_recorded(r) for r in tail], (tail[-1].version if tail else after)


def _assembled(projection: Projection[S], parts: Mapping[str, Any]) -> list[S]:
    """The state the saved parts give, as a list of one; none when they do not fit (then fold again)."""
    try:
        return [projection.assemble(parts)]
    except Exception:  # noqa: BLE001 - any failure to read a cache means folding the log again
        return []


def load(store: LiveStore, stream_id: str, projection: Projection[S]) -> Live[S]:
    """The projection as of the end of the stream: its saved parts caught up with the tail of the log.

    Only the parts and the mark are read. When they cannot be used the projection is folded from
    the whole log and all its rows are pending, to be written anew.
    """
    current = store.stream_version(stream_id)
    keys = [*projection.parts(projection.initial()), MARK]
    rows = store.read_rows(stream_id, projection.name, keys)
    mark = rows.pop(MARK, None)
    if _mark_ok(projection, mark, current):
        assert mark is not None  # noqa: S101 - checked by _mark_ok
        for saved_state in _assembled(projection, {key: data for key, (_, data) in rows.items()}):
            events, version = _events(store, stream_id, mark[0])
            live = Live(projection, saved_state, mark[0])
            if not events:
                return live
            caught, written = live.fold(events, version)
            return Live(projection, caught.state, version, tuple(written))
    events, version = _events(store, stream_id, 0)
    state, data = rebuild(projection, events)
    return Live(projection, state, version, _anew(projection, data, version))


def catch_up(store: LiveStore, stream_id: str, live: Live[S]) -> Live[S]:
    """A projection held in memory caught up with the log, trusting the store's rows only if they match.

    When another writer appended, its rows hold the new state if its mark says the version it folded
    to is the end of the stream; otherwise the projection is loaded again from the store.
    """
    events, version = _events(store, stream_id, live.version)
    if not events:
        return live
    mark = store.read_rows(stream_id, live.projection.name, [MARK]).get(MARK)
    if not _mark_ok(live.projection, mark, version) or mark is None or mark[0] != version:
        return load(store, stream_id, live.projection)
    caught, _ = live.fold(events, version)
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
