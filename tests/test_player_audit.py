"""A player's copy of an audit: the verdict and every finding, without what the player view hides.

A forger appends to an open session a secret roll and a lost party's find, each wrong in a way that
quotes it (a notation that is no dice expression, a find that opens no commitment), with the chain
made anew. The audit FAILS there for everybody; only the referee's copy gives the reasons.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from hexlog.events.chain import canonical_json, seal
from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import FileKeeper, key_file_for
from hexlog.replay.audit import audit_store
from hexlog.replay.explain import WITHHELD as WITHHELD_DECISION
from hexlog.replay.player_audit import WITHHELD, for_player
from hexlog.service.cli_log import explained

if TYPE_CHECKING:
    from pathlib import Path

SECRET_PURPOSE = "cnry-secret-purpose"  # noqa: S105 - a roll's purpose, not a password
FORGED_NOTATION = "cnry-forged-notation"
LOST_FEATURE = "cnry-lost-feature"
CAMPAIGN = "main"
STREAM = f"campaign-{CAMPAIGN}"


def _append_forged(db: Path, events: list[tuple[str, int, dict]]) -> None:
    """Append events to the campaign's stream behind the store's back, each linked to the one before."""
    raw = sqlite3.connect(db, isolation_level=None)
    try:
        version, last = raw.execute(
            "SELECT stream_version, hash FROM events WHERE stream_id = ? ORDER BY stream_version DESC LIMIT 1",
            (STREAM,),
        ).fetchone()
        position = raw.execute("SELECT MAX(position) FROM events").fetchone()[0]
        for number, (kind, schema, data) in enumerate(events, start=1):
            env = seal(
                id=f"00000000-0000-4000-8000-{position + number:012d}",
                source=f"hexlog:{CAMPAIGN}",
                type=f"hexlog.{kind}",
                subject=STREAM,
                time="2026-12-01T12:00:00Z",
                data=data,
                streamversion=version + number,
                schemaversion=schema,
                prevhash=last,
            )
            row = (position + number, STREAM, env.streamversion, env.id, env.type, env.schemaversion, env.source)
            raw.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*row, env.time, canonical_json(env.data), env.prevhash, env.hash),
            )
            last = env.hash
    finally:
        raw.close()


def failing_db(db: Path) -> Path:
    """Campaigns main and other; main's open session has a secret roll, a public one, and two forged events
    only the referee may see yet (a secret roll, a lost party's find), at which its audit FAILS."""
    store = SQLiteStore(db)
    handler = Handler(store, FileKeeper(key_file_for(db)))
    for campaign in (CAMPAIGN, "other"):
        handler.execute(campaign, c.StartCampaign(ruleset="ose"))
        handler.execute(campaign, c.OpenSession())
    handler.execute(CAMPAIGN, c.RollDice(expression="d20", purpose=SECRET_PURPOSE, secret=True))
    handler.execute(CAMPAIGN, c.RollDice(expression="d6", purpose="a public roll"))
    session = handler.load(CAMPAIGN).session
    store.close()
    assert session is not None
    roll = {
        "session": session.id,
        "nonce": 1,
        "purpose": "a second secret roll",
        "sides": [6],
        "faces": [4],
        "modifier": 0,
        "total": 4,
        "visibility": "referee",
        "made_for": "",
        "modifiers": [],
        "notation": FORGED_NOTATION,
        "dropped": [],
        "low_is_good": False,
    }
    found = {"hex": "3,4", "feature": LOST_FEATURE, "lair": False, "salt": "0" * 64}
    _append_forged(db, [("dice.rolled", 4, roll), ("map.feature_found_lost", 1, found)])
    return db


def _reports(db: Path):
    store = SQLiteStore(db)
    try:
        report = audit_store(store, CAMPAIGN)
        player = for_player(report, lambda: [r.envelope for r in store.read_stream(STREAM)])
    finally:
        store.close()
    return report, player


def test_a_player_reads_the_verdict_and_where_but_not_why(tmp_path):
    """Same verdict, same findings at the same events and checks; the reasons of the hidden ones withheld."""
    report, player = _reports(failing_db(tmp_path / "hexlog.db"))
    assert str(report.verdict) == str(player.verdict) == "FAILED"
    # the forged find opens no commitment and follows no search: two findings at it
    found = [(5, "dice"), (6, "hidden feature"), (6, "decision")]
    assert [(f.streamversion, f.check) for f in player.findings] == found
    assert [(f.streamversion, f.check) for f in report.findings] == found
    assert all(f.reason == WITHHELD for f in player.findings)
    assert FORGED_NOTATION in report.text()
    assert LOST_FEATURE in report.text()
    for canary in (SECRET_PURPOSE, FORGED_NOTATION, LOST_FEATURE):
        assert canary not in player.text()


def test_once_the_session_closes_a_player_reads_every_reason(tmp_path):
    """The reasons are withheld only while the events are hidden: after the session ends they are everybody's."""
    db = failing_db(tmp_path / "hexlog.db")
    _append_forged(db, [("session.abandoned", 1, {"session": "s1", "reason": "the key file was lost"})])
    report, player = _reports(db)
    assert str(player.verdict) == "FAILED"
    assert player.text() == report.text()
    assert FORGED_NOTATION in player.text()


def test_a_clean_log_is_the_same_for_both(tmp_path):
    """Nothing to withhold: the player's report is the referee's."""
    db = tmp_path / "hexlog.db"
    store = SQLiteStore(db)
    handler = Handler(store, FileKeeper(key_file_for(db)))
    handler.execute(CAMPAIGN, c.StartCampaign(ruleset="ose"))
    handler.execute(CAMPAIGN, c.OpenSession())
    handler.execute(CAMPAIGN, c.RollDice(expression="d20", purpose=SECRET_PURPOSE, secret=True))
    report = audit_store(store, CAMPAIGN)
    assert for_player(report, lambda: [r.envelope for r in store.read_stream(STREAM)]).text() == report.text()
    store.close()


def test_the_command_line_withholds_unless_the_referee_asks(tmp_path, hexlog_in):
    """'hexlog audit' gives a player's copy (exit 1, the place, no reason); --referee gives the reasons."""
    failing_db(tmp_path / "hexlog.db")
    plain = hexlog_in(tmp_path, "--campaign", CAMPAIGN, "audit")
    referee = hexlog_in(tmp_path, "--campaign", CAMPAIGN, "audit", "--referee")
    assert plain.returncode == referee.returncode == 1
    assert "version 5" in plain.stderr
    for canary in (SECRET_PURPOSE, FORGED_NOTATION, LOST_FEATURE):
        assert canary not in plain.stdout + plain.stderr
    assert "the referee's audit: --referee" in plain.stdout
    assert FORGED_NOTATION in referee.stdout
    assert FORGED_NOTATION in referee.stderr
    assert "withheld" not in referee.stdout + referee.stderr
    assert LOST_FEATURE in referee.stdout


NIGHT_TERRAIN = "cnry-night-terrain"


def test_a_players_account_of_a_public_roll_withholds_a_hidden_decision_that_used_it(tmp_path):
    """A public roll's account lists what used it; a decision that used a secret roll as well is hidden from
    players until the session ends, so a player's account names it without its contents."""
    db = failing_db(tmp_path / "hexlog.db")
    night = {
        "check": 1,
        "terrain": NIGHT_TERRAIN,
        "face": 1,
        "encounter_on": [1],
        "encounter": True,
        "rolls": [0],
        "referee_rolls": [0],
    }
    _append_forged(db, [("camp.night_checked", 1, night)])
    store = SQLiteStore(db)
    envelopes = [r.envelope for r in store.read_stream(STREAM)]
    store.close()
    referee = explained(envelopes, 0, None, referee=True, secret=False)
    player = explained(envelopes, 0, None, referee=False, secret=False)
    assert NIGHT_TERRAIN in referee
    assert NIGHT_TERRAIN not in player
    assert f"version 7 hexlog.camp.night_checked: {WITHHELD_DECISION}" in player


def _overwrite(db: Path, version: int, data: str) -> None:
    raw = sqlite3.connect(db, isolation_level=None)
    try:
        raw.execute("DROP TRIGGER IF EXISTS events_no_update")
        raw.execute("UPDATE events SET data = ? WHERE stream_id = ? AND stream_version = ?", (data, STREAM, version))
    finally:
        raw.close()


def test_an_event_that_does_not_decode_is_judged_by_its_envelope(tmp_path):
    """A public roll that no longer decodes is named with its reason; a secret one of the open session, or
    data that is no object where a secret roll was, is withheld."""
    db = failing_db(tmp_path / "hexlog.db")
    _overwrite(db, 3, '{"visibility": "referee", "purpose": "cnry-broken-secret"}')
    _overwrite(db, 4, '{"visibility": "public", "purpose": "cnry-broken-public"}')
    report, player = _reports(db)
    told = {f.streamversion: f.reason for f in player.findings if f.check == "decode"}
    found = {f.streamversion: f.reason for f in report.findings if f.check == "decode"}
    assert told == {3: WITHHELD, 4: found[4]}
    assert found[3] != WITHHELD


def test_a_player_reads_no_id_of_a_hidden_event(tmp_path, hexlog_in):
    """A finding about a hidden event gives its place, not the event's id: with the id, its hash (which the
    chain shows) could be tried against each of the few contents the event may hold."""
    db = failing_db(tmp_path / "hexlog.db")
    store = SQLiteStore(db)
    ids = {r.version: r.envelope.id for r in store.read_stream(STREAM)}
    store.close()
    report, player = _reports(db)
    assert [f.streamversion for f in report.findings] == [5, 6, 6]
    assert ids[5] in report.text()  # the check can fail: the referee's copy names it
    plain = hexlog_in(tmp_path, "--campaign", CAMPAIGN, "audit")
    for version in (3, 5, 6):  # the secret roll, the forged roll, the lost party's find
        assert ids[version] not in player.text()
        assert ids[version] not in plain.stdout + plain.stderr
