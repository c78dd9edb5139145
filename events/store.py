"""The event store protocol and the values it takes and returns."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

import attrs

from hexlog.events.chain import Envelope, stored_envelope
from hexlog.events.errors import CorruptLogError

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Iterator, Sequence

    from hexlog.events.base import Event

#: what decoding a stored event takes, and where it sits in its stream: ``(stream version, id, type, schema
#: version, data)``, the data decoded from JSON (a reader that folds events needs neither its time nor its hashes)
Payload = tuple[int, str, str, int, Any]


#: a stored event whose id an import also has: its id as the store wrote it, its stream and its stream version
HeldId = tuple[str, str, int]

#: a stored event as a fold reads it: its stream version, its id and the event decoded
StoredEvent = tuple[int, str, "Event"]

#: an event of the log as a reader of every stream reads it: its position, its stream, its stream version, its id and
#: the event decoded
LoggedEvent = tuple[int, str, int, str, "Event"]


class NewEvent(NamedTuple):
    """An event about to be appended: the store adds stream version, prevhash and hash.

    Immutable; a named tuple, which is made in half the time of a frozen attrs class (a log is written by the
    hundred thousand), and in half the time again when its fields are given in order rather than by name."""

    id: str
    source: str
    type: str
    time: str
    schemaversion: int
    data: dict[str, Any]


#: what a record read from a row holds for its data until the data is first asked for
_UNREAD: Any = object()


class Recorded:
    """An event as stored: its sealed envelope and its global position.

    Immutable, and compared and shown as an attrs class would be. A store reading its rows gives it the
    row's fields instead (``Recorded.of_row``), with the function that reads the row's data column: the data
    is read the first time it is asked for (by the envelope or the payload), and the envelope is built then, so
    a reader that only wants positions, streams or versions reads neither, and one that decodes the event may
    read it straight from the stored text (``raw_payload``).
    """

    __slots__ = ("_data", "_envelope", "_read", "_row", "position")

    position: int
    _envelope: Envelope | None
    _row: tuple[Any, ...]
    _data: Any
    _read: Callable[[tuple[Any, ...]], Any]

    def __init__(self, *, position: int, envelope: Envelope) -> None:
        _set_position(self, position)
        _set_envelope(self, envelope)

    @classmethod
    def of_row(cls, row: tuple[Any, ...], read: Callable[[tuple[Any, ...]], Any]) -> Recorded:
        """The record of a stored row: ``position, stream_id, stream_version, id, type, schema_version, source,
        time, data, prevhash, hash``, whose data column ``read(row)`` decodes when it is first asked for (raising,
        say, ``CorruptLogError`` naming the row where it is not JSON)."""
        return records_of([row], read)[0]

    def _decoded_data(self) -> Any:
        data = self._data
        if data is _UNREAD:
            data = self._read(self._row)
            _set_data(self, data)
        return data

    @property
    def envelope(self) -> Envelope:
        """The event's sealed envelope."""
        envelope = self._envelope
        if envelope is None:
            row = self._row
            envelope = stored_envelope(
                row[3], row[6], row[4], row[1], row[7], self._decoded_data(), row[2], row[5], row[9], row[10]
            )
            _set_envelope(self, envelope)
        return envelope

    def payload(self) -> tuple[str, int, Any]:
        """The event's type, schema version and data: what decoding it takes, read without building its
        envelope."""
        envelope = self._envelope
        if envelope is None:
            row = self._row
            return row[4], row[5], self._decoded_data()
        return envelope.type, envelope.schemaversion, envelope.data

    def raw_payload(self) -> tuple[str, int, Any]:
        """The event's type, schema version and stored data column as the row holds it (its JSON text) while the data
        has not been read; its data (``payload``) once it has, or for a record built from its envelope."""
        if self._envelope is None and self._data is _UNREAD:
            row = self._row
            return row[4], row[5], row[8]
        return self.payload()

    @property
    def stream_id(self) -> str:
        """The stream the event belongs to (the envelope's subject)."""
        envelope = self._envelope
        return str(self._row[1]) if envelope is None else envelope.subject

    @property
    def version(self) -> int:
        """The event's version within its stream."""
        envelope = self._envelope
        if envelope is not None:
            return envelope.streamversion
        try:
            return int(self._row[2])
        except (TypeError, ValueError):  # a damaged row: a database column holds any value
            msg = f"the event at position {self.position} has a stream version that is no number: {self._row[2]!r}"
            raise CorruptLogError(msg) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise attrs.exceptions.FrozenInstanceError

    def __delattr__(self, name: str) -> None:
        raise attrs.exceptions.FrozenInstanceError

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Recorded)  # noqa: S101 - the class was compared just above
        return self.position == other.position and self.envelope == other.envelope

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash((Recorded, self.position, self.envelope))

    def __repr__(self) -> str:
        return f"Recorded(position={self.position!r}, envelope={self.envelope!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return _recorded, (self.position, self.envelope)


