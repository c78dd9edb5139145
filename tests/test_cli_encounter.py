"""The encounter commands through a real subprocess: every step, every setting, refusals, audit and replay.

Each ruleset's campaign is played once per module as a script of ``hexlog`` invocations on a fixed
secret; the tests then read what each invocation printed and how many events it wrote. The scripts
run side by side in threads, each in its own folder, to keep the module quick.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

HEXLOG = Path(sys.executable).parent / "hexlog"
E = ("encounter",)
Script = list[tuple[str, tuple[str, ...]]]


def secret(n: int) -> str:
    """The 32-byte secret whose big-endian value is ``n``, in hex (for ``session open --secret-hex``)."""
    return n.to_bytes(32, "big").hex()


# Each secret was found by playing its script in-process (typer's CliRunner on a scratch database) for
# secret(0), secret(1), ... until every branch below was taken; the tests need these outcomes.
# OSE, secret(130): encounter 1 distance 2d6 = 10, initiative party 6 / monsters 4, Ayla's reaction
# 7+1 = 8 (uncertain) and its re-roll 8; encounter 2 the party alone surprised (d6 1, monsters 5), the
# reaction rolled for the pursuit 9 (they let the party go); encounter 3 reaction 2 (they pursue).
OSE_SECRET = secret(130)
# AD&D indoors, secret(44): encounter 1 party d6 5, monsters 1 (the party alone surprised them) at
# 1d3 = 2, 20 ft (just far enough to slip away); encounter 2 the noisy party surprised on a 2, 30 ft,
# initiative tied 1-1, Bo's reaction 4 (pursuit suggested, --let-go overrides it).
ADND_INDOORS_SECRET = secret(44)
# AD&D outdoors, secret(0): in the mixed terrain both are surprised (party 2, monsters 1), so the
# monsters gain 1 segment and the distance loses 2 segments (the larger face).
ADND_OUTDOORS_SECRET = secret(0)
# Explore, secret(572): encounter 1 party d6 4 (nobody surprised), monsters 2 (the party's free action);
# encounter 2 party 2 (Bo surprised), monsters 3 (the monsters' action); encounter 3 both on 2 (straight
# to combat); encounter 5 (waterborne) monsters surprised and 1d3 = 1: 10 yd, missiles possible.
EXPLORE_SECRET = secret(572)

TERRAINS = ("plains", "desert", "hills", "mountains", "scrub", "marsh", "forest")


def _aware_to_conclusion(tag: str, *start: str, end: tuple[str, ...] = ("conclude",)) -> Script:
    """An encounter both sides know of: start, surprise (no roll), distance, initiative, then ``end``."""
    return [
        (f"{tag}.start", (*E, "start", "--party-aware", "--monsters-aware", *start)),
        (f"{tag}.check", (*E, "check-surprise")),
        (f"{tag}.distance", (*E, "determine-distance")),
        (f"{tag}.initiative", (*E, "roll-initiative")),
        (f"{tag}.end", (*E, *end)),
    ]


def _setup(ruleset: str, key: str, *members: tuple[str, ...]) -> Script:
    steps: Script = [("init", ("init", "--ruleset", ruleset)), ("open", ("session", "open", "--secret-hex", key))]
    steps += [(f"member.{m[0]}", ("party", "add", *m)) for m in members]
    return steps


def _closing(*, player_after_close: bool = False) -> Script:
    """Both views of the log while the session is open, then close, audit and replay."""
    steps: Script = [
        ("log.referee", ("log",)), ("log.player", ("log", "--view", "player")), ("close", ("session", "close")),
    ]
    if player_after_close:
        steps.append(("log.player.closed", ("log", "--view", "player")))
    return [*steps, ("audit", ("audit",)), ("replay", ("replay",))]


def ose_script(key: str) -> Script:
    """OSE: a dungeon talk that turns to combat, a wilderness ambush, a waterborne flight."""
    return [
        *_setup("ose", key, ("Ayla", "--cha", "16"), ("Bo", "--speed", "90")),
        ("idle.check-surprise", (*E, "check-surprise")),
        ("e1.start", (*E, "start", "--name", "goblin guards", "--party-aware", "--monsters-aware", "--monsters", "3")),
        ("e1.early.determine-distance", (*E, "determine-distance")),
        ("e1.check", (*E, "check-surprise")),
        ("e1.early.roll-initiative", (*E, "roll-initiative")),
        ("e1.distance", (*E, "determine-distance")),
        ("e1.early.react", (*E, "react")),
        ("e1.initiative", (*E, "roll-initiative")),
        ("e1.state.actions", ("state",)),
        ("e1.early.take-free-action", (*E, "take-free-action")),
        ("e1.bad.parley", (*E, "parley", "--side", "dragons")),
        ("e1.bad.fight", (*E, "fight", "--side", "dragons")),
        ("e1.bad.evade", (*E, "evade", "--side", "dragons")),
        ("e1.bad.react", (*E, "react", "--speaker", "Nobody")),
        ("e1.bad.conclude", (*E, "conclude", "--outcome", "")),
        ("e1.react", (*E, "react", "--speaker", "Ayla")),
        ("e1.reroll.too-soon", (*E, "reroll-reaction")),
        ("e1.parley", (*E, "parley", "--note", "we come in peace")),
        ("e1.wait", (*E, "wait", "--side", "monsters", "--note", "they mutter")),
        ("e1.round", (*E, "round")),
        ("e1.reroll", (*E, "reroll-reaction")),
        ("e1.fight", (*E, "fight", "--side", "monsters", "--note", "they charge")),
        ("e1.early.evade", (*E, "evade")),
        ("e1.combat-round", (*E, "round")),
        ("e1.conclude", (*E, "conclude", "--outcome", "slain", "--note", "three goblins slain")),
        ("e1.late.round", (*E, "round")),
        ("e2.start", (*E, "start", "--setting", "wilderness", "--monsters", "4")),
        ("e2.check", (*E, "check-surprise")),
        ("e2.distance", (*E, "determine-distance")),
        ("e2.initiative", (*E, "roll-initiative")),
        ("e2.parley.lost-round", (*E, "parley")),
        ("e2.round", (*E, "round")),
        ("e2.evade", (*E, "evade")),
        ("e2.early.conclude", (*E, "conclude")),
        ("e2.pursuit", (*E, "decide-pursuit")),
        ("e3.start", (*E, "start", "--setting", "waterborne", "--party-aware", "--monsters-aware")),
        ("e3.check", (*E, "check-surprise")),
        ("e3.distance", (*E, "determine-distance")),
        ("e3.initiative", (*E, "roll-initiative")),
        ("e3.react", (*E, "react")),
        ("e3.secret-roll", ("roll", "d20", "--secret", "--purpose", "wandering check")),
        ("e3.evade", (*E, "evade")),
        ("e3.pursuit", (*E, "decide-pursuit")),
        *_closing(player_after_close=True),
    ]


def adnd_indoors_script(key: str) -> Script:
    """AD&D indoors: slipping away, a noisy party ambushed, hiding, a small room, caps, noisy monsters."""
    return [
        *_setup("adnd", key, ("Ayla", "--cha", "16"), ("Bo", "--speed", "90")),
        ("e1.start", (*E, "start", "--setting", "indoors", "--name", "sleeping ogre")),
        ("e1.check", (*E, "check-surprise")),
        ("e1.distance", (*E, "determine-distance")),
        ("e1.state.free", ("state",)),
        ("e1.early.roll-initiative", (*E, "roll-initiative")),
        ("e1.avoid.monsters", (*E, "avoid", "--side", "monsters")),
        ("e1.avoid", (*E, "avoid")),
        ("e2.start", (*E, "start", "--setting", "indoors", "--party-noisy")),
        ("e2.check", (*E, "check-surprise")),
        ("e2.distance", (*E, "determine-distance")),
        ("e2.free", (*E, "take-free-action", "--action", "attack", "--note", "the ogre swings")),
        ("e2.initiative", (*E, "roll-initiative")),
        ("e2.round", (*E, "round")),
        ("e2.react", (*E, "react", "--speaker", "Bo")),
        ("e2.evade", (*E, "evade")),
        ("e2.pursuit", (*E, "decide-pursuit", "--let-go")),
        *_aware_to_conclusion(
            "e3", "--setting", "indoors", "--hiding", "--line-of-sight", "40", "--light-radius", "10",
        ),
        *_aware_to_conclusion("e4", "--setting", "indoors", "--area", "20", "--vision", "60"),
        *_aware_to_conclusion(
            "e5", "--setting", "indoors", "--line-of-sight", "30", "--area", "50", "--vision", "20", "--monsters-noisy",
            end=("avoid",),
        ),
        *_closing(),
    ]


def adnd_outdoors_script(key: str) -> Script:
    """AD&D outdoors: every terrain with both sides aware, then mixed terrain with surprise."""
    steps = _setup("adnd", key, ("Ayla",), ("Bo", "--speed", "90"))
    mixed = ("--terrain", "plains", "--terrain", "scrub", "--terrain", "marsh")
    for terrain in TERRAINS:
        sight = ("--line-of-sight", "100") if terrain == "hills" else ()
        steps += _aware_to_conclusion(terrain, "--setting", "outdoors", "--terrain", terrain, *sight)
    return [
        *steps,
        ("mixed.start", (*E, "start", "--setting", "outdoors", *mixed)),
        ("mixed.check", (*E, "check-surprise")),
        ("mixed.distance", (*E, "determine-distance")),
        ("mixed.free", (*E, "take-free-action", "--action", "move")),
        ("mixed.initiative", (*E, "roll-initiative")),
        ("mixed.conclude", (*E, "conclude")),
        *_closing(),
    ]


def explore_script(key: str) -> Script:
    """Seed 004: single free actions, monsters closing to melee, mutual surprise, a pursuit, waterborne."""
    return [
        *_setup("explore", key, ("Ayla", "--cha", "16", "--wis", "13"), ("Bo", "--speed", "90", "--wis", "6")),
        ("e1.start", (*E, "start")),
        ("e1.check", (*E, "check-surprise")),
        ("e1.distance", (*E, "determine-distance")),
        ("e1.free", (*E, "take-free-action", "--action", "move", "--note", "to the door")),
        ("e1.initiative", (*E, "roll-initiative")),
        ("e1.react", (*E, "react", "--speaker", "Ayla")),
        ("e1.conclude", (*E, "conclude")),
        ("e2.start", (*E, "start", "--unintelligent")),
        ("e2.check", (*E, "check-surprise")),
        ("e2.distance", (*E, "determine-distance", "--value", "60")),
        ("e2.free", (*E, "take-free-action")),
        ("e2.round", (*E, "round")),
        ("e2.conclude", (*E, "conclude", "--outcome", "fled")),
        ("e3.start", (*E, "start")),
        ("e3.check", (*E, "check-surprise")),
        ("e3.distance", (*E, "determine-distance")),
        ("e3.conclude", (*E, "conclude")),
        ("e4.start", (*E, "start", "--setting", "wilderness", "--party-aware", "--monsters-aware", "--unintelligent")),
        ("e4.check", (*E, "check-surprise")),
        ("e4.distance", (*E, "determine-distance")),
        ("e4.initiative", (*E, "roll-initiative")),
        ("e4.react.unintelligent", (*E, "react")),
        ("e4.evade", (*E, "evade", "--side", "monsters")),
        ("e4.pursuit.undecided", (*E, "decide-pursuit")),
        ("e4.pursuit", (*E, "decide-pursuit", "--pursue", "--note", "after them")),
        ("e5.start", (*E, "start", "--setting", "waterborne")),
        ("e5.check", (*E, "check-surprise")),
        ("e5.distance", (*E, "determine-distance")),
        ("e5.initiative", (*E, "roll-initiative")),
        ("e5.conclude", (*E, "conclude")),
        *_closing(),
    ]


def _count_events(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed command line in ``cwd`` as conftest's ``hexlog`` fixture does (usable from module fixtures)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEXLOG_")}
    return subprocess.run(  # noqa: S603 - our own console script
        [str(HEXLOG), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False,
    )


@dataclass(frozen=True)
class Ran:
    """One invocation of a script: what it printed and the events of ./hexlog.db before and after."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    before: int
    after: int

    @property
    def wrote(self) -> int:
        """How many events the invocation appended."""
        return self.after - self.before


