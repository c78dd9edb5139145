"""A number's range in the OpenAPI document is the one its step holds it to: a client generated from the document
knows that a score is 3 to 18 and a monster count 1 to 10000, not just any 32-bit number. A value at each end of the
range is accepted, one past it is a 422 in the step's own words (the command line's), and nothing is written."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hexlog.machine.commands import LEAST
from hexlog.machine.registry import REGISTRY
from hexlog.service.http_commands import command_routes
from hexlog.service.http_tokens import TokenStore

if TYPE_CHECKING:
    import httpx

SHEET = {  # a member's number: its option, the step's words, its range
    "cha": ("--cha", "cha must be 3 to 18, not {}", (3, 18)),
    "wis": ("--wis", "wis must be 3 to 18, not {}", (3, 18)),
    "dex": ("--dex", "dex must be 3 to 18, not {}", (3, 18)),
    "strength": ("--str", "strength must be 3 to 18, not {}", (3, 18)),
    "speed": ("--speed", "speed must be 1 to 480 feet per turn, not {}", (1, 480)),
    "infravision_ft": ("--infravision", "infravision must be 0 to 1000 feet, not {}", (0, 1000)),
}
SITUATION = {  # an encounter's number at its start: its option, the step's words, its range
    "monster_count": ("--monsters", "monster count must be 1 to 10000, not {}", (1, 10_000)),
    "monster_speed": ("--monster-speed", "monster speed must be 1 to 480 feet per turn, not {}", (1, 480)),
    "distance_divisor": ("--distance-divisor", "the distance divisor must be 1 to 10, not {}", (1, 10)),
    "party_surprise_on": (
        "--party-surprise-on",
        "party surprise chance must be 0 to 6 (surprised on a d6 of 1 to it), not {}",
        (0, 6),
    ),
    "monsters_surprise_on": (
        "--monsters-surprise-on",
        "monsters' surprise chance must be 0 to 6 (surprised on a d6 of 1 to it), not {}",
        (0, 6),
    ),
    "party_surprise_modifier": (
        "--party-surprise-mod",
        "the party surprise modifier must be within ±6, not {:+d}",
        (-6, 6),
    ),
    "monsters_surprise_modifier": (
        "--monsters-surprise-mod",
        "the monsters' surprise modifier must be within ±6, not {:+d}",
        (-6, 6),
    ),
}
CORRECTION = {"monster_count": ("--monsters", "monster count must be 1 to 10000, not {}", (1, 10_000))}
ROUTES = {route.name: route for route in command_routes(REGISTRY)}


def _range_in_document(doc: dict[str, Any], step: str, field: str) -> tuple[int, int]:
    body = doc["paths"][f"/campaigns/{{campaign}}/{step}"]["post"]["requestBody"]["content"]["application/json"]
    prop = body["schema"]["properties"][field]
    prop = prop.get("items", prop)  # a list of numbers: each one's range
    number = next(o for o in prop.get("anyOf", [prop]) if o.get("type") == "integer")
    return number["minimum"], number["maximum"]


def _check_ranges(served, client, hexlog, *, step, fields, body_of, cli_of, after=None):  # noqa: PLR0913 - one test's parts
    """Each field's range in the document, accepted at its ends, refused past them (HTTP and command line alike)."""
    headers = served.headers("referee")
    doc = client.get("/openapi.json").json()
    cls = ROUTES[step].cls

    def head() -> int:
        return client.get("/campaigns/main/events", headers=headers).json()["head"]

    for field, (flag, words, expected) in fields.items():
        low, high = _range_in_document(doc, step, field)
        assert (low, high) == expected, (step, field)
        for value in (high, low):  # the top first: an edit to the field's present value would change nothing
            accepted = client.post(f"/campaigns/main/{step}", headers=headers, json=body_of(field, value))
            assert accepted.status_code == 200, (field, value, accepted.text)
            if after is not None:
                after(client, headers)
        least = attrs.fields_dict(cls)[field].metadata.get(LEAST)
        for value in (low - 1, high + 1):
            before = head()
            refused = client.post(f"/campaigns/main/{step}", headers=headers, json=body_of(field, value))
            assert refused.status_code == 422, (field, value, refused.text)
            detail = refused.json()["detail"]
            if least is not None and value < least:  # the command line's least, told in the body's words
                assert detail == f"body.{field} must be at least {least}", detail
                continue
            assert detail == words.format(value), (field, value)
            assert head() == before, (field, value)
            cli = hexlog(*cli_of(flag, value), "--campaign", "main")
            assert cli.returncode == 2, (field, value, cli.stderr)
            assert cli.stderr.strip() == f"hexlog: error: {detail}", (field, value)
            assert head() == before, (field, value)