def records_of(rows: Iterable[tuple[Any, ...]], read: Callable[[tuple[Any, ...]], Any]) -> list[Recorded]:
    """``Recorded.of_row`` of each of a page of rows, made in one loop (a log is read by the page)."""
    records: list[Recorded] = []
    append, new, unread = records.append, _new, _UNREAD
    set_position, set_envelope, set_row, set_data, set_read = (
        _set_position,
        _set_envelope,
        _set_row,
        _set_data,
        _set_read,
    )
    for row in rows:
        record = new(Recorded)
        set_position(record, row[0])
        set_envelope(record, None)
        set_row(record, row)
        set_data(record, unread)
        set_read(record, read)
        append(record)
    return records


def _recorded(position: int, envelope: Envelope) -> Recorded:
    return Recorded(position=position, envelope=envelope)


_new = object.__new__
_set_position = Recorded.__dict__["position"].__set__
_set_envelope = Recorded.__dict__["_envelope"].__set__
_set_row = Recorded.__dict__["_row"].__set__
_set_data = Recorded.__dict__["_data"].__set__
_set_read = Recorded.__dict__["_read"].__set__


@attrs.frozen(kw_only=True)
class AppendResult:
    """What an append wrote (or, for a repeated command id, what it wrote the first time)."""

    stream_id: str
    first_version: int
    last_version: int
    event_ids: tuple[str, ...]
    replayed: bool = False


#: the key of a row whose deletion removes every row of its projection (written before the rest)
EVERY_ROW = "*"


@attrs.frozen
class Later:
    """A row's data made when it is first needed (``make()``): a live projection's part is encoded when a store
    writes it, or when a store that keeps rows in memory (a simulation's) gives it back, and never when nobody
    reads it."""

    make: Callable[[], Any]


def row_value(data: Any) -> Any:
    """A row's data as JSON-ready values: ``data`` itself, or made if it is ``Later``."""
    return data.make() if data.__class__ is Later else data


class ProjectionRow(NamedTuple):
    """One row of a live projection of a stream, as of stream ``version``; ``data`` None deletes it.

    Rows are applied in order; a deleted row with the key ``EVERY_ROW`` removes every row of its
    projection, so that a projection written anew leaves nothing stale behind.

    Immutable; a named tuple, as ``NewEvent`` is (every command writes a few: its changed parts and marks).
    """

    projection: str
    key: str
    version: int
    #: a JSON-ready value (dicts, lists, strings, numbers, booleans), or ``Later`` one, or None to delete the row
    data: Any


