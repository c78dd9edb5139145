"""Commands over HTTP: applied once however often they are retried, stale versions refused, the command line's words."""

from __future__ import annotations

import hashlib
import json
import socket
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

from hexlog.events.dice import DiceRolled
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import LoadMap
from hexlog.machine.keeper import FileKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.service import http_commands, http_tokens, render
from hexlog.service.door import key_file, open_store
from hexlog.service.http_app import endpoints
from hexlog.service.http_replies import Replies
from hexlog.service.http_tokens import TokenStore
from tests.conftest import secret_file

from .conftest import BACKENDS

ADD = "/campaigns/main/campaign/add-member"


def _version(served, client) -> int:
    return client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_retried_command_is_applied_once_and_answered_as_the_first_time(serve):
    served = serve()
    with served.client() as client:
        before = _version(served, client)
        headers = served.headers("referee", **{"Idempotency-Key": "add-ana-1"})
        first = client.post(ADD, headers=headers, json={"name": "Ana"})
        again = client.post(ADD, headers=headers, json={"name": "Ana"})
        assert first.status_code == again.status_code == 200
        assert again.json() == {**first.json(), "replayed": True}
        assert first.json()["replayed"] is False
        assert again.headers["idempotent-replayed"] == "true"
        assert _version(served, client) == before + 1
        other = client.post(ADD, headers=headers, json={"name": "Bo"})
        assert other.status_code == 422
        assert "already used for another request" in other.json()["detail"]


