"""A refusal that names the command to run next names it as its door serves it: the command line its subcommand
(``'hexlog session open'``), the HTTP service its route (``'POST /campaigns/main/campaign/open-session'``). The
core names the command (``Advice``), never a door's words."""

from __future__ import annotations

import functools
import sqlite3
from contextlib import closing
from typing import TYPE_CHECKING

import pytest

from hexlog.events.errors import IllegalTransitionError, RuleRefusedError
from hexlog.machine.registry import REGISTRY
from hexlog.machine.travel import commands as t
from hexlog.service.cli_advice import cli_words
from hexlog.service.http_app import _worded
from hexlog.service.http_commands import CommandRoute, route_words
from hexlog.service.http_tokens import TokenStore
from tests.conftest import run_hexlog
from tests.test_lost_party_view import Journey

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

OPEN = "'POST /campaigns/main/campaign/open-session'"
#: the common refusals that name a command: the route, its body, the answer's status and the problem's detail (None:
#: a step on the way there, done)
REFUSALS = (
    ("campaign/close-session", {}, 200, None),  # closes the session the fixture opened
    ("campaign/close-session", {}, 409, f"no session is open; run {OPEN}"),
    (
        "campaign/roll-dice",
        {"expression": "d6"},
        409,
        f"no session is open, so nothing can be rolled (for free roll); run {OPEN}",
    ),
    ("campaign/open-session", {}, 200, None),
    (
        "campaign/open-session",
        {},
        409,
        (
            "session s2 is still open; close it first (or, if its secret is lost, end it with "
            """'POST /campaigns/main/campaign/abandon-session with {"reason": "TEXT"}')"""
        ),
    ),
    ("campaign/change-rules", {"ruleset": "explore"}, 200, None),
    (
        "castle/place",
        {"hex": "3,3"},
        422,
        (
            "hex 3,3 is not on the map; draw it first "
            """(POST /campaigns/main/map/set with {"hex": "3,3", "terrain": "..."})"""
        ),
    ),
    ("map/set", {"hex": "3,3", "terrain": "hills"}, 200, None),
    (
        "castle/hail",
        {"hex": "3,3"},
        422,
        """no castle stands at 3,3; place one first (POST /campaigns/main/castle/place with {"hex": "3,3"})""",
    ),
)


def test_a_refusal_over_http_names_the_route_to_call(serve):
    """Each common refusal's detail names the route, with no word of the command line's."""
    served = serve()
    with served.client() as client:
        for step, body, status, detail in REFUSALS:
            answer = client.post(f"/campaigns/main/{step}", headers=served.headers("referee"), json=body)
            assert answer.status_code == status, answer.text
            if detail is not None:
                assert answer.json()["detail"] == detail
                assert "hexlog " not in answer.json()["detail"]


def test_a_campaign_not_started_names_the_route_that_starts_it(serve):
    """A token's own campaign that the database does not hold: reading it or sending it a command names
    ``start-campaign``, not ``hexlog init``."""
    served = serve()
    ghost, _ = TokenStore(served.db).create("ghost", "referee")
    start = "'POST /campaigns/ghost/campaign/start-campaign'"
    with served.client() as client:
        read = client.get("/campaigns/ghost", headers={"Authorization": f"Bearer {ghost}"})
        sent = client.post(
            "/campaigns/ghost/campaign/add-member", headers={"Authorization": f"Bearer {ghost}"}, json={"name": "Ana"}
        )
    assert read.status_code == sent.status_code == 404
    assert read.json()["detail"] == f"campaign 'ghost' does not exist; run {start}"
    assert sent.json()["detail"] == f"campaign 'ghost' does not exist; run {start} first"