class EventStore(Protocol):
    """An append-only, hash-chained event log of many streams.

    ``append`` writes a batch in one transaction: it raises ``ConcurrencyError`` when the
    stream's version is not ``expected_version``, and for a command id already used it returns
    the original result (same digest) or raises ``IdempotencyConflictError`` (other digest).
    The ``rows`` of the live projections that fold the batch are written in the same transaction.
    """

    def append(  # noqa: PLR0913 - a batch, its expectations and its rows
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int,
        command_id: str | None = None,
        command_digest: str | None = None,
        rows: Sequence[ProjectionRow] = (),
    ) -> AppendResult: ...

    def command_result(self, command_id: str, command_digest: str) -> AppendResult | None: ...

    def read_stream(self, stream_id: str, from_version: int = 1) -> list[Recorded]: ...

    def iter_stream(self, stream_id: str, from_version: int = 1) -> Iterator[Recorded]:
        """The stream's events from ``from_version`` on, in order, read page by page (a long stream is never
        held whole)."""
        ...

    def iter_payloads(self, stream_id: str, from_version: int = 1) -> Iterator[Payload]:
        """The payload of each of the stream's events from ``from_version`` on, in order, read page by page: what
        ``iter_stream`` gives without the envelopes (``CorruptRowError`` naming an event whose data is not JSON)."""
        ...

    def payload_pages(
        self, stream_id: str, from_version: int = 1, to_version: int | None = None
    ) -> Iterator[list[Payload]]:
        """``iter_payloads`` from ``from_version`` to ``to_version`` (the stream's end when None), a page (a list, never
        empty) at a time: for a reader that folds a long stream page by page."""
        ...

    def event_pages(
        self, stream_id: str, from_version: int = 1, to_version: int | None = None
    ) -> Iterator[list[StoredEvent]]:
        """The stream's events from ``from_version`` to ``to_version`` (its end when None), decoded, in order, a
        page (a list, never empty) at a time: what ``payload_pages`` gives, each payload decoded (``CorruptLogError``
        naming an event that does not decode)."""
        ...

    def read_all(self, from_position: int = 1, limit: int | None = None) -> Iterator[Recorded]: ...

    def log_pages(self, from_position: int = 1) -> Iterator[list[LoggedEvent]]:
        """The events of every stream from ``from_position`` on, in global order, decoded, a page (a list, never
        empty) at a time: what ``read_all`` gives, each record as its position, stream, version, id and event
        (``CorruptLogError`` naming an event that does not decode), for a reader that folds the whole log and needs
        no envelope."""
        ...

    def stream_version(self, stream_id: str) -> int: ...

    def events_with_ids(self, ids: Collection[str]) -> list[HeldId]:
        """Each stored event whose id is one of ``ids`` in small letters or capitals (an id is a UUID, the same either
        way, which the store's unique ids tell apart), as its id written there, its stream and its stream version; in
        no set order. Asks for the ids, a page of them at a time, instead of reading the log."""
        ...

    def streams(self) -> list[str]: ...

    def close(self) -> None: ...


class ProjectionStore(Protocol):
    """Where the live projections of each stream keep their rows, each with the version it reflects."""

    def read_rows(
        self, stream_id: str, projection: str, keys: Sequence[str] | None = None
    ) -> dict[str, tuple[int, Any]]: ...

    def iter_rows(self, stream_id: str, projection: str) -> Iterator[tuple[str, int, Any]]:
        """Every row of a stream's projection as (key, version, data), in key order, read page by page (a
        projection with a row per roll is never held whole); a row whose data is not JSON is left out."""
        ...

    def write_rows(self, stream_id: str, rows: Sequence[ProjectionRow], *, at_version: int) -> bool: ...


class LiveStore(EventStore, ProjectionStore, Protocol):
    """A store that keeps both the log and the rows of its live projections."""


@runtime_checkable
class CheckedTable(Protocol):
    """A store whose events table a referee who owns the database could rebuild by hand (SQLite, PostgreSQL): it
    says how the table differs from hexlog's, and what it holds that a reader paging through it may skip or mix
    up, so that an audit can say when what it read may not be the log as it is."""

    def events_as_made(self) -> bool:
        """Whether the events table has hexlog's keys and compares stream ids as written."""
        ...

    def events_differences(self) -> list[str]:
        """How the events table differs from hexlog's where readers depend on it, a few words each."""
        ...

    def events_hazards(self) -> list[str]:
        """What the events table holds that a reader paging through it may skip or mix up, a few words each."""
        ...
