"""Lists and machine-readable output: party list, session list, state --json, log --json and its filters, roll names."""

from __future__ import annotations

import json
import re

import pytest

from hexlog.events.camp import NightChecked
from hexlog.service import render

from .conftest import secret_file

SECRET = "7e" * 32


@pytest.fixture
def played(hexlog, tmp_path):
    """Two sessions: the first closed with rolls and an encounter cancelled, the second abandoned."""
    for args in (
        ("init",),
        ("session", "open", "--secret-file", secret_file(tmp_path, SECRET)),
        ("session", "seed", "our words"),
        ("party", "add", "Ann", "--cha", "13"),
        ("party", "add", "Bo"),
        ("roll", "2d6"),
        ("roll", "1d20", "--secret"),
        ("encounter", "start", "--party-aware", "--monsters-aware"),
        ("encounter", "check-surprise"),
        ("encounter", "cancel", "--reason", "wrong room"),
        ("session", "close"),
        ("session", "open"),
        ("roll", "1d6"),
    ):
        done = hexlog(*args)
        assert done.returncode == 0, (args, done.stderr)
    return hexlog


def _json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


class TestLists:
    def test_party_list(self, played):
        text = played("party", "list").stdout
        assert "Ann: CHA 13" in text
        assert "Bo: CHA 10" in text
        document = json.loads(played("party", "list", "--json").stdout)
        assert [m["name"] for m in document["members"]] == ["Ann", "Bo"]
        assert document["members"][0]["cha"] == 13

    def test_session_list_names_commitments_seeds_and_how_each_ended(self, played, tmp_path):
        (tmp_path / "hexlog.db.keys").unlink()
        assert played("session", "abandon", "--reason", "key file lost").returncode == 0
        document = json.loads(played("session", "list", "--json").stdout)
        first, second = document["sessions"]
        assert (first["session"], first["client_seed"], first["status"], first["secret"]) == (
            "s1",
            "our words",
            "closed",
            SECRET,
        )
        assert first["rolls"] == 2
        assert (second["session"], second["status"], second["reason"], second["rolls"]) == (
            "s2",
            "abandoned",
            "key file lost",
            1,
        )
        assert len(first["commitment"]) == len(second["commitment"]) == 64
        text = played("session", "list").stdout
        assert f"s1: commitment {first['commitment']}" in text
        assert "closed, secret revealed" in text
        assert "abandoned without a reveal (key file lost)" in text

    def test_state_json(self, played):
        document = json.loads(played("state", "--json").stdout)
        assert document["campaign"] == "main"
        assert document["session"]["id"] == "s2"
        assert [m["name"] for m in document["party"]] == ["Ann", "Bo"]
        assert document["procedures"]["encounter"]["phase"] == "CONCLUDED"
        assert document["procedures"]["encounter"]["next"] == ["start"]
        assert set(document["clock"]) == {"text", "seconds", "turns", "rounds"}
        earlier = json.loads(played("state", "--json", "--at", "3").stdout)
        assert earlier["version"] == 3
        assert earlier["party"] == []

    def test_a_version_is_written_in_ascii_digits(self, played):
        """A full-width 3 is no version (as over HTTP): it is read as a moment of game time, and refused so."""
        refused = played("state", "--at", "\uff13")
        assert refused.returncode == 2, refused.stdout
        assert "is not 'day N'" in refused.stderr


class TestLog:
    def test_the_default_log_hides_phase_changes_and_all_shows_them(self, played):
        quiet, everything = played("log").stdout, played("log", "--all").stdout
        assert "(IDLE -> SURPRISE)" not in quiet
        assert "(IDLE -> SURPRISE)" in everything
        assert "cancelled in phase" in quiet

    def test_log_json_has_one_object_an_event(self, played):
        rows = _json_lines(played("log", "--json", "--all").stdout)
        assert [r["version"] for r in rows] == list(range(1, len(rows) + 1))
        assert {"version", "time", "type", "text", "data"} <= set(rows[0])
        assert rows[0]["type"] == "hexlog.campaign.started"

    def test_filters(self, played):
        rolls = _json_lines(played("log", "--json", "--rolls").stdout)
        assert {r["type"] for r in rolls} == {"hexlog.dice.rolled"}
        # the public and the referee's lane count their nonces apart; their names tell them apart
        assert [r["text"].split()[1] for r in rolls][:2] == ["s1#0", "s1#r0"]
        second = _json_lines(played("log", "--json", "--session", "s2").stdout)
        assert second[0]["type"] == "hexlog.session.opened"
        assert all(r["data"].get("session", "s2") == "s2" for r in second)
        encounter = _json_lines(played("log", "--json", "--encounter", "1", "--all").stdout)
        assert encounter[0]["type"] == "hexlog.encounter.started"
        assert encounter[-1]["type"] == "hexlog.procedure.phase_changed"
        assert "hexlog.encounter.cancelled" in [r["type"] for r in encounter]
        assert "hexlog.session.closed" not in [r["type"] for r in encounter]
        assert played("log", "--encounter", "9").returncode == 2
        assert played("log", "--session", "s9").returncode == 2

    def test_a_players_json_log_carries_no_data_of_a_hidden_roll(self, hexlog):
        for args in (("init",), ("session", "open"), ("roll", "1d20", "--secret")):
            assert hexlog(*args).returncode == 0
        (row,) = _json_lines(hexlog("log", "--json", "--rolls", "--view", "player").stdout)
        assert row["data"] is None
        assert "hidden" in row["text"]


class TestRollNames:
    def test_every_roll_is_named_with_its_session(self, played):
        text = played("log", "--rolls").stdout
        assert re.search(r"roll s1#0 2d6 -> ", text)
        assert re.search(r"roll s2#0 1d6 -> ", text)
        assert "roll #" not in text

    def test_audit_roll_takes_the_name(self, played):
        named = played("audit", "--roll", "s1#0")
        assert named.returncode == 0, named.stderr
        assert named.stdout.startswith("roll s1#0 (nonce 0 of session s1): ")
        assert ", public)" in named.stdout.splitlines()[0]
        assert played("audit", "--roll", "0", "--session", "s1").stdout == named.stdout
        assert "of session s2" in played("audit", "--roll", "s2#0").stdout
        bad = played("audit", "--roll", "s1#x")
        assert bad.returncode == 2
        assert "s2#4" in bad.stderr
        clash = played("audit", "--roll", "s1#0", "--session", "s2")
        assert clash.returncode == 2

    def test_a_secret_roll_has_a_name_of_its_own_and_its_old_one_still_finds_it(self, played):
        """s1#r0 is the referee's nonce 0, not the public s1#0; --roll s1#0 --secret (the old way) finds it too."""
        secret = played("audit", "--roll", "s1#r0", "--referee")
        assert secret.returncode == 0, secret.stderr
        assert secret.stdout.startswith("roll s1#r0 (nonce 0 of session s1): ")
        assert ", referee)" in secret.stdout.splitlines()[0]
        assert played("audit", "--roll", "s1#0", "--secret", "--referee").stdout == secret.stdout
        assert played("audit", "--roll", "r0", "--session", "s1", "--referee").stdout == secret.stdout
        assert played("audit", "--roll", "s1#0").stdout != secret.stdout


def test_a_decision_names_the_referees_rolls_apart_from_the_public_ones():
    """A decision's line marks the rolls of the referee's lane (#r0), whose nonces count apart from #0."""
    night = NightChecked(
        check=1, terrain="woods", face=6, encounter_on=(5, 6), encounter=False, rolls=(0,), referee_rolls=(0, 1)
    )
    assert render.describe(night).endswith("[rolls #0, #r0, #r1]")
