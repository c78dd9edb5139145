"""Nothing a player receives shows what the referee keeps secret, over any route or the stream.

Seeded runs put unique canary strings in secret rolls' purposes and in hidden features and lairs of
the map, record every byte a player's token receives after each step (state, timeline, events,
stream, export, audit, map, receipt, campaigns, and refusals), and check that no canary appears
before its reveal: a secret roll's when its session closes, a hidden feature's when the map is revealed.
A pursuit's flight during a journey is read the same way: its heading leads to the party's true hex; and so is a
lost party's day, whose costs and rows are those of the hex it believes it is in, never of its true hex's terrain.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from hexlog.events.chain import canonical_json, sha256_hex
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine.castle import commands as ca
from hexlog.machine.encounter import commands as en
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import LoadMap, SetHex
from hexlog.machine.keeper import FileKeeper, key_file_for
from hexlog.machine.pursuit import commands as pu
from hexlog.machine.travel import commands as tr
from hexlog.replay.player_audit import WITHHELD
from hexlog.service import http_events
from hexlog.service.demo_story import MAP_FILE
from hexlog.service.http_tokens import TokenStore
from tests.test_player_audit import FORGED_NOTATION, LOST_FEATURE, SECRET_PURPOSE, failing_db

NUMBERS = itertools.count()


@pytest.fixture
def serve_once(serve):
    """One service for every example of a run (each example plays a campaign of its own)."""
    return serve()


ACTIONS = st.lists(
    st.sampled_from(["secret", "secret", "public", "player-roll", "hide", "lair", "close", "reveal-map"]),
    min_size=3,
    max_size=9,
)


def _player_bytes(client, campaign: str, headers: dict[str, str]) -> bytes:
    """Everything a player's token reads of a campaign, and what it is told when refused."""
    head = client.get(f"/campaigns/{campaign}", headers=headers).json()["latest"]
    reads = [
        f"/campaigns/{campaign}",
        f"/campaigns/{campaign}?at=2",
        f"/campaigns/{campaign}/timeline",
        f"/campaigns/{campaign}/events",
        f"/campaigns/{campaign}/events?from=2&limit=3",
        f"/campaigns/{campaign}/stream?until={head}",
        f"/campaigns/{campaign}/export",
        f"/campaigns/{campaign}/audit",
        f"/campaigns/{campaign}/map",
        f"/campaigns/{campaign}/map?hex=1,1",
        f"/campaigns/{campaign}/map?hex=99,99",
        f"/campaigns/{campaign}/receipt",
        f"/campaigns/{campaign}/audit?expect=nonsense",
        f"/campaigns/{campaign}/audit?roll=0",
        f"/campaigns/{campaign}/audit?roll=0&secret=true",
        f"/campaigns/{campaign}/audit?roll=1&secret=true",
        "/campaigns",
    ]
    received = b"".join(client.get(url, headers=headers).content for url in reads)
    refused = client.post(
        f"/campaigns/{campaign}/campaign/roll-dice", headers=headers, json={"expression": "d6", "secret": True}
    )
    return received + refused.content


