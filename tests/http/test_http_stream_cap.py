"""A token holds at most ``--max-streams`` live streams open at once: one more is refused (429, a problem naming the
cap, ``Retry-After``), another token's are not counted, and a stream that ends, however it ends, frees its slot."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import httpx

from hexlog.service.http_app import Settings
from hexlog.service.http_stream import MAX_STREAMS
from hexlog.service.http_tokens import TokenStore

STREAM = "/campaigns/main/stream"


def _held(served, who: str) -> int:
    token = TokenStore(served.db).verify(served.tokens[who])
    assert token is not None
    return served.app.state.service.streams.held(token.id)


def _until(condition, seconds: float = 20.0) -> bool:
    """Whether ``condition`` holds within ``seconds`` (the server sees a closed connection on its own time)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_the_default_cap_is_a_few_screens_of_a_table():
    """Unless ``hexlog serve --max-streams`` says otherwise: the referee's screen and a few players' each follow one."""
    assert Settings(db=Path("hexlog.db")).max_streams == MAX_STREAMS == 8


def test_a_stream_past_the_tokens_cap_is_refused_and_a_closed_one_frees_its_slot(serve):
    served = serve(max_streams=2)
    with contextlib.ExitStack() as held, httpx.Client(base_url=served.url, timeout=30) as client:
        first = held.enter_context(client.stream("GET", STREAM, headers=served.headers("player")))
        second = held.enter_context(client.stream("GET", STREAM, headers=served.headers("player")))
        assert first.status_code == second.status_code == 200
        assert _held(served, "player") == 2
        refused = client.get(STREAM, headers=served.headers("player"))
        assert refused.status_code == 429
        assert refused.headers["Retry-After"] == "5"
        problem = refused.json()
        assert problem["type"] == "urn:hexlog:problem:too-many-streams"
        assert problem["max_streams"] == 2
        assert problem["detail"] == (
            "this token holds 2 live streams open already, the most the service lets one token hold; "
            "end one of them, then retry"
        )
        assert _held(served, "player") == 2  # the refusal took no slot
        other = held.enter_context(client.stream("GET", STREAM, headers=served.headers("referee")))
        assert other.status_code == 200  # another token's streams are its own
        first.close()
        assert _until(lambda: _held(served, "player") == 1)
        again = held.enter_context(client.stream("GET", STREAM, headers=served.headers("player")))
        assert again.status_code == 200


def test_a_stream_that_ends_by_itself_frees_its_slot(serve):
    served = serve(max_streams=1)
    with served.client() as client:
        head = client.get("/campaigns/main", headers=served.headers("player")).json()["version"]
        for _ in range(3):  # each ends at its ?until=, so the next is let in
            with client.stream("GET", STREAM, headers=served.headers("player"), params={"until": head}) as answer:
                assert answer.status_code == 200
                answer.read()
            assert _until(lambda: _held(served, "player") == 0)
        with client.stream("GET", STREAM, headers=served.headers("player")) as held:
            assert held.status_code == 200
            refused = client.get(STREAM, headers=served.headers("player"))
            assert refused.status_code == 429
            assert refused.json()["detail"].startswith("this token holds 1 live stream open already, ")


def test_the_cap_is_an_option_of_serve(hexlog):
    """``--max-streams`` is listed by ``hexlog serve --help``; 0 is refused before anything is served."""
    assert "--max-streams" in hexlog("serve", "--help", env={"COLUMNS": "200"}).stdout
    assert hexlog("init").returncode == 0
    refused = hexlog("serve", "--max-streams", "0")
    assert refused.returncode == 2
    assert "--max-streams" in refused.stderr


def test_a_head_of_the_stream_answers_its_headers_and_holds_no_stream_open(serve):
    """``HEAD /stream`` (a client checking the route, a proxy's health check) is answered as a GET would begin, and
    ends there: it takes no slot of the token's cap, and the connection it came on answers the next request (a stream
    begun for it would never end, holding both)."""
    served = serve(max_streams=2)
    headers = served.headers("player")
    with httpx.Client(base_url=served.url, timeout=5) as client:
        for _ in range(4):
            checked = client.head(STREAM, headers=headers)
            assert checked.status_code == 200
            assert checked.headers["content-type"].startswith("text/event-stream")
        assert _held(served, "player") == 0
        state = client.get("/campaigns/main", headers=headers)  # on the connection the HEADs came on
        assert state.status_code == 200
        past = client.head(f"{STREAM}?from=99", headers=headers)  # refused as a GET is
        assert past.status_code == 409