def test_an_idempotency_key_names_a_request_of_its_own_token_alone(serve):
    """Two clients that count their keys alike each have their command applied, and a replay says it is one."""
    served = serve()
    with served.client() as client:
        before = _version(served, client)
        referee = client.post(ADD, headers=served.headers("referee", **{"Idempotency-Key": "1"}), json={"name": "Ana"})
        player = client.post(
            "/campaigns/main/campaign/roll-dice",
            headers=served.headers("player", **{"Idempotency-Key": "1"}),
            json={"expression": "1d20"},
        )
        same_body = client.post(ADD, headers=served.headers("player", **{"Idempotency-Key": "1"}), json={"name": "Ana"})
        assert referee.status_code == player.status_code == 200
        assert player.json()["command"] == "campaign/roll-dice"
        assert same_body.status_code == 403  # the player's own key, not the referee's stored answer
        assert _version(served, client) == before + 2
        again = client.post(ADD, headers=served.headers("referee", **{"Idempotency-Key": "1"}), json={"name": "Ana"})
        assert again.headers["idempotent-replayed"] == "true"
        assert again.json()["replayed"] is True
        assert {k: v for k, v in again.json().items() if k != "replayed"} == {
            k: v for k, v in referee.json().items() if k != "replayed"
        }


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_command_whose_response_was_lost_is_applied_once(serve):
    served = serve()
    address = urlparse(served.url)
    with served.client() as client:
        before = _version(served, client)
    body = b'{"name": "Cato"}'
    request = (
        f"POST {ADD} HTTP/1.1\r\nHost: {address.netloc}\r\nAuthorization: {served.headers('referee')['Authorization']}"
        f"\r\nIdempotency-Key: lost-1\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    with socket.create_connection((address.hostname, address.port)) as sock:
        sock.sendall(request)  # and the connection drops before any answer is read
    with served.client() as client:
        deadline = time.monotonic() + 10
        while _version(served, client) == before and time.monotonic() < deadline:
            time.sleep(0.02)
        retried = client.post(
            ADD, headers=served.headers("referee", **{"Idempotency-Key": "lost-1"}), json={"name": "Cato"}
        )
        assert retried.status_code == 200
        assert retried.json()["version"] == before + 1
        # the service stopped before it stored the answer: the handler's command id still holds
        replies = Replies(served.db)
        (token,) = [t for t in TokenStore(served.db).list("main") if t.role == "referee" and t.active]
        replies.forget("main", f"{token.id}:lost-1")
        replies.close()
        again = client.post(
            ADD, headers=served.headers("referee", **{"Idempotency-Key": "lost-1"}), json={"name": "Cato"}
        )
        assert again.status_code == 200
        assert again.json()["replayed"] is True
        assert again.json()["version"] == before + 1
        assert _version(served, client) == before + 1
        party = client.get("/campaigns/main", headers=served.headers("player")).json()["party"]
        assert party.count("Cato") == 1


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_stale_if_match_gets_409_with_the_current_version(serve):
    served = serve()
    with served.client() as client:
        version = _version(served, client)
        stale = client.post(
            ADD, headers=served.headers("referee", **{"If-Match": str(version - 1)}), json={"name": "D"}
        )
        assert stale.status_code == 409
        assert stale.json()["current_version"] == version
        fresh = client.post(ADD, headers=served.headers("referee", **{"If-Match": f'"{version}"'}), json={"name": "D"})
        assert fresh.status_code == 200
        assert fresh.headers["etag"] == f'"{version + 1}"'
        anything = client.post(ADD, headers=served.headers("referee", **{"If-Match": "*"}), json={"name": "E"})
        assert anything.status_code == 200


def test_an_if_match_holds_when_another_process_writes_while_the_command_is_decided(serve):
    """The command line (or a second service on the same database) appends between the If-Match check and the
    command's append: the command is refused (409 with the version now), never decided again on a state its sender
    has not seen."""
    served = serve()
    service = served.app.state.service
    other_store = open_store(Path(served.db))
    other = Handler(other_store, FileKeeper(key_file(Path(served.db))))
    append = service.store.append
    raced: list[bool] = []

    def race_then_append(*args, **kwargs):
        if not raced:
            raced.append(True)
            other.execute("main", c.AddMember(name="Quick"))
        return append(*args, **kwargs)

    try:
        with served.client() as client:
            version = _version(served, client)
            service.store.append = race_then_append
            sent = client.post(ADD, headers=served.headers("referee", **{"If-Match": str(version)}), json={"name": "D"})
            del service.store.append
            party = client.get("/campaigns/main", headers=served.headers("referee")).json()["party"]
    finally:
        other_store.close()
    assert sent.status_code == 409, sent.text
    assert sent.json()["current_version"] == version + 1
    assert sent.json()["detail"] == (
        f"another command wrote to campaign 'main' after version {version} while this one was decided; "
        "nothing was written"
    )
    assert "D" not in party
    assert "Quick" in party


def test_a_rest_day_in_a_dungeon_is_a_409_in_the_command_lines_words_and_writes_nothing(serve, hexlog):
    """The command line's sentence, but for the step it names: each door names it in its own words."""
    served = serve()
    for args in (
        ("rules", "change", "--ruleset", "explore"),
        ("party", "add", "Ann"),
        ("map", "set", "1,1", "--terrain", "meadow"),
        ("travel", "start", "1,1"),
        ("dungeon", "enter"),
    ):
        done = hexlog(*args, "--campaign", "main")
        assert done.returncode == 0, (args, done.stderr)
    with served.client() as client:
        before = _version(served, client)
        refused = client.post("/campaigns/main/travel/rest", headers=served.headers("referee"), json={})
        cli = hexlog("travel", "rest", "--campaign", "main")
        assert refused.status_code == 409
        words = "a delve is under way, and a day in which one goes on is no rest; leave the dungeon first ({})"
        assert refused.json()["detail"] == words.format("POST /campaigns/main/dungeon/leave")
        assert cli.returncode == 1
        assert cli.stderr.strip() == f"hexlog: error: {words.format('hexlog dungeon leave')}"
        assert _version(served, client) == before


def test_a_rules_refusal_names_the_steps_allowed_now_as_a_machines_does(serve, hexlog):
    """A 409 of a step's rule (initiative again before a round is played) carries ``allowed`` too, as the 409 of a
    step the machine does not offer does: a client learns what it may send next from either."""
    served = serve()
    for args in (("party", "add", "Ann"), ("encounter", "start", "--party-aware", "--monsters-aware")):
        assert hexlog(*args, "--campaign", "main").returncode == 0
    with served.client() as client:
        for step in ("check-surprise", "determine-distance", "roll-initiative"):
            done = client.post(f"/campaigns/main/encounter/{step}", headers=served.headers("referee"), json={})
            assert done.status_code == 200, done.text
        offered = done.json()["next"]
        refused = client.post("/campaigns/main/encounter/roll-initiative", headers=served.headers("referee"), json={})
        assert refused.status_code == 409
        assert refused.json()["detail"] == (
            "encounter: 'roll-initiative' refused in phase ACTIONS: initiative is rolled again only once a round has "
            "been played"
        )
        allowed = refused.json()["allowed"]
        assert "round" in allowed
        assert "roll-initiative" not in allowed
        assert allowed == [step.split(" ")[0] for step in offered]


def test_under_ose_a_later_round_waits_for_its_initiative_and_next_offers_it(serve, hexlog):
    """After round 1 the answer's ``next`` offers roll-initiative, not the round; a round sent anyway is a 409 naming
    the roll in the service's words, with the same ``allowed``, and writes nothing."""
    served = serve()
    for args in (("party", "add", "Ann"), ("encounter", "start", "--party-aware", "--monsters-aware")):
        assert hexlog(*args, "--campaign", "main").returncode == 0
    with served.client() as client:
        for step in ("check-surprise", "determine-distance", "roll-initiative", "round"):
            done = client.post(f"/campaigns/main/encounter/{step}", headers=served.headers("referee"), json={})
            assert done.status_code == 200, done.text
        offered = [step.split(" ")[0] for step in done.json()["next"]]
        assert offered == ["roll-initiative", "react", "conclude"]
        before = _version(served, client)
        refused = client.post("/campaigns/main/encounter/round", headers=served.headers("referee"), json={})
        assert refused.status_code == 409
        assert refused.json()["detail"] == (
            "encounter: 'round' refused in phase ACTIONS: the rules in force (ose) roll initiative at the start of "
            "every round; roll initiative for round 2 first (POST /campaigns/main/encounter/roll-initiative)"
        )
        assert refused.json()["allowed"] == offered
        assert _version(served, client) == before


def test_monsters_that_attacked_in_their_segments_are_not_offered_avoid_and_get_409(serve, hexlog, tmp_path):
    """adnd: the party in plate cannot surprise the monsters, who surprise it (a fixed secret: the party's d6 is 2)
    and attack in their free segments; ``avoid`` is then not in ``next``, and sent anyway it is a 409 naming why
    that writes nothing."""
    served = serve()
    secret = secret_file(tmp_path, (2).to_bytes(32, "big").hex())
    for args in (
        ("rules", "change", "--ruleset", "adnd"),
        ("session", "close"),
        ("session", "open", "--secret-file", secret),
        ("party", "add", "Ann", "--armor", "plate"),
        ("encounter", "start", "--setting", "indoors"),
    ):
        done = hexlog(*args, "--campaign", "main")
        assert done.returncode == 0, (args, done.stderr)
    with served.client() as client:
        for step, body in (
            ("check-surprise", {}),
            ("determine-distance", {"value": 30}),
            ("take-free-action", {"action": "attack"}),
            ("roll-initiative", {}),
        ):
            done = client.post(f"/campaigns/main/encounter/{step}", headers=served.headers("referee"), json=body)
            assert done.status_code == 200, done.text
        offered = [step.split(" ")[0] for step in done.json()["next"]]
        assert "avoid" not in offered
        assert "fight" in offered
        before = _version(served, client)
        refused = client.post(
            "/campaigns/main/encounter/avoid", headers=served.headers("referee"), json={"side": "monsters"}
        )
        assert refused.status_code == 409
        assert refused.json()["detail"] == (
            "encounter: 'avoid' refused in phase ACTIONS: the monsters spent their free segments on an action (attack) "
            "instead of slipping away: they cannot avoid the encounter now; fight, evade or conclude it"
        )
        assert _version(served, client) == before


def test_refusals_are_problems_in_the_command_lines_words(serve, hexlog):
    served = serve()
    with served.client() as client:
        refused = client.post("/campaigns/main/encounter/check-surprise", headers=served.headers("referee"), json={})
        cli = hexlog("encounter", "check-surprise", "--campaign", "main")
        assert refused.status_code == 409
        assert cli.returncode != 0
        assert cli.stderr.strip() == f"hexlog: error: {refused.json()['detail']}"
        assert refused.json()["allowed"] == []  # nobody in the party: no encounter can start
        dice = client.post(
            "/campaigns/main/campaign/roll-dice", headers=served.headers("referee"), json={"expression": "9x"}
        )
        cli = hexlog("roll", "9x", "--campaign", "main")
        assert dice.status_code == 422
        assert cli.stderr.strip() == f"hexlog: error: {dice.json()['detail']}"
        missing = client.get("/campaigns/main/map?hex=40,40", headers=served.headers("referee"))
        assert missing.status_code == 404
        assert missing.json()["detail"] == "hex 40,40 is not on the map"


def test_a_body_key_that_is_a_command_line_option_names_the_field_to_use(serve):
    """Body fields are the command's own names (``monster_count``), not its options without ``--``
    (``--monsters``): a key that is one of the command's options is refused naming the field it sets."""
    served = serve()
    start = "/campaigns/main/encounter/start"
    sent = {
        "monsters": "the option --monsters is the field monster_count",
        "unintelligent": "the option --unintelligent is the field intelligent set to false",
        "party-surprise-mod": "the option --party-surprise-mod is the field party_surprise_modifier",
        "party_surprise_mod": "the option --party-surprise-mod is the field party_surprise_modifier",
        "line-of-sight": "the option --line-of-sight is the field line_of_sight_ft",
        "terrain": "the option --terrain is the field terrains",
        "monsters-cannot-be-surprised": "the option --monsters-cannot-be-surprised is the field monsters_unsurprisable",
        "monster-speed": "the option --monster-speed is the field monster_speed",
    }
    with served.client() as client:
        for key, told in sent.items():
            refused = client.post(start, headers=served.headers("referee"), json={"setting": "dungeon", key: 4})
            assert refused.status_code == 422, key
            assert refused.json()["detail"] == f"body.{key} is not a field of this command; {told}"
        unknown = client.post(start, headers=served.headers("referee"), json={"setting": "dungeon", "dragons": 4})
        assert unknown.json()["detail"] == "body.dragons is not a field of this command"
        mapped = client.post(
            "/campaigns/main/dungeon/move", headers=served.headers("referee"), json={"no-mapping": True}
        )
        assert "the option --no-mapping is the field mapping set to false" in mapped.json()["detail"]


#: commands hexlog alone issues (a step's own dice, the audit's re-run of older logs): no user sends them
HEXLOGS_OWN = (
    "travel/declare-route-road-never-lost",
    "travel/declare-route-heading-when-lost",
    "travel/search-roll",
    "travel/check-wandering-true-hex",
    "pursuit/flee-in-public",
    "pursuit/roll-evasion-for-nobody",
    "castle/joust-keeping-armor",
    "dungeon/search-roll",
    "dungeon/check-wandering",
    "encounter/roll-evasion-both-as-party-surprised",
    "camp/check-night-watch-on-encounter",
)


def test_the_commands_hexlog_alone_issues_are_neither_routed_nor_listed(serve):
    """A command of a procedure's machine that no trigger names (``Issued by the audit, never by a user``) has no
    route: the referee's token gets 404 as on any unknown route, and the OpenAPI document does not list it; the
    routes listed are the command line's subcommands and the commands of the procedures without a machine."""
    served = serve()
    with served.client() as client:
        doc = client.get("/openapi.json").json()
        for name in HEXLOGS_OWN:
            sent = client.post(f"/campaigns/main/{name}", headers=served.headers("referee"), json={})
            assert sent.status_code == 404, (name, sent.text)
            assert sent.headers["content-type"] == "application/problem+json"
    listed = {path for path, methods in doc["paths"].items() if "post" in methods}
    assert not {f"/campaigns/{{campaign}}/{name}" for name in HEXLOGS_OWN} & listed
    for path in listed:
        assert "never by a user" not in doc["paths"][path]["post"].get("description", ""), path
    machines = {p.name: p for p in REGISTRY.machines}
    subcommands = {
        f"/campaigns/{{campaign}}/{p.name}/{render.subcommand(t)}"
        for p in machines.values()
        for t in p.triggers.values()
    }
    assert {path for path in listed if path.split("/")[3] in machines} == subcommands


def test_a_method_a_route_does_not_take_is_405_naming_those_it_does(serve):
    served = serve()
    with served.client() as client:
        wrong = client.delete("/campaigns/main", headers=served.headers("referee"))
        assert wrong.status_code == 405
        assert wrong.headers["content-type"].startswith("application/problem+json")
        assert "GET" in wrong.headers["allow"]


def test_a_step_or_procedure_no_route_serves_is_404_naming_those_that_are(serve):
    """A client that misspells a step or a procedure is told which there are, not a bare "Not Found"; a command sent
    with GET is told to POST it."""
    served = serve()
    headers = served.headers("referee")
    with served.client() as client:
        step = client.post("/campaigns/main/camp/sleep", headers=headers, json={})
        procedure = client.post("/campaigns/main/tavern/drink", headers=headers, json={})
        elsewhere = client.get("/campaign/main", headers=headers)
        method = client.get("/campaigns/main/camp/make", headers=headers)
    assert step.status_code == 404
    assert step.json()["detail"] == (
        "procedure camp has no step 'sleep' a client sends; its steps: make, firewood, watches, check, meet, break"
    )
    assert procedure.status_code == 404
    assert procedure.json()["detail"].startswith("no procedure 'tavern'; the procedures: campaign, travel, ")
    assert elsewhere.json()["detail"] == "nothing is served at /campaign/main (GET /openapi.json lists what is)"
    assert method.status_code == 405
    assert method.json()["detail"] == (
        "/campaigns/main/camp/make is not served to GET; send POST (GET /openapi.json lists them)"
    )


def test_bad_bodies_are_told_apart(serve):
    served = serve(max_body=1000)
    headers = served.headers("referee")
    with served.client() as client:
        assert client.post(ADD, headers=headers, content=b"{not json", timeout=10).status_code == 400
        typed = client.post(ADD, headers=headers, json={"name": 3})
        assert typed.status_code == 422
        assert typed.json()["detail"] == "body.name must be a string"
        extra = client.post(ADD, headers=headers, json={"name": "E", "level": 9})
        assert extra.json()["detail"] == "body.level is not a field of this command"
        big = client.post(ADD, headers=headers, json={"name": "F" * 2000})
        assert big.status_code == 413
        media = client.post(ADD, headers={**headers, "Content-Type": "text/plain"}, content=b"name")
        assert media.status_code == 415
        control = client.post(ADD, headers=headers, json={"name": "G\x1b[2J"})
        assert control.status_code == 422
        surrogate = client.post(ADD, headers=headers, content=b'{"name": "\\ud800"}')
        assert surrogate.status_code == 422
        # digits that are not ASCII are no version
        assert client.get("/campaigns/main/events?from=\u00b2", headers=headers).status_code == 400
        assert client.post(ADD, headers={**headers, "If-Match": b"\xb2"}, json={"name": "H"}).status_code == 400


def test_a_value_the_schema_let_by_and_the_codec_refuses_is_a_422_naming_the_field(serve, monkeypatch):
    """A body is structured by the codec's strict converter: a value of another JSON type than its field's, were the
    schema to let it by, is refused naming the field (never converted: ``str(3)``), and nothing is written."""
    monkeypatch.setattr(http_commands, "validate", lambda *_: [])
    served = serve()
    headers = served.headers("referee")
    with served.client() as client:
        before = _version(served, client)
        typed = client.post(ADD, headers=headers, json={"name": 3})
        assert typed.status_code == 422
        assert typed.json()["detail"] == (
            "the body is not a campaign/add-member command: expected a string, found 3 @ body.name"
        )
        assert _version(served, client) == before


def test_a_body_nested_too_deep_or_with_a_number_too_long_is_a_bad_request_and_nothing_is_written(serve):
    """Rules overrides nested hundreds deep broke the command's digest (a 500); now the body is refused first."""
    served = serve()
    headers = served.headers("referee")
    rules = "/campaigns/main/campaign/change-rules"
    with served.client() as client:
        before = _version(served, client)
        for depth in (40, 400, 5000):
            nested = "{" + '"a":{' * depth + '"b":1' + "}" * (depth + 1)
            body = f'{{"ruleset":"ose","overrides":{nested},"reason":"x"}}'.encode()
            deep = client.post(rules, headers={**headers, "Content-Type": "application/json"}, content=body)
            assert deep.status_code == 400, deep.text
            assert deep.json()["detail"] == "the body nests deeper than 32 levels"
        long = client.post(
            ADD, headers={**headers, "Content-Type": "application/json"}, content=b'{"n": ' + b"9" * 5000 + b"}"
        )
        assert long.status_code == 400
        assert long.json()["detail"] == "the body holds a number of more than 4300 digits"
        shallow = client.post(
            rules, headers=headers, json={"ruleset": "ose", "overrides": {"a": {"b": 1}}, "reason": "x"}
        )
        assert shallow.status_code == 422  # read, and refused by the rules (no such option), not by its depth
        assert _version(served, client) == before


def test_a_body_that_gives_a_key_twice_is_a_bad_request_naming_it_and_nothing_is_written(serve):
    """{"name": "Ana", "name": "Bo"} added Bo: the last of the two won, unseen."""
    served = serve()
    headers = {**served.headers("referee"), "Content-Type": "application/json"}
    rules = "/campaigns/main/campaign/change-rules"
    with served.client() as client:
        before = _version(served, client)
        for route, body, key in (
            (ADD, b'{"name": "Ana", "name": "Bo"}', "name"),
            (ADD, b'{"name": "Ana", "na\\u006de": "Bo"}', "name"),  # the same key, escaped
            (rules, b'{"ruleset": "ose", "overrides": {"a": 1, "a": 2}, "reason": "x"}', "a"),
        ):
            twice = client.post(route, headers=headers, content=body)
            assert twice.status_code == 400, twice.text
            assert twice.headers["content-type"].startswith("application/problem+json")
            assert twice.json()["detail"] == f"the body is refused: the key {key!r} is given twice in one object"
        assert _version(served, client) == before
        assert client.post(ADD, headers=headers, content=b'{"name": "Ana"}').status_code == 200


def test_a_token_over_its_rate_gets_429_with_retry_after(serve):
    served = serve(rate=0.5, burst=3)
    with served.client() as client:
        answers = [client.get("/campaigns/main", headers=served.headers("player")) for _ in range(4)]
        assert [a.status_code for a in answers] == [200, 200, 200, 429]
        assert int(answers[-1].headers["retry-after"]) >= 1
        # another token has its own rate
        assert client.get("/campaigns/main", headers=served.headers("referee")).status_code == 200


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_secret_roll_is_explained_to_the_referee_and_not_to_a_player_before_the_close(serve):
    served = serve()
    with served.client() as client:
        client.post(
            "/campaigns/main/campaign/roll-dice",
            headers=served.headers("referee"),
            json={"expression": "d20", "purpose": "the ogre's mood", "secret": True},
        )
        url = "/campaigns/main/audit?roll=0&secret=true"
        refused = client.get(url, headers=served.headers("player"))
        assert refused.status_code == 409
        assert refused.json()["detail"].startswith(
            "roll s1#r0 (nonce 0 of session s1) is secret until the session closes"
        )
        explained = client.get(url, headers=served.headers("referee"))
        assert explained.status_code == 200
        assert "the ogre's mood" in explained.json()["text"]
        client.post("/campaigns/main/campaign/close-session", headers=served.headers("referee"), json={})
        assert "the ogre's mood" in client.get(url, headers=served.headers("player")).json()["text"]
        schema = client.get("/schemas/hexlog.dice.rolled").json()
        assert schema["x-hexlog-schema-version"] == DiceRolled.schema_version
        assert client.get("/schemas/dice.nothing").status_code == 404


def test_a_map_is_loaded_from_its_text_and_its_hidden_feature_stays_the_referees(serve):
    served = serve()
    text = """[hex]
"3,1" = { terrain = "clear" }
"3,2" = { terrain = "woods", landmarks = ["the standing stones"], hidden = ["the barrow of the Fen King"] }
"""
    with served.client() as client:
        loaded = client.post("/campaigns/main/map/load", headers=served.headers("referee"), json={"file": text})
        assert loaded.status_code == 200, loaded.text
        digest = hashlib.sha256(text.encode()).hexdigest()[:32]
        assert not (Path(tempfile.gettempdir()) / f"hexlog-http-{digest}.toml").exists()  # no file named by the text
        events = client.get("/campaigns/main/events", headers=served.headers("player")).json()["events"]
        (map_loaded,) = [e for e in events if e["type"].endswith("map.loaded")]
        assert map_loaded["data"]["source"] == "map.toml"  # nothing of the text (its hash) in the public event
        assert digest not in json.dumps(events)
        hex_lines = client.get("/campaigns/main/map?hex=3,2", headers=served.headers("referee")).json()["lines"]
        assert any("the barrow of the Fen King" in line for line in hex_lines)
        shown = client.get("/campaigns/main/map?hex=3,2", headers=served.headers("player")).text
        assert "the standing stones" in shown
        assert "Fen King" not in shown
        path = client.post("/campaigns/main/map/load", headers=served.headers("referee"), json={"file": "/etc/passwd"})
        assert path.status_code == 422  # the text of a file, never a path the service would read


#: a map's text the service refuses, and the words of its refusal (the command line's, naming no file)
BAD_MAPS = (
    ('[hex\n"1,1" = { terrain = "clear" }\n', "the map is not TOML hexlog reads: "),
    ("title = 'Fenmoor'\n", 'the map must hold [hex."col,row"] tables and nothing else (unknown: title)'),
    ('[hex]\n"1,1" = { terrain = "clear" }\n"01,1" = { terrain = "clear" }\n', "the map gives hex 1,1 twice"),
)


@pytest.mark.parametrize(("text", "words"), BAD_MAPS)
def test_a_map_refused_names_no_file_of_the_service(serve, text, words):
    """The refusal of a map whose text is not TOML named the file the service had put the text in
    (``the map /tmp/hexlog-http-.../map.toml is not TOML``), a path the client never sent."""
    served = serve()
    with served.client() as client:
        before = _version(served, client)
        refused = client.post("/campaigns/main/map/load", headers=served.headers("referee"), json={"file": text})
        assert refused.status_code == 422, refused.text
        detail = refused.json()["detail"]
        assert detail.startswith(words), detail
        assert str(served.app.state.service.files) not in refused.text
        assert "map.toml" not in refused.text
        assert "hexlog-http" not in refused.text
        assert _version(served, client) == before


def test_a_maps_text_is_not_written_where_another_user_could_point_it(serve, tmp_path):
    """A link made beforehand where a name could be guessed from the text (the temporary folder, the text's hash)
    is never followed: the file it points at keeps what it held, and the map loads from the service's own folder."""
    served = serve()
    text = '[hex]\n"1,1" = { terrain = "clear" }\n'
    digest = hashlib.sha256(text.encode()).hexdigest()[:32]
    victim = tmp_path / "victim.txt"
    victim.write_text("kept")
    link = Path(tempfile.gettempdir()) / f"hexlog-http-{digest}.toml"
    link.unlink(missing_ok=True)
    link.symlink_to(victim)
    try:
        with served.client() as client:
            loaded = client.post("/campaigns/main/map/load", headers=served.headers("referee"), json={"file": text})
        assert loaded.status_code == 200, loaded.text
        assert victim.read_text() == "kept"
    finally:
        link.unlink()


def test_the_referees_export_is_the_command_lines_and_a_player_gets_none_that_would_not_verify(serve, hexlog, tmp_path):
    """While the open session holds an unrevealed secret roll, a player's export is refused as the command line's
    is (a file of placeholders would fail verification); the referee's is the command line's ``--referee`` copy.
    Once the session closes the player's export is the command line's, and the audit passes it."""
    served = serve()
    with served.client() as client:
        referee, player = served.headers("referee"), served.headers("player")
        client.post("/campaigns/main/campaign/set-client-seed", headers=player, json={"client_seed": "our words"})
        client.post("/campaigns/main/campaign/roll-dice", headers=referee, json={"expression": "d6", "secret": True})
        client.post("/campaigns/main/campaign/roll-dice", headers=referee, json={"expression": "d6"})
        full = client.get("/campaigns/main/export", headers=referee)
        refused = client.get("/campaigns/main/export", headers=player)
        events = client.get("/campaigns/main/events", headers=player).json()["events"]
        assert [e["data"] for e in events if e.get("redacted")] == [  # the live views still show the placeholder
            {"hidden": True, "session": "s1", "nonce": 0, "visibility": "referee", "purpose": "secret roll"}
        ]
        referees_copy = hexlog("export", "--campaign", "main", "--referee").stdout
        client.post("/campaigns/main/campaign/close-session", headers=referee, json={})
        closed = client.get("/campaigns/main/export", headers=player)
    assert full.status_code == 200
    assert full.text == referees_copy
    assert refused.status_code == 409
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json()["detail"] == (
        "session s1 is still open and its secret rolls are not revealed yet: a player's export now would not "
        "verify; it can be exported once the session closes"
    )
    assert "hexlog.dice" not in refused.text
    assert closed.status_code == 200
    assert closed.text == hexlog("export", "--campaign", "main").stdout
    assert '"redacted"' not in closed.text
    (tmp_path / "player.jsonl").write_text(closed.text)
    audited = hexlog("audit", "--file", "player.jsonl")
    assert audited.returncode == 0, audited.stdout + audited.stderr


#: a bad query parameter of every read route, and the words its problem must hold
BAD_PARAMETERS = (
    ("/campaigns/main?at=abc", "?at: moment 'abc' is not 'day N'"),
    ("/campaigns/main?at=-1", "?at: moment '-1' is not 'day N'"),
    ("/campaigns/main?at=day%200", "?at: moment 'day 0': days count from day 1"),
    ("/campaigns/main?at=0", "?at must be at least 1"),
    ("/campaigns/main?at=%C2%B2", "?at must be a whole number, not '²'"),
    ("/campaigns/main?at=" + "9" * 4400, "?at must be a whole number, not '9999"),
    ("/campaigns/main?at=day%20" + "9" * 4400, "?at: 'day 9999"),
    ("/campaigns/main?at=day%201%20turn%20" + "9" * 4400, "?at: 'day 1 turn 9999"),
    ("/campaigns/main/audit?expect=zz", "?expect: not a receipt: 'zz'"),
    ("/campaigns/main/audit?secret=maybe", "?secret must be true or false, not 'maybe'"),
    ("/campaigns/main/map?hex=abc", "?hex: a hex is written col,row"),
    ("/campaigns/main/receipt?at=x", "?at must be a whole number, not 'x'"),
    ("/campaigns/main/timeline?last=x", "?last must be a whole number, not 'x'"),
    ("/campaigns/main/events?limit=0", "?limit must be at least 1"),
    ("/campaigns/main/stream?until=x", "?until must be a whole number, not 'x'"),
)


@pytest.mark.parametrize(("url", "words"), BAD_PARAMETERS)
def test_a_bad_query_parameter_is_a_400_naming_it_and_what_is_wrong(serve, url, words):
    """?at=abc on the state route was a 422 (and ?at=² a 500), ?expect= and ?hex= were 422s, ?secret=maybe was no."""
    served = serve()
    with served.client() as client:
        before = _version(served, client)
        answer = client.get(url, headers=served.headers("referee"))
        assert answer.status_code == 400, answer.text
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert answer.json()["detail"].startswith(words)
        assert _version(served, client) == before


#: the query parameters that name a number or a place in the log, by route: each the document describes
CURSORS = tuple(
    (endpoint.path.replace("{campaign}", "main"), name)
    for endpoint in endpoints(REGISTRY)
    for name, where, schema, _ in endpoint.params
    if where == "query" and (schema["type"] == "integer" or name == "at")
)


def test_every_number_and_version_a_route_reads_is_a_query_parameter_of_the_cursors():
    assert set(CURSORS) >= {
        ("/campaigns/main", "at"),
        ("/campaigns/main/timeline", "last"),
        ("/campaigns/main/events", "from"),
        ("/campaigns/main/events", "limit"),
        ("/campaigns/main/stream", "from"),
        ("/campaigns/main/stream", "until"),
        ("/campaigns/main/audit", "roll"),
        ("/campaigns/main/receipt", "at"),
    }


@pytest.mark.parametrize(("path", "name"), CURSORS)
def test_an_empty_number_or_version_is_a_400_naming_it_not_its_default(serve, path, name):
    """``?from=`` (a client that built its query from a variable left unset) was taken as ``?from=1``, ``?at=`` as the
    state now, ``?until=`` as no end: the client read from where it did not ask. The document's schema of each
    parameter takes no empty value either."""
    served = serve()
    with served.client() as client:
        document = client.get("/openapi.json").json()
        route = path.replace("main", "{campaign}", 1)
        (described,) = [p for p in document["paths"][route]["get"]["parameters"] if p["name"] == name]
        schema = described["schema"]
        assert schema["type"] == "integer" or schema["minLength"] >= 1
        before = _version(served, client)
        for who in ("referee", "player"):
            for empty in ("", " "):
                # streamed, so that a live stream opened (the parameter taken as its default) fails at once
                with client.stream("GET", path, params={name: empty}, headers=served.headers(who)) as answer:
                    assert answer.status_code == 400, answer.headers
                    assert answer.headers["content-type"].startswith("application/problem+json")
                    detail = json.loads(answer.read())["detail"]
                assert detail.startswith(f"?{name} must be a ")
                assert f"not {empty!r} (leave ?{name} out for " in detail
        assert _version(served, client) == before


#: the query parameters that hold text (one, or a list), by route (a version or a moment, ?at=, is a cursor above)
TEXTS = tuple(
    (endpoint.path.replace("{campaign}", "main"), name)
    for endpoint in endpoints(REGISTRY)
    for name, where, schema, _ in endpoint.params
    if where == "query" and schema.get("items", schema)["type"] == "string" and name != "at"
)


def test_the_text_query_parameters_are_the_map_hex_and_the_audit_session_and_receipt():
    assert set(TEXTS) == {
        ("/campaigns/main/map", "hex"),
        ("/campaigns/main/audit", "session"),
        ("/campaigns/main/audit", "expect"),
    }


@pytest.mark.parametrize(("path", "name"), TEXTS)
def test_an_empty_text_query_parameter_is_a_400_naming_it_not_its_default(serve, path, name):
    """``?hex=`` on the map was the whole map and ``?session=`` on a roll's audit the latest session with the roll:
    the client was answered what it did not ask. The document's schema takes no empty value either."""
    served = serve()
    with served.client() as client:
        document = client.get("/openapi.json").json()
        route = path.replace("main", "{campaign}", 1)
        (described,) = [p for p in document["paths"][route]["get"]["parameters"] if p["name"] == name]
        assert described["schema"].get("items", described["schema"])["minLength"] >= 1
        before = _version(served, client)
        for who in ("referee", "player"):
            for empty in ("", " "):
                answer = client.get(path, params={name: empty}, headers=served.headers(who))
                assert answer.status_code == 400, answer.text
                assert answer.headers["content-type"].startswith("application/problem+json")
                assert answer.json()["detail"].startswith(f"?{name}")
                assert repr(empty) in answer.json()["detail"]
        assert _version(served, client) == before


def test_an_empty_hex_or_session_says_to_leave_it_out_for_its_default(serve):
    served = serve()
    with served.client() as client:
        hexes = client.get("/campaigns/main/map?hex=", headers=served.headers("player"))
        session = client.get("/campaigns/main/audit?roll=1&session=", headers=served.headers("referee"))
    assert hexes.json()["detail"] == "?hex must be a hex, col,row, not '' (leave ?hex out for every hex)"
    assert session.json()["detail"] == (
        "?session must be a session's name, not '' (leave ?session out for the latest session with the roll)"
    )


def test_an_empty_receipt_says_to_leave_it_out_as_the_other_text_parameters_do(serve):
    """``?expect=`` (once or twice) was refused by the receipt's parser in its own words, "not a receipt: ''", where
    every other empty text parameter says what it must be and to leave it out."""
    served = serve()
    with served.client() as client:
        once = client.get("/campaigns/main/audit?expect=", headers=served.headers("referee"))
        twice = client.get("/campaigns/main/audit?expect=&expect=", headers=served.headers("player"))
    for answer in (once, twice):
        assert answer.status_code == 400
        assert answer.json()["detail"] == (
            "?expect must be a receipt, CAMPAIGN@VERSION:FINGERPRINT, not '' (leave ?expect out to expect no receipt)"
        )


def test_a_receipt_of_another_campaign_is_refused_as_the_command_line_refuses_it(serve):
    """``?expect=keep@5:...`` on main's audit was a 200 FAILED saying the log holds no campaign keep; the command line
    refuses it as a usage error naming both campaigns. A campaign the database holds (other) is refused alike: the
    answer tells a token nothing of which campaigns exist."""
    served = serve()
    with served.client() as client:
        before = _version(served, client)
        for receipt in ("keep@5:0000000000000000", "other@1:0000000000000000"):
            campaign = receipt.split("@")[0]
            for who in ("referee", "player"):
                refused = client.get(f"/campaigns/main/audit?expect={receipt}", headers=served.headers(who))
                assert refused.status_code == 422, refused.text
                assert refused.headers["content-type"].startswith("application/problem+json")
                assert refused.json()["detail"] == (
                    f"receipt {receipt} is of campaign '{campaign}', not of 'main', the one audited: "
                    f"check it at /campaigns/{campaign}/audit"
                )
        own = client.get("/campaigns/main/receipt", headers=served.headers("player")).json()["receipt"].split()[0]
        held = client.get(f"/campaigns/main/audit?expect={own}", headers=served.headers("player"))
        assert held.status_code == 200
        assert f"receipt {own}: held" in held.json()["text"]
        assert _version(served, client) == before


def test_the_state_at_a_version_the_campaign_does_not_hold_is_a_404_as_the_receipt_says(serve):
    served = serve()
    with served.client() as client:
        head = _version(served, client)
        for route in ("/campaigns/main", "/campaigns/main/receipt"):
            beyond = client.get(f"{route}?at={head + 1}", headers=served.headers("player"))
            assert beyond.status_code == 404, beyond.text
        assert client.get("/campaigns/main?at=", headers=served.headers("player")).status_code == 400
        assert client.get("/campaigns/main?at=day 1", headers=served.headers("player")).status_code == 200
        assert client.get("/campaigns/main?at=1", headers=served.headers("player")).json()["version"] == 1
        assert client.get("/campaigns/main/audit?secret=no", headers=served.headers("player")).status_code == 200


def test_the_state_at_a_moment_the_clock_has_not_reached_is_a_404_naming_where_it_stands(serve):
    """?at=day 999 answered the latest state, as if the clock had got there."""
    served = serve()
    with served.client() as client:
        now = client.get("/campaigns/main", headers=served.headers("player")).json()
        clock, head = now["clock"]["text"], now["version"]
        assert clock == "day 1 00:00"
        for at in ("day 999", "day 2", "day 1 turn 1", "day 1 00:01"):
            refused = client.get(f"/campaigns/main?at={at}", headers=served.headers("player"))
            assert refused.status_code == 404, refused.text
            assert refused.headers["content-type"].startswith("application/problem+json")
            assert refused.json()["detail"] == (
                f"moment {at!r} is past the present of campaign 'main', "
                f"whose clock has reached {clock} (version {head})"
            )
        for at in ("day 1", "day 1 00:00"):
            then = client.get(f"/campaigns/main?at={at}", headers=served.headers("player"))
            assert then.status_code == 200, then.text
            assert then.json()["version"] == head
        assert _version(served, client) == head


def _sent_with_a_bare_key(db, key: str, command: c.Command) -> int:
    """A command recorded as a release that took the bare Idempotency-Key recorded it (command id
    ``http:main:KEY``, no token in it); the version it reached."""
    store = open_store(Path(db))
    try:
        outcome = Handler(store, FileKeeper(key_file(Path(db)))).execute("main", command, f"http:main:{key}")
    finally:
        store.close()
    return outcome.result.last_version


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_retry_of_a_command_first_sent_before_keys_were_scoped_by_token_is_applied_once(serve):
    """The first request was handled by a release whose command id was the bare key; its retry reaches this one."""
    served = serve()
    headers = served.headers("referee", **{"Idempotency-Key": "add-ana"})
    with served.client() as client:
        version = _sent_with_a_bare_key(served.db, "add-ana", c.AddMember(name="Ana"))
        retried = client.post(ADD, headers=headers, json={"name": "Ana"})
        assert retried.status_code == 200, retried.text
        assert retried.json()["replayed"] is True
        assert retried.json()["version"] == version
        assert _version(served, client) == version
        again = client.post(ADD, headers=headers, json={"name": "Ana"})  # now kept under the token's own key
        assert again.headers["idempotent-replayed"] == "true"
        assert again.json()["version"] == version
        assert client.get("/campaigns/main", headers=served.headers("player")).json()["party"].count("Ana") == 1
        other = client.post(ADD, headers=headers, json={"name": "Bo"})
        assert other.status_code == 422  # the token's own key now names the first command


def test_a_map_loaded_before_keys_were_scoped_by_token_is_loaded_once(serve, tmp_path, monkeypatch):
    """That release put the map's text in the shared temporary folder, a path of the command's digest."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    text = '[hex]\n"3,1" = { terrain = "clear" }\n'
    legacy = tmp_path / f"hexlog-http-{hashlib.sha256(text.encode()).hexdigest()[:32]}.toml"
    legacy.write_text(text, encoding="utf-8")
    served = serve()
    with served.client() as client:
        version = _sent_with_a_bare_key(served.db, "map-1", LoadMap(file=str(legacy)))
        retried = client.post(
            "/campaigns/main/map/load",
            headers=served.headers("referee", **{"Idempotency-Key": "map-1"}),
            json={"file": text},
        )
        assert retried.status_code == 200, retried.text
        assert retried.json()["replayed"] is True
        assert _version(served, client) == version


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_map_load_retried_after_the_service_restarts_is_answered_as_recorded(serve):
    """The service puts a map's text in a folder made anew each time it starts, and the command's digest held that
    path: a retry after a restart whose answer was never stored was taken for another command under the same key
    (a 422). A retry is now known by the text it sends."""
    first = serve()
    text = '[hex]\n"3,1" = { terrain = "clear" }\n"3,2" = { terrain = "woods" }\n'
    headers = first.headers("referee", **{"Idempotency-Key": "map-7"})
    with first.client() as client:
        loaded = client.post("/campaigns/main/map/load", headers=headers, json={"file": text})
        assert loaded.status_code == 200, loaded.text
        version = _version(first, client)
    first.server.should_exit = True
    # the service stopped before it stored the answer: only the handler's command id holds
    (token,) = [t for t in TokenStore(first.db).list("main") if t.role == "referee" and t.active]
    replies = Replies(first.db)
    replies.forget("main", f"{token.id}:map-7")
    replies.close()
    again = serve()
    with again.client() as client:
        retried = client.post("/campaigns/main/map/load", headers=headers, json={"file": text})
        assert retried.status_code == 200, retried.text
        assert retried.json()["replayed"] is True
        assert retried.json()["version"] == version
        assert retried.json()["events"] == loaded.json()["events"]
        assert _version(again, client) == version
        other = client.post(
            "/campaigns/main/map/load", headers=headers, json={"file": '[hex]\n"9,9" = { terrain = "clear" }\n'}
        )
        assert other.status_code == 422  # the key names the first map, not another


def test_a_player_reusing_the_referees_bare_key_gets_a_command_of_their_own(serve, monkeypatch):
    """The bare key's command is taken for a retry only when it is this very command and this token may have sent
    it: never another command (a secret roll), nor one recorded before the token was made."""
    served = serve()
    player = served.headers("player", **{"Idempotency-Key": "1"})
    roll = "/campaigns/main/campaign/roll-dice"
    with served.client() as client:
        secret = _sent_with_a_bare_key(
            served.db, "1", c.RollDice(expression="1d20", purpose="the ogre's mood", secret=True)
        )
        mine = client.post(roll, headers=player, json={"expression": "1d20"})
        assert mine.status_code == 200, mine.text
        assert mine.json()["replayed"] is False
        assert mine.json()["first_version"] == secret + 1
        assert "ogre" not in mine.text
        public = _sent_with_a_bare_key(served.db, "2", c.RollDice(expression="1d6"))
        monkeypatch.setattr(http_tokens, "_now", lambda: "2999-01-01T00:00:00Z")
        tokens = TokenStore(served.db)
        later, _ = tokens.create("main", "player")
        tokens.close()
        again = client.post(
            roll, headers={"Authorization": f"Bearer {later}", "Idempotency-Key": "2"}, json={"expression": "1d6"}
        )
        assert again.status_code == 200, again.text
        assert again.json()["replayed"] is False  # made after the roll was recorded: not its sender
        assert again.json()["first_version"] == public + 1
        retried = client.post(
            roll, headers=served.headers("referee", **{"Idempotency-Key": "2"}), json={"expression": "1d6"}
        )
        assert retried.json()["replayed"] is True  # a token of before it: its retry
        assert retried.json()["version"] == public
        assert _version(served, client) == public + 1


def test_a_retry_sent_with_its_if_match_is_answered_as_recorded(serve):
    """The retry names the version its first request was sent at, which the command has moved the campaign past:
    it is the same command, not a conflict (it was a 409, and a client that then chose a new key applied it twice)."""
    served = serve()
    with served.client() as client:
        before = _version(served, client)
        version = _sent_with_a_bare_key(served.db, "7", c.AddMember(name="Ana"))
        headers = served.headers("referee", **{"Idempotency-Key": "7", "If-Match": f'"{before}"'})
        retried = client.post(ADD, headers=headers, json={"name": "Ana"})
        assert retried.status_code == 200, retried.text
        assert (retried.json()["replayed"], retried.json()["version"]) == (True, version)
        stale = client.post(ADD, headers={**headers, "Idempotency-Key": "8"}, json={"name": "Bo"})
        assert stale.status_code == 409  # a new command at a stale version is still refused


def test_a_key_naming_another_tokens_key_is_a_players_own(serve):
    """A player's key ``REFEREE_TOKEN_ID:K`` is not looked up as an older release's bare key, where it would name the
    referee's own command under K: the player's roll is made, and nothing of the referee's is answered."""
    served = serve()
    roll = "/campaigns/main/campaign/roll-dice"
    referee_id = served.tokens["referee"].split("_")[1]
    with served.client() as client:
        first = client.post(
            roll, headers=served.headers("referee", **{"Idempotency-Key": "K"}), json={"expression": "1d8"}
        )
        assert first.status_code == 200, first.text
        key = f"{referee_id}:K"
        mine = client.post(
            roll, headers=served.headers("player", **{"Idempotency-Key": key}), json={"expression": "1d8"}
        )
        assert mine.status_code == 200, mine.text
        assert mine.json()["replayed"] is False
        assert mine.json()["version"] > first.json()["version"]


def test_an_ose_pursuits_flight_is_told_in_days_to_the_referee_and_a_player(serve):
    """The flight's event names no rules; its line reads them from the pursuit's start: OSE counts days of flight."""
    served = serve()
    with served.client() as client:
        referee = served.headers("referee")
        assert client.post(ADD, headers=referee, json={"name": "Ana"}).status_code == 200
        for step, body in (("start", {"party_surprised": True}), ("roll-evasion", {})):
            assert client.post(f"/campaigns/main/pursuit/{step}", headers=referee, json=body).status_code == 200
        fled = client.post("/campaigns/main/pursuit/flee", headers=referee, json={})
        assert fled.status_code == 200, fled.text
        assert any(": 1 day of flight so far;" in line for line in fled.json()["text"]), fled.json()["text"]
        for who in ("referee", "player"):
            lines = client.get("/campaigns/main/timeline", headers=served.headers(who)).json()["lines"]
            assert any(": 1 day of flight so far;" in line["text"] for line in lines), who


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/campaigns/main/travel/move", {"hexes": 2_147_483_648}, "body.hexes must be at most 1000"),
        ("/campaigns/main/travel/move", {"hexes": 0}, "body.hexes must be at least 1"),
        ("/campaigns/main/castle/meet", {"riders": 10_001}, "body.riders must be at most 10000"),
    ],
)
def test_a_number_out_of_its_range_is_a_422_in_the_bodys_words_as_the_document_says(serve, path, body, words):
    """The body's field and its range, not the command line's option, nor "the wrong type" for an optional number;
    the OpenAPI document gives the same range, and nothing is written."""
    served = serve()
    (field,) = body
    with served.client() as client:
        headers = served.headers("referee")
        before = client.get("/campaigns/main/events", headers=headers).json()["head"]
        refused = client.post(path, headers=headers, json=body)
        assert refused.status_code == 422, refused.text
        assert refused.json()["detail"] == words
        assert client.get("/campaigns/main/events", headers=headers).json()["head"] == before
        doc = client.get("/openapi.json").json()
    schema = doc["paths"][path.replace("main", "{campaign}")]["post"]["requestBody"]["content"]["application/json"]
    found = schema["schema"]["properties"][field]
    found = next((o for o in found.get("anyOf", [found]) if o.get("type") == "integer"), found)
    low, high = {"hexes": (1, 1000), "riders": (1, 10_000)}[field]
    assert (found["minimum"], found["maximum"]) == (low, high)


