"""The player view the service keeps between requests is what a fresh walk of the log shows, read at any moment,
and a session's end judges that session again rather than the whole campaign."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hexlog.events.memory import MemoryStore
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.service import http_events

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

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.starts: list[int] = []

    def __call__(self, version: int):
        self.starts.append(version)
        return self.store.read_stream(STREAM, version)


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
