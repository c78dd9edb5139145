"""A player's copy of the audit says nothing of the hidden features while the log holds events players may not see
yet: a lost party's find opens a feature in secret, and the count of those never revealed (or whether a search may
have read one) would tell the players they are lost and that something was found."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from hexlog.replay.player_audit import FEATURES_WITHHELD

if TYPE_CHECKING:
    from pathlib import Path

#: a meadow of 10 by 10 hexes with six hidden ruins round 4,4
HIDDEN = {"3,4", "3,5", "4,3", "4,6", "5,4", "5,5"}
MAP = "[hex]\n" + "".join(
    f'"{col},{row}" = {{ terrain = "meadow"'
    + (f', hidden = ["ruin {col}-{row}"]' if f"{col},{row}" in HIDDEN else "")
    + " }\n"
    for col in range(10)
    for row in range(10)
)
#: secrets under which the party, marching north by night in fog from 4,5, is lost and strays into 5,5: its search
#: finds the ruin there, or finds nothing
SECRETS = {
    "found": "62760e02e295d95c44a38f61cd70b829b4db0a8041d930c735ed5daec64689ae",
    "nothing": "d34beeb70cddcc1f973ab468a4f7467557065a2fc1b9c118e728035b25d38af0",
}


def _lost_search(hexlog, tmp_path: Path, secret: str) -> None:
    (tmp_path / "secret.hex").write_text(secret)
    (tmp_path / "ruins.toml").write_text(MAP)
    for args in (
        ("init", "--ruleset", "explore"),
        ("session", "open", "--secret-file", "secret.hex"),
        ("session", "seed", "words"),
        ("party", "add", "Ann", "--cha", "13"),
        ("party", "add", "Bo"),
        ("map", "load", "ruins.toml"),
        ("travel", "start", "4,5", "--season", "autumn"),
        ("travel", "weather", "--set", "fog"),
        ("travel", "route", "N", "--night"),
        ("travel", "move"),
        ("travel", "search"),
    ):
        done = hexlog(*args)
        assert done.returncode == 0, (args, done.stderr)


@pytest.mark.parametrize("outcome", sorted(SECRETS))
def test_the_players_audit_withholds_the_hidden_features_whatever_the_lost_party_found(
    hexlog, tmp_path: Path, outcome: str
) -> None:
    _lost_search(hexlog, tmp_path, SECRETS[outcome])
    log = hexlog("log", "--view", "referee").stdout
    assert "lost" in log
    assert ("found in 5,5 by the lost party" in log) == (outcome == "found")
    referee = hexlog("audit", "--referee")
    never = 5 if outcome == "found" else 6
    assert f"  - 1 search made while {never} hidden map features were never revealed" in referee.stdout
    player = hexlog("audit")
    assert player.returncode == referee.returncode == 3  # INCOMPLETE for both: the session is open
    lines = player.stdout.splitlines()
    assert f"  - {FEATURES_WITHHELD}" in lines
    assert not [line for line in lines if "hidden map feature" in line], player.stdout
