"""``hexlog token create`` makes tokens only for a campaign the database holds."""

from __future__ import annotations

import sqlite3

import pytest


def _tokens(db) -> int:
    with sqlite3.connect(db) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'http_tokens'").fetchall():
            return 0
        return int(conn.execute("SELECT count(*) FROM http_tokens").fetchone()[0])


@pytest.mark.parametrize("role", ["player", "referee"])
def test_a_token_for_a_campaign_that_does_not_exist_is_refused_and_none_is_kept(hexlog, tmp_path, role):
    assert hexlog("init").returncode == 0
    refused = hexlog("token", "create", "--role", role, "--campaign", "nope")
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert refused.stderr == "hexlog: error: campaign 'nope' does not exist; run 'hexlog init'\n"
    assert _tokens(tmp_path / "hexlog.db") == 0
    made = hexlog("token", "create", "--role", role, "--campaign", "main")
    assert made.returncode == 0, made.stderr
    assert _tokens(tmp_path / "hexlog.db") == 1