def test_a_member_the_party_does_not_have_is_a_bad_value_not_a_missing_resource(serve, hexlog):
    """A body that names a member the party lacks is the request's mistake (422), in the command line's words
    (exit 2), naming the members there are; nothing is written. The names are checked before the procedure is asked
    (no delve is under way here); a roll made for a side names no member."""
    served = serve()
    with served.client() as client:
        assert client.post(ADD, headers=served.headers("referee"), json={"name": "Ann"}).status_code == 200
        before = _version(served, client)
        sent = [
            ("campaign/remove-member", {"name": "Zed"}, ("party", "remove", "Zed")),
            ("campaign/edit-member", {"name": "Zed", "cha": 12}, ("party", "edit", "Zed", "--cha", "12")),
            ("campaign/roll-dice", {"expression": "1d6", "made_for": "Zed"}, ("roll", "1d6", "--for", "Zed")),
            ("dungeon/listen", {"by": "Zed"}, ("dungeon", "listen", "--by", "Zed")),
            ("dungeon/search", {"searchers": ["Ann", "Zed"]}, ("dungeon", "search", "--by", "Ann", "--by", "Zed")),
        ]
        for route, body, args in sent:
            refused = client.post(f"/campaigns/main/{route}", headers=served.headers("referee"), json=body)
            assert refused.status_code == 422, (route, refused.text)
            assert "the party has no member called Zed (its members: Ann" in refused.json()["detail"], route
            cli = hexlog(*args, "--campaign", "main")
            assert cli.returncode == 2, (args, cli.stderr)
            assert cli.stderr.strip() == f"hexlog: error: {refused.json()['detail']}", args
        assert _version(served, client) == before
        side = {"expression": "1d6", "made_for": "monsters"}
        rolled = client.post("/campaigns/main/campaign/roll-dice", headers=served.headers("referee"), json=side)
        assert rolled.status_code == 200, rolled.text


