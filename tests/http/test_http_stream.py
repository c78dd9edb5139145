"""The live stream: followers joining at any moment receive every version from their start, once, in order."""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import attrs
import httpx
import pytest

from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import FileKeeper
from hexlog.service.door import key_file, open_store
from hexlog.service.http_tokens import TokenStore

from .conftest import BACKENDS

#: appended by 250 clock advances of 20 turns (one event a turn)
ADVANCES, TURNS = 250, 20


def frames(response: httpx.Response):
    """(id, data) of each event of an SSE response, and None for each comment (a heartbeat)."""
    event_id, data = None, None
    for line in response.iter_lines():
        if line.startswith(":"):
            yield None
        elif line.startswith("id: "):
            event_id = int(line[4:])
        elif line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "" and data is not None:
            yield event_id, data
            event_id, data = None, None


def follow(served, who: str, *, start: int, until: int, resume: bool) -> list[int]:
    """The versions a follower receives from ``start`` to ``until`` (by ?from= or by Last-Event-ID)."""
    headers = served.headers(who)
    params = {"until": str(until)}
    if resume:
        headers["Last-Event-ID"] = str(start - 1)
    else:
        params["from"] = str(start)
    got = []
    with (
        httpx.Client(base_url=served.url, timeout=60) as client,
        client.stream("GET", "/campaigns/main/stream", headers=headers, params=params) as response,
    ):
        assert response.status_code == 200
        for frame in frames(response):
            if frame is not None:
                event_id, data = frame
                assert data["streamversion"] == event_id
                got.append(event_id)
    return got


def test_twenty_followers_joining_while_5000_events_are_appended(serve):
    served = serve(max_streams=20)  # fifteen of them on the referee's one token, past the cap's default
    rng = random.Random(20)  # noqa: S311 - when each follower joins, not a secret
    with served.client() as client:
        start = client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]
    end = start + ADVANCES * TURNS
    results: dict[int, tuple[int, list[int]]] = {}
    errors: list[BaseException] = []

    def writer() -> None:
        with served.client() as client:
            for _ in range(ADVANCES):
                answer = client.post(
                    "/campaigns/main/clock/advance-clock",
                    headers=served.headers("referee"),
                    json={"duration": f"{TURNS} turns"},
                )
                assert answer.status_code == 200, answer.text

    def follower(n: int, first: int) -> None:
        try:
            who = "player" if n % 4 == 0 else "referee"
            results[n] = (first, follow(served, who, start=first, until=end, resume=n % 2 == 1))
        except BaseException as err:  # noqa: BLE001 - reported by the test
            errors.append(err)

    write = threading.Thread(target=writer)
    write.start()
    followers = []
    for n in range(20):
        write.join(timeout=rng.uniform(0.0, 0.6))  # join at a random moment of the appending
        with served.client() as client:
            head = client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]
        first = rng.randint(1, head)
        thread = threading.Thread(target=follower, args=(n, first))
        thread.start()
        followers.append(thread)
    write.join()
    for thread in followers:
        thread.join(timeout=120)
    assert not errors, errors
    assert len(results) == 20
    for first, got in results.values():
        assert got == list(range(first, end + 1))


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_last_event_id_resumes_exactly(serve):
    served = serve()
    with served.client() as client:
        for _ in range(3):
            client.post(
                "/campaigns/main/clock/advance-clock", headers=served.headers("referee"), json={"duration": "5 turns"}
            )
        head = client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]
    received = []
    with (
        served.client() as client,
        client.stream("GET", "/campaigns/main/stream", headers=served.headers("player")) as response,
    ):
        for frame in frames(response):
            if frame is not None:
                received.append(frame[0])
            if len(received) == 7:
                break
    resumed = follow(served, "player", start=received[-1] + 1, until=head, resume=True)
    assert received + resumed == list(range(1, head + 1))


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_heartbeats_while_nothing_happens_then_the_next_event(serve):
    served = serve(heartbeat=0.2, poll=0.05)
    with served.client() as client:
        head = client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]
        beats, got = 0, []
        with client.stream(
            "GET", "/campaigns/main/stream", headers=served.headers("player"), params={"from": head + 1}
        ) as response:
            for frame in frames(response):
                if frame is None:
                    beats += 1
                    if beats == 2:
                        threading.Thread(
                            target=lambda: served.client().post(
                                "/campaigns/main/campaign/add-member",
                                headers=served.headers("referee"),
                                json={"name": "Ana"},
                            )
                        ).start()
                else:
                    got.append(frame[1])
                    break
    assert beats >= 2
    assert got[0]["type"] == "hexlog.party.member_added"
    assert got[0]["streamversion"] == head + 1


