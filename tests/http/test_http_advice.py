"""A refusal that names the command to run next names it as its door serves it: the command line its subcommand
(``'hexlog session open'``), the HTTP service its route (``'POST /campaigns/main/campaign/open-session'``). The
core names the command (``Advice``), never a door's words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.service.http_tokens import TokenStore
from tests.conftest import run_hexlog

if TYPE_CHECKING:
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