@seed(12)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=ACTIONS, salt=st.integers(min_value=0, max_value=2**32))
def test_no_canary_reaches_a_player_before_its_reveal(serve_once, actions, salt):
    served = serve_once
    campaign = f"leak{next(NUMBERS)}"
    tokens = TokenStore(served.db)
    referee_token, _ = tokens.create(campaign, "referee")
    player_token, _ = tokens.create(campaign, "player")
    tokens.close()
    referee = {"Authorization": f"Bearer {referee_token}"}
    player = {"Authorization": f"Bearer {player_token}"}
    in_session: set[str] = set()  # secret rolls' canaries of the open session
    on_map: set[str] = set()  # hidden features' canaries not revealed yet
    revealed: set[str] = set()
    names = (f"cnry{salt:08x}x{n}" for n in itertools.count())

    def send(path: str, body: dict, headers=referee) -> None:
        answer = client.post(f"/campaigns/{campaign}/{path}", headers=headers, json=body)
        assert answer.status_code == 200, answer.text

    with served.client() as client:
        send("campaign/start-campaign", {"ruleset": "ose"})
        send("campaign/open-session", {})
        send("map/set", {"hex": "1,1", "terrain": "clear"})
        for step, action in enumerate(actions):
            if action == "secret":
                canary = next(names)
                send("campaign/roll-dice", {"expression": "2d6", "purpose": canary, "secret": True})
                in_session.add(canary)
            elif action == "public":
                send("campaign/roll-dice", {"expression": "d20", "purpose": "a public roll"})
            elif action == "player-roll":
                send("campaign/roll-dice", {"expression": "d6", "purpose": "the thief climbs"}, player)
            elif action in {"hide", "lair"}:
                canary = next(names)
                field = "hidden" if action == "hide" else "lairs"
                send("map/set", {"hex": f"{step + 2},1", "terrain": "clear", field: [canary]})
                on_map.add(canary)
            elif action == "close":
                send("campaign/close-session", {})
                send("campaign/open-session", {})
                revealed |= in_session
                in_session.clear()
            elif action == "reveal-map" and on_map:
                send("map/reveal", {})
                revealed |= on_map
                on_map.clear()
            seen = _player_bytes(client, campaign, player)
            leaked = sorted(c for c in in_session | on_map if c.encode() in seen)
            assert not leaked, f"after {actions[: step + 1]}: a player received {leaked}"
            # the check can fail: what has been revealed is there to be read
            assert all(c.encode() in seen for c in revealed), f"after {actions[: step + 1]}"


@pytest.fixture
def failed_audit(serve, tmp_path):
    """Campaign main whose audit FAILS at events only the referee may see yet (``tests.test_player_audit``)."""
    failing_db(tmp_path / "hexlog.db")
    return serve()


def test_a_failed_audit_tells_a_player_the_verdict_but_nothing_hidden(failed_audit):
    """A player's audit FAILS as the referee's does, at the same events, without their hidden contents; the
    referee's audit names them; no other read of the player's shows them either."""
    served = failed_audit
    with served.client() as client:
        referee = client.get("/campaigns/main/audit", headers=served.headers("referee")).json()
        player = client.get("/campaigns/main/audit", headers=served.headers("player")).json()
        everything = _player_bytes(client, "main", served.headers("player"))
    assert referee["verdict"] == player["verdict"] == "FAILED"
    assert FORGED_NOTATION in referee["text"]
    assert LOST_FEATURE in referee["text"]
    # the same findings at the same events, reasons withheld
    assert player["text"].count("version ") == referee["text"].count("version ")
    assert WITHHELD in player["text"]
    for canary in (SECRET_PURPOSE, FORGED_NOTATION, LOST_FEATURE):
        assert canary.encode() not in everything, canary


def _faces_behind(placeholder: dict, full: dict) -> list[int]:
    """The faces of a hidden d6 roll whose content, put in the placeholder's envelope, hashes to its hash:
    what a player learns by trying the six (the rest of a roll's data is the rules' or guessable)."""
    envelope = {k: v for k, v in placeholder.items() if k not in {"hash", "redacted"}}
    matches = []
    for face in range(1, 7):
        data = {**full["data"], "faces": [face], "total": face}
        if sha256_hex(canonical_json({**envelope, "data": data})) == placeholder["hash"]:
            matches.append(face)
    return matches


