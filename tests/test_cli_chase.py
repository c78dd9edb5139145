"""A chase through the command line: a direct dungeon chase, a vessel's evasion, the state, a refusal."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import secret_file

SECRET = bytes(range(32)).hex()


def _count_events(db) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


@pytest.fixture
def table(hexlog, tmp_path):
    """An explore campaign, an open session, a party of two; the database path."""
    for args in (
        ("init", "--ruleset", "explore"),
        ("session", "open", "--secret-file", secret_file(tmp_path, SECRET)),
        ("party", "add", "Ann"),
        ("party", "add", "Bo", "--speed", "90"),
    ):
        assert hexlog(*args).returncode == 0
    return tmp_path / "hexlog.db"


class TestChase:
    def test_a_dungeon_chase_round_by_round(self, hexlog, table):  # noqa: ARG002 - the fixture sets the table
        """Started by hand, slowed by oil, then caught; the state shows the gap, the end."""
        started = hexlog(
            "chase", "start", "--gap-ft", "50", "--fleeing-ft", "90", "--pursuers-ft", "120", "--likes-treasure"
        )
        assert started.returncode == 0, started.stderr
        assert "chase 1 (dungeon): the party flee at 90 ft a round, pursued at 120 ft, 50 ft apart" in started.stdout
        assert "; the pursuers are fond of treasure" in started.stdout
        assert "-> RUNNING; next: run, drop" in started.stdout
        oil = hexlog("chase", "run", "--obstacle", "burning oil", "--slows-ft", "60")
        assert (
            "round 1: fleeing 90 ft, pursuers 60 ft; gap 50 -> 80 ft: burning oil costs the pursuers 60 ft"
            in oil.stdout
        )
        assert "clock advances 1 round (60 s)" in oil.stdout
        state = hexlog("state")
        assert "chase: phase RUNNING" in state.stdout
        assert "  chase 1 (dungeon): round 1, gap 80 ft" in state.stdout
        assert "  next: hexlog chase run | drop" in state.stdout
        for _ in range(2):
            hexlog("chase", "run")
        caught = hexlog("chase", "run")
        assert "chase 1 over after 4 rounds: caught; melee starts next round" in caught.stdout
        assert "-> CAUGHT; next: start" in caught.stdout

    def test_a_vessels_evasion(self, hexlog, table):  # noqa: ARG002 - the fixture sets the table
        """The percentile roll against the row's chance, with its receipt."""
        hexlog(
            "chase", "start", "--setting", "waterborne", "--gap-ft", "300", "--fleeing-ft", "90", "--pursuers-ft", "150"
        )
        evaded = hexlog("chase", "evade")
        assert evaded.returncode == 0, evaded.stderr
        assert "for chase.evasion (for party)" in evaded.stdout
        assert "vessel evasion (31-60 ft/round slower): 40 %, rolled" in evaded.stdout
        assert "receipt " in evaded.stdout

    def test_a_refused_start_writes_nothing(self, hexlog, table):
        """Without an encounter to follow, the gap and rates are needed: one line, nothing written."""
        before = _count_events(table)
        refused = hexlog("chase", "start")
        assert refused.returncode != 0
        assert "without an encounter to follow, give --gap-ft, --pursuers-ft" in refused.stderr
        assert _count_events(table) == before