def test_the_referees_export_of_an_open_session_imports_saying_its_rolls_are_not_re_derived_yet(
    serve, hexlog, tmp_path
):
    """The referee's export while a session is open imported saying "chain and rolls verified", though none of its
    rolls could be re-derived before the session's reveal (the audit then says INCOMPLETE)."""
    served = serve()
    with served.client() as client:
        referee, player = served.headers("referee"), served.headers("player")
        client.post("/campaigns/main/campaign/set-client-seed", headers=player, json={"client_seed": "our words"})
        for secret in (True, False, True):
            rolled = client.post(
                "/campaigns/main/campaign/roll-dice", headers=referee, json={"expression": "d6", "secret": secret}
            )
            assert rolled.status_code == 200, rolled.text
        exported = client.get("/campaigns/main/export", headers=referee)
        assert exported.status_code == 200
        events = len(exported.text.splitlines())
        (tmp_path / "open.jsonl").write_text(exported.text)
        client.post("/campaigns/main/campaign/close-session", headers=referee, json={})
        (tmp_path / "closed.jsonl").write_text(client.get("/campaigns/main/export", headers=referee).text)
    imported = hexlog("import", "open.jsonl", "--db", "open.db")
    assert imported.returncode == 0, imported.stderr
    assert (
        imported.stdout
        == f"imported {events} events of campaign main into open.db; chain verified, 0 of 3 rolls re-derived\n"
    )
    assert imported.stderr == "hexlog: note: session s1 is still open: its 3 rolls can be verified once it closes\n"
    audited = hexlog("audit", "--db", "open.db")
    assert audited.returncode == 3
    assert "0 of 3 rolls re-derived" in audited.stdout
    closed = hexlog("import", "closed.jsonl", "--db", "closed.db")
    assert closed.returncode == 0, closed.stderr
    assert closed.stdout == (
        f"imported {events + 1} events of campaign main into closed.db; chain verified, 3 of 3 rolls re-derived\n"
    )
    assert closed.stderr == ""