@dataclass(frozen=True)
class Played:
    """A campaign played from a script: its folder and each labelled invocation."""

    folder: Path
    steps: dict[str, Ran]

    def __getitem__(self, label: str) -> Ran:
        return self.steps[label]

    def ok(self, label: str) -> Ran:
        """The invocation, checked to have succeeded."""
        ran = self.steps[label]
        assert ran.returncode == 0, f"{label}: {ran.args} exited {ran.returncode}: {ran.stderr}"
        return ran

    @property
    def db(self) -> Path:
        """The campaign's database."""
        return self.folder / "hexlog.db"


def play(folder: Path, script: Script) -> Played:
    """Run every invocation of the script in order, whatever each one's exit code."""
    folder.mkdir(parents=True)
    db = folder / "hexlog.db"
    steps = {}
    for label, args in script:
        before = _count_events(db)
        result = run(folder, *args)
        steps[label] = Ran(args, result.returncode, result.stdout, result.stderr, before, _count_events(db))
    return Played(folder, steps)


SCRIPTS = {
    "ose": ose_script(OSE_SECRET),
    "adnd_indoors": adnd_indoors_script(ADND_INDOORS_SECRET),
    "adnd_outdoors": adnd_outdoors_script(ADND_OUTDOORS_SECRET),
    "explore": explore_script(EXPLORE_SECRET),
}


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Played]:
    """Every script played once, side by side (each in its own folder)."""
    root = tmp_path_factory.mktemp("encounters")
    with ThreadPoolExecutor(max_workers=min(len(SCRIPTS), os.cpu_count() or 1)) as pool:
        futures = {name: pool.submit(play, root / name, script) for name, script in SCRIPTS.items()}
        return {name: future.result() for name, future in futures.items()}


