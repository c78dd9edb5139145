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
#: the common refusals that name a command: (method, path, body, the problem's detail)
REFUSALS = (
    ("POST", "/campaigns/main/campaign/close-session", {}, None),  # closes the session the fixture opened
    ("POST", "/campaigns/main/campaign/close-session", {}, f"no session is open; run {OPEN}"),
    (
        "POST",
        "/campaigns/main/campaign/roll-dice",
        {"expression": "d6"},
        f"no session is open, so nothing can be rolled (for free roll); run {OPEN}",
    ),
    ("POST", "/campaigns/main/campaign/open-session", {}, None),
    (
        "POST",
        "/campaigns/main/campaign/open-session",
        {},
        (
            "session s2 is still open; close it first (or, if its secret is lost, end it with "
            """'POST /campaigns/main/campaign/abandon-session' with {"reason": ...})"""
        ),
    ),
)


def test_a_refusal_over_http_names_the_route_to_call(serve):
    """Each common refusal's detail names the route, with no word of the command line's."""
    served = serve()
    with served.client() as client:
        for method, path, body, detail in REFUSALS:
            answer = client.request(method, path, headers=served.headers("referee"), json=body)
            if detail is None:
                assert answer.status_code == 200, answer.text
                continue
            assert answer.status_code == 409, answer.text
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
