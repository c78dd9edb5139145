"""An in-memory event store, for tests and simulations."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from hexlog.events.chain import GENESIS, seal
from hexlog.events.errors import ConcurrencyError, IdempotencyConflictError
from hexlog.events.store import AppendResult, NewEvent, Recorded

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence


class MemoryStore:
    """Keeps every stream in a list; same contract as the SQLite store."""

    def __init__(self) -> None:
        self._log: list[Recorded] = []
        self._streams: dict[str, list[Recorded]] = {}
        self._commands: dict[str, tuple[str, AppendResult]] = {}
        self._projections: dict[str, tuple[int, str]] = {}
        self._ids: set[str] = set()
        self._lock = threading.Lock()

    def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int,
        command_id: str | None = None,
        command_digest: str | None = None,
    ) -> AppendResult:
        """Append a batch atomically; see ``EventStore``."""
        with self._lock:
            if command_id is not None:
                known = self._known(command_id, command_digest or "")
                if known is not None:
                    return known
            stream = self._streams.get(stream_id, [])
            if len(stream) != expected_version:
                msg = f"stream {stream_id} is at version {len(stream)}, not {expected_version}"
                raise ConcurrencyError(msg)
            if any(new.id in self._ids for new in events) or len({n.id for n in events}) != len(events):
                msg = "an event id in the batch is already in the log"
                raise ConcurrencyError(msg)
            prev = stream[-1].envelope.hash if stream else GENESIS
            added: list[Recorded] = []
            for offset, new in enumerate(events, start=1):
                env = seal(
                    id=new.id, source=new.source, type=new.type, subject=stream_id, time=new.time,
                    data=new.data, streamversion=expected_version + offset,
                    schemaversion=new.schemaversion, prevhash=prev,
                )
                prev = env.hash
                added.append(Recorded(position=len(self._log) + len(added) + 1, envelope=env))
            result = AppendResult(
                stream_id=stream_id,
                first_version=expected_version + 1,
                last_version=expected_version + len(added),
                event_ids=tuple(r.envelope.id for r in added),
            )
            if added:
                self._streams[stream_id] = [*stream, *added]
                self._log.extend(added)
                self._ids.update(r.envelope.id for r in added)
            if command_id is not None:
                self._commands[command_id] = (command_digest or "", result)
            return result

    def _known(self, command_id: str, digest: str) -> AppendResult | None:
        entry = self._commands.get(command_id)
        if entry is None:
            return None
        if entry[0] != digest:
            msg = f"command id {command_id} was already used for a different command"
            raise IdempotencyConflictError(msg)
        return AppendResult(
            stream_id=entry[1].stream_id, first_version=entry[1].first_version,
            last_version=entry[1].last_version, event_ids=entry[1].event_ids, replayed=True,
        )

    def command_result(self, command_id: str, command_digest: str) -> AppendResult | None:
        """The result of an earlier command with this id, if any."""
        with self._lock:
            return self._known(command_id, command_digest)

    def read_stream(self, stream_id: str, from_version: int = 1) -> list[Recorded]:
        """The stream's events from ``from_version`` on, in order."""
        return list(self._streams.get(stream_id, [])[max(from_version, 1) - 1 :])

    def read_all(self, from_position: int = 1, limit: int | None = None) -> Iterator[Recorded]:
        """Every event from ``from_position`` on, in global order."""
        start = max(from_position, 1) - 1
        end = None if limit is None else start + limit
        yield from list(self._log[start:end])

    def stream_version(self, stream_id: str) -> int:
        """How many events the stream holds."""
        return len(self._streams.get(stream_id, []))

    def streams(self) -> list[str]:
        """Every stream id, in order of first append."""
        return list(self._streams)

    def load_projection(self, name: str) -> tuple[int, str] | None:
        """The saved position and JSON state of a projection, if any."""
        return self._projections.get(name)

    def save_projection(self, name: str, position: int, state_json: str) -> None:
        """Record a projection's position and JSON state, replacing what was saved before."""
        with self._lock:
            self._projections[name] = (position, state_json)

    def close(self) -> None:
        """Nothing to release."""