def test_the_state_carries_its_version_as_an_etag_for_the_next_if_match(serve):
    """A client that reads the state before it sends gets the version to send as If-Match from the ETag, as a
    command's answer gives it; the state as it was (?at=) gives none."""
    served = serve()
    with served.client() as client:
        state = client.get("/campaigns/main", headers=served.headers("player"))
        assert state.headers["etag"] == f'"{state.json()["version"]}"'
        sent = client.post(
            ADD, headers=served.headers("referee", **{"If-Match": state.headers["etag"]}), json={"name": "F"}
        )
        assert sent.status_code == 200
        assert client.get("/campaigns/main", headers=served.headers("referee")).headers["etag"] == sent.headers["etag"]
        assert "etag" not in client.get("/campaigns/main?at=1", headers=served.headers("referee")).headers


def test_a_chase_that_ends_into_its_encounter_answers_the_encounters_steps_as_the_command_line_prints_them(
    serve, hexlog, tmp_path
):
    """A delve's encounter hands its chase off; the run that catches the party answers no steps of the chase (it is
    over) and the encounter's fight in ``resumed``, as the command line's lines say."""
    served = serve()
    secret = tmp_path / "session.secret"
    secret.write_text("66" * 32 + "\n", encoding="utf-8")  # nobody surprised, so the party may flee
    secret.chmod(0o600)
    for args in (
        ("rules", "change", "--ruleset", "explore"),
        ("session", "close"),
        ("session", "open", "--secret-file", str(secret)),
        ("party", "add", "Ann"),
        ("party", "add", "Bo", "--speed", "90"),
        ("dungeon", "enter"),
        ("dungeon", "meet", "--name", "ghouls", "--monsters", "3"),
        ("encounter", "check-surprise"),
        ("encounter", "determine-distance", "--value", "30"),
        ("encounter", "roll-initiative"),
        ("encounter", "evade"),
        ("encounter", "decide-pursuit", "--pursue"),
    ):
        done = hexlog(*args, "--campaign", "main")
        assert done.returncode == 0, (args, done.stderr)
    with served.client() as client:
        caught = client.post("/campaigns/main/chase/run", headers=served.headers("referee"), json={})
        state = client.get("/campaigns/main", headers=served.headers("referee")).json()
    assert caught.status_code == 200, caught.text
    answer = caught.json()
    assert answer["phase"] == "CAUGHT"
    assert answer["next"] == []
    assert answer["resumed"] == {"encounter": {"phase": "COMBAT", "next": ["react", "round", "conclude"]}}
    assert answer["after"] == []
    # the state says what the answer said: no fresh chase, the encounter's fight
    assert state["procedures"]["chase"] == {"phase": "CAUGHT", "next": []}
    assert state["procedures"]["encounter"] == {"phase": "COMBAT", "next": ["react", "round", "conclude"]}
    assert (
        "  next: nothing (the chase is over; the encounter resumed: hexlog encounter react | round | conclude)"
        in (state["lines"])
    )