@pytest.fixture(scope="module")
def ose(campaigns: dict[str, Played]) -> Played:
    """The OSE campaign."""
    return campaigns["ose"]


@pytest.fixture(scope="module")
def adnd_indoors(campaigns: dict[str, Played]) -> Played:
    """The AD&D indoor campaign."""
    return campaigns["adnd_indoors"]


@pytest.fixture(scope="module")
def adnd_outdoors(campaigns: dict[str, Played]) -> Played:
    """The AD&D outdoor campaign."""
    return campaigns["adnd_outdoors"]


@pytest.fixture(scope="module")
def explore(campaigns: dict[str, Played]) -> Played:
    """The seed-004 campaign."""
    return campaigns["explore"]


# ------------------------------------------------------------------------------------------------
# Reading what the command line printed
# ------------------------------------------------------------------------------------------------

SUBCOMMANDS = frozenset({
    "start", "check-surprise", "determine-distance", "take-free-action", "roll-initiative", "react",
    "reroll-reaction", "parley", "wait", "round", "fight", "evade", "decide-pursuit", "avoid", "conclude",
})
ACTIONS_OFFER = {"react", "parley", "wait", "round", "fight", "evade", "conclude"}
PHASE_TRIGGERS = {
    "IDLE": {"start"},
    "SURPRISE": {"check-surprise"},
    "DISTANCE": {"determine-distance"},
    "FREE_ACTION": {"avoid", "take-free-action"},
    "INITIATIVE": {"roll-initiative"},
    "ACTIONS": {"avoid", "react", "reroll-reaction", "parley", "wait", "round", "fight", "evade", "conclude"},
    "EVASION": {"decide-pursuit"},
    "COMBAT": {"round", "conclude"},
    "CONCLUDED": {"start"},
}


def subcommands_in(text: str) -> set[str]:
    """The encounter subcommands a line names; a trigger spelt with an underscore fails the test."""
    words = set(re.findall(r"[a-z][a-z_-]*", text))
    underscored = {w for w in words if "_" in w}
    assert not underscored, f"trigger names instead of subcommands in {text!r}"
    return words & SUBCOMMANDS


def next_step(stdout: str) -> tuple[str, set[str]]:
    """The phase and the offered subcommands of an encounter command's closing ``-> PHASE; next: ...`` line."""
    found = re.findall(r"^-> ([A-Z_]+); next: (.*)$", stdout, re.MULTILINE)
    assert len(found) == 1, stdout
    phase, offered = found[0]
    return phase, subcommands_in(offered)


def state_offer(stdout: str) -> tuple[str, set[str]]:
    """The phase ``hexlog state`` shows for the encounter and the subcommands on the line after it."""
    found = re.search(r"^encounter: phase ([A-Z_]+)\n(.*)$", stdout, re.MULTILINE)
    assert found is not None, stdout
    return found[1], subcommands_in(found[2])


def one_line(text: str) -> str:
    """Error text without the boxes and wrapping of the usage errors."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def log_texts(stdout: str) -> list[str]:
    """The text of each line of ``hexlog log``, without the version and the time."""
    texts = []
    for line in stdout.splitlines():
        found = re.fullmatch(r"\s*\d+  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  (.*)", line)
        assert found is not None, line
        texts.append(found[1])
    return texts


@dataclass(frozen=True)
class Distance:
    """A ``distance ...`` line taken apart."""

    line: str
    value: int
    unit: str
    flags: str
    rule: str
    steps: list[str]
    rolls: list[int]


DISTANCE_LINE = re.compile(
    r"distance (?P<value>\d+) (?P<unit>ft|yd)(?: \((?P<flags>[^)]*)\))? by (?P<rule>[^:]+): (?P<steps>.*?)"
    r"(?: \[rolls (?P<rolls>#\d+(?:, #\d+)*)\])?",
)


def distance_of(stdout: str) -> Distance:
    """The one distance line a ``determine-distance`` printed."""
    lines = [line for line in stdout.splitlines() if line.startswith("distance ")]
    assert len(lines) == 1, stdout
    found = DISTANCE_LINE.fullmatch(lines[0])
    assert found is not None, lines[0]
    rolls = [int(n) for n in re.findall(r"\d+", found["rolls"] or "")]
    return Distance(
        lines[0], int(found["value"]), found["unit"], found["flags"] or "", found["rule"],
        found["steps"].split("; "), rolls,
    )


def check_arithmetic(steps: list[str]) -> int:
    """Follow the steps of a distance, checking each one's sums, and give the value they arrive at."""
    current = -1
    for step in steps:
        if found := re.fullmatch(r"roll \S+ = (\d+)", step):
            current = int(found[1])
        elif found := re.fullmatch(r"x(\d+) (ft|yd) = (\d+) \2(?: \(melee range\))?", step):
            assert int(found[3]) == current * int(found[1]), step
            current = int(found[3])
        elif found := re.fullmatch(r"cap by .*?(\d+) (?:ft|yd) -> (\d+) (?:ft|yd)", step):
            assert int(found[2]) == min(current, int(found[1])), step
            current = int(found[2])
        elif found := re.fullmatch(r"surprise: -(\d+) segments x (\d+) ft -> (\d+) ft", step):
            assert int(found[3]) == current - int(found[1]) * int(found[2]), step
            current = int(found[3])
        elif found := re.fullmatch(r"area (\d+) ft: (\d+) ft fits", step):
            assert int(found[2]) == current <= int(found[1]), step
        elif found := re.fullmatch(
            r"(?:\w+: -1 on .*|room 20 x 20 ft: \d) -> (\d+)(?: ft)?(?: \(melee range\))?"
            r"|the referee set (\d+) (?:ft|yd)",
            step,
        ):
            current = int(found[1] or found[2])
    return current


def roll_faces(stdout: str, dice: str) -> list[int]:
    """The faces of the one roll of ``dice`` an invocation printed."""
    found = re.findall(rf"^roll #\d+ {re.escape(dice)} -> ([\d+]+) = \d+ for ", stdout, re.MULTILINE)
    assert len(found) == 1, stdout
    return [int(f) for f in found[0].split("+")]


def rolls_in_log(stdout: str) -> int:
    """How many dice rolls a referee's ``hexlog log`` shows."""
    return sum(1 for text in log_texts(stdout) if re.match(r"roll #\d+ ", text))


# ------------------------------------------------------------------------------------------------
# Each subcommand's happy path
# ------------------------------------------------------------------------------------------------