def test_a_placeholder_gives_no_way_to_try_the_faces_of_a_secret_roll_against_its_hash(serve):
    """A hidden roll's few possible contents cannot be hashed to find the one that was rolled: the placeholder
    withholds the event's random id (the hash still links the chain), on every route a player reads."""
    served = serve()
    with served.client() as client:
        referee = served.headers("referee")
        rolled = {"expression": "d6", "purpose": "wandering check", "secret": True}
        client.post("/campaigns/main/campaign/roll-dice", headers=referee, json=rolled)
        full = client.get("/campaigns/main/events", headers=referee).json()["events"][-1]
        player = served.headers("player")
        paged = client.get("/campaigns/main/events", headers=player).json()["events"][-1]
        streamed = client.get(f"/campaigns/main/stream?until={full['streamversion']}", headers=player).text
        exported = client.get("/campaigns/main/export", headers=player)
    assert exported.status_code == 409  # no export of placeholders: it would not verify
    last_data = [line for line in streamed.splitlines() if line.startswith("data:")][-1]
    # the check can fail: the full event's own envelope gives its face away
    assert _faces_behind(full, full) == full["data"]["faces"]
    for seen in (paged, json.loads(last_data.removeprefix("data:"))):
        assert seen["redacted"] is True
        assert seen["hash"] == full["hash"]
        assert "id" not in seen
        assert _faces_behind(seen, full) == []


def _lost_flight_db(db) -> None:
    """Campaigns main and other; in main a journey from 2,2 (lost or not: its true hex is the referee's) and a
    pursuit whose party flees a hex, on the committed dice of a fixed secret."""
    store = SQLiteStore(db)
    handler = Handler(store, FileKeeper(key_file_for(db)))
    for campaign, secret in (("main", "a5"), ("other", "5a")):
        handler.execute(campaign, c.StartCampaign(ruleset="explore"))
        handler.execute(campaign, c.OpenSession(secret_hex=secret * 32))
    for command in (c.AddMember(name="Ann"), c.AddMember(name="Bo")):
        handler.execute("main", command)
    for col in range(5):
        for row in range(5):
            handler.execute("main", SetHex(hex=f"{col},{row}", terrain="meadow"))
    for command in (
        tr.StartJourney(hex="2,2"),
        tr.RollWeather(weather="clear"),
        tr.DeclareRoute(headings=("N",)),
        tr.Move(hexes=1),
        pu.StartPursuit(pursuers_speed=60, evasion_failed=True),
        pu.Flee(),
    ):
        handler.execute("main", command)
    store.close()


def test_a_flight_heading_reaches_a_player_only_when_the_session_ends(serve, tmp_path):
    """During a journey the pursuit's heading leads to the party's true hex: a player's token reads nothing
    of it (no heading, face, roll or true hex, on any route) until the session closes, and then reads it."""
    _lost_flight_db(tmp_path / "hexlog.db")
    served = serve()
    player = served.headers("player")
    with served.client() as client:
        events = client.get("/campaigns/main/events", headers=served.headers("referee")).json()["events"]
        (heading,) = [e["data"] for e in events if e["type"] == "hexlog.pursuit.heading_rolled"]
        truly = [e["data"]["hex"] for e in events if e["type"] == "hexlog.travel.true_position"]
        believed = [e["data"]["believed"] for e in events if e["type"] == "hexlog.travel.moved"]
        assert truly[-1] == heading["hex"] != believed[-1]
        seen = _player_bytes(client, "main", player)
        shown = client.get("/campaigns/main/events", headers=player).json()["events"]
        secret = {"hexlog.pursuit.heading_rolled", "hexlog.travel.true_position", "hexlog.travel.lost_checked"}
        assert all(e.get("redacted") for e in shown if e["type"] in secret)
        assert not [e for e in shown if e["data"].get("purpose") == "pursuit.flight" and not e.get("redacted")]
        (flight,) = [e["data"] for e in shown if e["type"] == "hexlog.pursuit.fled"]
        assert (flight["heading"], flight["face"], flight["rolls"]) == ("", 0, [])
        unredacted = [e for e in shown if not e.get("redacted") and e["type"] != "hexlog.map.hex_set"]
        assert not [e for e in unredacted if heading["hex"] in (e["data"].get("hex"), e["data"].get("believed"))]
        assert f"flees {heading['heading']}".encode() not in seen
        assert b"truly flees" not in seen
        assert b"last flight" not in seen  # the referee's line of the state
        assert b"last flight" in client.get("/campaigns/main", headers=served.headers("referee")).content
        # the check can fail: the referee's own reads hold the heading, and so does the player's once revealed
        assert b"truly flees" in client.get("/campaigns/main/timeline", headers=served.headers("referee")).content
        closed = client.post("/campaigns/main/campaign/close-session", headers=served.headers("referee"), json={})
        assert closed.status_code == 200, closed.text
        shown = client.get("/campaigns/main/events", headers=player).json()["events"]
        revealed = [e["data"] for e in shown if e["type"] == "hexlog.pursuit.heading_rolled" and not e.get("redacted")]
        assert revealed == [heading]
        assert f"truly flees {heading['heading']}".encode() in _player_bytes(client, "main", player)