def test_a_members_scores_have_the_ranges_the_party_steps_hold_them_to(serve, hexlog):
    served = serve()
    names = iter(f"Member{i}" for i in range(100))
    with served.client() as client:
        _check_ranges(
            served,
            client,
            hexlog,
            step="campaign/add-member",
            fields=SHEET,
            body_of=lambda field, value: {"name": next(names), field: value},
            cli_of=lambda flag, value: ("party", "add", "Bo", flag, str(value)),
        )
        added = client.post(
            "/campaigns/main/campaign/add-member", headers=served.headers("referee"), json={"name": "Ed"}
        )
        assert added.status_code == 200, added.text
        _check_ranges(
            served,
            client,
            hexlog,
            step="campaign/edit-member",
            fields=SHEET,
            body_of=lambda field, value: {"name": "Ed", field: value},
            cli_of=lambda flag, value: ("party", "edit", "Ed", flag, str(value)),
        )


def _cancel(client, headers) -> None:
    cancelled = client.post("/campaigns/main/encounter/cancel", headers=headers, json={"reason": "a bound tried"})
    assert cancelled.status_code == 200, cancelled.text


def test_an_encounters_numbers_have_the_ranges_its_start_and_correction_hold_them_to(serve, hexlog):
    served = serve()
    with served.client() as client:
        headers = served.headers("referee")
        assert client.post("/campaigns/main/campaign/add-member", headers=headers, json={"name": "Ann"}).is_success
        _check_ranges(
            served,
            client,
            hexlog,
            step="encounter/start",
            fields=SITUATION,
            body_of=lambda field, value: {field: value},
            cli_of=lambda flag, value: ("encounter", "start", flag, str(value)),
            after=_cancel,
        )
        started = client.post("/campaigns/main/encounter/start", headers=headers, json={"monster_count": 5})
        assert started.status_code == 200, started.text
        _check_ranges(
            served,
            client,
            hexlog,
            step="encounter/correct",
            fields=CORRECTION,
            body_of=lambda field, value: {field: value},
            cli_of=lambda flag, value: ("encounter", "correct", flag, str(value)),
        )


FLIGHT = {  # a pursuit's number at its start: its option, the step's words, its range
    "party_size": ("--party-size", "party size must be 1 to 10000, not {}", (1, 10_000)),
    "pursuers": ("--pursuers", "pursuers must be 1 to 10000, not {}", (1, 10_000)),
    "party_speed": ("--party-speed", "party speed must be 1 to 480 feet per turn, not {}", (1, 480)),
    "pursuers_speed": ("--pursuers-speed", "pursuers' speed must be 1 to 480 feet per turn, not {}", (1, 480)),
    "referee_pct": ("--referee-pct", "the referee's chance must be 0 to 100 %, not {}", (0, 100)),
}