def test_the_command_line_keeps_its_words(tmp_path: Path):
    """The same refusals on the command line name its subcommands, word for word as before."""

    def refused(*args: str, code: int = 1) -> str:
        done = run_hexlog(*args, cwd=tmp_path)
        assert done.returncode == code, done.stderr
        return done.stderr

    assert run_hexlog("init", cwd=tmp_path).returncode == 0
    assert refused("roll", "d6") == (
        "hexlog: error: no session is open, so nothing can be rolled (for free roll); run 'hexlog session open'\n"
    )
    assert refused("session", "close") == "hexlog: error: no session is open; run 'hexlog session open'\n"
    assert run_hexlog("session", "open", cwd=tmp_path).returncode == 0
    assert refused("session", "open") == (
        "hexlog: error: session s1 is still open; close it first (or, if its secret is lost, end it with "
        "'hexlog session abandon --reason TEXT')\n"
    )
    assert (
        refused("--campaign", "ghost", "state", code=2)
        == "hexlog: error: campaign 'ghost' does not exist; run 'hexlog init'\n"
    )
    assert run_hexlog("rules", "change", "--ruleset", "explore", cwd=tmp_path).returncode == 0
    assert refused("castle", "place", "3,3", code=2) == (
        "hexlog: error: hex 3,3 is not on the map; draw it first (hexlog map set 3,3 --terrain ...)\n"
    )
    assert run_hexlog("map", "set", "3,3", "--terrain", "hills", cwd=tmp_path).returncode == 0
    assert refused("castle", "hail", "--hex", "3,3", code=2) == (
        "hexlog: error: no castle stands at 3,3; place one first (hexlog castle place 3,3)\n"
    )


#: a delve under way refuses a rest day of the journey, naming the step that ends it
NO_REST = "a delve is under way, and a day in which one goes on is no rest; leave the dungeon first ({})"
#: a journey from a hex not drawn
UNDRAWN = "travel: 'start' refused in phase IDLE: hex 9,9 is not on the map; draw it first ({})"
#: a log whose last event does not match its hash refuses a write, naming the audit
DAMAGED = (
    "the log of campaign-main is damaged: the event at version {} does not match its hash; nothing was written "
    "(run '{}')"
)


def damage_the_last_event(db: Path) -> int:
    """Change the last event's hash as the database's owner can (the guard triggers dropped); its version."""
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP TRIGGER IF EXISTS events_no_update")
        (version,) = conn.execute("SELECT max(stream_version) FROM events WHERE stream_id = 'campaign-main'").fetchone()
        conn.execute(
            "UPDATE events SET hash = substr(hash, 2) || substr(hash, 1, 1) "
            "WHERE stream_id = 'campaign-main' AND stream_version = ?",
            (version,),
        )
    return int(version)


def test_a_procedure_s_refusal_over_http_names_the_route_to_call(serve):
    """A condition of a procedure's machine (``Model.refuse``), a guard of the journey and the store's check of the
    log's tail name the route or the read to call, never a subcommand."""
    served = serve()
    with served.client() as client:

        def sent(step: str, body: dict, status: int = 200) -> str:
            answer = client.post(f"/campaigns/main/{step}", headers=served.headers("referee"), json=body)
            assert answer.status_code == status, answer.text
            return answer.json().get("detail", "")

        sent("campaign/change-rules", {"ruleset": "explore"})
        sent("campaign/add-member", {"name": "Ana"})
        refused = sent("travel/start", {"hex": "9,9"}, 409)
        assert refused == UNDRAWN.format("""POST /campaigns/main/map/set with {"hex": "9,9", "terrain": "..."}""")
        sent("map/set", {"hex": "9,9", "terrain": "meadow"})
        sent("travel/start", {"hex": "9,9"})
        sent("dungeon/enter", {})
        assert sent("travel/rest", {}, 409) == NO_REST.format("POST /campaigns/main/dungeon/leave")
        version = damage_the_last_event(served.db)
        damaged = sent("campaign/roll-dice", {"expression": "d6"}, 500)
        assert damaged == DAMAGED.format(version, "GET /campaigns/main/audit")
        for detail in (refused, damaged):
            assert "hexlog " not in detail