#: house rules under which a party in the open (a meadow) is always lost, and truly heads NE
ALWAYS_LOST_NORTH_EAST = {
    "tables": {
        "lost_encounter": {"odd_p18": {"clear": {"lost": [1, 2, 3, 4, 5, 6], "encounter": [6]}}},
        "lost_direction": {"faces": ["NE"] * 6},
    }
}


def _lost_in_a_meadow_db(db) -> None:
    """Campaigns main and other; in main a party sets out from the meadow 2,3, is lost, and moves N into the bog it
    believes is 2,2 (3 points to enter and to search, the OD&D swamp row), truly into the meadow 3,2 (2 points, the
    clear row); it searches there and checks for wanderers (an encounter met is cancelled)."""
    store = SQLiteStore(db)
    handler = Handler(store, FileKeeper(key_file_for(db)))
    for campaign, rules in (("main", ALWAYS_LOST_NORTH_EAST), ("other", {})):
        handler.execute(campaign, c.StartCampaign(ruleset="explore", overrides=rules))
        handler.execute(campaign, c.OpenSession())
    handler.execute("main", c.AddMember(name="Ann"))
    for col in range(5):
        for row in range(5):
            handler.execute("main", SetHex(hex=f"{col},{row}", terrain="bog" if (col, row) == (2, 2) else "meadow"))
    for command in (
        tr.StartJourney(hex="2,3"),
        tr.RollWeather(weather="overcast"),
        tr.DeclareRoute(headings=("N",)),
        tr.Move(),
        tr.SearchHex(),
        tr.CheckWandering(),
    ):
        handler.execute("main", command)
    if "encounter" in handler.load("main").procedures:
        handler.execute("main", en.CancelEncounter(reason="not met"))
    store.close()


#: what a player's bytes would hold of the meadow the lost party is truly in: its cost (2, in the event and the
#: timeline), the points it leaves (6 after the move, 4 after the search), its row (clear), the true hex's lines
TRUE_MEADOW = (
    rb'"cost": ?2\b',
    rb'"travel_points": ?[64]\b',
    rb"\(2 TP",
    rb"\b[64] left\b",
    rb"left today 4\b",
    rb'"row": ?"clear"',
    rb"wandering check \(clear",
    rb"truly in",
    rb"it is in 3,2",
)


def test_a_lost_party_s_costs_and_rows_reach_a_player_as_the_believed_hex_s_until_it_learns_it_is_lost(serve, tmp_path):
    """The party believes it is in the bog 2,2 and is truly in the meadow 3,2, whose terrain costs less: no read of a
    player's tells the meadow's cost, the points it would leave or its row (every one tells the bog's); the referee
    reads the truth, and a player reads where the party is once it learns it is lost."""
    _lost_in_a_meadow_db(tmp_path / "hexlog.db")
    served = serve()
    player, referee = served.headers("player"), served.headers("referee")
    with served.client() as client:
        truly = [
            e["data"]
            for e in client.get("/campaigns/main/events", headers=referee).json()["events"]
            if e["type"] == "hexlog.travel.true_position"
        ]
        assert truly == [{"hex": "3,2", "lost": True, "terrain": "meadow"}]
        # the check can fail: the referee's own reads hold the true hex
        assert b"truly in 3,2 (meadow) - lost" in client.get("/campaigns/main/timeline", headers=referee).content
        seen = _player_bytes(client, "main", player)
        shown = client.get("/campaigns/main/events", headers=player).json()["events"]
        moved = [e["data"] for e in shown if e["type"] == "hexlog.travel.moved"]
        searched = [e["data"] for e in shown if e["type"] == "hexlog.travel.searched"]
        assert [(m["believed"], m["cost"], m["travel_points"]) for m in moved] == [("2,2", 3, 5)]
        assert [(s["cost"], s["travel_points"]) for s in searched] == [(3, 2)]
        (checked,) = [e["data"] for e in shown if e["type"] == "hexlog.travel.wandering_checked"]
        assert (checked["row"], checked["encounter_on"]) == ("swamp", [4, 5, 6])
        assert b"travel points left today 2" in seen
        leaked = [pattern for pattern in TRUE_MEADOW if re.search(pattern, seen)]
        assert not leaked, leaked
        told = client.post("/campaigns/main/travel/reveal-lost", headers=referee, json={"reason": "no bog here"})
        assert told.status_code == 200, told.text
        assert b"the party knows it is lost: no bog here; it is in 3,2" in _player_bytes(client, "main", player)


