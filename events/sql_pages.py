"""The reads of the log and of a stream's payloads and decoded events that the SQL stores share, page by page.

A SQL store gives its rows of a stream a page at a time (``_stream_pages``), one row by its version (``_read_row``)
and a page of the log's rows after a position (``_log_rows``); on those, ``PagedReads`` gives the records of the log,
its decoded events a page at a time, and a stream's payloads one by one or a page at a time and its decoded events a
page at a time, naming a row whose data is not JSON as every read of records names it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events.sqlite_schema import (
    COLUMNS,
    EVENT_PAGE_SIZE,
    LOG_COLUMNS,
    PAGE_SIZE,
    PAYLOAD_COLUMNS,
    STREAM_PAGE_SIZE,
    event_page,
    log_page,
    payload_page,
    payloads,
    recorded,
    records,
)

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator, Sequence

    from hexlog.events.store import HeldId, LoggedEvent, Payload, Recorded, StoredEvent


#: how many ids one query of ``events_with_ids`` asks for (SQLite's least limit of parameters is 999)
ID_PAGE_SIZE = 500


class PagedReads:
    """The reads of a SQL store's events, on its ``_rows`` (a query's rows) and ``MARK`` (its parameter mark)."""

    #: how the store's driver marks a query's parameters
    MARK = "?"

    def _rows(self, query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows a read gives (the store's lock held, its driver's errors in its own words)."""
        raise NotImplementedError

    def _query(self, query: str) -> str:
        """``query`` with each ``?`` the store's parameter mark."""
        return query if self.MARK == "?" else query.replace("?", self.MARK)

    def read_stream(self, stream_id: str, from_version: int = 1) -> list[Recorded]:
        """The stream's events from ``from_version`` on, in order."""
        query = f"SELECT {COLUMNS} FROM events WHERE stream_id = ? AND stream_version >= ? ORDER BY stream_version"  # noqa: S608 - constant columns
        return records(self._rows(self._query(query), (stream_id, from_version)))

    def iter_stream(self, stream_id: str, from_version: int = 1) -> Iterator[Recorded]:
        """The stream's events from ``from_version`` on, in order, fetched page by page."""
        for rows in self._stream_pages(COLUMNS, stream_id, from_version):
            yield from records(rows)

    def _stream_pages(
        self,
        columns: str,
        stream_id: str,
        from_version: int,
        *,
        to_version: int | None = None,
        page: int | None = None,
    ) -> Iterator[list[tuple[Any, ...]]]:
        """The stream's rows of ``columns`` (one of them ``stream_version``) from ``from_version`` to ``to_version``
        (its end when None), in order, a page (of ``page`` rows, ``STREAM_PAGE_SIZE`` by default) at a time."""
        size = STREAM_PAGE_SIZE if page is None else page
        version_at = columns.split(", ").index("stream_version")
        after = max(from_version, 1) - 1
        # a bound only when asked: a row whose version is not a number (a table edited by hand) is read, and named
        bound, last = ("", ()) if to_version is None else ("AND stream_version <= ? ", (to_version,))
        query = self._query(
            f"SELECT {columns} FROM events WHERE stream_id = ? AND stream_version > ? "  # noqa: S608 - constant columns
            f"{bound}ORDER BY stream_version LIMIT ?"
        )
        while True:
            rows = self._rows(query, (stream_id, after, *last, size))
            yield rows
            if len(rows) < size:
                return
            after = rows[-1][version_at]

    def _read_row(self, stream_id: str, version: int) -> Recorded | None:
        """The record at a version of the stream (None if there is none)."""
        query = f"SELECT {COLUMNS} FROM events WHERE stream_id = ? AND stream_version = ?"  # noqa: S608 - constant columns
        rows = self._rows(self._query(query), (stream_id, version))
        return recorded(rows[0]) if rows else None

    def _log_rows(self, columns: str, after: int, size: int) -> list[tuple[Any, ...]]:
        """The log's rows of ``columns`` (the first of them ``position``) after position ``after``, in order, ``size``
        at most."""
        query = f"SELECT {columns} FROM events WHERE position > ? ORDER BY position LIMIT ?"  # noqa: S608 - constant columns
        return self._rows(self._query(query), (after, size))

    def events_with_ids(self, ids: Collection[str]) -> list[HeldId]:
        """Each stored event whose id is one of ``ids`` in small letters or capitals, as its id written there, its
        stream and its stream version.

        hexlog writes ids in small letters, and the unique index on ``id`` (which compares case) finds those at
        once: one query a page of ids. An id written in capitals (by hand, or imported so) it cannot find by the small
        letters, nor any index hexlog makes: one pass over the ids alone (the unique index's, no event read or
        decoded) names those, usually none, and only their hits are asked for."""
        wanted = {text.lower() for text in ids}
        if not wanted:
            return []
        shouted = [row[0] for row in self._rows("SELECT id FROM events WHERE id <> lower(id)", ())]
        asked = sorted(wanted | {held for held in shouted if isinstance(held, str) and held.lower() in wanted})
        found: list[HeldId] = []
        for at in range(0, len(asked), ID_PAGE_SIZE):
            page = asked[at : at + ID_PAGE_SIZE]
            query = f"SELECT id, stream_id, stream_version FROM events WHERE id IN ({', '.join('?' * len(page))})"  # noqa: S608 - marks alone
            found.extend((str(row[0]), str(row[1]), int(row[2])) for row in self._rows(self._query(query), page))
        return found

    def read_all(self, from_position: int = 1, limit: int | None = None) -> Iterator[Recorded]:
        """Every event from ``from_position`` on, in global order, fetched page by page."""
        after = max(from_position, 1) - 1
        left = limit
        while left is None or left > 0:
            size = PAGE_SIZE if left is None else min(PAGE_SIZE, left)
            rows = self._log_rows(COLUMNS, after, size)
            yield from records(rows)
            if len(rows) < size:
                return
            after = rows[-1][0]
            if left is not None:
                left -= len(rows)

    def log_pages(self, from_position: int = 1) -> Iterator[list[LoggedEvent]]:
        """The events of every stream from ``from_position`` on, in global order, decoded, a page at a time."""
        after = max(from_position, 1) - 1
        while True:
            rows = self._log_rows(LOG_COLUMNS, after, EVENT_PAGE_SIZE)
            if rows:
                yield log_page(rows, self._read_data_at)
            if len(rows) < EVENT_PAGE_SIZE:
                return
            after = rows[-1][0]

    def iter_payloads(self, stream_id: str, from_version: int = 1) -> Iterator[Payload]:
        """The payloads of the stream's events from ``from_version`` on, in order, fetched page by page."""
        for rows in self._stream_pages(PAYLOAD_COLUMNS, stream_id, from_version):
            yield from payloads(stream_id, rows, lambda version: self._read_data(stream_id, version))

    def payload_pages(
        self, stream_id: str, from_version: int = 1, to_version: int | None = None
    ) -> Iterator[list[Payload]]:
        """The payloads of the stream's events from ``from_version`` to ``to_version`` (its end when None), in order,
        a page (a list) at a time."""
        for rows in self._stream_pages(
            PAYLOAD_COLUMNS, stream_id, from_version, to_version=to_version, page=EVENT_PAGE_SIZE
        ):
            if rows:
                yield payload_page(stream_id, rows, lambda version: self._read_data(stream_id, version))

    def event_pages(
        self, stream_id: str, from_version: int = 1, to_version: int | None = None
    ) -> Iterator[list[StoredEvent]]:
        """The stream's events from ``from_version`` to ``to_version`` (its end when None), decoded, in order, a page
        at a time."""
        for rows in self._stream_pages(
            PAYLOAD_COLUMNS, stream_id, from_version, to_version=to_version, page=EVENT_PAGE_SIZE
        ):
            if rows:
                yield event_page(stream_id, rows, lambda version: self._read_data(stream_id, version))

    def _read_data_at(self, position: int) -> None:
        """Read the data of the event at a position of the log as every read of records reads it (``_read_data``)."""
        for record in self.read_all(position, 1):
            record.payload()

    def _read_data(self, stream_id: str, version: int) -> None:
        """Read the data of the event at a version of the stream as every read of records reads it: a data column
        that is not JSON raises ``CorruptRowError`` naming the row whole (its position too)."""
        record = self._read_row(stream_id, version)
        if record is not None:
            record.payload()
