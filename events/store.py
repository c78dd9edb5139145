"""The event store protocol and the values it takes and returns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import attrs

from hexlog.events.chain import Envelope

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence


@attrs.frozen(kw_only=True)
class NewEvent:
    """An event about to be appended: the store adds stream version, prevhash and hash."""

    id: str
    source: str
    type: str
    time: str
    schemaversion: int
    data: dict[str, Any]


@attrs.frozen(kw_only=True)
class Recorded:
    """An event as stored: its sealed envelope and its global position."""

    position: int
    envelope: Envelope

    @property
    def stream_id(self) -> str:
        """The stream the event belongs to (the envelope's subject)."""
        return self.envelope.subject

    @property
    def version(self) -> int:
        """The event's version within its stream."""
        return self.envelope.streamversion


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


@attrs.frozen(kw_only=True)
class ProjectionRow:
    """One row of a live projection of a stream, as of stream ``version``; ``data`` None deletes it.

    Rows are applied in order; a deleted row with the key ``EVERY_ROW`` removes every row of its
    projection, so that a projection written anew leaves nothing stale behind.
    """

    projection: str
    key: str
    version: int
    #: a JSON-ready value (dicts, lists, strings, numbers, booleans), or None to delete the row
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

    def read_all(self, from_position: int = 1, limit: int | None = None) -> Iterator[Recorded]: ...

    def stream_version(self, stream_id: str) -> int: ...

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