def _passing_db(db) -> str:
    """Campaigns main and other; in main a journey past the castle at 3,4 of the demo's map whose referee's check
    finds its garrison riding out (the first of a few fixed secrets whose dice say so); the secret."""
    for n in range(1, 64):
        secret = f"{n:02x}" * 32
        db.unlink(missing_ok=True)
        key_file_for(db).unlink(missing_ok=True)
        store = SQLiteStore(db)
        handler = Handler(store, FileKeeper(key_file_for(db)))
        for campaign, opened in (("main", secret), ("other", "ff" * 32)):
            handler.execute(campaign, c.StartCampaign(ruleset="explore"))
            handler.execute(campaign, c.OpenSession(secret_hex=opened))
        for command in (
            c.AddMember(name="Ann"),
            LoadMap(file=str(MAP_FILE)),
            tr.StartJourney(hex="2,6", season="summer"),
            tr.RollWeather(weather="clear"),
            ca.PassCastles(),  # the castle two hexes off is checked before the day's route is taken
        ):
            handler.execute("main", command)
        passed = [r.envelope.data for r in store.read_stream("campaign-main") if r.envelope.type.endswith(".passed")]
        store.close()
        if any(p["rides_out"] for p in passed[-1]["passed"]):
            return secret
    msg = "no secret of the few tried sends the garrison out"
    raise AssertionError(msg)  # pragma: no cover


def test_a_garrison_riding_out_as_the_party_passed_reaches_a_player_when_it_meets_the_party(serve, tmp_path):
    """The ride-out check is the referee's secret: a player's state (and every other read) says nothing of a
    garrison riding out until it meets the party; the referee's state says it."""
    _passing_db(tmp_path / "hexlog.db")
    served = serve()
    with served.client() as client:
        referee = client.get("/campaigns/main", headers=served.headers("referee")).content
        assert b"rides out (passing)" in referee  # the check can fail: the referee reads it
        seen = _player_bytes(client, "main", served.headers("player"))
        assert b"rides out" not in seen
        met = client.post("/campaigns/main/castle/meet", headers=served.headers("referee"), json={})
        assert met.status_code == 200, met.text
        assert b"castle at 3,4" in _player_bytes(client, "main", served.headers("player"))


def _stream_of(served, who: str, after: int, until: int) -> dict[int, dict]:
    """The events a follower receives after version ``after`` up to ``until``, by version."""
    got = {}
    headers = served.headers(who, **{"Last-Event-ID": str(after)})
    with (
        served.client() as client,
        client.stream("GET", f"/campaigns/main/stream?until={until}", headers=headers) as response,
    ):
        for line in response.iter_lines():
            if line.startswith("data: "):
                event = json.loads(line[6:])
                got[event["streamversion"]] = event
    return got


