"""Requests that are not what a route reads: refused naming what is wrong, before anything is run or appended."""

from __future__ import annotations

import pytest

ADD = "/campaigns/main/campaign/add-member"


def _version(served, client) -> int:
    return client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]


def _party(served, client) -> list[str]:
    return client.get("/campaigns/main", headers=served.headers("referee")).json()["party"]


#: a query parameter a route does not read, and the parameters its refusal names
UNREAD = (
    ("POST", f"{ADD}?dry_run=1", "it reads none"),
    ("POST", f"{ADD}?name=Bo", "it reads none"),
    ("GET", "/campaigns/main/events?form=5", "it reads ?from, ?limit"),
    ("GET", "/campaigns/main/map?hexes=1,1", "it reads ?hex"),
    ("GET", "/campaigns/main/audit?rolls=3", "it reads ?expect, ?roll, ?session, ?secret"),
    ("GET", "/campaigns/main?version=1", "it reads ?at"),
    ("GET", "/health?x=1", "it reads none"),
)


@pytest.mark.parametrize(("method", "url", "reads"), UNREAD)
def test_a_query_parameter_the_route_does_not_read_is_a_400_naming_it(serve, method, url, reads):
    """``POST .../add-member?dry_run=1`` added the member: a parameter no route reads was let be, so a command was
    applied whatever its query asked, and a read's misspelt ``?form=5`` answered from the first event."""
    served = serve()
    name = url.partition("?")[2].partition("=")[0]
    with served.client() as client:
        before = _version(served, client)
        answer = client.request(method, url, headers=served.headers("referee"), json={"name": "Ana"})
        assert answer.status_code == 400, answer.text
        assert answer.headers["content-type"].startswith("application/problem+json")
        path = url.partition("?")[0]
        assert answer.json()["detail"] == f"?{name} is not a query parameter of {method} {path}; {reads}"
        assert _version(served, client) == before
        assert "Ana" not in _party(served, client)


#: a query parameter given twice that its route reads once
TWICE = (
    "/campaigns/main?at=1&at=2",
    "/campaigns/main/events?from=1&from=2",
    "/campaigns/main/map?hex=1,1&hex=2,2",
    "/campaigns/main/audit?roll=1&roll=1",
    "/campaigns/main/stream?until=1&until=2",
)


@pytest.mark.parametrize("url", TWICE)
def test_a_query_parameter_given_twice_is_a_400_not_its_last_value(serve, url):
    """``?at=1&at=2`` answered the state at version 2 and ``?hex=1,1&hex=2,2`` hex 2,2: the first was dropped."""
    served = serve()
    name = url.partition("?")[2].partition("=")[0]
    with served.client() as client:
        before = _version(served, client)
        answer = client.get(url, headers=served.headers("player"))
        assert answer.status_code == 400, answer.text
        assert answer.json()["detail"] == f"?{name} is given 2 times; {url.partition('?')[0]} reads it once"
        assert _version(served, client) == before


def test_receipts_the_audit_expects_may_be_given_more_than_once(serve):
    served = serve()
    with served.client() as client:
        first = client.get("/campaigns/main/receipt?at=1", headers=served.headers("player")).json()["receipt"]
        second = client.get("/campaigns/main/receipt?at=2", headers=served.headers("player")).json()["receipt"]
        answer = client.get(
            "/campaigns/main/audit",
            params=[("expect", first.split()[0]), ("expect", second.split()[0])],
            headers=served.headers("player"),
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["ok"] is True
        document = client.get("/openapi.json").json()
        (expect,) = [
            p for p in document["paths"]["/campaigns/{campaign}/audit"]["get"]["parameters"] if p["name"] == "expect"
        ]
        assert expect["schema"]["type"] == "array"


@pytest.mark.parametrize("header", ["If-Match", "Idempotency-Key"])
def test_a_command_header_given_twice_is_a_400_and_nothing_is_appended(serve, header):
    """Two If-Match headers were read as the first: a command the second said was stale was applied. Two
    Idempotency-Key headers alike: a retry with the second alone was applied again."""
    served = serve()
    with served.client() as client:
        version = _version(served, client)
        values = (str(version), str(version - 1)) if header == "If-Match" else ("key-1", "key-2")
        headers = [*served.headers("referee").items(), (header, values[0]), (header, values[1])]
        answer = client.post(ADD, headers=headers, json={"name": "Ana"})
        assert answer.status_code == 400, answer.text
        assert answer.json()["detail"] == f"{header} is given 2 times; a command takes one"
        assert _version(served, client) == version
        assert "Ana" not in _party(served, client)


def test_a_body_that_is_not_utf_8_is_a_400_and_nothing_is_appended(serve):
    """A UTF-16 body was read (``json.loads`` guesses UTF-16 and UTF-32 from bytes) and its member added."""
    served = serve()
    headers = served.headers("referee", **{"Content-Type": "application/json"})
    with served.client() as client:
        before = _version(served, client)
        for raw in ('{"name": "Ana"}'.encode("utf-16"), '{"name": "Ana"}'.encode("utf-32"), b'{"name": "\xe9"}'):
            answer = client.post(ADD, headers=headers, content=raw)
            assert answer.status_code == 400, answer.text
            assert answer.json()["detail"].startswith("the body is not UTF-8: byte "), answer.text
        assert _version(served, client) == before
        assert "Ana" not in _party(served, client)
        with_bom = client.post(ADD, headers=headers, content='\ufeff{"name": "Bo"}'.encode())
        assert with_bom.status_code == 200, with_bom.text


def test_a_body_said_to_be_in_another_charset_is_a_415(serve):
    served = serve()
    with served.client() as client:
        before = _version(served, client)
        for charset in ("utf-16", "latin-1", '""'):
            headers = served.headers("referee", **{"Content-Type": f"application/json; charset={charset}"})
            answer = client.post(ADD, headers=headers, content=b'{"name": "Ana"}')
            assert answer.status_code == 415, answer.text
            assert answer.json()["detail"].endswith("; JSON is sent in UTF-8")
        assert _version(served, client) == before
        utf8 = served.headers("referee", **{"Content-Type": 'application/json; charset="UTF-8"'})
        assert client.post(ADD, headers=utf8, content=b'{"name": "Ana"}').status_code == 200