class TestStartAndSurprise:
    def test_start_describes_the_situation_and_rates_the_movement(self, ose):
        """start records the place, the monsters and who is aware, and the slowest member's pace."""
        ran = ose.ok("e1.start")
        begins = "encounter 1 'goblin guards' begins (ose): dungeon, 3 monsters, intelligent,"
        assert f"{begins} party aware, monsters aware" in ran.stdout
        movement = "encounter movement: party 30 ft/round (slowest: Bo, 90), monsters 40 ft/round; at most 60 rounds"
        assert movement in ran.stdout
        assert next_step(ran.stdout) == ("SURPRISE", {"check-surprise"})
        assert ran.wrote == 3

    def test_a_second_encounter_is_numbered_and_reads_yards_outdoors(self, ose):
        """A new encounter after a concluded one counts on; outdoors the pace is in yards."""
        ran = ose.ok("e2.start")
        assert "encounter 2 begins (ose): wilderness, 4 monsters, intelligent" in ran.stdout
        assert "party 30 yd/round (slowest: Bo, 90), monsters 40 yd/round" in ran.stdout

    def test_check_surprise_rolls_nothing_when_both_sides_are_aware(self, ose):
        """Aware sides do not roll, so nobody gains an advantage and no die is used."""
        ran = ose.ok("e1.check")
        nobody = "surprise: party not rolled (aware: no roll); monsters not rolled (aware: no roll); no advantage"
        assert nobody in ran.stdout
        assert "roll #" not in ran.stdout
        assert next_step(ran.stdout) == ("DISTANCE", {"determine-distance"})

    def test_check_surprise_rolls_a_d6_a_side_and_names_who_gains_the_advantage(self, ose):
        """OSE: the party alone surprised (d6 <= 2) gives the monsters the round; four of them surround it."""
        ran = ose.ok("e2.check")
        assert re.search(r"^roll #5 1d6 -> [12] = [12] for encounter\.surprise\.party$", ran.stdout, re.MULTILINE)
        assert re.search(r"^roll #6 1d6 -> [3-6] = [3-6] for encounter\.surprise\.monsters$", ran.stdout, re.MULTILINE)
        assert re.search(
            r"surprise: party d6=[12] SURPRISED; monsters d6=[3-6] not surprised; "
            r"monsters gain the advantage \(round\) \[rolls #5, #6\]",
            ran.stdout,
        )
        assert "the party is surrounded: 4 monsters surprised it in the open (at least 3 encircle)" in ran.stdout

    def test_a_noisy_party_cannot_surprise_and_a_surprised_side_loses_segments(self, adnd_indoors):
        """AD&D: the monsters do not roll against a noisy party; the surprised party loses its face in segments."""
        ran = adnd_indoors.ok("e2.check")
        assert ran.stdout.count("roll #") == 1
        face = re.search(r"party d6=(\d) SURPRISED, loses (\d) segments?", ran.stdout)
        assert face is not None, ran.stdout
        assert face[1] == face[2]
        assert "monsters not rolled (the party make noise, so the monsters cannot be surprised by them)" in ran.stdout
        assert "monsters gain the advantage (segments)" in ran.stdout

    def test_explore_surprise_names_the_characters_caught(self, explore):
        """Seed 004 dungeon: WIS adjusts each character, and the surprised ones are named."""
        ran = explore.ok("e2.check")
        assert re.search(r"party d6=\d SURPRISED \[d6 = \d, surprised at <= 2: .*WIS \d+ [+-]\d -> \d.*; "
                         r"surprised: [A-Za-z, ]+\]; monsters d6=\d not surprised; "
                         r"monsters gain the advantage \(single action\)", ran.stdout)


class TestDistanceStep:
    def test_determine_distance_rolls_and_leads_to_initiative(self, ose):
        """With no advantage the distance is rolled and initiative comes next."""
        ran = ose.ok("e1.distance")
        assert re.search(r"^roll #0 2d6 -> \d\+\d = \d+ for encounter\.distance$", ran.stdout, re.MULTILINE)
        assert next_step(ran.stdout) == ("INITIATIVE", {"roll-initiative"})

    def test_the_referee_may_set_an_obvious_distance_without_a_roll(self, explore):
        """--value records the referee's distance: rule 'referee', no die."""
        ran = explore.ok("e2.distance")
        assert distance_of(ran.stdout).line == "distance 60 ft by referee: the referee set 60 ft"
        assert "roll #" not in ran.stdout
        assert next_step(ran.stdout)[0] == "FREE_ACTION"

    def test_both_sides_surprised_in_the_004_dungeon_go_straight_to_combat(self, explore):
        """Seed 004: mutual surprise skips the free actions and initiative."""
        ran = explore.ok("e3.distance")
        assert "both choose combat - both sides surprised: straight to combat, no free actions" in ran.stdout
        assert next_step(ran.stdout) == ("COMBAT", {"round", "conclude"})


class TestFreeActions:
    def test_adnd_surprisers_take_their_free_segments(self, adnd_indoors):
        """The monsters that surprised the party use as many segments as it lost, then initiative."""
        lost = re.search(r"loses (\d) segments?", adnd_indoors.ok("e2.check").stdout)
        assert lost is not None
        ran = adnd_indoors.ok("e2.free")
        assert f"monsters use {lost[1]} free segments: attack - the ogre swings" in ran.stdout
        assert next_step(ran.stdout) == ("INITIATIVE", {"roll-initiative"})

    def test_the_004_dungeon_gives_the_surprising_party_one_free_action(self, explore):
        """Seed 004: a single free action, then initiative."""
        ran = explore.ok("e1.free")
        assert "party use a free single action: move - to the door" in ran.stdout
        assert next_step(ran.stdout) == ("INITIATIVE", {"roll-initiative"})

    def test_unintelligent_monsters_that_surprised_the_party_close_to_melee(self, explore):
        """Seed 004: beyond 30 ft the surprised party cannot flee; mindless monsters go straight to combat."""
        ran = explore.ok("e2.free")
        assert "monsters use a free single action: attack" in ran.stdout
        assert "monsters choose combat - non-intelligent monsters move directly to melee" in ran.stdout
        assert next_step(ran.stdout) == ("COMBAT", {"round", "conclude"})
        assert "combat round 1: party, monsters may act" in explore.ok("e2.round").stdout


class TestInitiative:
    def test_roll_initiative_rolls_a_d6_a_side_and_names_who_acts_first(self, ose):
        """The higher d6 acts first, and the actions phase offers every choice."""
        ran = ose.ok("e1.initiative")
        found = re.search(r"initiative: party d6=(\d), monsters d6=(\d): party act first \[rolls #1, #2\]", ran.stdout)
        assert found is not None, ran.stdout
        assert int(found[1]) > int(found[2])
        assert next_step(ran.stdout) == ("ACTIONS", ACTIONS_OFFER)

    def test_a_tie_means_both_sides_act_at_once(self, adnd_indoors):
        """The rules' tie option (simultaneous) is applied and said."""
        ran = adnd_indoors.ok("e2.initiative")
        tie = r"initiative: party d6=(\d), monsters d6=\1, tie -> simultaneous: both act at once"
        assert re.search(tie, ran.stdout)

    def test_the_lone_unsurprised_side_gains_a_free_round_without_a_roll(self, ose):
        """OSE: only the monsters are not surprised, so they act first and alone; no die is rolled."""
        ran = ose.ok("e2.initiative")
        assert "roll #" not in ran.stdout
        assert "initiative: no roll: monsters act first; monsters gain a free round" in ran.stdout
        phase, offered = next_step(ran.stdout)
        assert phase == "ACTIONS"
        assert {"react", "wait", "round", "conclude", "fight"} <= offered
        assert "fight --side monsters" in ran.stdout

    def test_the_surprised_party_cannot_act_in_the_lost_round(self, ose):
        """parley before round 1 passes is refused with the reason, and nothing is written."""
        ran = ose["e2.parley.lost-round"]
        assert ran.returncode == 1
        assert "the party are surprised and cannot act in the first round" in ran.stderr
        assert ran.wrote == 0
        played = ose.ok("e2.round")
        assert "round 1: monsters may act (the party are surprised and cannot act in the first round)" in played.stdout
        assert next_step(played.stdout) == ("ACTIONS", ACTIONS_OFFER)