def test_a_player_joining_the_stream_late_reads_what_one_from_the_start_reads_and_nothing_hidden(serve):
    """A follower starts from the service's kept player view, not from version 1: what it is sent is what a
    follower from version 1 is sent, a secret roll stays a placeholder until its session closes, and a follower
    that joined before the close is sent the roll made while it followed as a placeholder."""
    served = serve()
    referee = served.headers("referee")
    roll = "/campaigns/main/campaign/roll-dice"
    with served.client() as client:

        def secret(canary: str) -> int:
            answer = client.post(roll, headers=referee, json={"expression": "1d20", "purpose": canary, "secret": True})
            assert answer.status_code == 200, answer.text
            return int(answer.json()["version"])

        first = secret("canary-first")
        public = client.post(roll, headers=referee, json={"expression": "1d6"}).json()["version"]
        assert "canary" not in json.dumps(_stream_of(served, "player", 0, public))  # the view is kept from here on
        second = secret("canary-second")
        late = _stream_of(served, "player", public, second)
        assert list(late) == [second]
        assert late[second]["redacted"] is True
        assert "canary" not in json.dumps(late)
        assert late == {v: e for v, e in _stream_of(served, "player", 0, second).items() if v > public}
        received: list[dict] = []
        joined = threading.Event()

        def follower() -> None:
            headers = served.headers("player", **{"Last-Event-ID": str(second)})
            with (
                served.client() as follow,
                follow.stream("GET", f"/campaigns/main/stream?until={second + 2}", headers=headers) as response,
            ):
                joined.set()
                received.extend(json.loads(ln[6:]) for ln in response.iter_lines() if ln.startswith("data: "))

        thread = threading.Thread(target=follower)
        thread.start()
        joined.wait(10)
        time.sleep(0.3)  # the follower has its viewer before the roll is made
        third = secret("canary-third")
        deadline = time.monotonic() + 10
        while not received and time.monotonic() < deadline:
            time.sleep(0.02)
        closed = client.post("/campaigns/main/campaign/close-session", headers=referee, json={})
        assert closed.json()["version"] == third + 1
        thread.join(30)
        assert [e["streamversion"] for e in received] == [third, third + 1]
        assert received[0]["redacted"] is True
        assert "canary" not in json.dumps(received)
        revealed = _stream_of(served, "player", first - 1, third + 1)
        assert [revealed[v]["data"]["purpose"] for v in (first, second, third)] == [
            "canary-first",
            "canary-second",
            "canary-third",
        ]
        assert _stream_of(served, "player", second - 1, second)[second]["data"]["purpose"] == "canary-second"


def test_the_kept_player_view_is_made_anew_when_the_campaign_is_replaced_by_another_history(tmp_path):
    """The view kept for players walked a history whose session s1 ended; the campaign is then another history (its
    tables dropped and an export imported), where s1 is open with secret rolls: none is shown, as a fresh walk of the
    new history shows none (the kept view read on from its old head, judging s1 ended)."""

    def history(name, commands):
        db = tmp_path / name / "h.db"
        db.parent.mkdir()
        store = SQLiteStore(db)
        handler = Handler(store, FileKeeper(key_file_for(db)))
        for command in commands:
            handler.execute("main", command)
        return store

    old = history("old", [c.StartCampaign(ruleset="ose"), c.OpenSession(), c.RollDice(expression="d6")])
    old_handler = Handler(old, FileKeeper(key_file_for(tmp_path / "old" / "h.db")))
    for command in (c.CloseSession(), c.OpenSession()):
        old_handler.execute("main", command)
    rolls = [c.RollDice(expression="d20", purpose=f"canary-{i}", secret=True) for i in range(6)]
    new = history("new", [c.StartCampaign(ruleset="ose"), c.OpenSession(), *rolls])
    stream = stream_for("main")
    cache = http_events.PlayerCache()
    assert len(cache.items(lambda v: old.read_stream(stream, v))) == 5
    items, _viewer = cache.since(lambda v: new.read_stream(stream, v), 1)
    assert items == http_events.seen(new.read_stream(stream), player=True)
    assert not [e for e, _ in items if "canary" in str(e["data"].get("purpose", ""))]


