"""A pursuit through the command line (its group comes from the registry): start, roll, refusals."""

from __future__ import annotations

from .conftest import secret_file


def test_a_pursuit_from_the_command_line(hexlog, tmp_path) -> None:
    for args in (
        ("init", "--ruleset", "explore"),
        ("session", "open", "--secret-file", secret_file(tmp_path, "2c" * 32)),
        ("party", "add", "Ann"),
    ):
        assert hexlog(*args).returncode == 0
    started = hexlog("pursuit", "start", "--pursuers", "6", "--pursuers-speed", "240", "--terrain", "woods")
    assert started.returncode == 0, started.stderr
    assert "pursuit 1 begins (odd rules): 1 flee at 120; 6 monsters pursue at 240; terrain woods" in started.stdout
    assert "next: roll-evasion" in started.stdout
    refused = hexlog("pursuit", "flee")
    assert refused.returncode != 0
    assert "roll_evasion" in refused.stderr or "roll-evasion" in refused.stderr
    rolled = hexlog("pursuit", "roll-evasion")
    assert rolled.returncode == 0, rolled.stderr
    assert "evasion 90 % (base 90 % (1 fleeing, 6 pursuing)" in rolled.stdout  # +25 woods, -25 speed
    state = hexlog("state")
    assert "pursuit: phase EVASION_ROLLED" in state.stdout


def test_the_ose_rules_pursue_day_by_day(hexlog, tmp_path) -> None:
    opened = ("session", "open", "--secret-file", secret_file(tmp_path, "2d" * 32))
    for args in (("init",), opened, ("party", "add", "Ann")):
        assert hexlog(*args).returncode == 0
    started = hexlog("pursuit", "start", "--pursuers-surprised")
    assert "(ose rules)" in started.stdout
    rolled = hexlog("pursuit", "roll-evasion")
    assert "evasion 100 %" in rolled.stdout
    assert "no roll, the party gets away" in rolled.stdout
