"""A follower joining a long campaign at its end: time to the first event, and reads while a command waits.

It writes one campaign of ``--events`` events (clock advances of 20 turns, a secret roll every 200 events,
the first session closed half way and a second one opened), starts ``hexlog serve`` as its own process on
127.0.0.1, then

* ``first_event_ms``: the time from a follower's request (``Last-Event-ID`` one before the head,
  ``?until=`` the head) to its one event, for a player's token and a referee's, the first connection
  after the service started and the next one;
* ``while_busy_ms``: with the database's write lock held by another connection (as another process's
  long append holds it), a command is sent (it waits for the lock); meanwhile the time a state read and a
  player's first event take. The lock is let go after ``--hold`` seconds.

    .venv/bin/python bench/player_stream.py [--events 20000] [--hold 3]

The last line on stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from http_service import start  # the service started as the other script starts it (bench/ is the script's folder)

from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import FileKeeper, key_file_for
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.service.http_tokens import TokenStore

CAMPAIGN = "long"


def prepare(db: Path, events: int) -> tuple[str, str, int]:
    """The campaign, written through the handler; a referee's and a player's token, and the head version."""
    store = SQLiteStore(db)
    handler = Handler(store, FileKeeper(key_file_for(db)))
    handler.execute(CAMPAIGN, c.StartCampaign(ruleset="ose"))
    handler.execute(CAMPAIGN, c.OpenSession())
    version, closed = 0, False
    while version < events:
        version = handler.execute(CAMPAIGN, AdvanceClock(duration="20 turns")).result.last_version
        if version % 200 < 20:  # noqa: PLR2004 - a secret roll every 200 events
            handler.execute(CAMPAIGN, c.RollDice(expression="1d20", purpose="a hidden die", secret=True))
        if not closed and version >= events // 2:
            handler.execute(CAMPAIGN, c.CloseSession())
            version = handler.execute(CAMPAIGN, c.OpenSession()).result.last_version
            closed = True
    handler.execute(CAMPAIGN, c.RollDice(expression="1d20", purpose="the last hidden die", secret=True))
    head = store.stream_version(f"campaign-{CAMPAIGN}")
    store.close()
    tokens = TokenStore(db)
    made = tokens.create(CAMPAIGN, "referee")[0], tokens.create(CAMPAIGN, "player")[0]
    tokens.close()
    return made[0], made[1], head


def first_event(url: str, token: str, head: int) -> float:
    """Milliseconds from a follower's request to its first event (the last one of the campaign)."""
    headers = {"Authorization": f"Bearer {token}", "Last-Event-ID": str(head - 1)}
    began = time.perf_counter()
    with (
        httpx.Client(base_url=url, timeout=120) as session,
        session.stream("GET", f"/campaigns/{CAMPAIGN}/stream?until={head}", headers=headers) as response,
    ):
        for line in response.iter_lines():
            if line.startswith("id: "):
                return round((time.perf_counter() - began) * 1000, 1)
    msg = "the stream ended without an event"
    raise RuntimeError(msg)


def state_read(url: str, token: str) -> float:
    """Milliseconds a state read takes."""
    began = time.perf_counter()
    httpx.get(f"{url}/campaigns/{CAMPAIGN}", headers={"Authorization": f"Bearer {token}"}, timeout=120)
    return round((time.perf_counter() - began) * 1000, 1)


def while_busy(db: Path, url: str, tokens: tuple[str, str], head: int, hold: float) -> dict[str, float]:
    """Reads made while a command of the service waits for the write lock another connection holds."""
    referee, player = tokens
    locker = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    locker.execute("BEGIN IMMEDIATE")
    sent = threading.Thread(
        target=lambda: httpx.post(
            f"{url}/campaigns/{CAMPAIGN}/campaign/roll-dice",
            headers={"Authorization": f"Bearer {referee}"},
            json={"expression": "1d6"},
            timeout=120,
        )
    )
    began = time.perf_counter()
    sent.start()
    time.sleep(0.3)  # the command is waiting for the lock
    timer = threading.Timer(max(0.0, hold - (time.perf_counter() - began)), lambda: locker.execute("ROLLBACK"))
    timer.start()
    figures = {"state_ms": state_read(url, referee), "player_first_event_ms": first_event(url, player, head)}
    sent.join()
    figures["command_ms"] = round((time.perf_counter() - began) * 1000, 1)
    timer.join()
    locker.close()
    return figures


def main() -> None:
    """Write the campaign, serve it, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--hold", type=float, default=3.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "hexlog.db"
        referee, player, head = prepare(db, args.events)
        print(f"campaign of {head} events written", file=sys.stderr)
        server, url = start(db)
        try:
            first = {
                "player_first": first_event(url, player, head),
                "player_next": first_event(url, player, head),
                "referee_first": first_event(url, referee, head),
                "referee_next": first_event(url, referee, head),
            }
            print(f"first event: {first}", file=sys.stderr)
            busy = while_busy(db, url, (referee, player), head, args.hold)
            print(f"while busy: {busy}", file=sys.stderr)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(json.dumps({"events": head, "first_event_ms": first, "while_busy_ms": busy, "hold_s": args.hold}))


if __name__ == "__main__":
    main()