def test_a_pursuits_numbers_have_the_ranges_its_start_holds_them_to(serve, hexlog):
    """A pursuit once started is not started again: every number at its least starts one in a campaign, every number
    at its most one in another, after each refused past its ends."""
    served = serve()
    path = "/campaigns/{}/pursuit/start"
    tokens = TokenStore(served.db)
    referees = {
        "main": served.headers("referee"),
        "other": {"Authorization": f"Bearer {tokens.create('other', 'referee')[0]}"},
    }
    tokens.close()
    with served.client() as client:
        headers = referees["main"]
        doc = client.get("/openapi.json").json()
        for campaign, referee in referees.items():
            added = client.post(f"/campaigns/{campaign}/campaign/add-member", headers=referee, json={"name": "Ann"})
            assert added.status_code == 200, added.text
        ends: dict[str, dict[str, int]] = {"main": {}, "other": {}}
        for field, (flag, words, expected) in FLIGHT.items():
            low, high = _range_in_document(doc, "pursuit/start", field)
            assert (low, high) == expected, field
            ends["main"][field], ends["other"][field] = low, high
            before = client.get("/campaigns/main/events", headers=headers).json()["head"]
            for value in (low - 1, high + 1):
                refused = client.post(path.format("main"), headers=headers, json={field: value})
                assert refused.status_code == 422, (field, value, refused.text)
                detail = refused.json()["detail"]
                if value < low:  # each has the command line's least, told in the body's words
                    assert attrs.fields_dict(ROUTES["pursuit/start"].cls)[field].metadata.get(LEAST) == low
                    assert detail == f"body.{field} must be at least {low}", detail
                    continue
                assert detail == words.format(value), (field, value)
                cli = hexlog("pursuit", "start", flag, str(value), "--campaign", "main")
                assert cli.returncode == 2, (field, value, cli.stderr)
                assert cli.stderr.strip() == f"hexlog: error: {detail}", (field, value)
            assert client.get("/campaigns/main/events", headers=headers).json()["head"] == before, field
        for campaign, body in ends.items():
            started = client.post(
                path.format(campaign), headers=referees[campaign], json={**body, "party_surprised": True}
            )
            assert started.status_code == 200, (campaign, started.text)


MEETING = {  # the monsters a delve or a camp meets, handed to the encounter's start, which checks them
    "monster_count": SITUATION["monster_count"],
    "monster_speed": SITUATION["monster_speed"],
}


def test_the_monsters_a_delve_or_a_camp_meets_have_the_ranges_the_encounters_start_holds_them_to(serve, hexlog):
    """A meeting hands its monsters to the encounter's start: the document gives them the range that start holds
    them to; a delve meets them at both ends of it, and is refused past them, nothing written."""
    served = serve()
    with served.client() as client:
        headers = served.headers("referee")
        doc = client.get("/openapi.json").json()
        for field, (_, _, expected) in MEETING.items():
            assert _range_in_document(doc, "camp/meet", field) == expected, field
        for path, body in (
            ("campaign/change-rules", {"ruleset": "explore"}),
            ("campaign/add-member", {"name": "Ann"}),
            ("dungeon/enter", {}),
        ):
            done = client.post(f"/campaigns/main/{path}", headers=headers, json=body)
            assert done.status_code == 200, (path, done.text)
        ends: list[dict[str, int]] = [{}, {}]
        for field, (flag, words, expected) in MEETING.items():
            low, high = _range_in_document(doc, "dungeon/meet", field)
            assert (low, high) == expected, field
            ends[0][field], ends[1][field] = high, low
            before = client.get("/campaigns/main/events", headers=headers).json()["head"]
            below = client.post("/campaigns/main/dungeon/meet", headers=headers, json={field: low - 1})
            assert below.status_code == 422, below.text
            assert below.json()["detail"] == f"body.{field} must be at least {low}"
            above = client.post("/campaigns/main/dungeon/meet", headers=headers, json={field: high + 1})
            assert above.status_code == 422, above.text
            assert above.json()["detail"] == words.format(high + 1)
            cli = hexlog("dungeon", "meet", flag, str(high + 1), "--campaign", "main")
            assert cli.returncode == 2, cli.stderr
            assert cli.stderr.strip() == f"hexlog: error: {words.format(high + 1)}"
            assert client.get("/campaigns/main/events", headers=headers).json()["head"] == before, field
        for body in ends:
            met = client.post("/campaigns/main/dungeon/meet", headers=headers, json=body)
            assert met.status_code == 200, (body, met.text)
            _cancel(client, headers)


REACTION = {  # the referee's situational modifier to a reaction roll, or to its re-roll (the same step's check)
    "modifier": ("--modifier", "a situational reaction modifier must be within ±10, not {:+d}", (-10, 10)),
}


def _to_the_reaction(client, headers) -> None:
    """An encounter both sides are aware of, its distance and initiative done: the monsters' reaction is next."""
    for path, body in (
        ("encounter/start", {"party_aware": True, "monsters_aware": True}),
        ("encounter/check-surprise", {}),
        ("encounter/determine-distance", {"value": 30}),
        ("encounter/roll-initiative", {}),
    ):
        done = client.post(f"/campaigns/main/{path}", headers=headers, json=body)
        assert done.status_code == 200, (path, done.text)


def _again_to_the_reaction(client, headers) -> None:
    _cancel(client, headers)
    _to_the_reaction(client, headers)