class TestReactions:
    def test_react_adds_the_speakers_cha_modifier(self, ose):
        """2d6 + Ayla's CHA 16 (+1) read on the reaction table."""
        ran = ose.ok("e1.react")
        found = re.search(
            r"reaction 2d6=(\d+), Ayla speaks \(CHA 16, \+1\): "
            r"total (\d+) -> uncertain \(Uncertain, neutral\) \[rolls #3\]",
            ran.stdout,
        )
        assert found is not None, ran.stdout
        assert int(found[2]) == int(found[1]) + 1
        assert "for encounter.reaction" in ran.stdout

    def test_an_uncertain_reaction_cannot_be_rerolled_before_a_round_passes(self, ose):
        """reroll-reaction in the same round is refused with the reason and writes nothing."""
        ran = ose["e1.reroll.too-soon"]
        assert ran.returncode == 1
        assert "a round must pass after the uncertain reaction" in ran.stderr
        assert ran.wrote == 0
        assert "reroll-reaction" not in next_step(ose.ok("e1.react").stdout)[1]

    def test_a_refusal_names_the_subcommand_as_typed(self, ose):
        """The refusal speaks of 'reroll-reaction', as the illegal-trigger errors do."""
        assert "'reroll-reaction' refused in phase ACTIONS" in ose["e1.reroll.too-soon"].stderr

    def test_reroll_reaction_after_a_round_rolls_again_for_the_same_speaker(self, ose):
        """Once a round has passed the reroll is offered, rolled once, and then no longer offered."""
        assert "reroll-reaction" in next_step(ose.ok("e1.round").stdout)[1]
        ran = ose.ok("e1.reroll")
        assert re.search(r"reaction re-rolled 2d6=\d+, Ayla speaks \(CHA 16, \+1\): total \d+ -> \w+", ran.stdout)
        assert "for encounter.reaction.reroll" in ran.stdout
        assert "reroll-reaction" not in next_step(ran.stdout)[1]

    def test_unintelligent_monsters_roll_no_reaction_under_004(self, explore):
        """react is refused with the rule's reason and writes nothing."""
        ran = explore["e4.react.unintelligent"]
        assert ran.returncode == 1
        assert "non-intelligent monsters roll no reaction" in ran.stderr
        assert ran.wrote == 0


class TestChoices:
    def test_parley_records_the_partys_choice(self, ose):
        """parley stays in the actions phase."""
        ran = ose.ok("e1.parley")
        assert "party choose parley - we come in peace" in ran.stdout
        assert next_step(ran.stdout)[0] == "ACTIONS"

    def test_wait_records_a_sides_choice(self, ose):
        """wait --side monsters is the monsters' choice."""
        ran = ose.ok("e1.wait")
        assert "monsters choose wait - they mutter" in ran.stdout
        assert next_step(ran.stdout)[0] == "ACTIONS"

    def test_round_lets_a_round_pass_with_both_sides_acting(self, ose):
        """A plain round names who may act."""
        assert "round 1: party, monsters may act" in ose.ok("e1.round").stdout

    def test_the_first_round_after_adnd_surprise_names_the_lost_segments(self, adnd_indoors):
        """The surprised party loses its segments of round 1."""
        ran = adnd_indoors.ok("e2.round")
        lost = r"round 1: party, monsters may act \(the party lose the first \d segments? of this round\)"
        assert re.search(lost, ran.stdout)

    def test_fight_starts_combat_and_rounds_count_on(self, ose):
        """fight moves to combat, where only round and conclude are offered."""
        ran = ose.ok("e1.fight")
        assert "monsters choose combat - they charge" in ran.stdout
        assert next_step(ran.stdout) == ("COMBAT", {"round", "conclude"})
        assert "combat round 2: party, monsters may act" in ose.ok("e1.combat-round").stdout

    def test_evade_leaves_the_pursuit_to_decide(self, ose):
        """evade moves to evasion, where only decide-pursuit is offered."""
        ran = ose.ok("e2.evade")
        assert "party choose evasion" in ran.stdout
        assert next_step(ran.stdout) == ("EVASION", {"decide-pursuit"})

    def test_conclude_ends_the_encounter_and_advances_the_clock_a_turn(self, ose):
        """The outcome and the note are recorded; at least one turn passes."""
        ran = ose.ok("e1.conclude")
        assert "encounter 1 ends: slain after 2 round(s); 1 turn(s) pass: three goblins slain" in ran.stdout
        assert "clock advances 1 turn / 60 rounds (600 s): encounter 1 (goblin guards): slain" in ran.stdout
        assert next_step(ran.stdout) == ("CONCLUDED", {"start"})


class TestPursuit:
    def test_without_a_choice_monsters_follow_the_reaction_already_rolled(self, ose):
        """A hostile reaction (at most 5) means pursuit, decided by the reaction, with no new roll."""
        ran = ose.ok("e3.pursuit")
        pursue = r"monsters pursue as the party flee, decided by reaction \(reaction [1-5] <= 5: pursuit suggested\)"
        assert re.search(pursue, ran.stdout)
        assert "roll #" not in ran.stdout
        assert "encounter 3 ends: pursuit after 0 round(s)" in ran.stdout
        assert next_step(ran.stdout) == ("CONCLUDED", {"start"})

    def test_without_a_choice_or_a_reaction_one_is_rolled(self, ose):
        """No reaction yet: 2d6 is rolled for the monsters, and above 5 they let the party go."""
        ran = ose.ok("e2.pursuit")
        assert re.search(r"^roll #8 2d6 -> \d\+\d = \d+ for encounter\.reaction$", ran.stdout, re.MULTILINE)
        let_go = r"monsters let them go as the party flee, decided by reaction "
        assert re.search(let_go + r"\(reaction \d+ > 5: no pursuit suggested\) \[rolls #8\]", ran.stdout)
        assert "encounter 2 ends: evaded after 1 round(s); 1 turn(s) pass: the monsters let the party go" in ran.stdout

    def test_let_go_overrides_the_reaction(self, adnd_indoors):
        """--let-go is the referee's decision even when the reaction suggested pursuit."""
        ran = adnd_indoors.ok("e2.pursuit")
        let_go = r"monsters let them go as the party flee, decided by referee "
        assert re.search(let_go + r"\(reaction [1-5] <= 5: pursuit suggested\)", ran.stdout)
        assert "ends: evaded" in ran.stdout

    def test_pursue_is_the_players_decision_when_the_monsters_flee(self, explore):
        """--pursue: the party pursues, decided by the players."""
        ran = explore.ok("e4.pursuit")
        assert "party pursue as the monsters flee, decided by players" in ran.stdout
        assert "encounter 4 ends: pursuit" in ran.stdout

    def test_the_players_must_say_whether_the_party_pursues(self, explore):
        """Without --pursue or --let-go a party pursuit is a usage error and nothing is written."""
        ran = explore["e4.pursuit.undecided"]
        assert ran.returncode == 2
        assert "the players decide freely whether the party pursues" in ran.stderr
        assert ran.wrote == 0