def test_a_delves_pursuers_said_to_like_treasure_over_http_start_the_chase_fond_of_it(serve, hexlog, tmp_path):
    """decide-pursuit's body takes likes_treasure (the command's field): the chase handed off starts with it, so
    dropped treasure rolls its chance; without pursue it is refused (422 or 409) and nothing is written. A session
    on a known secret, so that neither side is surprised."""
    served = serve()
    for args in (
        ("session", "close"),
        ("session", "open", "--secret-file", secret_file(tmp_path, bytes(range(32)).hex())),
        ("rules", "change", "--ruleset", "explore"),
        ("party", "add", "Ann"),
        ("dungeon", "enter"),
        ("dungeon", "meet", "--name", "ghouls", "--monsters", "3"),
        ("encounter", "check-surprise"),
        ("encounter", "determine-distance", "--value", "30"),
        ("encounter", "roll-initiative"),
        ("encounter", "evade"),
    ):
        done = hexlog(*args, "--campaign", "main")
        assert done.returncode == 0, (args, done.stderr)
    referee = served.headers("referee")
    with served.client() as client:
        before = _version(served, client)
        refused = client.post(
            "/campaigns/main/encounter/decide-pursuit", headers=referee, json={"pursue": False, "likes_treasure": True}
        )
        assert refused.status_code in {409, 422}, refused.text
        assert "say --pursue too" in refused.json()["detail"]
        assert _version(served, client) == before
        decided = client.post(
            "/campaigns/main/encounter/decide-pursuit", headers=referee, json={"pursue": True, "likes_treasure": True}
        )
        assert decided.status_code == 200, decided.text
        dropped = client.post("/campaigns/main/chase/drop", headers=referee, json={"item": "treasure"})
        assert dropped.status_code == 200, dropped.text
        assert "they care nothing for treasure" not in dropped.text
        assert "they like treasure: " in dropped.text


