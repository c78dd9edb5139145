"""A live follower whose campaign is made anew under it (dropped and another history imported) sends nothing of the
other history: the stream ends."""

from __future__ import annotations

import asyncio
import json

import pytest

from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.service.http_stream import Bell, follow


def _history(rolls: int) -> MemoryStore:
    """A campaign "main" with a session open and ``rolls`` secret d20 rolls."""
    store = MemoryStore()
    handler = Handler(store, MemoryKeeper())
    handler.execute("main", c.StartCampaign(ruleset="ose"))
    handler.execute("main", c.OpenSession())
    for number in range(rolls):
        handler.execute("main", c.RollDice(expression="d20", purpose=f"roll-{number}", secret=True))
    return store


class Swappable:
    """A store whose reads go to one history, then to another put in its place."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def read_stream(self, stream: str, version: int = 1):
        return self.store.read_stream(stream, version)


def _version(frame: str) -> int:
    return int(json.loads(frame.split("data: ", 1)[1])["streamversion"])


async def _follow(*, player: bool) -> tuple[list[int], list[int]]:
    """The versions a follower received before the campaign was made anew, and after."""
    old, new = _history(2), _history(6)
    head = old.stream_version("campaign-main")
    store, bell = Swappable(old), Bell()
    frames = follow(store, bell, "main", first=1, until=None, player=player, heartbeat=60, poll=0.05)
    assert await anext(frames) == "retry: 2000\n\n"
    before = [_version(await anext(frames))]
    while before[-1] < head:
        before.append(_version(await anext(frames)))
    store.store = new
    bell.ring("main")
    async with asyncio.timeout(5):
        after = [_version(frame) async for frame in frames if frame.startswith("id: ")]
    return before, after


@pytest.mark.parametrize("player", [False, True], ids=["referee", "player"])
def test_a_follower_of_a_campaign_made_anew_under_it_receives_nothing_of_the_other_history(player):
    """The old history's events arrive, then the stream ends without one event of the new history."""
    before, after = asyncio.run(_follow(player=player))
    assert before == list(range(1, len(before) + 1))
    assert after == []