class TestAvoid:
    def test_the_side_that_alone_surprised_slips_away_at_twenty_feet_or_more(self, adnd_indoors):
        """AD&D add20: the party, 20-30 ft from the surprised monsters, avoids the encounter."""
        ran = adnd_indoors.ok("e1.avoid")
        avoid = r"party choose avoid - add20: the party are [23]0 ft away \(need 20 ft\): they slip away unnoticed"
        assert re.search(avoid, ran.stdout)
        assert "encounter 1 ends: avoided after 0 round(s); 1 turn(s) pass" in ran.stdout
        assert next_step(ran.stdout) == ("CONCLUDED", {"start"})

    def test_the_surprised_side_cannot_avoid(self, adnd_indoors):
        """avoid --side monsters is refused with the reason, and nothing is written."""
        ran = adnd_indoors["e1.avoid.monsters"]
        assert ran.returncode == 1
        why = "only a side that alone surprised the other, or faces a noisy one, may avoid it (advantage: party)"
        assert why in ran.stderr
        assert ran.wrote == 0

    def test_a_side_facing_noisy_monsters_may_avoid_them_during_the_actions(self, adnd_indoors):
        """AD&D: noisy monsters let the party slip away from the actions phase too."""
        assert "avoid" in next_step(adnd_indoors.ok("e5.initiative").stdout)[1]
        ran = adnd_indoors.ok("e5.end")
        assert "party choose avoid - the monsters make noise: the party slip away before they are noticed" in ran.stdout
        assert "encounter 5 ends: avoided" in ran.stdout


# ------------------------------------------------------------------------------------------------
# Every setting of every ruleset: the rule and the steps behind each distance
# ------------------------------------------------------------------------------------------------

N = r"\d+"
SURPRISED_1D3_FT = [r"surprise: 1d3 x 10 ft", r"roll 1d3 = [1-3]", r"x10 ft = \d+ ft"]
OUTDOORS = "adnd.outdoors 18d4x10ft"
DISTANCES = [
    # (campaign, label, rule, step patterns, flags)
    ("ose", "e1.distance", "ose.dungeon 2d6x10ft", [r"roll 2d6 = \d+", r"x10 ft = \d+ ft"], ""),
    ("ose", "e2.distance", "ose.wilderness 1d4x10yd (surprised)",
     [r"surprise \(either side surprised\): 1d4 x 10 yd", r"roll 1d4 = [1-4]", r"x10 yd = \d+ yd"], ""),
    ("ose", "e3.distance", "ose.waterborne 4d6x10yd", [r"roll 4d6 = \d+", r"x10 yd = \d+ yd"], ""),
    ("adnd_indoors", "e1.distance", "adnd.indoors 1d3x10ft (surprised)", SURPRISED_1D3_FT, ""),
    ("adnd_indoors", "e2.distance", "adnd.indoors 1d3x10ft (surprised)", SURPRISED_1D3_FT, ""),
    ("adnd_indoors", "e3.distance", "adnd.indoors 1d4x10ft (hiding)",
     [r"the other side hid: 1d4 x 10 ft", r"roll 1d4 = [1-4]", r"x10 ft = \d+ ft",
      r"cap by line of sight 40 ft -> \d+ ft", r"cap by light: 2 x 10 ft = 20 ft -> \d+ ft"], ""),
    ("adnd_indoors", "e4.distance", "adnd.indoors (1d6+4)x10ft",
     [r"roll 1d6\+4 = \d+", r"x10 ft = \d+ ft", r"roll 1d6 = [1-6]",
      r"room 20 x 20 ft: [1-6] -> (5|10|20) ft( \(melee range\))?", r"cap by vision 60 ft -> \d+ ft"], ""),
    ("adnd_indoors", "e5.distance", "adnd.indoors (1d6+4)x10ft",
     [r"roll 1d6\+4 = \d+", r"x10 ft = \d+ ft", r"cap by line of sight 30 ft -> 30 ft", r"area 50 ft: 30 ft fits",
      r"cap by vision 20 ft -> 20 ft"], ""),
    ("adnd_outdoors", "plains.distance", OUTDOORS, [r"roll 18d4 = \d+", r"terrain plains: no change to the dice", r"x10 ft = \d+ ft"], ""),
    ("adnd_outdoors", "desert.distance", OUTDOORS, [r"roll 18d4 = \d+", r"terrain desert: no change to the dice", r"x10 ft = \d+ ft"], ""),
    ("adnd_outdoors", "hills.distance", OUTDOORS,
     [r"roll 18d4 = \d+", r"terrain hills: no change to the dice", r"x10 ft = \d+ ft", r"cap by line of sight 100 ft -> 100 ft"], ""),
    ("adnd_outdoors", "mountains.distance", OUTDOORS, [r"roll 18d4 = \d+", r"terrain mountains: no change to the dice", r"x10 ft = \d+ ft"], ""),
    ("adnd_outdoors", "scrub.distance", OUTDOORS,
     [r"roll 18d4 = \d+", r"scrub: -1 on each die showing 3, 4 -> \d+", r"x10 ft = \d+ ft"], ""),
    ("adnd_outdoors", "marsh.distance", OUTDOORS,
     [r"roll 18d4 = \d+", r"marsh: -1 on each die showing 2, 3, 4 -> \d+", r"x10 ft = \d+ ft"], ""),
    ("adnd_outdoors", "forest.distance", OUTDOORS,
     [r"roll 18d4 = \d+", r"forest: -1 on every die -> \d+", r"x10 ft = \d+ ft"], ""),
    ("adnd_outdoors", "mixed.distance", OUTDOORS,
     [r"roll 18d4 = \d+", r"mixed terrain \(plains, scrub, marsh\): only marsh applies",
      r"marsh: -1 on each die showing 2, 3, 4 -> \d+", r"x10 ft = \d+ ft",
      r"surprise: -[1-6] segments x 30 ft -> \d+ ft"], ""),
    ("explore", "e1.distance", "explore.dungeon 1d3x10ft (surprised)",
     [r"surprise \(a side surprised\): 1d3 x 10 ft", r"roll 1d3 = [1-3]", r"x10 ft = \d+ ft"], ""),
    ("explore", "e2.distance", "referee", [r"the referee set 60 ft"], ""),
    ("explore", "e3.distance", "explore.dungeon 1d3x10ft (surprised)",
     [r"surprise \(a side surprised\): 1d3 x 10 ft", r"roll 1d3 = [1-3]", r"x10 ft = \d+ ft"], ""),
    ("explore", "e4.distance", "explore.wilderness 4d6x10yd", [r"roll 4d6 = \d+", r"x10 yd = \d+ yd"], ""),
    ("explore", "e5.distance", "explore.waterborne 1d3x10yd (surprised)",
     [r"surprise \(a side surprised\): 1d3 x 10 yd", r"roll 1d3 = 1", r"x10 yd = 10 yd",
      r"10 yd <= 10 yd: melee or missile attacks possible"], "melee and missiles possible"),
]
TERRAIN_FACES = {"scrub": {3, 4}, "marsh": {2, 3, 4}, "forest": {1, 2, 3, 4}, "mixed": {2, 3, 4}}