def test_a_reactions_modifier_has_the_range_its_roll_and_re_roll_hold_it_to(serve, hexlog):
    served = serve()
    with served.client() as client:
        headers = served.headers("referee")
        doc = client.get("/openapi.json").json()
        assert _range_in_document(doc, "encounter/reroll-reaction", "modifier") == REACTION["modifier"][2]
        assert client.post("/campaigns/main/campaign/add-member", headers=headers, json={"name": "Ann"}).is_success
        _to_the_reaction(client, headers)
        _check_ranges(
            served,
            client,
            hexlog,
            step="encounter/react",
            fields=REACTION,
            body_of=lambda field, value: {field: value},
            cli_of=lambda flag, value: ("encounter", "react", f"{flag}={value}"),
            after=_again_to_the_reaction,
        )


ENTRY = {"wandering_on": ("--wandering-on", "a wandering face must be 1 to 6, not {}", (1, 6))}
TURN = {"feet": ("--feet", "the party moves at most 480 ft a turn (its slowest member, Ann), not {}", (0, 480))}
LOCK = {
    "pick_chance": ("--pick-chance", "a thievery chance is at most 100 out of 100, not {}", (0, 100)),
    "pick_in_6": ("--pick-in-6", "a thievery chance is at most 6 out of 6, not {}", (0, 6)),
}
EAR = {"skill_in_6": ("--skill-in-6", "a listening skill is 0 to 6 in 6, not {}", (0, 6))}


def _leave(client, headers) -> None:
    left = client.post("/campaigns/main/dungeon/leave", headers=headers, json={})
    assert left.status_code == 200, left.text


def test_a_delves_numbers_have_the_ranges_its_steps_hold_them_to(serve, hexlog):
    """Wandering faces on entering, the feet of a turn (at most the fastest rate: the party is one member of it), a
    thief's chances at a locked door and at listening; no wandering check comes while they are tried."""
    served = serve()
    with served.client() as client:
        headers = served.headers("referee")
        for path, body in (
            ("campaign/change-rules", {"ruleset": "explore"}),
            ("campaign/add-member", {"name": "Ann", "speed": 480}),
        ):
            done = client.post(f"/campaigns/main/{path}", headers=headers, json=body)
            assert done.status_code == 200, (path, done.text)
        _check_ranges(
            served,
            client,
            hexlog,
            step="dungeon/enter",
            fields=ENTRY,
            body_of=lambda field, value: {"every_turns": 1000, field: [value]},
            cli_of=lambda flag, value: ("dungeon", "enter", "--every-turns", "1000", flag, str(value)),
            after=_leave,
        )
        entered = client.post("/campaigns/main/dungeon/enter", headers=headers, json={"every_turns": 1000})
        assert entered.status_code == 200, entered.text
        for step, fields, body, cli in (
            ("dungeon/move", TURN, {}, ("dungeon", "move")),
            ("dungeon/door", LOCK, {"by": "Ann", "locked": True}, ("dungeon", "door", "--by", "Ann", "--locked")),
            ("dungeon/listen", EAR, {"by": "Ann"}, ("dungeon", "listen", "--by", "Ann")),
        ):
            _check_ranges(
                served,
                client,
                hexlog,
                step=step,
                fields=fields,
                body_of=lambda field, value, body=body: {**body, field: value},
                cli_of=lambda flag, value, cli=cli: (*cli, flag, str(value)),
            )


CHASE = {  # a chase's lengths at its start: its option, the step's words, its range
    "gap_ft": ("--gap-ft", "the gap must be 0 to 5000 ft, not {}", (0, 5000)),
    "fleeing_ft": ("--fleeing-ft", "the fleeing side's rate must be 0 to 480 ft a round, not {}", (0, 480)),
    "pursuers_ft": ("--pursuers-ft", "the pursuers' rate must be 0 to 480 ft a round, not {}", (0, 480)),
    "line_of_sight_ft": ("--line-of-sight-ft", "the line of sight must be 0 to 5000 ft, not {}", (0, 5000)),
}
#: a chase's start without an encounter to follow: each length given
RUNNERS = {"gap_ft": 100, "fleeing_ft": 90, "pursuers_ft": 120}
OBSTACLE = {"slows_ft": ("--slows-ft", "what the obstacle costs must be 0 to 480 ft, not {}", (0, 480))}


