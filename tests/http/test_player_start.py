"""A player's first connection after the service starts costs what it sends and a few stored rows, whatever the length
of the campaign's history: the player view begins from the stored rows, as a command's table does, not from a walk of
the whole log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import FileKeeper
from hexlog.service import http_app
from hexlog.service.door import key_file, open_store

from .conftest import make_db
from .test_http_stream import frames

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    import pytest

#: the sessions each campaign plays before the service starts (each a secret roll, a public roll, a close, an open)
SESSIONS = {"main": 3, "other": 40}


class Counting:
    """A store whose reads of events count the events they give."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.events = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def read_stream(self, stream_id: str, from_version: int = 1) -> list[Any]:
        found = self._store.read_stream(stream_id, from_version)
        self.events += len(found)
        return found

    def _counted(self, items: Iterator[Any], *, pages: bool) -> Iterator[Any]:
        for item in items:
            self.events += len(item) if pages else 1
            yield item

    def iter_stream(self, *args: Any) -> Iterator[Any]:
        return self._counted(self._store.iter_stream(*args), pages=False)

    def iter_payloads(self, *args: Any) -> Iterator[Any]:
        return self._counted(self._store.iter_payloads(*args), pages=False)

    def read_all(self, *args: Any) -> Iterator[Any]:
        return self._counted(self._store.read_all(*args), pages=False)

    def payload_pages(self, *args: Any) -> Iterator[Any]:
        return self._counted(self._store.payload_pages(*args), pages=True)

    def event_pages(self, *args: Any) -> Iterator[Any]:
        return self._counted(self._store.event_pages(*args), pages=True)

    def log_pages(self, *args: Any) -> Iterator[Any]:
        return self._counted(self._store.log_pages(*args), pages=True)


def counting_stores(monkeypatch: pytest.MonkeyPatch) -> list[Counting]:
    """The stores the service opens from now on, each counting the events it reads."""
    stores: list[Counting] = []

    def counted(*args: Any, **kwargs: Any) -> Counting:
        stores.append(Counting(open_store(*args, **kwargs)))
        return stores[-1]

    monkeypatch.setattr(http_app, "open_store", counted)
    return stores


def _played(db: Path) -> dict[str, int]:
    """Both campaigns played for ``SESSIONS`` sessions, their secrets revealed but the last one's; each one's head."""
    make_db(db, tuple(SESSIONS))
    store = open_store(db)
    handler = Handler(store, FileKeeper(key_file(db)))
    for campaign, sessions in SESSIONS.items():
        for number in range(sessions):
            handler.execute(campaign, c.RollDice(expression="d20", purpose=f"secret-{number}", secret=True))
            handler.execute(campaign, c.RollDice(expression="d6", purpose=f"public-{number}"))
            handler.execute(campaign, c.CloseSession())
            handler.execute(campaign, c.OpenSession())
        handler.execute(campaign, c.RollDice(expression="d20", purpose="secret-now", secret=True))
    heads = {campaign: store.stream_version(stream_for(campaign)) for campaign in SESSIONS}
    store.close()
    return heads


def test_a_players_first_reads_after_a_start_do_not_grow_with_the_campaign(
    serve: Any, database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the service starts, a player's first page of the latest events, and a player's first follower resuming
    near the end, read as many events on a campaign of 3 sessions as on one of 40; what they receive hides the open
    session's secret roll and shows the closed sessions' rolls."""
    heads = _played(database)
    assert heads["other"] > 5 * heads["main"]
    stores = counting_stores(monkeypatch)
    served = serve()

    def read(campaign: str, who: str) -> tuple[int, int, list[Any]]:
        """The events read for a player's first page from 5 versions before the end, then for a follower resuming
        there; what the follower received."""
        head = heads[campaign]
        before = sum(store.events for store in stores)
        with served.client() as client:
            page = client.get(f"/campaigns/{campaign}/events", headers=served.headers(who), params={"from": head - 4})
            assert page.status_code == 200
            assert [e["streamversion"] for e in page.json()["events"]] == list(range(head - 4, head + 1))
        paged = sum(store.events for store in stores) - before
        served.app.state.service.player_views.clear()  # the follower's view begins from the rows too
        headers = {**served.headers(who), "Last-Event-ID": str(head - 5)}
        with (
            served.client() as client,
            client.stream("GET", f"/campaigns/{campaign}/stream", headers=headers, params={"until": head}) as response,
        ):
            got = [frame[1] for frame in frames(response) if frame is not None]
        return paged, sum(store.events for store in stores) - before - paged, got

    short, long = read("main", "player"), read("other", "other")
    assert short[:2] == long[:2], (short[:2], long[:2])
    for campaign, (_, _, got) in zip(SESSIONS, (short, long), strict=True):
        assert [e["streamversion"] for e in got] == list(range(heads[campaign] - 4, heads[campaign] + 1))
        last = SESSIONS[campaign] - 1
        purposes = [e["data"].get("purpose") for e in got if e["type"].endswith("dice.rolled")]
        assert purposes == [f"secret-{last}", f"public-{last}", "secret roll"]
        assert got[-1]["redacted"] is True