class TestDistanceRules:
    @pytest.mark.parametrize("case", DISTANCES, ids=[f"{c}-{lab}" for c, lab, *_ in DISTANCES])
    def test_each_distance_names_its_rule_and_every_step(self, campaigns, case):
        """determine-distance prints the rule and each step, the sums add up, and hexlog log shows the same line."""
        campaign, label, rule, steps, flags = case
        played = campaigns[campaign]
        ran = played.ok(label)
        distance = distance_of(ran.stdout)
        assert distance.rule == rule
        assert distance.flags == flags
        assert len(distance.steps) == len(steps), distance.steps
        for step, pattern in zip(distance.steps, steps, strict=True):
            assert re.fullmatch(pattern, step), (step, pattern)
        assert check_arithmetic(distance.steps) == distance.value
        rolled = [int(n) for n in re.findall(r"^roll #(\d+) ", ran.stdout, re.MULTILINE)]
        assert distance.rolls == rolled
        assert distance.line in log_texts(played.ok("log.referee").stdout)

    @pytest.mark.parametrize("terrain", sorted(TERRAIN_FACES))
    def test_a_terrain_takes_one_from_each_die_showing_its_faces(self, adnd_outdoors, terrain):
        """The terrain's sum is re-derived from the printed faces of the 18d4."""
        ran = adnd_outdoors.ok(f"{terrain}.distance")
        faces = roll_faces(ran.stdout, "18d4")
        expected = sum(f - 1 if f in TERRAIN_FACES[terrain] else f for f in faces)
        step = next(s for s in distance_of(ran.stdout).steps if " -1 on " in s)
        assert step.endswith(f"-> {expected}")

    def test_the_start_line_records_the_terrain_and_the_indoor_limits(self, adnd_outdoors, adnd_indoors):
        """What the referee said about the place is in the log before the distance uses it."""
        assert "terrain plains+scrub+marsh" in adnd_outdoors.ok("mixed.start").stdout
        assert "terrain forest" in adnd_outdoors.ok("forest.start").stdout
        assert "other side hiding, line of sight 40 ft, light radius 10 ft" in adnd_indoors.ok("e3.start").stdout
        assert "area 20 ft, vision 60 ft" in adnd_indoors.ok("e4.start").stdout
        assert "party noisy" in adnd_indoors.ok("e2.start").stdout

    def test_the_outdoor_distance_loses_the_surprise_segments(self, adnd_outdoors):
        """A9: the distance loses the largest face among the surprised sides, 30 ft a segment."""
        faces = [int(f) for f in re.findall(r"d6=(\d) SURPRISED", adnd_outdoors.ok("mixed.check").stdout)]
        assert faces
        assert f"surprise: -{max(faces)} segments x 30 ft" in adnd_outdoors.ok("mixed.distance").stdout

    @pytest.mark.parametrize("campaign", ["ose", "adnd_indoors", "adnd_outdoors", "explore"])
    def test_the_log_has_one_explained_distance_per_encounter(self, campaigns, campaign):
        """Every determine-distance that succeeded is in hexlog log with its rule, and nothing else is."""
        played = campaigns[campaign]
        determined = [
            label for label, ran in played.steps.items()
            if ran.args[1:2] == ("determine-distance",) and ran.returncode == 0
        ]
        logged = [t for t in log_texts(played.ok("log.referee").stdout) if t.startswith("distance ")]
        assert [distance_of(played[label].stdout).line for label in determined] == logged
        assert all(DISTANCE_LINE.fullmatch(line) for line in logged)


# ------------------------------------------------------------------------------------------------
# Refusals: a trigger the phase does not allow, and bad input
# ------------------------------------------------------------------------------------------------

ILLEGAL = [
    ("ose", "idle.check-surprise", "check-surprise", "IDLE"),
    ("ose", "e1.early.determine-distance", "determine-distance", "SURPRISE"),
    ("ose", "e1.early.roll-initiative", "roll-initiative", "DISTANCE"),
    ("ose", "e1.early.react", "react", "INITIATIVE"),
    ("adnd_indoors", "e1.early.roll-initiative", "roll-initiative", "FREE_ACTION"),
    ("ose", "e1.early.take-free-action", "take-free-action", "ACTIONS"),
    ("ose", "e1.early.evade", "evade", "COMBAT"),
    ("ose", "e2.early.conclude", "conclude", "EVASION"),
    ("ose", "e1.late.round", "round", "CONCLUDED"),
]


class TestIllegalTriggers:
    @pytest.mark.parametrize("case", ILLEGAL, ids=[i[3] for i in ILLEGAL])
    def test_a_trigger_the_phase_does_not_allow_is_refused_and_writes_nothing(self, campaigns, case):
        """Exit 1 naming the subcommand, the state and the subcommands available there; the event count is unchanged."""
        campaign, label, subcommand, phase = case
        ran = campaigns[campaign][label]
        assert ran.returncode == 1
        assert ran.stdout == ""
        prefix = f"hexlog: error: encounter: '{subcommand}' is not allowed in state {phase}; allowed now: "
        assert ran.stderr.startswith(prefix), ran.stderr
        offered = subcommands_in(ran.stderr.removeprefix(prefix))
        assert offered
        assert offered <= PHASE_TRIGGERS[phase]
        assert ran.before > 0
        assert ran.after == ran.before


