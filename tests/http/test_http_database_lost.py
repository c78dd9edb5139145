"""``hexlog serve`` on PostgreSQL when the server goes away: 503 problems, nothing half-written, a reconnect after.

The service reaches the server through a relay (``tests.postgres_db.Relay``): cutting it is the server
going away (connections closed, the port refusing), restoring it is the server back. Its connections
are named (``application_name``) so that a test can also end them from another connection, as an
administrator or a restarting server does (``pg_terminate_backend``).
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
from structlog.testing import capture_logs

from hexlog.events.postgres_schema import append_lock_key
from hexlog.machine import commands as c
from hexlog.service.logs import configure
from tests.postgres_db import PG_URL, Relay, fresh_schema, relay

from .test_http_stream import append_elsewhere, frames

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    import httpx

    from .conftest import Served

__all__ = ["relay"]  # the fixture, used by name

#: what a player's token reads, each route once
READS = ("/campaigns", "/campaigns/main", "/campaigns/main/events", "/campaigns/main/receipt", "/campaigns/main/stream")


@pytest.fixture
def database(relay: Relay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A PostgreSQL schema of the test's own, reached through the relay, its connections named."""
    monkeypatch.setenv("HEXLOG_KEY_FILE", str(tmp_path / "postgresql.keys"))
    with fresh_schema() as url:
        yield f"{relay.url(url)}&application_name=hexlog_test_{uuid.uuid4().hex[:16]}"


def backends(served: Served) -> list[int]:
    """The process ids of the service's connections on the server."""
    name = str(served.db).rsplit("application_name=", 1)[1]
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        return [row[0] for row in conn.execute("SELECT pid FROM pg_stat_activity WHERE application_name = %s", (name,))]


def end_backends(pids: list[int]) -> None:
    """End these connections from another one (waiting until each has gone)."""
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        for pid in pids:
            conn.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))


def version(served: Served) -> int:
    with served.client() as client:
        answer = client.get("/campaigns/main", headers=served.headers("referee"))
    assert answer.status_code == 200, answer.text
    return int(answer.json()["version"])


def members(served: Served) -> list[str]:
    with served.client() as client:
        events = client.get("/campaigns/main/events", headers=served.headers("referee")).json()["events"]
    return [e["data"]["name"] for e in events if e["type"] == "hexlog.party.member_added"]


def add_member(served: Served, name: str) -> httpx.Response:
    with served.client() as client:
        return client.post(
            "/campaigns/main/campaign/add-member", headers=served.headers("referee"), json={"name": name}
        )


def assert_unreachable(answer: httpx.Response, path: str) -> dict[str, Any]:
    """The answer is the 503 problem of a database out of reach, and says no more than that."""
    assert answer.status_code == 503, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    assert int(answer.headers["retry-after"]) >= 1
    problem: dict[str, Any] = answer.json()
    assert problem["type"] == "urn:hexlog:problem:unreachable"
    assert problem["title"] == "The database is unreachable"
    assert problem["status"] == 503
    assert problem["detail"].startswith("the database is unreachable: ")
    assert problem["instance"] == path
    assert "Traceback" not in answer.text
    assert "127.0.0.1" not in answer.text  # where the database is stays in the service's log
    return problem


def logged(logs: list[dict[str, Any]], event: str) -> list[dict[str, Any]]:
    return [log for log in logs if log["event"] == event]


def test_a_command_while_the_server_is_out_of_reach_is_a_503_problem_logged_once_and_writes_nothing(serve, relay):
    served = serve()
    head = version(served)
    configure("info")  # as 'hexlog serve' does
    relay.cut()
    with capture_logs() as logs:
        refused = add_member(served, "Ana")
        deadline = time.monotonic() + 10
        while not logged(logs, "http.request") and time.monotonic() < deadline:  # logged once its answer has gone
            time.sleep(0.01)
    configure()
    problem = assert_unreachable(refused, "/campaigns/main/campaign/add-member")
    assert "Connection refused" in problem["detail"]
    said = logged(logs, "http.database_unreachable")
    assert len(said) == 1, logs
    assert said[0]["path"] == "/campaigns/main/campaign/add-member"
    assert relay.url() in said[0]["error"]  # the log names the database
    assert [(r["status"], r["outcome"]) for r in logged(logs, "http.request")] == [(503, "unreachable")]
    # the server back, the very next request works: nothing of the refused command was written
    relay.restore()
    assert version(served) == head
    added = add_member(served, "Bo")
    assert added.status_code == 200, added.text
    assert added.json()["version"] == head + 1
    assert members(served) == ["Bo"]


def test_every_read_while_the_server_is_out_of_reach_is_a_503_problem(serve, relay):
    served = serve()
    relay.cut()
    with served.client() as client:
        for path in READS:
            assert_unreachable(client.get(path, headers=served.headers("player")), path)
    relay.restore()
    with served.client() as client:
        for path in READS:
            until = {"until": 1} if path.endswith("/stream") else None  # the stream's end; no other route reads it
            answer = client.get(path, headers=served.headers("player"), params=until)
            assert answer.status_code == 200, (path, answer.text)


