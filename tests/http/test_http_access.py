"""Who may call what: every route of the service x {referee, player, another campaign's player, revoked, none}.

The fixed routes are listed here one by one with the answer each identity gets; a command route
(``POST /campaigns/{campaign}/PROCEDURE/STEP``, one per command of the registry) is the referee's,
except the commands players own. A route the service serves that the matrix does not list fails.
"""

from __future__ import annotations

import re

import pytest

from hexlog.machine import commands as c
from hexlog.machine.registry import REGISTRY
from hexlog.service.http_commands import command_routes

from .conftest import BACKENDS

WHO = ("referee", "player", "other", "revoked", "none")
OPEN = {"referee": 200, "player": 200, "other": 200, "revoked": 200, "none": 200}
READ = {"referee": 200, "player": 200, "other": 403, "revoked": 401, "none": 401}
#: the fixed routes: (method, path) -> the status each identity gets
FIXED = {
    ("GET", "/health"): OPEN,
    ("GET", "/openapi.json"): OPEN,
    ("GET", "/docs"): OPEN,
    ("GET", "/schemas"): OPEN,
    ("GET", "/schemas/{type}"): OPEN,
    ("GET", "/campaigns"): {"referee": 200, "player": 200, "other": 200, "revoked": 401, "none": 401},
    ("GET", "/campaigns/{campaign}"): READ,
    ("GET", "/campaigns/{campaign}/timeline"): READ,
    ("GET", "/campaigns/{campaign}/events"): READ,
    ("GET", "/campaigns/{campaign}/stream"): READ,
    ("GET", "/campaigns/{campaign}/audit"): READ,
    ("GET", "/campaigns/{campaign}/export"): READ,
    ("GET", "/campaigns/{campaign}/map"): READ,
    ("GET", "/campaigns/{campaign}/receipt"): READ,
}
#: the commands a player's token may send (a client seed; a roll everyone sees)
PLAYERS = {c.SetClientSeed, c.RollDice}
COMMAND = re.compile(r"^/campaigns/\{campaign\}/(?P<procedure>[a-z_]+)/(?P<step>[a-z-]+)$")
#: a body each player-owned command is accepted with (the others are sent empty: refused or done, never 401/403)
BODIES = {"/campaign/set-client-seed": {"client_seed": "seed-1"}, "/campaign/roll-dice": {"expression": "d6"}}


def _commands() -> dict[tuple[str, str], type[c.Command]]:
    return {("POST", route.path): route.cls for route in command_routes(REGISTRY)}


def matrix(routes: set[tuple[str, str]]) -> dict[tuple[str, str], dict[str, int | None]]:
    """The expected answer of every route; a route neither fixed nor a registered command fails."""
    commands = _commands()
    expected: dict[tuple[str, str], dict[str, int | None]] = {}
    for method, path in sorted(routes):
        if (method, path) in FIXED:
            expected[method, path] = dict(FIXED[method, path])
            continue
        found = COMMAND.match(path)
        assert method == "POST", f"{method} {path} is not in the matrix"
        assert found, f"{method} {path} is not in the matrix"
        assert (method, path) in commands, f"{method} {path} is not a command of the registry"
        cls = commands[method, path]
        # None: the identity passes the door (the command itself may still refuse, 4xx, never 401/403/5xx)
        player: int | None = None if cls in PLAYERS else 403
        referee: int | None = 403 if cls is c.SetClientSeed else None  # the players' own seed
        expected[method, path] = {"referee": referee, "player": player, "other": 403, "revoked": 401, "none": 401}
    return expected


def served_routes(app) -> set[tuple[str, str]]:
    return {(method, route.path) for route in app.routes for method in route.methods if method != "HEAD"}


def test_every_route_is_in_the_matrix(serve):
    served = serve()
    routes = served_routes(served.app)
    expected = matrix(routes)
    assert set(expected) == routes
    assert set(FIXED) <= routes, "a fixed route of the matrix is no longer served"
    assert {("POST", route.path) for route in command_routes(REGISTRY)} <= routes


def test_a_route_missing_from_the_matrix_fails():
    with pytest.raises(AssertionError, match="not in the matrix"):
        matrix({("GET", "/campaigns/{campaign}/secrets")})
    with pytest.raises(AssertionError, match="not a command of the registry"):
        matrix({("POST", "/campaigns/{campaign}/castle/storm")})


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
@pytest.mark.parametrize("who", WHO)
def test_the_matrix(serve, who):
    served = serve()
    expected = matrix(served_routes(served.app))
    answers = {}
    with served.client() as client:
        # the client seed first: a session takes it only before its first roll
        for (method, path), statuses in sorted(expected.items(), key=lambda item: "set-client-seed" not in item[0][1]):
            url = path.replace("{campaign}", "main").replace("{type}", "dice.rolled")
            if url.endswith("/stream"):
                url += "?until=1"
            body = next((b for tail, b in BODIES.items() if url.endswith(tail)), {})
            response = client.request(method, url, headers=served.headers(who), json=body if method == "POST" else None)
            answers[method, path] = response.status_code
            want = statuses[who]
            if want is None:
                assert response.status_code not in {401, 403}, (method, path, response.text)
                assert response.status_code < 500, (method, path, response.text)
            else:
                assert response.status_code == want, (method, path, who, response.text)
            if response.status_code >= 400:
                problem = response.json()
                assert problem["status"] == response.status_code
                assert problem["type"].startswith("urn:hexlog:problem:")
                assert response.headers["content-type"].startswith("application/problem+json")
    if who in {"revoked", "none"}:
        assert all(status in {200, 401} for status in answers.values())
    if who == "player":  # the commands players own went through the door, and were done
        assert answers["POST", "/campaigns/{campaign}/campaign/set-client-seed"] == 200
        assert answers["POST", "/campaigns/{campaign}/campaign/roll-dice"] == 200


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_player_may_not_roll_in_secret_and_a_token_does_not_reach_another_campaign(serve):
    served = serve()
    with served.client() as client:
        secret = client.post(
            "/campaigns/main/campaign/roll-dice",
            headers=served.headers("player"),
            json={"expression": "d6", "secret": True},
        )
        assert secret.status_code == 403
        other = client.get("/campaigns/other", headers=served.headers("other"))
        assert other.status_code == 200
        assert client.get("/campaigns", headers=served.headers("other")).json()["campaigns"] == [
            {"id": "other", "version": 2}
        ]
        unknown = client.get("/campaigns/main", headers={"Authorization": "Bearer hxl_0000_nope"})
        assert unknown.status_code == 401
        assert unknown.headers["www-authenticate"].startswith("Bearer")