class TestBadInput:
    @pytest.mark.parametrize(
        ("label", "needle"),
        [
            ("e1.bad.parley", "side must be one of party, monsters, not 'dragons'"),
            ("e1.bad.fight", "side must be one of party, monsters, not 'dragons'"),
            ("e1.bad.evade", "side must be one of party, monsters, not 'dragons'"),
            ("e1.bad.react", "the party has no member called Nobody"),
            ("e1.bad.conclude", "name the outcome"),
        ],
    )
    def test_bad_input_during_the_actions_is_a_usage_error_and_writes_nothing(self, ose, label, needle):
        """Exit 2 with the problem named and nothing written; the encounter is still in its actions afterwards."""
        ran = ose[label]
        assert ran.returncode == 2
        assert needle in ran.stderr
        assert "Traceback" not in ran.stderr
        assert ran.wrote == 0
        assert next_step(ose.ok("e1.react").stdout)[0] == "ACTIONS"

    @pytest.mark.parametrize(
        ("campaign", "args", "needle"),
        [
            ("ose", ("--setting", "indoors"),
             "setting 'indoors' is not one of the ose settings: dungeon, waterborne, wilderness"),
            ("explore", ("--setting", "outdoors"),
             "setting 'outdoors' is not one of the explore settings: dungeon, waterborne, wilderness"),
            ("adnd_indoors", ("--setting", "dungeon"),
             "setting 'dungeon' is not one of the adnd settings: indoors, outdoors"),
            ("adnd_outdoors", ("--setting", "outdoors", "--terrain", "jungle"),
             "unknown terrain jungle; known: desert, forest, hills, marsh, mountains, plains, scrub"),
            ("adnd_outdoors", ("--setting", "outdoors", "--terrain", "forest", "--terrain", "swamp"),
             "unknown terrain swamp"),
            ("ose", ("--monsters", "0"), "Invalid value for '--monsters'"),
            ("adnd_indoors", ("--setting", "indoors", "--monster-speed", "481"), "1 to 480 feet per turn"),
        ],
        ids=["ose-setting", "explore-setting", "adnd-setting", "terrain", "mixed-terrain", "monsters-0", "speed"],
    )
    def test_a_bad_start_is_a_usage_error_and_writes_nothing(self, campaigns, campaign, args, needle):
        """Exit 2 with the problem named, and the database's event count is unchanged."""
        played = campaigns[campaign]
        before = _count_events(played.db)
        result = run(played.folder, *E, "start", *args)
        assert result.returncode == 2, result.stderr
        assert needle in one_line(result.stderr)
        assert "Traceback" not in result.stderr
        assert _count_events(played.db) == before

    def test_an_unknown_terrain_is_refused_under_every_ruleset(self, hexlog, tmp_path):
        """OSE: --terrain is refused (exit 2) instead of being recorded and ignored."""
        assert hexlog("init", "--ruleset", "ose").returncode == 0
        assert hexlog("party", "add", "Ayla").returncode == 0
        before = _count_events(tmp_path / "hexlog.db")
        result = hexlog(*E, "start", "--setting", "wilderness", "--terrain", "jungle")
        assert result.returncode == 2
        assert "terrain changes the distance only under adnd outdoors" in result.stderr
        assert _count_events(tmp_path / "hexlog.db") == before

    def test_an_encounter_needs_a_party(self, hexlog, tmp_path):
        """A campaign with nobody in the party cannot start one; the refusal says why and writes nothing."""
        assert hexlog("init").returncode == 0
        before = _count_events(tmp_path / "hexlog.db")
        result = hexlog(*E, "start")
        # a rule refusal (exit 1), not malformed input: the same command works once a member is added
        assert result.returncode == 1
        assert "the party has no members; add one first" in result.stderr
        assert _count_events(tmp_path / "hexlog.db") == before


# ------------------------------------------------------------------------------------------------
# hexlog state, audit, replay and the player's view
# ------------------------------------------------------------------------------------------------


class TestState:
    def test_state_shows_the_phase_and_the_subcommands_offered(self, ose):
        """During the actions, state names the phase and the hyphenated subcommands that may come next."""
        ran = ose.ok("e1.state.actions")
        assert state_offer(ran.stdout) == ("ACTIONS", ACTIONS_OFFER)
        assert "session s1: open, 3 rolls" in ran.stdout

    def test_state_offers_the_free_action_and_avoiding_to_the_surprisers(self, adnd_indoors):
        """After an AD&D party surprised the monsters: take-free-action or avoid."""
        ran = adnd_indoors.ok("e1.state.free")
        assert state_offer(ran.stdout) == ("FREE_ACTION", {"take-free-action", "avoid"})


RULESETS = {"ose": "ose", "adnd_indoors": "adnd", "adnd_outdoors": "adnd", "explore": "explore"}


class TestWholeCampaigns:
    @pytest.mark.parametrize("campaign", sorted(RULESETS))
    def test_a_campaign_played_through_the_cli_passes_the_audit(self, campaigns, campaign):
        """audit exits 0 and re-derives every roll the log shows, once the session is closed."""
        played = campaigns[campaign]
        assert f"started under {RULESETS[campaign]} " in played.ok("log.referee").stdout
        rolls = rolls_in_log(played.ok("log.referee").stdout)
        assert rolls > 0
        ran = played.ok("audit")
        assert f"1 session(s), {rolls} of {rolls} rolls re-derived" in ran.stdout
        assert ran.stdout.rstrip().endswith("OK")
        assert played.ok("close").wrote == 1

    @pytest.mark.parametrize("campaign", sorted(RULESETS))
    def test_a_campaign_played_through_the_cli_replays_to_the_stored_state(self, campaigns, campaign):
        """replay exits 0 and every projection equals the stored one."""
        ran = campaigns[campaign].ok("replay")
        assert "replay matches the stored state" in ran.stdout
        assert "differs" not in ran.stdout.lower()

    @pytest.mark.parametrize("campaign", sorted(RULESETS))
    def test_every_encounter_concluded_and_the_clock_moved_a_turn_each(self, campaigns, campaign):
        """Each encounter ends once, and each end advances the clock by a whole turn."""
        texts = log_texts(campaigns[campaign].ok("log.referee").stdout)
        begun = [t for t in texts if re.match(r"encounter \d+( '[^']*')? begins", t)]
        ended = [t for t in texts if re.match(r"encounter \d+ ends: ", t)]
        clock = [t for t in texts if t.startswith("clock advances 1 turn ")]
        assert len(begun) == len(ended) == len(clock) > 0


class TestPlayerView:
    def test_encounter_rolls_are_public_and_a_secret_roll_is_hidden_until_the_session_closes(self, ose):
        """Before close the player sees every encounter roll as the referee does, but not the secret one."""
        referee = log_texts(ose.ok("log.referee").stdout)
        player = log_texts(ose.ok("log.player").stdout)
        encounter_rolls = [t for t in referee if re.match(r"roll #\d+ .* for encounter\.", t)]
        assert encounter_rolls
        assert not [t for t in encounter_rolls if t.endswith("[secret]")]
        assert set(encounter_rolls) <= set(player)
        secret_line = next(t for t in referee if t.endswith("for wandering check [secret]"))
        nonce = re.match(r"roll #(\d+) ", secret_line)[1]
        assert f"roll #{nonce} (hidden by the referee until the session closes)" in player
        assert not [t for t in player if "[secret]" in t or "wandering check" in t]
        assert len(player) == len(referee)

    def test_the_secret_roll_is_shown_to_players_once_revealed(self, ose):
        """After close the player's view shows the secret roll's faces and purpose."""
        player = log_texts(ose.ok("log.player.closed").stdout)
        assert any(t.endswith("for wandering check [secret]") for t in player)

    @pytest.mark.parametrize("campaign", ["adnd_indoors", "adnd_outdoors", "explore"])
    def test_with_no_secret_roll_the_player_sees_what_the_referee_sees(self, campaigns, campaign):
        """Encounter rolls are all public: the two views of an open session are the same."""
        played = campaigns[campaign]
        assert "hidden by the referee" not in played.ok("log.player").stdout
        assert played.ok("log.player").stdout == played.ok("log.referee").stdout