def test_a_retry_recorded_by_another_process_is_answered_as_a_replay_in_its_header_too(serve):
    """Two services on one database (or a service that recorded a command and stopped before keeping its answer):
    the retry that reaches the other finds the command in the log under its token's key, and is answered from what
    was recorded, once. Its answer says it is a replay in the body and in ``Idempotent-Replayed``, as a stored
    answer's does."""
    served = serve()
    token = TokenStore(served.db).verify(served.tokens["referee"])
    assert token is not None
    store = open_store(Path(served.db))
    try:  # recorded under the command id the service gives this token's key, by another process
        recorded = Handler(store, FileKeeper(key_file(Path(served.db)))).execute(
            "main", c.AddMember(name="Ana"), f"http:main:{token.id}:add-ana"
        )
    finally:
        store.close()
    headers = served.headers("referee", **{"Idempotency-Key": "add-ana"})
    with served.client() as client:
        retried = client.post(ADD, headers=headers, json={"name": "Ana"})
        assert retried.status_code == 200, retried.text
        assert (retried.json()["replayed"], retried.json()["version"]) == (True, recorded.result.last_version)
        assert retried.headers["idempotent-replayed"] == "true"
        assert _version(served, client) == recorded.result.last_version
        fresh = client.post(
            ADD, headers=served.headers("referee", **{"Idempotency-Key": "add-bo"}), json={"name": "Bo"}
        )
        assert fresh.json()["replayed"] is False
        assert "idempotent-replayed" not in fresh.headers


