"""An in-memory event store, for tests and simulations.

Its log is the same hash chain every store writes, sealed by ``chain.sealed_rows``, but sealed when it is
first read rather than in ``append``: an append checks what it must refuse (a stale version, an id already
in the log) and keeps its batch, each event's data written then as the canonical JSON the chain hashes; every
read of the log (``read_stream``, ``iter_stream``, ``read_all``) first seals the batches kept so far, in the
order they were appended, so every reader sees the very records, hashes and links an append that sealed at
once would have made. A simulation whose events nobody reads back never pays for their hashes. The log holds
what was appended, as a SQL store's rows do: an event's data changed by its caller after the append is not the
log's (the envelope's data is read back from the text written at the append).
Every read builds its records, payloads and rows anew from what the store keeps (each event as the row a SQL store
writes, its data the canonical JSON text; each projection row's data as its canonical JSON once it is first read), as
a SQL store builds them from its rows: a reader that changes what it was given changes nothing another reader sees.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from hexlog.events.chain import GENESIS, canonical_json, sealed_rows
from hexlog.events.codec import decode_stored, text_decoder_of
from hexlog.events.errors import ConcurrencyError, IdempotencyConflictError, StaleVersionError
from hexlog.events.sqlite_schema import loads, records, stored_data
from hexlog.events.store import EVERY_ROW, AppendResult, NewEvent, ProjectionRow, row_value
from hexlog.events.structure import SLOW

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator, Sequence

    from hexlog.events.base import Event
    from hexlog.events.store import HeldId, LoggedEvent, Payload, Recorded, StoredEvent
    from hexlog.events.text_decoder import TextDecoder

#: an event as the store keeps it: the row of ``sqlite_schema.COLUMNS`` a SQL store writes (position, stream, stream
#: version, id, type, schema version, source, time, data as canonical JSON, prevhash, hash)
Row = tuple[Any, ...]

#: the payloads ``payload_pages`` gives at a time (as the SQL stores give them)
PAGE_SIZE = 250


class MemoryStore:
    """Keeps every stream in a list; same contract as the SQLite store."""

    def __init__(self) -> None:
        self._log: list[Row] = []
        self._streams: dict[str, list[Row]] = {}
        #: each stream's version, its batches not yet sealed included
        self._versions: dict[str, int] = {}
        #: batches appended and not yet sealed, in append order: (stream, version before it, its events, their data
        #: as canonical JSON)
        self._unsealed: list[tuple[str, int, tuple[NewEvent, ...], tuple[str, ...]]] = []
        #: how many events the log holds, those not yet sealed included
        self._count = 0
        self._commands: dict[str, tuple[str, AppendResult]] = {}
        #: each projection's rows: key -> (version, data as written, its canonical JSON once first read, or None)
        self._rows: dict[tuple[str, str], dict[str, tuple[int, Any, str | None]]] = {}
        self._ids: set[str] = set()
        self._lock = threading.Lock()

    def append(  # noqa: PLR0913 - the store protocol
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int,
        command_id: str | None = None,
        command_digest: str | None = None,
        rows: Sequence[ProjectionRow] = (),
    ) -> AppendResult:
        """Append a batch and its projection rows atomically; see ``EventStore``."""
        with self._lock:
            if command_id is not None:
                known = self._known(command_id, command_digest or "")
                if known is not None:
                    return known
            current = self._versions.get(stream_id, 0)
            if current != expected_version:
                msg = f"stream {stream_id} is at version {current}, not {expected_version}"
                raise StaleVersionError(msg)
            ids = [new.id for new in events]
            if any(event_id in self._ids for event_id in ids) or len(set(ids)) != len(ids):
                msg = "an event id in the batch is already in the log"
                raise ConcurrencyError(msg)
            texts = tuple(canonical_json(new.data) for new in events)  # what is appended, whatever the caller does next
            self._streams.setdefault(stream_id, [])  # streams are listed in order of first append
            if events:
                self._unsealed.append((stream_id, expected_version, tuple(events), texts))
                self._versions[stream_id] = expected_version + len(events)
                self._count += len(events)
                self._ids.update(ids)
            self._put(stream_id, rows)
            result = AppendResult(
                stream_id=stream_id,
                first_version=expected_version + 1,
                last_version=expected_version + len(events),
                event_ids=tuple(ids),
            )
            if command_id is not None:
                self._commands[command_id] = (command_digest or "", result)
            return result

    def _seal(self) -> None:
        """Seal every batch appended since the last read into the chain, in append order."""
        with self._lock:
            for stream_id, version, events, texts in self._unsealed:
                stream = self._streams[stream_id]
                prev = stream[-1][10] if stream else GENESIS
                start = len(self._log)
                sealed = sealed_rows(stream_id, version, prev, events, texts)
                added = [(position, *row) for position, row in enumerate(sealed, start=start + 1)]
                stream.extend(added)
                self._log.extend(added)
            self._unsealed.clear()

    def _put(self, stream_id: str, rows: Sequence[ProjectionRow]) -> None:
        for row in rows:
            table = self._rows.setdefault((stream_id, row.projection), {})
            if row.data is None and row.key == EVERY_ROW:
                table.clear()
            elif row.data is None:
                table.pop(row.key, None)
            else:
                table[row.key] = (row.version, row.data, None)

    def _known(self, command_id: str, digest: str) -> AppendResult | None:
        entry = self._commands.get(command_id)
        if entry is None:
            return None
        if entry[0] != digest:
            msg = f"command id {command_id} was already used for a different command"
            raise IdempotencyConflictError(msg)
        first = entry[1]
        return AppendResult(
            stream_id=first.stream_id,
            first_version=first.first_version,
            last_version=first.last_version,
            event_ids=first.event_ids,
            replayed=True,
        )

    def command_result(self, command_id: str, command_digest: str) -> AppendResult | None:
        """The result of an earlier command with this id, if any."""
        with self._lock:
            return self._known(command_id, command_digest)

    def read_stream(self, stream_id: str, from_version: int = 1) -> list[Recorded]:
        """The stream's events from ``from_version`` on, in order."""
        if self._unsealed and from_version <= self._versions.get(stream_id, 0):
            self._seal()
        return records(self._streams.get(stream_id, [])[max(from_version, 1) - 1 :])

    def iter_stream(self, stream_id: str, from_version: int = 1) -> Iterator[Recorded]:
        """The stream's events from ``from_version`` on, in order."""
        if self._unsealed and from_version <= self._versions.get(stream_id, 0):
            self._seal()
        stream = self._streams.get(stream_id, [])
        for index in range(max(from_version, 1) - 1, len(stream), PAGE_SIZE):
            yield from records(stream[index : index + PAGE_SIZE])

    def iter_payloads(self, stream_id: str, from_version: int = 1) -> Iterator[Payload]:
        """The payloads of the stream's events from ``from_version`` on, in order."""
        for page in self.payload_pages(stream_id, from_version):
            yield from page

    def _pages(self, stream_id: str, from_version: int, to_version: int | None) -> Iterator[list[Row]]:
        """The stream's rows from ``from_version`` to ``to_version`` (its end when None), in order, a page at a
        time."""
        start = max(from_version, 1)
        while True:
            if self._unsealed and start <= self._versions.get(stream_id, 0):
                self._seal()
            stream = self._streams.get(stream_id, [])
            end = len(stream) if to_version is None else min(len(stream), to_version)
            stop = min(end, start - 1 + PAGE_SIZE)
            if stop < start:
                return
            yield stream[start - 1 : stop]
            start = stop + 1

    def payload_pages(
        self, stream_id: str, from_version: int = 1, to_version: int | None = None
    ) -> Iterator[list[Payload]]:
        """The payloads of the stream's events from ``from_version`` to ``to_version`` (its end when None), in order,
        a page (a list) at a time."""
        for rows in self._pages(stream_id, from_version, to_version):
            yield [(row[2], row[3], row[4], row[5], stored_data(row)) for row in rows]

    def event_pages(
        self, stream_id: str, from_version: int = 1, to_version: int | None = None
    ) -> Iterator[list[StoredEvent]]:
        """The stream's events from ``from_version`` to ``to_version`` (its end when None), decoded, in order, a page
        at a time."""
        for rows in self._pages(stream_id, from_version, to_version):
            yield [(row[2], row[3], event) for row, event in zip(rows, _events(rows), strict=True)]

    def read_all(self, from_position: int = 1, limit: int | None = None) -> Iterator[Recorded]:
        """Every event from ``from_position`` on, in global order."""
        start = max(from_position, 1) - 1
        if self._unsealed and start < self._count:
            self._seal()
        log = self._log
        end = len(log) if limit is None else min(start + limit, len(log))
        for at in range(start, end, PAGE_SIZE):
            yield from records(log[at : min(at + PAGE_SIZE, end)])

    def log_pages(self, from_position: int = 1) -> Iterator[list[LoggedEvent]]:
        """The events of every stream from ``from_position`` on, in global order, decoded, a page at a time."""
        start = max(from_position, 1) - 1
        while True:
            if self._unsealed and start < self._count:
                self._seal()
            rows = self._log[start : start + PAGE_SIZE]
            if not rows:
                return
            yield [(row[0], row[1], row[2], row[3], event) for row, event in zip(rows, _events(rows), strict=True)]
            start += len(rows)

    def stream_version(self, stream_id: str) -> int:
        """How many events the stream holds."""
        return self._versions.get(stream_id, 0)

    def events_with_ids(self, ids: Collection[str]) -> list[HeldId]:
        """Each stored event whose id is one of ``ids`` in small letters or capitals, as its id written there, its
        stream and its stream version (the log is read only for ids it holds)."""
        wanted = {text.lower() for text in ids}
        with self._lock:
            held = {text for text in self._ids if text.lower() in wanted} if wanted else set()
        if not held:
            return []
        if self._unsealed:
            self._seal()
        return [(row[3], row[1], row[2]) for row in self._log if row[3] in held]

    def streams(self) -> list[str]:
        """Every stream id, in order of first append."""
        return [name for name in self._streams if self._versions.get(name, 0)]

    def read_rows(
        self, stream_id: str, projection: str, keys: Sequence[str] | None = None
    ) -> dict[str, tuple[int, Any]]:
        """The rows of a stream's projection (every row, or those of ``keys``): key -> (version, data)."""
        with self._lock:
            table = self._rows.get((stream_id, projection), {})
            return {k: self._made(table, k) for k in (table if keys is None else keys) if k in table}

    def iter_rows(self, stream_id: str, projection: str) -> Iterator[tuple[str, int, Any]]:
        """Every row of a stream's projection as (key, version, data), in key order."""
        with self._lock:
            table = self._rows.get((stream_id, projection), {})
            rows = {k: self._made(table, k) for k in table}
        for key in sorted(rows):
            version, data = rows[key]
            yield key, version, data

    @staticmethod
    def _made(table: dict[str, tuple[int, Any, str | None]], key: str) -> tuple[int, Any]:
        """A row as JSON-ready values read anew from its canonical JSON (written, and kept, when the row is first
        read; its data made then if it was kept ``Later``), as a SQL store reads its row."""
        version, data, text = table[key]
        if text is None:
            text = canonical_json(row_value(data))
            table[key] = (version, None, text)
        return version, loads(text)

    def write_rows(self, stream_id: str, rows: Sequence[ProjectionRow], *, at_version: int) -> bool:
        """Write rows of a projection caught up to ``at_version``, unless the stream has moved on since."""
        with self._lock:
            if self._versions.get(stream_id, 0) != at_version:
                return False
            self._put(stream_id, rows)
            return True

    def close(self) -> None:
        """Nothing to release."""


def _events(rows: Sequence[Row]) -> list[Event]:
    """The event of each row, read straight from its JSON text where its type's text decoder reads it, else decoded
    from its payload (``decode_stored``, naming an event that does not decode), as a SQL store decodes its rows."""
    events: list[Event] = []
    append, slow = events.append, SLOW
    decoders: dict[tuple[str, int], TextDecoder | None] = {}
    for row in rows:
        key = (row[4], row[5])
        decoder = decoders[key] if key in decoders else decoders.setdefault(key, text_decoder_of(*key))
        event = decoder(row[8]) if decoder is not None else slow
        if event is slow:
            event = decode_stored(row[1], (row[2], row[3], row[4], row[5], stored_data(row)))
        append(event)
    return events