def append_elsewhere(db: Path | str, command: c.Command) -> None:
    """Run a command on the served database through a store connection and a handler of its own, as the command
    line does from another process: nothing rings the service's bell."""
    store = open_store(Path(db))
    try:
        Handler(store, FileKeeper(key_file(Path(db)))).execute("main", command)
    finally:
        store.close()


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_follower_receives_an_event_appended_through_another_connection(serve):
    served = serve(heartbeat=0.1, poll=0.05)
    with served.client() as client:
        head = client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]
        got, beats = [], 0
        with client.stream(
            "GET", "/campaigns/main/stream", headers=served.headers("player"), params={"from": head + 1}
        ) as response:
            for frame in frames(response):
                if frame is None:  # a heartbeat: the follower has read everything and waits
                    beats += 1
                    if beats == 1:
                        append_elsewhere(served.db, c.AddMember(name="Ana"))
                    assert beats < 200, "the event appended elsewhere never came"
                else:
                    got.append(frame[1])
                    break
        # the service's own handler decides its next command after that append
        added = client.post(
            "/campaigns/main/campaign/add-member", headers=served.headers("referee"), json={"name": "Bo"}
        )
        assert added.status_code == 200, added.text
        assert added.json()["version"] == head + 2
    assert [(e["type"], e["streamversion"]) for e in got] == [("hexlog.party.member_added", head + 1)]
    assert got[0]["data"]["name"] == "Ana"


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_the_paged_read_gives_the_stream_in_pages(serve):
    served = serve()
    with served.client() as client:
        client.post(
            "/campaigns/main/clock/advance-clock", headers=served.headers("referee"), json={"duration": "30 turns"}
        )
        versions, first = [], 1
        while True:
            page = client.get(
                "/campaigns/main/events", headers=served.headers("player"), params={"from": first, "limit": 7}
            ).json()
            versions += [e["streamversion"] for e in page["events"]]
            if not page["events"]:
                break
            first = page["next"]
        assert versions == list(range(1, page["head"] + 1))
        streamed = client.get("/campaigns/main/stream", headers=served.headers("player"), params={"until": 12}).text
        paged = client.get("/campaigns/main/events", headers=served.headers("player"), params={"limit": 12}).json()
    from_stream = [json.loads(line[6:]) for line in streamed.splitlines() if line.startswith("data: ")]
    assert from_stream == paged["events"]
    # the chain links hold in what a follower receives
    for before, after in itertools.pairwise(from_stream):
        assert after["prevhash"] == before["hash"]


