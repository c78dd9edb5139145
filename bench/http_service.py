"""The HTTP service under load: commands per second and latency with 50 clients, events per second to 20 followers.

It starts ``hexlog serve`` as its own process on 127.0.0.1 (a free port) over a fresh database of 10
campaigns, then

* ``commands``: 50 clients (threads, one keep-alive connection each) send commands to the 10
  campaigns for ``--seconds``: public rolls and additions to the party, alternately; it reports the
  commands answered per second and the p50 and p99 latency of one command;
* ``stream``: 20 followers (10 referees, 10 players) follow one campaign live while 5,000 events are
  appended (clock advances of 20 turns); it reports the events delivered per second to all of them
  together, from the first append to the last follower's last event.

    .venv/bin/python bench/http_service.py [--seconds 10] [--clients 50] [--followers 20] [--events 5000]

The last line on stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import FileKeeper, key_file_for
from hexlog.service.http_tokens import TokenStore

CAMPAIGNS = tuple(f"c{n}" for n in range(10))
TURNS = 20


def prepare(db: Path) -> dict[str, tuple[str, str]]:
    """Ten campaigns, each with a session open and a client seed; a referee's and a player's token for each."""
    store = SQLiteStore(db)
    handler = Handler(store, FileKeeper(key_file_for(db)))
    for campaign in CAMPAIGNS:
        handler.execute(campaign, c.StartCampaign(ruleset="ose"))
        handler.execute(campaign, c.OpenSession())
        handler.execute(campaign, c.SetClientSeed(client_seed=f"table-{campaign}"))
    store.close()
    tokens = TokenStore(db)
    made = {cp: (tokens.create(cp, "referee")[0], tokens.create(cp, "player")[0]) for cp in CAMPAIGNS}
    tokens.close()
    return made


def start(db: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``hexlog serve`` on a free loopback port, once it answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    hexlog = Path(sys.executable).parent / "hexlog"
    args = [str(hexlog), "serve", "--db", str(db), "--port", str(port), "--rate", "1000000", "--burst", "1000000"]
    server = subprocess.Popen(  # noqa: S603 - our own console script
        args, env={**os.environ, "HEXLOG_LOG": "warning"}, stdout=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{url}/health", timeout=1)
        except httpx.TransportError:
            time.sleep(0.1)
        else:
            return server, url
    server.kill()
    sys.exit("the service did not start")


def commands(url: str, tokens: dict[str, tuple[str, str]], clients: int, seconds: float) -> dict[str, float]:
    """Commands per second and their latency, with ``clients`` clients over the 10 campaigns."""
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(n: int) -> None:
        campaign = CAMPAIGNS[n % len(CAMPAIGNS)]
        auth = {"Authorization": f"Bearer {tokens[campaign][0]}"}
        mine: list[float] = []
        with httpx.Client(base_url=url, timeout=60) as session:
            k = 0
            while time.monotonic() < stop:
                if k % 2:
                    path, body = "campaign/add-member", {"name": f"m{n}-{k}"}
                else:
                    path, body = "campaign/roll-dice", {"expression": "d20", "purpose": f"bench {n}-{k}"}
                began = time.perf_counter()
                answer = session.post(f"/campaigns/{campaign}/{path}", headers=auth, json=body)
                mine.append(time.perf_counter() - began)
                if answer.status_code != 200:  # noqa: PLR2004
                    with lock:
                        failures.append(answer.text)
                k += 1
        with lock:
            latencies.extend(mine)

    began = time.monotonic()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    cuts = statistics.quantiles(latencies, n=100)
    return {
        "clients": clients,
        "commands": len(latencies),
        "failed": len(failures),
        "commands_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(cuts[49] * 1000, 1),
        "p99_ms": round(cuts[98] * 1000, 1),
    }


def stream(url: str, tokens: dict[str, tuple[str, str]], followers: int, events: int) -> dict[str, float]:
    """Events per second delivered to ``followers`` followers of one campaign while ``events`` are appended."""
    campaign = CAMPAIGNS[0]
    referee, player = tokens[campaign]
    with httpx.Client(base_url=url, timeout=60) as session:
        head = session.get(f"/campaigns/{campaign}", headers={"Authorization": f"Bearer {referee}"}).json()["version"]
    until = head + events // TURNS * TURNS
    received = [0] * followers
    ready = threading.Barrier(followers + 1)

    def follower(n: int) -> None:
        token = referee if n % 2 else player
        headers = {"Authorization": f"Bearer {token}", "Last-Event-ID": str(head)}
        with (
            httpx.Client(base_url=url, timeout=120) as session,
            session.stream("GET", f"/campaigns/{campaign}/stream?until={until}", headers=headers) as response,
        ):
            ready.wait()
            for line in response.iter_lines():
                if line.startswith("id: "):
                    received[n] += 1

    threads = [threading.Thread(target=follower, args=(n,)) for n in range(followers)]
    for thread in threads:
        thread.start()
    ready.wait()
    began = time.monotonic()
    with httpx.Client(base_url=url, timeout=60) as session:
        for _ in range(events // TURNS):
            session.post(
                f"/campaigns/{campaign}/clock/advance-clock",
                headers={"Authorization": f"Bearer {referee}"},
                json={"duration": f"{TURNS} turns"},
            )
    appended = time.monotonic() - began
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    return {
        "followers": followers,
        "events": until - head,
        "delivered": sum(received),
        "appended_events_per_s": round((until - head) / appended, 1),
        "delivered_events_per_s": round(sum(received) / elapsed, 1),
    }


def main() -> None:
    """Run both measurements and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--followers", type=int, default=20)
    parser.add_argument("--events", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "hexlog.db"
        tokens = prepare(db)
        server, url = start(db)
        try:
            load = commands(url, tokens, args.clients, args.seconds)
            print(f"commands: {load}")
            follow = stream(url, tokens, args.followers, args.events)
            print(f"stream: {follow}")
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(json.dumps({"commands": load, "stream": follow}))


if __name__ == "__main__":
    main()
