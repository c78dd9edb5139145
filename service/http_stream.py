"""The live stream of a campaign: Server-Sent Events, one per recorded event, ``id:`` its stream version.

A follower starts after ``Last-Event-ID`` (the version it last received) or at ``?from=`` (the first
version it wants), receives every event from there in order, then each new one as it is appended,
and a comment line (``: heartbeat``) whenever nothing was sent for the heartbeat interval. Appends
made by this service wake its followers at once (the ``Bell``). On PostgreSQL so do appends made by
another process (the command line on the same database): the database announces each append, and
``Listening`` rings the bell when it hears one; the stream still looks again every poll interval
(``NOTIFIED_POLL``), in case an announcement was missed. On SQLite, another process's appends are
seen within the poll interval (``POLL``). ``?until=`` ends the stream after that version; a service that
stops ends every stream at once (``Bell.close``), and its followers resume with ``Last-Event-ID``.

A stream whose database cannot be reached stays open, sending its heartbeats, and goes on from where
it was once the database answers again.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import structlog

from hexlog.events.errors import StoreWriteError
from hexlog.events.streams import campaign_of, stream_for
from hexlog.service.http_events import PlayerCache, Viewer

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from hexlog.events.postgres import AppendListener, PostgresStore
    from hexlog.events.store import EventStore, Recorded

#: seconds between a follower's looks for appends that nothing announced: on SQLite (another process's
#: appends are found so), and on PostgreSQL (where the database announces every append; a safety net)
POLL = 1.0
NOTIFIED_POLL = 10.0
#: seconds between tries to listen again after the listening connection was lost
RELISTEN = 1.0


#: the most live streams one token may hold open at once unless ``hexlog serve --max-streams`` says otherwise: a
#: table's few screens (the referee's, a player's phone or two) each follow one; past that, a client that leaks
#: connections, which would hold the service's connections and threads
MAX_STREAMS = 8
#: seconds a client refused a stream over its token's cap is told to wait (``Retry-After``): a stream whose follower
#: left is closed as soon as the service sees the connection go, so a slot is soon free again
STREAMS_RETRY = 5


class Slots:
    """How many live streams each token holds open, within ``limit`` each (taken from any thread of the loop)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, token: str) -> Callable[[], None] | None:
        """One of the token's slots, as the function that frees it (once, however often called); None when the token
        holds ``limit`` streams already."""
        with self._lock:
            held = self._open.get(token, 0)
            if held >= self.limit:
                return None
            self._open[token] = held + 1
        freed = threading.Event()

        def free() -> None:
            with self._lock:
                if freed.is_set():
                    return
                freed.set()
                left = self._open[token] - 1
                if left:
                    self._open[token] = left
                else:
                    del self._open[token]

        return free

    def held(self, token: str) -> int:
        """How many streams the token holds open now."""
        with self._lock:
            return self._open.get(token, 0)


async def holding(frames: AsyncIterator[str], free: Callable[[], None]) -> AsyncIterator[str]:
    """A stream's frames, its token's slot freed when it ends however it ends (done, revoked, the follower gone)."""
    try:
        async for chunk in frames:
            yield chunk
    finally:
        free()