def test_a_lost_party_moved_while_no_session_is_open_is_refused_so_no_player_reads_its_true_hex(serve, tmp_path):
    """A true hex is the referee's until its session ends; moved while no session is open (the last one closed), it
    would be a player's at once, on every route. The move is refused (409) as a roll would be, naming the session to
    open, nothing written; a player reads no true hex before or after; in the next session the move is made and
    hidden."""
    db = tmp_path / "hexlog.db"
    store = SQLiteStore(db)
    handler = Handler(store, FileKeeper(key_file_for(db)))
    for campaign in ("main", "other"):
        handler.execute(campaign, c.StartCampaign(ruleset="explore", overrides=ALWAYS_LOST_NORTH_EAST))
        handler.execute(campaign, c.OpenSession())
    handler.execute("main", c.AddMember(name="Ann"))
    for col in range(5):
        for row in range(5):
            handler.execute("main", SetHex(hex=f"{col},{row}", terrain="meadow"))
    for command in (tr.StartJourney(hex="2,3"), tr.RollWeather(weather="overcast"), tr.DeclareRoute(headings=("N",))):
        handler.execute("main", command)
    handler.execute("main", c.CloseSession())
    store.close()
    served = serve()
    referee, player = served.headers("referee"), served.headers("player")
    with served.client() as client:
        before = client.get("/campaigns/main", headers=referee).json()["version"]
        moved = client.post("/campaigns/main/travel/move", headers=referee, json={})
        assert moved.status_code == 409, moved.text
        assert moved.headers["content-type"] == "application/problem+json"
        assert "no session is open" in moved.json()["detail"]
        assert "POST /campaigns/main/campaign/open-session" in moved.json()["detail"]
        assert client.get("/campaigns/main", headers=referee).json()["version"] == before
        assert b"truly in" not in _player_bytes(client, "main", player)
        for step in ("campaign/open-session", "travel/move"):
            sent = client.post(f"/campaigns/main/{step}", headers=referee, json={})
            assert sent.status_code == 200, sent.text
        assert b"truly in" in client.get("/campaigns/main/timeline", headers=referee).content
        assert b"truly in" not in _player_bytes(client, "main", player)


def test_a_players_page_that_shows_revealed_rolls_has_a_head_that_holds_their_reveal(serve, monkeypatch):
    """The page's head was the log's version read before its events: a session closed between the two showed the
    player its rolls in full while the head stood one below the closing, so a tool that read the page and then the
    stream from after its head was told of the reveal after reading what it revealed. The head is now the last version
    the page's view was judged through; a page read with nothing appended in between is as it was."""
    served = serve()
    referee, player = served.headers("referee"), served.headers("player")
    db = served.db
    from hexlog.service import http_app  # noqa: PLC0415 - its read of the events is the one a close comes before

    received = http_app._received
    closed: list[int] = []

    def closing_first(service, campaign, first, *, player):
        if not closed:  # the referee closes the session between the page's read of the head and of its events
            store = SQLiteStore(db)
            closed.append(
                Handler(store, FileKeeper(key_file_for(db))).execute(campaign, c.CloseSession()).result.last_version
            )
            store.close()
        return received(service, campaign, first, player=player)

    with served.client() as client:
        rolled = client.post(
            "/campaigns/main/campaign/roll-dice",
            headers=referee,
            json={"expression": "d20", "purpose": "canary-page", "secret": True},
        ).json()["version"]
        before = client.get("/campaigns/main/events", headers=player).json()
        assert before["head"] == rolled
        assert before["events"][-1]["redacted"] is True
        assert "canary" not in json.dumps(before)
        monkeypatch.setattr(http_app, "_received", closing_first)
        page = client.get("/campaigns/main/events", headers=player).json()
        monkeypatch.undo()
        again = client.get("/campaigns/main/events", headers=player).json()
    assert closed == [rolled + 1]
    shown = {e["streamversion"]: e for e in page["events"]}
    assert shown[rolled]["data"]["purpose"] == "canary-page"  # revealed: the page holds the closing
    assert page["head"] == rolled + 1
    assert shown[rolled + 1]["type"] == "hexlog.session.closed"
    assert page["next"] == page["head"] + 1
    assert again == page
