"""The player view the service keeps between requests is what a fresh walk of the log shows, read at any moment,
and a session's end judges that session again rather than the whole campaign. Begun from the stored rows just before
the first version asked for, it is the same view, before and after a session's reveal, without walking from the start.
"""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from hexlog.events.memory import MemoryStore
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.service import http_events
from tests.test_lost_party_view import a_lost_day

STREAM = stream_for("main")
#: what the referee does next, and whether the players ask for their view after it
STEPS = st.lists(
    st.tuples(
        st.sampled_from(["secret", "secret", "public", "close", "abandon", "open"]),
        st.booleans(),
    ),
    min_size=1,
    max_size=30,
)


def _play(handler: Handler, action: str, number: int) -> Handler:
    """One referee's action, when the session's state allows it (a roll or an ending needs one open); the handler
    to go on with (an abandoned session's key file is lost: a new one is kept from then on)."""
    session = handler.load("main").session
    open_now = session is not None and session.open
    if action in {"secret", "public"} and open_now:
        handler.execute("main", c.RollDice(expression="d20", purpose=f"canary-{number}", secret=action == "secret"))
    elif action == "close" and open_now:
        handler.execute("main", c.CloseSession())
    elif action == "abandon" and open_now:
        handler = Handler(handler.store, MemoryKeeper())
        handler.execute("main", c.AbandonSession(reason="key lost"))
    elif action == "open" and not open_now:
        handler.execute("main", c.OpenSession())
    return handler


class Reads:
    """The store's reads of the stream, each noted by the version it starts from."""

    def __init__(self, store: MemoryStore, stream: str = STREAM) -> None:
        self.store = store
        self.stream = stream
        self.starts: list[int] = []

    def __call__(self, version: int):
        self.starts.append(version)
        return self.store.read_stream(self.stream, version)


def _from_rows(store: MemoryStore, campaign: str = "main") -> http_events.PlayerCache:
    """A player view the service keeps, begun from the campaign's stored rows."""
    return http_events.PlayerCache(REGISTRY, functools.partial(http_events.stored_head, store, campaign))


def _walked(store: MemoryStore, first: int, stream: str = STREAM) -> list:
    """The campaign's events from version ``first`` on as a fresh walk from version 1 shows them to a player."""
    return http_events.seen(store.read_stream(stream), player=True)[first - 1 :]


def _begun() -> tuple[MemoryStore, Handler]:
    """A store holding an OSE campaign with a session open, and its handler."""
    store = MemoryStore()
    handler = Handler(store, MemoryKeeper())
    handler.execute("main", c.StartCampaign(ruleset="ose"))
    handler.execute("main", c.OpenSession())
    return store, handler


@settings(max_examples=60, deadline=None, derandomize=True)
@given(STEPS)
def test_the_kept_view_is_a_fresh_walk_at_every_read_and_never_walks_from_the_start_again(steps):
    """After each step the players ask for, the kept view equals a fresh walk of the whole log; once made, it never
    reads from version 1 again (a session's end is judged from that session's opening)."""
    store, handler = _begun()
    reads, cache = Reads(store), http_events.PlayerCache()
    for number, (action, ask) in enumerate(steps):
        handler = _play(handler, action, number)
        if ask:
            assert cache.items(reads) == http_events.seen(store.read_stream(STREAM), player=True)
    assert cache.items(reads) == http_events.seen(store.read_stream(STREAM), player=True)
    assert reads.starts.count(1) == 1, reads.starts


def test_a_session_ended_shows_what_it_hid_to_the_kept_view_and_nothing_of_the_next():
    """Secret rolls are placeholders while their session is open, shown once it closes; the next session's are not."""
    store, handler = _begun()
    reads, cache = Reads(store), http_events.PlayerCache()

    def purposes():
        return [e["data"].get("purpose") for e, _ in cache.items(reads) if e["type"].endswith("dice.rolled")]

    handler.execute("main", c.RollDice(expression="d20", purpose="canary-first", secret=True))
    assert purposes() == ["secret roll"]
    handler.execute("main", c.CloseSession())
    handler.execute("main", c.OpenSession())
    handler.execute("main", c.RollDice(expression="d20", purpose="canary-second", secret=True))
    assert purposes() == ["canary-first", "secret roll"]
    handler.execute("main", c.CloseSession())
    assert purposes() == ["canary-first", "canary-second"]
    assert reads.starts.count(1) == 1


@settings(max_examples=40, deadline=None, derandomize=True)
@given(STEPS, st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=30))
def test_a_view_begun_from_the_rows_anywhere_is_a_fresh_walk_then_and_after(steps, places):
    """A view begun from the rows at any version is what a walk from version 1 shows from there, then and after
    each later step (a secret rolled, a session closed, abandoned or opened), and never reads from before the version
    it began at."""
    store, handler = _begun()
    kept: list[tuple[http_events.PlayerCache, Reads, int]] = []
    for number, (action, ask) in enumerate(steps):
        handler = _play(handler, action, number)
        first = 1 + int(places[number % len(places)] * store.stream_version(STREAM))
        reads, begun = Reads(store), _from_rows(store)
        assert begun.items(reads, first) == _walked(store, first)
        if ask:
            kept.append((begun, reads, first))
        for cache, seen_by, start in kept:
            assert cache.items(seen_by, start) == _walked(store, start)
            assert min(seen_by.starts) == max(start - 1, 1), seen_by.starts


def test_a_lost_party_begun_from_the_rows_is_the_walk_before_and_after_the_reveal():
    """A lost day (the true heading and hexes the referee's, decisions naming secret rolls): a view begun from the
    rows at every version shows what a walk from version 1 shows, placeholders while the session is open; once it
    closes, each view kept shows what it hid, and a new session's secret is hidden again."""
    trip = a_lost_day("meadow")
    store, stream = trip.h.store, stream_for("lost")
    head = store.stream_version(stream)
    hidden = [event["streamversion"] for event, _ in _walked(store, 1, stream) if event.get("redacted")]
    assert len(hidden) >= 3, hidden
    kept = []
    for first in range(1, head + 4):
        reads, cache = Reads(store, stream), _from_rows(store, "lost")
        assert cache.items(reads, first) == _walked(store, first, stream)
        assert min(reads.starts) == max(min(first - 1, head), 1)
        kept.append((cache, reads, first))
    trip.run(c.CloseSession())
    trip.run(c.OpenSession(secret_hex="5d" * 32))
    trip.run(c.RollDice(expression="d20", purpose="canary", secret=True), 7)
    after = _walked(store, 1, stream)
    assert [event["streamversion"] for event, _ in after if event.get("redacted")] == [len(after)]
    for cache, reads, first in kept:
        assert cache.items(reads, first) == _walked(store, first, stream)
        assert min(reads.starts) == max(min(first - 1, head), 1)
    for first in range(1, len(after) + 2):
        assert _from_rows(store, "lost").items(Reads(store, stream), first) == _walked(store, first, stream)
