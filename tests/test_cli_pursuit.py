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


def _fled(hexlog, tmp_path, ruleset: str, setting: str, side: str | None = "party") -> None:
    """A campaign under ``ruleset`` whose first encounter (``setting``, both sides aware) ends with ``side``
    fleeing: the other side's pursuit decision is next (``side`` None: nobody has fled, at the sides' actions)."""
    evade = ("encounter", "evade", "--side", side) if side else ("state",)
    for args in (
        ("init", "--ruleset", ruleset),
        ("session", "open", "--secret-file", secret_file(tmp_path, "2e" * 32)),
        ("party", "add", "Ann"),
        ("encounter", "start", "--setting", setting, "--monsters", "6", "--party-aware", "--monsters-aware"),
        ("encounter", "check-surprise"),
        ("encounter", "determine-distance"),
        ("encounter", "roll-initiative"),
        evade,
    ):
        done = hexlog(*args)
        assert done.returncode == 0, (args, done.stderr)


def _fled_and_pursued(hexlog, tmp_path, ruleset: str, setting: str, side: str = "party"):
    """As ``_fled``, the pursuers giving chase and the encounter concluding in pursuit; the decision's output."""
    _fled(hexlog, tmp_path, ruleset, setting, side)
    decided = hexlog("encounter", "decide-pursuit", "--pursue")
    assert decided.returncode == 0, decided.stderr
    assert "-> CONCLUDED; next: start\n" in decided.stdout
    return decided


def test_an_encounter_ended_in_pursuit_in_the_wilderness_names_the_pursuit_to_start(hexlog, tmp_path) -> None:
    """OSE: nothing handed the encounter off, so nothing carries the pursuit on: its answer and the state name
    ``pursuit start --encounter N`` until the referee starts it (before, both offered only a new encounter)."""
    decided = _fled_and_pursued(hexlog, tmp_path, "ose", "wilderness")
    told = "the monsters give chase: hexlog pursuit start --encounter 1"
    assert f"   {told}\n" in decided.stdout
    assert f"  {told}\n" in hexlog("state").stdout
    started = hexlog(*told.split(": ", 1)[1].split()[1:])
    assert started.returncode == 0, started.stderr
    assert "give chase" not in hexlog("state").stdout


def test_an_encounter_the_referee_ended_in_pursuit_underground_names_the_chase_to_start(hexlog, tmp_path) -> None:
    """OSE underground, outside a delve, the referee concludes the encounter in pursuit by hand (a pursuit decided
    there hands the chase off itself): the chase by hand, from the encounter."""
    _fled(hexlog, tmp_path, "ose", "dungeon", None)
    decided = hexlog("encounter", "conclude", "--outcome", "pursuit")
    assert decided.returncode == 0, decided.stderr
    told = "the monsters give chase: hexlog chase start --from-encounter 1"
    assert f"   {told}\n" in decided.stdout
    assert f"  {told}\n" in hexlog("state").stdout
    assert hexlog("chase", "start", "--from-encounter", "1").returncode == 0
    assert "give chase" not in hexlog("state").stdout


def test_rules_without_a_pursuit_name_none_to_start(hexlog, tmp_path) -> None:
    """AD&D has no wilderness pursuit and no chase: nothing is offered that would be refused."""
    decided = _fled_and_pursued(hexlog, tmp_path, "adnd", "outdoors")
    assert "give chase" not in decided.stdout
    assert "give chase" not in hexlog("state").stdout


def test_a_chase_after_monsters_fled_is_of_the_monsters(hexlog, tmp_path) -> None:
    """OSE underground: the monsters flee and the party gives chase; the encounter hands off the chase of the
    monsters at once."""
    _fled(hexlog, tmp_path, "ose", "dungeon", "monsters")
    decided = hexlog("encounter", "decide-pursuit", "--pursue")
    assert decided.returncode == 0, decided.stderr
    assert "encounter hands off to chase" in decided.stdout
    assert "the monsters flee at 120 ft a round, pursued at 120 ft" in decided.stdout


def test_a_chase_started_by_hand_after_monsters_fled_is_of_the_monsters(hexlog, tmp_path) -> None:
    """OSE in the open: the monsters flee and the party gives chase (the encounter concludes in pursuit). A chase
    started from that encounter with the party fleeing is refused and writes nothing; one that does not say who flees
    is the monsters' (it ran the party fleeing)."""
    _fled_and_pursued(hexlog, tmp_path, "ose", "wilderness", "monsters")
    before = hexlog("state").stdout.splitlines()[0]
    refused = hexlog("chase", "start", "--fleeing", "party", "--from-encounter", "1")
    assert refused.returncode == 1
    assert "the monsters fled and the party gave chase" in refused.stderr
    assert "give --fleeing monsters" in refused.stderr
    assert hexlog("state").stdout.splitlines()[0] == before
    started = hexlog("chase", "start", "--from-encounter", "1")
    assert started.returncode == 0, started.stderr
    assert "the monsters flee at 120 ft a round, pursued at 120 ft" in started.stdout
