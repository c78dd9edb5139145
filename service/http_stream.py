"""The live stream of a campaign: Server-Sent Events, one per recorded event, ``id:`` its stream version.

A follower starts after ``Last-Event-ID`` (the version it last received) or at ``?from=`` (the first
version it wants), receives every event from there in order, then each new one as it is appended,
and a comment line (``: heartbeat``) whenever nothing was sent for the heartbeat interval. Appends
made by this service wake its followers at once; appends made by another process (the command line
on the same database) are seen within the poll interval. ``?until=`` ends the stream after that version.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import TYPE_CHECKING, Any

import anyio.to_thread

from hexlog.events.streams import stream_for
from hexlog.service.http_events import Viewer

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from hexlog.events.store import EventStore


class Bell:
    """Wakes the followers of a campaign when this process appends to it (rung from any thread)."""

    def __init__(self) -> None:
        self._waiting: dict[str, set[asyncio.Future[None]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def arm(self, campaign: str) -> asyncio.Future[None]:
        """A future the next ring for this campaign completes (armed before reading, so no append is missed)."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._waiting.setdefault(campaign, set()).add(future)
        return future

    def disarm(self, campaign: str, future: asyncio.Future[None]) -> None:
        """Forget a future that is no longer waited on."""
        with self._lock:
            self._waiting.get(campaign, set()).discard(future)
        if not future.done():
            future.cancel()

    def ring(self, campaign: str) -> None:
        """Wake every follower of a campaign (safe from a worker thread)."""
        loop = self._loop
        with self._lock:
            waiting = self._waiting.pop(campaign, set())
        if loop is None or not waiting:
            return

        def wake() -> None:
            for future in waiting:
                if not future.done():
                    future.set_result(None)

        try:
            loop.call_soon_threadsafe(wake)
        except RuntimeError:  # the loop has closed: nobody is following
            return


def frame(event: dict[str, Any]) -> str:
    """One Server-Sent Event: its id (the stream version) and the CloudEvents object on one data line."""
    return f"id: {event['streamversion']}\ndata: {json.dumps(event, ensure_ascii=False, separators=(',', ':'))}\n\n"


async def follow(  # noqa: PLR0913 - where to read, from where, until when, as whom, how often
    store: EventStore,
    bell: Bell,
    campaign: str,
    *,
    first: int,
    until: int | None,
    player: bool,
    heartbeat: float,
    poll: float,
    allowed: Callable[[], bool] = lambda: True,
) -> AsyncIterator[str]:
    """The frames of a campaign's stream from version ``first`` on, live, with heartbeats.

    ``allowed`` is asked whenever the stream is quiet for a poll: a token revoked meanwhile ends it.
    """
    stream = stream_for(campaign)
    viewer = Viewer(player=player)
    # a player's view of an event depends on the events before it: the viewer walks them all once
    read_from = 1 if player else first
    viewer.version = 0 if player else first - 1
    yield "retry: 2000\n\n"
    quiet_since = time.monotonic()
    while until is None or read_from <= until:
        future = bell.arm(campaign)
        records = await anyio.to_thread.run_sync(store.read_stream, stream, read_from)
        records = [r for r in records if until is None or r.version <= until]
        if records:
            bell.disarm(campaign, future)
            read_from = records[-1].version + 1
            for event, _ in viewer.feed(records):
                if event["streamversion"] >= first:
                    yield frame(event)
            quiet_since = time.monotonic()
        elif not await _rung(bell, campaign, future, poll):
            if not await anyio.to_thread.run_sync(allowed):
                return
            if time.monotonic() - quiet_since >= heartbeat:
                quiet_since = time.monotonic()
                yield ": heartbeat\n\n"


async def _rung(bell: Bell, campaign: str, future: asyncio.Future[None], poll: float) -> bool:
    """Wait for an append to the campaign, at most ``poll`` seconds; whether one came."""
    try:
        await asyncio.wait_for(future, timeout=poll)
    except TimeoutError:
        bell.disarm(campaign, future)
        return False
    return True
