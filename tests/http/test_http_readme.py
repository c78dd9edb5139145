"""What the README's HTTP section says of the routes is what the service does: every route it serves without a
command is named there, a page of the paged read holds what it says, and a campaign not the token's own answers as
it says (403, whether the database holds it or not)."""

from __future__ import annotations

import re
from pathlib import Path

from hexlog.machine.registry import REGISTRY
from hexlog.service.http_app import PAGE_DEFAULT, PAGE_LIMIT, endpoints
from hexlog.service.http_tokens import TokenStore

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
HTTP = README[README.index("### Over HTTP: `hexlog serve`") : README.index("### Layout")]


def test_every_route_but_the_commands_is_named_in_the_readmes_http_section():
    """``/health``, ``/schemas`` and ``/schemas/{type}`` were served but named nowhere in the README."""
    fixed = [e for e in endpoints(REGISTRY) if e.body is None]
    assert {e.path for e in fixed} >= {"/health", "/schemas", "/schemas/{type}"}
    for endpoint in fixed:
        # a campaign's own routes are named as the README lists them: `/timeline`, `/events`, ...
        name = endpoint.path.replace("/campaigns/{campaign}/", "/").replace("{campaign}", "{id}")
        assert re.search(rf"`(GET )?{re.escape(name)}[`? ]", HTTP), f"the README's HTTP section does not name {name}"


def test_the_readme_gives_the_paged_reads_default_and_largest_page():
    assert f"default {PAGE_DEFAULT}, at most {PAGE_LIMIT}" in " ".join(HTTP.split())


def test_a_page_holds_the_default_and_a_larger_limit_is_taken_as_the_most_a_page_holds(serve):
    """A ?limit= above the most a page holds was cut to it without a word: the page now says the limit it used."""
    served = serve()
    with served.client() as client:
        headers = served.headers("player")
        client.post(
            "/campaigns/main/clock/advance-clock", headers=served.headers("referee"), json={"duration": "12 turns"}
        )
        default = client.get("/campaigns/main/events", headers=headers).json()
        assert default["limit"] == PAGE_DEFAULT
        assert [e["streamversion"] for e in default["events"]] == list(range(1, default["head"] + 1))
        larger = client.get("/campaigns/main/events", headers=headers, params={"limit": PAGE_LIMIT * 5}).json()
        assert larger["limit"] == PAGE_LIMIT
        assert larger["events"] == default["events"]
    small = serve(page_limit=5)
    with small.client() as client:
        page = client.get("/campaigns/main/events", headers=small.headers("player"), params={"limit": 50}).json()
    assert page["limit"] == 5
    assert [e["streamversion"] for e in page["events"]] == [1, 2, 3, 4, 5]
    assert page["next"] == 6


def test_a_campaign_not_the_tokens_own_is_403_whether_the_database_holds_it_or_not(serve):
    """The answer for a campaign the database does not hold is the one for a campaign it holds (other): a token
    learns nothing of which campaigns exist. Its own campaign, when the database holds none of it, is a 404."""
    served = serve()
    ghost, _ = TokenStore(served.db).create("ghost", "referee")
    with served.client() as client:
        for method, tail, body in (
            ("GET", "", None),
            ("GET", "/events", None),
            ("GET", "/stream", None),
            ("GET", "/audit", None),
            ("POST", "/campaign/add-member", {"name": "Ana"}),
        ):
            answers = []
            for campaign in ("other", "nope", "Not A Campaign!"):
                response = client.request(
                    method, f"/campaigns/{campaign}{tail}", headers=served.headers("referee"), json=body
                )
                assert response.status_code == 403, response.text
                answers.append({k: v for k, v in response.json().items() if k != "instance"})
            assert answers[0] == answers[1] == answers[2]
            assert answers[0]["detail"] == "this token is for another campaign"
        own = client.get("/campaigns/ghost", headers={"Authorization": f"Bearer {ghost}"})
    assert own.status_code == 404
    assert (
        own.json()["detail"] == "campaign 'ghost' does not exist; run 'POST /campaigns/ghost/campaign/start-campaign'"
    )