def test_the_example_client_follows_a_campaign_and_prints_each_roll_with_its_meaning(serve):
    served = serve()
    with served.client() as client:
        referee = served.headers("referee")
        client.post("/campaigns/main/campaign/roll-dice", headers=referee, json={"expression": "2d6", "purpose": "a"})
        client.post("/campaigns/main/campaign/roll-dice", headers=referee, json={"expression": "d8", "secret": True})
        head = client.get("/campaigns/main", headers=referee).json()["version"]
    example = Path(__file__).parents[2] / "examples" / "follow.py"
    shown = subprocess.run(  # noqa: S603 - the repository's own example
        [sys.executable, str(example), served.url, "main", "--until", str(head)],
        env={**os.environ, "HEXLOG_TOKEN": served.tokens["player"]},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    assert re.fullmatch(r"\s+3  roll #0 2d6 for a: \d\+\d -> \d+", shown[0]), shown
    assert shown[1].endswith("secret roll #r0 (secret roll): hidden until the session closes"), shown


def test_a_stream_sends_nothing_once_its_token_is_revoked_though_events_keep_coming(serve):
    """Revoked while the referee keeps appending (the stream never quiet long enough for a heartbeat): the events
    appended after the revocation never reach the revoked token."""
    served = serve(heartbeat=60, poll=60)
    store = TokenStore(served.db)
    token, kept = store.create("main", "player")
    referee = served.headers("referee")
    with served.client() as client:
        roll = "/campaigns/main/campaign/roll-dice"
        got = []
        revoked_at = None
        with client.stream(
            "GET", "/campaigns/main/stream", headers={"Authorization": f"Bearer {token}"}, params={"from": 1}
        ) as response:
            for frame in frames(response):
                if frame is None:
                    continue
                got.append(frame[0])
                if revoked_at is not None and frame[0] > revoked_at:
                    break  # sent after the revocation: the assertion below fails
                head = client.get("/campaigns/main", headers=referee).json()["version"]
                if frame[0] == head and revoked_at is None:
                    store.revoke(kept.id)
                    revoked_at = head
                if frame[0] == head:
                    assert client.post(roll, headers=referee, json={"expression": "d6"}).status_code == 200
        store.close()
    assert revoked_at is not None
    assert got == list(range(1, revoked_at + 1))  # nothing appended after the revocation was sent


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_stream_ends_when_its_token_is_revoked(serve):
    served = serve(heartbeat=0.1, poll=0.05)
    store = TokenStore(served.db)
    token, kept = store.create("main", "player")
    with served.client() as client:
        head = client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]
        got = []
        with client.stream(
            "GET", "/campaigns/main/stream", headers={"Authorization": f"Bearer {token}"}, params={"from": 1}
        ) as response:
            for frame in frames(response):
                if frame is not None:
                    got.append(frame[0])
                elif got and kept.active:
                    store.revoke(kept.id)
                    kept = attrs.evolve(kept, revoked="now")
        store.close()
    assert got == list(range(1, head + 1))  # the stream ended by itself once the token was revoked
    assert not kept.active


def test_a_player_joining_at_the_end_is_not_read_the_campaign_from_version_1_again(serve):
    """The player view of the events before a follower's start is kept by the service: a follower reads only
    what comes after it (each one used to read and decode the whole campaign again)."""
    served = serve()
    with served.client() as client:
        for _ in range(5):
            client.post(
                "/campaigns/main/clock/advance-clock", headers=served.headers("referee"), json={"duration": "5 turns"}
            )
        head = client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]
    assert follow(served, "player", start=1, until=head, resume=False) == list(range(1, head + 1))
    reads = served.app.state.service.reads
    asked: list[int] = []
    read_stream = reads.read_stream

    def counted(stream: str, from_version: int = 1):
        asked.append(from_version)
        return read_stream(stream, from_version)

    reads.read_stream = counted
    try:
        assert follow(served, "player", start=head, until=head, resume=True) == [head]
        assert follow(served, "player", start=head - 3, until=head, resume=False) == list(range(head - 3, head + 1))
    finally:
        del reads.read_stream
    assert asked
    assert min(asked) >= head  # the last event judged is read again, to check that it is still the log's