def _chase_cli(body: dict[str, int]) -> tuple[str, ...]:
    return ("chase", "start", *(part for field, value in body.items() for part in (CHASE[field][0], str(value))))


def _end_chase(client, headers) -> None:
    """An obstacle stops the pursuit; a chase that ended at its start (the fleeing side faster) or caught at once
    refuses the round, and may be started again either way."""
    body = {"obstacle": "a door slammed", "stops": True}
    ended = client.post("/campaigns/main/chase/run", headers=headers, json=body)
    assert ended.status_code in {200, 409}, ended.text


def test_a_chases_lengths_have_the_ranges_its_start_and_rounds_hold_them_to(serve, hexlog):
    """The gap, the rates and the line of sight at the start, and what an obstacle costs in a round: far enough for
    a vessel sighted far off, never past what a number of the texts' scale can mean."""
    served = serve()
    with served.client() as client:
        headers = served.headers("referee")
        assert client.post("/campaigns/main/campaign/add-member", headers=headers, json={"name": "Ann"}).is_success
        _check_ranges(
            served,
            client,
            hexlog,
            step="chase/start",
            fields=CHASE,
            body_of=lambda field, value: {**RUNNERS, field: value},
            cli_of=lambda flag, value: (*_chase_cli(RUNNERS), flag, str(value)),
            after=_end_chase,
        )
        body = {"gap_ft": 5000, "fleeing_ft": 90, "pursuers_ft": 120}  # slowed or not, they stay apart
        started = client.post("/campaigns/main/chase/start", headers=headers, json=body)
        assert started.status_code == 200, started.text
        _check_ranges(
            served,
            client,
            hexlog,
            step="chase/run",
            fields=OBSTACLE,
            body_of=lambda field, value: {"obstacle": "burning oil", field: value},
            cli_of=lambda flag, value: ("chase", "run", "--obstacle", "burning oil", flag, str(value)),
        )


def test_the_worth_a_clerics_castle_tithes_has_its_range(serve, hexlog):
    """The worth the party carries: at most a million gp, past the texts' greatest tolls and hoards."""
    served = serve()
    flag, words, expected = "--worth", "the worth the party carries must be 0 to 1000000 gp, not {}", (0, 1_000_000)
    with served.client() as client:
        headers = served.headers("referee")

        def send(step: str, body: dict[str, Any]) -> httpx.Response:
            return client.post(f"/campaigns/main/{step}", headers=headers, json=body)

        def head() -> int:
            return client.get("/campaigns/main/events", headers=headers).json()["head"]

        for step, body in (
            ("campaign/change-rules", {"ruleset": "explore"}),
            ("campaign/add-member", {"name": "Ann"}),
            ("map/set", {"hex": "0,0", "terrain": "meadow"}),
            ("map/set", {"hex": "1,0", "terrain": "hills"}),
            ("castle/place", {"hex": "1,0", "castle_type": "patriarch"}),
            ("travel/start", {"hex": "0,0"}),
        ):
            done = send(step, body)
            assert done.status_code == 200, (step, done.text)
        low, high = _range_in_document(client.get("/openapi.json").json(), "castle/toll", "worth")
        assert (low, high) == expected
        for value in (high, low):
            for step, body in (
                ("castle/hail", {"hex": "1,0"}),
                ("castle/meet", {}),
                ("castle/toll", {"worth": value}),
                ("castle/pay", {}),
            ):
                done = send(step, body)
                assert done.status_code == 200, (step, value, done.text)
        for step in ("castle/hail", "castle/meet"):
            assert send(step, {"hex": "1,0"} if step == "castle/hail" else {}).status_code == 200
        before = head()
        below = send("castle/toll", {"worth": low - 1})
        assert below.status_code == 422, below.text
        assert below.json()["detail"] == "body.worth must be at least 0"
        above = send("castle/toll", {"worth": high + 1})
        assert above.status_code == 422, above.text
        assert above.json()["detail"] == words.format(high + 1)
        cli = hexlog("castle", "toll", flag, str(high + 1), "--campaign", "main")
        assert cli.returncode == 2, cli.stderr
        assert cli.stderr.strip() == f"hexlog: error: {words.format(high + 1)}"
        assert head() == before