class Bell:
    """Wakes the followers of a campaign when this process appends to it (rung from any thread)."""

    def __init__(self) -> None:
        self._waiting: dict[str, set[asyncio.Future[None]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        #: the service is stopping: every stream ends at once, its followers to resume from another
        self.closing = False

    def close(self) -> None:
        """End every stream now (the service is stopping): their followers resume where they were, elsewhere."""
        self.closing = True
        self.ring_all()

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

    def ring_all(self) -> None:
        """Wake every follower of every campaign (after appends may have gone unheard)."""
        with self._lock:
            campaigns = list(self._waiting)
        for campaign in campaigns:
            self.ring(campaign)

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
    views: PlayerCache | None = None,
) -> AsyncIterator[str]:
    """The frames of a campaign's stream from version ``first`` on, live, with heartbeats.

    The stream is read again when the bell rings, and every ``poll`` seconds. ``allowed`` is asked before each
    batch of events is sent and whenever the stream is quiet for a heartbeat or a poll: a token revoked meanwhile
    ends it. A player's stream starts from ``views``, the campaign's player view kept by the service (without
    it, from a view of its own, walked from version 1).
    """
    reach = _Reach(campaign)
    reader = _Reader(store, campaign, reach, first=first, until=until, player=player, views=views)
    yield "retry: 2000\n\n"
    quiet_since = time.monotonic()
    while (until is None or reader.position <= until) and not bell.closing:
        future = bell.arm(campaign)
        try:
            shown = await reader.batch()
        except ReplacedError as replaced:  # nothing more of another history is sent after what this one sent
            bell.disarm(campaign, future)
            structlog.get_logger().warning("http.stream_replaced", campaign=campaign, version=replaced.version)
            return
        if shown:
            bell.disarm(campaign, future)
            if not await reach.allowed(allowed):  # revoked while events kept coming: nothing more is sent
                return
            for event, _ in shown:
                yield frame(event)
            quiet_since = time.monotonic()
            continue
        poll_at = time.monotonic() + poll
        while not bell.closing and not await _rung(future, min(poll_at, quiet_since + heartbeat) - time.monotonic()):
            if not await reach.allowed(allowed):
                bell.disarm(campaign, future)
                return
            now = time.monotonic()
            if now >= poll_at:
                break
            if now - quiet_since >= heartbeat:
                quiet_since = now
                yield ": heartbeat\n\n"
        bell.disarm(campaign, future)


async def _rung(future: asyncio.Future[None], within: float) -> bool:
    """Wait for the bell at most ``within`` seconds; whether it rang."""
    await asyncio.wait({future}, timeout=max(0.0, within))
    return future.done()


class ReplacedError(Exception):
    """The log no longer holds the last event a follower received as it was: the campaign was made anew under it."""

    def __init__(self, version: int) -> None:
        super().__init__(f"the campaign's event {version} is no longer the one this stream sent")
        self.version = version


class _Reader:
    """A follower's next events as its role sees them.

    A player's view of an event depends on the events before it: those are walked once for the campaign by the
    service's cache of its player view (``views``), and the follower goes on from a copy of the cache's viewer,
    reading only what comes after it.
    """

    def __init__(  # noqa: PLR0913 - where to read, from where, until when, as whom
        self,
        store: EventStore,
        campaign: str,
        reach: _Reach,
        *,
        first: int,
        until: int | None,
        player: bool,
        views: PlayerCache | None,
    ) -> None:
        self.store, self.stream, self.reach = store, stream_for(campaign), reach
        self.first, self.until = first, until
        self.views = PlayerCache() if views is None else views
        self.viewer: Viewer | None = None
        if not player:
            self.viewer = Viewer(player=False)
            self.viewer.version = first - 1

    @property
    def position(self) -> int:
        """The first version not sent yet."""
        return self.first if self.viewer is None else max(self.first, self.viewer.version + 1)

    async def batch(self) -> list[tuple[dict[str, Any], str]]:
        """The events appended since the last batch (a player's first: from ``first`` on), up to ``until``."""
        if self.viewer is None:
            begun = await self.reach.begin(self.views, self._read, self.first)
            if begun is None:
                return []
            shown, self.viewer = begun
        else:
            viewer = self.viewer
            known = bool(viewer.last)  # a referee's follower knows no record before its first
            records = await self.reach.read(self.store, self.stream, viewer.version + (0 if known else 1))
            if records is None:
                return []
            if known:
                if not viewer.holds(records):
                    raise ReplacedError(viewer.version)
                records = records[1:]
            shown = viewer.feed([r for r in records if self.until is None or r.version <= self.until])
        return [
            item
            for item in shown
            if item[0]["streamversion"] >= self.first and (self.until is None or item[0]["streamversion"] <= self.until)
        ]

    def _read(self, version: int) -> list[Recorded]:
        return self.store.read_stream(self.stream, version)


class _Reach:
    """A follower's reads of the database, which may be out of reach for a while: said once in the log when it
    goes and once when it is back; meanwhile nothing is read and the token is taken as still allowed."""

    def __init__(self, campaign: str) -> None:
        self.campaign = campaign
        self.lost = False

    async def read(self, store: EventStore, stream: str, version: int) -> list[Recorded] | None:
        """The records from ``version`` on; None while the database is out of reach."""
        try:
            records = await anyio.to_thread.run_sync(store.read_stream, stream, version)
        except StoreWriteError as err:
            self._went(err)
            return None
        self._back()
        return records

    async def begin(
        self, views: PlayerCache, read: Callable[[int], list[Recorded]], first: int
    ) -> tuple[list[tuple[dict[str, Any], str]], Viewer] | None:
        """A player's events from ``first`` on and the viewer that goes on after them; None while out of reach."""
        try:
            begun = await anyio.to_thread.run_sync(views.since, read, first)
        except StoreWriteError as err:
            self._went(err)
            return None
        self._back()
        return begun

    async def allowed(self, allowed: Callable[[], bool]) -> bool:
        try:
            return await anyio.to_thread.run_sync(allowed)
        except StoreWriteError as err:
            self._went(err)
            return True

    def _went(self, err: StoreWriteError) -> None:
        if not self.lost:
            self.lost = True
            structlog.get_logger().warning("http.stream_waiting", campaign=self.campaign, error=str(err))

    def _back(self) -> None:
        if self.lost:
            self.lost = False
            structlog.get_logger().info("http.stream_resumed", campaign=self.campaign)


class Listening:
    """Rings the bell for every append a PostgreSQL database announces (any process's), on a thread and a
    connection of its own, until ``stop``.

    A lost connection is said once in the log and listened again every ``RELISTEN`` seconds; each time it
    listens (again), every follower is woken, for the appends it may not have heard.
    """

    def __init__(self, store: PostgresStore, bell: Bell) -> None:
        self._store, self._bell = store, bell
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hexlog-listening", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop listening (the thread ends, closing its connection, within a second)."""
        self._stopped.set()

    def _run(self) -> None:
        lost = False
        while not self._stopped.is_set():
            try:
                listener = self._store.listener()
            except StoreWriteError as err:
                lost = self._lost(err, lost=lost)
                continue
            try:
                if lost:
                    structlog.get_logger().info("http.listening_again", database=listener.shown)
                    lost = False
                self._bell.ring_all()
                self._hear(listener)
            except StoreWriteError as err:
                lost = self._lost(err, lost=lost)
            finally:
                listener.close()

    def _hear(self, listener: AppendListener) -> None:
        while not self._stopped.is_set():
            for stream in listener.heard(timeout=1.0):
                campaign = campaign_of(stream)
                if campaign is not None:
                    self._bell.ring(campaign)

    def _lost(self, err: StoreWriteError, *, lost: bool) -> bool:
        if not lost and not self._stopped.is_set():
            structlog.get_logger().warning("http.listening_lost", error=str(err))
        self._stopped.wait(RELISTEN)
        return True