def test_a_request_without_a_token_names_the_operator_s_step(serve):
    """Tokens are made on the command line alone: the 401 says it is the service's operator who makes them."""
    served = serve()
    with served.client() as client:
        answer = client.get("/campaigns/main", headers=served.headers("none"))
    assert answer.status_code == 401
    assert answer.json()["detail"] == (
        "a valid bearer token is needed; this one is missing, unknown or revoked (the service's operator makes "
        "tokens with 'hexlog token create')"
    )


def test_the_command_line_keeps_its_words_for_a_procedure_s_refusal(tmp_path: Path):
    """The same refusals of a procedure and of a damaged log on the command line, word for word as before."""

    def ran(*args: str, code: int = 0) -> str:
        done = run_hexlog(*args, cwd=tmp_path)
        assert done.returncode == code, done.stderr
        return done.stderr

    ran("init", "--ruleset", "explore")
    ran("session", "open")
    ran("party", "add", "Ana")
    assert ran("travel", "start", "9,9", code=1) == (
        f"hexlog: error: {UNDRAWN.format('hexlog map set 9,9 --terrain ...')}\n"
    )
    ran("map", "set", "9,9", "--terrain", "meadow")
    ran("travel", "start", "9,9")
    ran("dungeon", "enter")
    assert ran("travel", "rest", code=1) == f"hexlog: error: {NO_REST.format('hexlog dungeon leave')}\n"
    version = damage_the_last_event(tmp_path / "hexlog.db")
    assert ran("roll", "d6", code=1).endswith(f"hexlog: error: {DAMAGED.format(version, 'hexlog audit')}\n")


@pytest.mark.parametrize(
    ("trip", "moves", "words"),
    [
        (
            lambda: Journey("meadow", hexes={"2,2": "meadow", "2,1": "meadow"}, absent=("5,1",)),
            2,
            (
                "the party is lost: it would truly go NE of 4,2 into 5,1, which is not on the map; draw it, or tell "
                "the party it is lost ({})"
            ),
        ),
        (
            lambda: Journey("swamp", mounted=True),
            1,
            "the party is lost, and truly mounts cannot enter swamp (3,2); tell it it is lost ({}), or stop here",
        ),
    ],
    ids=["off-the-map", "barred"],
)
def test_a_lost_party_s_refusal_names_reveal_lost_in_each_door_s_words(
    trip: Callable[[], Journey], moves: int, words: str
):
    """The lost party walking off the map or into a hex its mounts cannot enter (conditions of the journey's
    machine): the command line names ``hexlog travel reveal-lost``, the HTTP service its route."""
    lost = trip()
    lost.lost(*["N"] * (moves + 1))
    for _ in range(moves - 1):
        lost.run(t.Move())
    with pytest.raises(RuleRefusedError) as refused:
        lost.run(t.Move())
    cli = refused.value.said(cli_words)
    http = refused.value.said(functools.partial(route_words, registry=REGISTRY, campaign="main"))
    assert cli == f"travel: 'move' refused in phase TRAVEL: {words.format('hexlog travel reveal-lost')}"
    assert http == f"travel: 'move' refused in phase TRAVEL: {words.format('POST /campaigns/main/travel/reveal-lost')}"


def test_a_step_refused_while_its_procedure_waits_keeps_its_words_over_http():
    """The refusal of a step a waiting procedure's phase does not have names what it waits for over HTTP too:
    the service renames the step, and keeps the words that follow the refusal."""
    waiting = " (travel waits for encounter to conclude: the encounter's steps come first)"
    err = IllegalTransitionError("travel", "DUSK", "end_day", []).telling(waiting)
    worded = _worded(err, CommandRoute(REGISTRY.route(t.EndDay).procedure, t.EndDay, "end-day"))
    assert str(worded) == "travel: 'end-day' is not allowed in state DUSK; allowed now: none" + waiting