def test_a_campaign_started_again_is_refused_in_words_that_fit_the_service(serve):
    """A second start of a campaign is a 409 that names it and writes nothing; it names the route that starts another,
    not the command line's ``--campaign`` option, which a client of the service has no use for."""
    served = serve()
    with served.client() as client:
        before = _version(served, client)
        again = client.post("/campaigns/main/campaign/start-campaign", headers=served.headers("referee"), json={})
        assert again.status_code == 409
        detail = again.json()["detail"]
        assert detail == (
            "campaign main already exists (it needs no start); to start another: "
            "'POST /campaigns/ID/campaign/start-campaign'"
        )
        assert _version(served, client) == before


def test_a_path_with_a_slash_too_many_is_not_found_rather_than_redirected(serve):
    """A trailing slash is a path nothing serves: a 404 that names it, not a redirect to a URL the service would build
    from the request's Host header (which whoever sends the request chooses)."""
    served = serve()
    with served.client() as client:
        before = _version(served, client)
        sent = client.post(
            ADD + "/",
            headers={**served.headers("referee"), "Host": "elsewhere.example"},
            json={"name": "Ana"},
            follow_redirects=False,
        )
        read = client.get("/campaigns/main/", headers=served.headers("referee"), follow_redirects=False)
        assert sent.status_code == read.status_code == 404
        assert "location" not in sent.headers
        assert sent.json()["detail"] == (
            f"nothing is served at {ADD}/: no path ends in '/' (GET /openapi.json lists what is)"
        )
        assert read.json()["detail"].startswith("nothing is served at /campaigns/main/: no path ends in '/'")
        assert _version(served, client) == before


#: the yes-or-no query parameters, by route
FLAGS = tuple(
    (endpoint.path.replace("{campaign}", "main"), name)
    for endpoint in endpoints(REGISTRY)
    for name, where, schema, _ in endpoint.params
    if where == "query" and schema["type"] == "boolean"
)


def test_the_flag_query_parameters_are_the_audit_secret():
    assert set(FLAGS) == {("/campaigns/main/audit", "secret")}


@pytest.mark.parametrize(("path", "name"), FLAGS)
def test_an_empty_flag_query_parameter_is_a_400_naming_it_not_no(serve, path, name):
    """``?secret=`` (a client that built its query from a variable left unset) was read as ``?secret=false``: a roll's
    audit explained the public roll of that nonce when the client may have meant the secret one. The document's schema
    is a boolean, which no empty value is."""
    served = serve()
    with served.client() as client:
        document = client.get("/openapi.json").json()
        route = path.replace("main", "{campaign}", 1)
        (described,) = [p for p in document["paths"][route]["get"]["parameters"] if p["name"] == name]
        assert described["schema"] == {"type": "boolean"}
        before = _version(served, client)
        for who in ("referee", "player"):
            for empty in ("", " "):
                answer = client.get(path, params={"roll": "0", name: empty}, headers=served.headers(who))
                assert answer.status_code == 400, answer.text
                assert answer.headers["content-type"].startswith("application/problem+json")
                assert answer.json()["detail"] == (
                    f"?{name} must be true or false, not {empty!r} (leave ?{name} out for false)"
                )
            assert client.get(path, params={name: "no"}, headers=served.headers(who)).status_code == 200
        assert _version(served, client) == before
