"""An in-memory event store, for tests and simulations."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from hexlog.events.chain import GENESIS, seal_batch
from hexlog.events.errors import ConcurrencyError, IdempotencyConflictError, StaleVersionError
from hexlog.events.store import EVERY_ROW, AppendResult, NewEvent, ProjectionRow, Recorded

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence


class MemoryStore:
    """Keeps every stream in a list; same contract as the SQLite store."""

    def __init__(self) -> None:
        self._log: list[Recorded] = []
        self._streams: dict[str, list[Recorded]] = {}
        self._commands: dict[str, tuple[str, AppendResult]] = {}
        self._rows: dict[tuple[str, str], dict[str, tuple[int, Any]]] = {}
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
            stream = self._streams.setdefault(stream_id, [])
            if len(stream) != expected_version:
                msg = f"stream {stream_id} is at version {len(stream)}, not {expected_version}"
                raise StaleVersionError(msg)
            if any(new.id in self._ids for new in events) or len({n.id for n in events}) != len(events):
                msg = "an event id in the batch is already in the log"
                raise ConcurrencyError(msg)
            prev = stream[-1].envelope.hash if stream else GENESIS
            sealed = seal_batch(stream_id, expected_version, prev, events)
            start = len(self._log)
            added = [Recorded(position=start + i, envelope=env) for i, env in enumerate(sealed, start=1)]
            stream.extend(added)
            self._log.extend(added)
            self._ids.update(env.id for env in sealed)
            self._put(stream_id, rows)
            result = AppendResult(
                stream_id=stream_id,
                first_version=expected_version + 1,
                last_version=expected_version + len(added),
                event_ids=tuple(env.id for env in sealed),
            )
            if command_id is not None:
                self._commands[command_id] = (command_digest or "", result)
            return result

    def _put(self, stream_id: str, rows: Sequence[ProjectionRow]) -> None:
        for row in rows:
            table = self._rows.setdefault((stream_id, row.projection), {})
            if row.data is None and row.key == EVERY_ROW:
                table.clear()
            elif row.data is None:
                table.pop(row.key, None)
            else:
                table[row.key] = (row.version, row.data)

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
        return self._streams.get(stream_id, [])[max(from_version, 1) - 1 :]

    def iter_stream(self, stream_id: str, from_version: int = 1) -> Iterator[Recorded]:
        """The stream's events from ``from_version`` on, in order."""
        stream = self._streams.get(stream_id, [])
        for index in range(max(from_version, 1) - 1, len(stream)):
            yield stream[index]

    def read_all(self, from_position: int = 1, limit: int | None = None) -> Iterator[Recorded]:
        """Every event from ``from_position`` on, in global order."""
        start = max(from_position, 1) - 1
        end = None if limit is None else start + limit
        yield from self._log[start:end]

    def stream_version(self, stream_id: str) -> int:
        """How many events the stream holds."""
        return len(self._streams.get(stream_id, ()))

    def streams(self) -> list[str]:
        """Every stream id, in order of first append."""
        return [name for name, stream in self._streams.items() if stream]

    def read_rows(
        self, stream_id: str, projection: str, keys: Sequence[str] | None = None
    ) -> dict[str, tuple[int, Any]]:
        """The rows of a stream's projection (every row, or those of ``keys``): key -> (version, data)."""
        with self._lock:
            table = self._rows.get((stream_id, projection), {})
            if keys is None:
                return dict(table)
            return {k: table[k] for k in keys if k in table}

    def iter_rows(self, stream_id: str, projection: str) -> Iterator[tuple[str, int, Any]]:
        """Every row of a stream's projection as (key, version, data), in key order."""
        with self._lock:
            table = dict(self._rows.get((stream_id, projection), {}))
        for key in sorted(table):
            version, data = table[key]
            yield key, version, data

    def write_rows(self, stream_id: str, rows: Sequence[ProjectionRow], *, at_version: int) -> bool:
        """Write rows of a projection caught up to ``at_version``, unless the stream has moved on since."""
        with self._lock:
            if len(self._streams.get(stream_id, ())) != at_version:
                return False
            self._put(stream_id, rows)
            return True

    def close(self) -> None:
        """Nothing to release."""