def test_reads_are_answered_while_a_command_waits_for_a_busy_database(serve):
    """A command waiting for a lock another connection holds (another process's long append) used to hold the
    service's one lock, and every read waited behind it."""
    served = serve()
    service = served.app.state.service
    with served.client() as client:
        head = client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]
    locker = sqlite3.connect(served.db, isolation_level=None, check_same_thread=False)
    locker.execute("BEGIN IMMEDIATE")
    answers: list[httpx.Response] = []
    command = threading.Thread(
        target=lambda: answers.append(
            httpx.post(
                f"{served.url}/campaigns/main/campaign/roll-dice",
                headers=served.headers("referee"),
                json={"expression": "1d6"},
                timeout=60,
            )
        )
    )
    try:
        command.start()
        deadline = time.monotonic() + 10
        while not service.lock.locked() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert service.lock.locked()  # the command is under way, waiting for the database
        with httpx.Client(base_url=served.url, timeout=5) as client:
            for who in ("referee", "player"):
                for url in (
                    "/campaigns/main",
                    "/campaigns/main/events",
                    "/campaigns/main/map",
                    "/campaigns/main/receipt",
                ):
                    assert client.get(url, headers=served.headers(who)).status_code == 200, url
        assert follow(served, "player", start=head, until=head, resume=False) == [head]
        assert command.is_alive()
    finally:
        locker.execute("ROLLBACK")
        locker.close()
        command.join(60)
    assert answers[0].status_code == 200, answers[0].text
    assert answers[0].json()["version"] == head + 1


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_follower_past_the_end_of_the_log_is_refused_and_one_at_its_end_waits_for_the_next(serve):
    """A Last-Event-ID (or ?from=) past the log's end used to be taken silently: the follower then received the
    versions after it as they came, never those between the log's end and it."""
    served = serve(heartbeat=0.1, poll=0.05)
    with served.client() as client:
        head = client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]
        for headers, params, asked, fix in (
            (
                {"Last-Event-ID": str(head + 3)},
                {},
                f"Last-Event-ID {head + 3}",
                f"resume with a Last-Event-ID of {head} at the most",
            ),
            ({}, {"from": str(head + 4)}, f"?from={head + 4}", f"start at ?from={head + 1} at the latest"),
        ):
            for who in ("referee", "player"):
                problem = refusal(client, served.headers(who, **headers), params)
                assert problem["type"] == "urn:hexlog:problem:past-end"
                assert problem["current_version"] == head
                assert problem["detail"] == (
                    f"{asked} is past the end of the log of campaign 'main', which is at version {head}: "
                    f"nothing is streamed, since versions {head + 1} to {head + 3} would never be; {fix}"
                )
        one_past = refusal(client, served.headers("player"), {"from": str(head + 2)})
        assert f"since version {head + 1} would never be" in one_past["detail"]
    # a follower that received the last version, or starts just after it, waits for the next
    assert follow_with_append(served, "Ana", {"Last-Event-ID": str(head)}, {}) == [head + 1]
    assert follow_with_append(served, "Bo", {}, {"from": str(head + 2)}) == [head + 2]


def refusal(client: httpx.Client, headers: dict[str, str], params: dict[str, str]) -> dict:
    """The problem document a stream request is refused with (a stream it opens instead fails, not waits)."""
    with client.stream("GET", "/campaigns/main/stream", headers=headers, params=params) as response:
        assert response.status_code == 409
        assert response.headers["content-type"].startswith("application/problem+json")
        response.read()
    return response.json()


def follow_with_append(served, name: str, headers: dict[str, str], params: dict[str, str]) -> list[int]:
    """The versions a player's follower receives (up to one) once it has waited a heartbeat and a member is added."""
    got: list[int] = []
    with (
        served.client() as client,
        client.stream(
            "GET", "/campaigns/main/stream", headers=served.headers("player", **headers), params=params
        ) as response,
    ):
        assert response.status_code == 200
        for frame in frames(response):
            if frame is None:
                if not got:
                    got.append(0)
                    added = client.post(
                        "/campaigns/main/campaign/add-member", headers=served.headers("referee"), json={"name": name}
                    )
                    assert added.status_code == 200, added.text
            else:
                got.append(frame[0])
                break
    return got[1:]


def test_a_stream_asked_to_start_after_its_until_is_204_so_an_event_source_stops_reconnecting(serve):
    """An ``EventSource`` reconnects whenever its stream ends, with the ``Last-Event-ID`` it last received: a stream of
    ``?until=N`` that sent N is asked for again after N, and answered 204 (no content), which tells it to stop; an empty
    stream of 200 would have it reconnect for ever."""
    served = serve()
    with served.client() as client:
        head = client.get("/campaigns/main", headers=served.headers("player")).json()["version"]
        url = f"/campaigns/main/stream?until={head}"
        resumed = client.get(url, headers=served.headers("player", **{"Last-Event-ID": str(head)}))
        after = client.get(f"/campaigns/main/stream?from={head + 1}&until={head}", headers=served.headers("referee"))
        doc = client.get("/openapi.json").json()
    assert (resumed.status_code, resumed.content) == (204, b"")
    assert (after.status_code, after.content) == (204, b"")
    assert "204" in doc["paths"]["/campaigns/{campaign}/stream"]["get"]["responses"]
    assert follow(served, "player", start=head, until=head, resume=True) == [head]  # the version asked for is sent