def test_a_command_whose_connection_is_lost_during_its_append_is_a_503_and_writes_nothing(serve):
    """The append waits for the append lock (held by another connection) inside its transaction when the
    server ends its connection: the command is refused with 503, and none of its events is recorded."""
    served = serve()
    head = version(served)
    store = served.app.state.service.store
    answers: list[httpx.Response] = []
    with psycopg.connect(PG_URL) as holder:
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (append_lock_key(store.schema),))
        sending = threading.Thread(target=lambda: answers.append(add_member(served, "Ana")))
        sending.start()
        deadline = time.monotonic() + 20
        waiting: list[int] = []
        while not waiting and time.monotonic() < deadline:  # until the append waits for the lock
            time.sleep(0.01)
            pids = backends(served)
            found = holder.execute(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid = ANY(%s)", (pids,)
            )
            waiting = [row[0] for row in found]
        assert waiting, "the append never waited for the lock"
        end_backends(waiting)
        sending.join(timeout=30)
    assert_unreachable(answers[0], "/campaigns/main/campaign/add-member")
    assert version(served) == head
    assert add_member(served, "Bo").status_code == 200
    assert members(served) == ["Bo"]


def test_connections_the_server_ended_between_requests_are_replaced_by_the_next_request(serve):
    served = serve()
    head = version(served)
    ended = backends(served)
    assert len(ended) >= 3  # the store's, the tokens', the stored replies'
    end_backends(ended)
    assert version(served) == head
    assert add_member(served, "Bo").status_code == 200
    assert not set(ended) & set(backends(served))


def test_a_follower_hears_an_append_of_another_connection_at_once_not_at_the_next_poll(serve):
    """The poll is 30 s: only the database's announcement of the append brings the event in time."""
    served = serve(heartbeat=0.1, poll=30.0)
    head = version(served)
    with served.client() as client:
        got, beats, appended = [], 0, 0.0
        with client.stream(
            "GET", "/campaigns/main/stream", headers=served.headers("player"), params={"from": head + 1}
        ) as response:
            for frame in frames(response):
                if frame is None:  # a heartbeat: the follower has read everything and waits
                    beats += 1
                    if beats == 1:
                        appended = time.monotonic()
                        append_elsewhere(served.db, c.AddMember(name="Ana"))
                    assert beats < 100, "the event appended elsewhere did not come within 10 s"
                else:
                    got.append((frame[1], time.monotonic() - appended))
                    break
    assert [(e["type"], e["streamversion"]) for e, _ in got] == [("hexlog.party.member_added", head + 1)]
    assert got[0][1] < 5


def test_a_follower_waits_through_the_servers_absence_and_goes_on_when_it_is_back(serve, relay):
    """The relay cut while a follower waits: its stream stays open with its heartbeats (the loss logged once,
    however often it is read meanwhile); the server back, an append of another process comes."""
    served = serve(heartbeat=0.1, poll=0.05)
    head = version(served)
    configure("info")
    with capture_logs() as logs, served.client() as client:
        got, beats = [], 0
        with client.stream(
            "GET", "/campaigns/main/stream", headers=served.headers("player"), params={"from": head + 1}
        ) as response:
            for frame in frames(response):
                if frame is None:
                    beats += 1
                    if beats == 1:
                        relay.cut()
                    elif beats == 20:  # two seconds of absence, read every 50 ms
                        relay.restore()
                        append_elsewhere(served.db, c.AddMember(name="Ana"))
                    assert beats < 300, "the event appended once the server was back never came"
                else:
                    got.append(frame[1])
                    break
    configure()
    assert [(e["type"], e["streamversion"]) for e in got] == [("hexlog.party.member_added", head + 1)]
    waiting = logged(logs, "http.stream_waiting")
    assert len(waiting) == 1, logs
    assert waiting[0]["campaign"] == "main"
    assert len(logged(logs, "http.stream_resumed")) == 1


def test_a_follower_hears_appends_of_another_connection_after_the_listening_connection_was_lost(serve, relay):
    served = serve(heartbeat=0.1, poll=30.0)
    relay.cut()  # every connection of the service is lost, the one that listens too
    relay.restore()
    head = version(served)
    deadline = time.monotonic() + 20
    while not listening(served) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert listening(served), "the service never listened again"
    with served.client() as client:
        got = []
        with client.stream(
            "GET", "/campaigns/main/stream", headers=served.headers("player"), params={"from": head + 1}
        ) as response:
            for number, frame in enumerate(frames(response)):
                if number == 1:
                    append_elsewhere(served.db, c.AddMember(name="Ana"))
                assert number < 100, "the event appended elsewhere did not come within 10 s"
                if frame is not None:
                    got.append(frame[1])
                    break
    assert [e["streamversion"] for e in got] == [head + 1]


def listening(served: Served) -> bool:
    """Whether one of the service's connections is listening for appends."""
    name = str(served.db).rsplit("application_name=", 1)[1]
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        found = conn.execute(
            "SELECT 1 FROM pg_stat_activity WHERE application_name = %s AND query LIKE 'LISTEN %%'", (name,)
        )
        return found.fetchone() is not None
