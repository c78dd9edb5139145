"""A chase through the command line: a direct dungeon chase, a vessel's evasion, the state, a refusal."""

from __future__ import annotations

import json
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

    @pytest.mark.parametrize(("given", "said"), [(("--slows-ft", "120"), "--slows-ft 120"), (("--stops",), "--stops")])
    def test_pursuers_slowed_or_stopped_by_no_obstacle_named_are_refused(self, hexlog, table, given, said):
        """What slows or stops the pursuers is an obstacle the referee names, so the line and the audit say what it
        was: a cost or a stop without one is refused, exit 2, nothing written."""
        assert hexlog("chase", "start", "--gap-ft", "30", "--fleeing-ft", "90", "--pursuers-ft", "120").returncode == 0
        before = _count_events(table)
        unnamed = hexlog("chase", "run", *given)
        assert unnamed.returncode == 2
        assert unnamed.stderr.strip() == (
            f"hexlog: error: {said} says what an obstacle does to the pursuers: name the obstacle "
            "(--obstacle, e.g. 'burning oil')"
        )
        assert _count_events(table) == before
        named = hexlog("chase", "run", "--obstacle", "a portcullis", *given)
        assert named.returncode == 0, named.stderr
        assert "a portcullis" in named.stdout


def _flight(hexlog, *before: tuple[str, ...]) -> None:
    """A waterborne encounter, both sides aware 10 yd (30 ft) apart; the party's ship flees the pirates (150)."""
    for args in (
        ("encounter", "start", "--setting", "waterborne", "--party-aware", "--monsters-aware", "--name", "pirates"),
        ("encounter", "check-surprise"),
        ("encounter", "determine-distance", "--value", "10"),
        ("encounter", "roll-initiative"),
        *before,
        ("encounter", "evade"),
    ):
        assert hexlog(*args).returncode == 0, args


class TestTheEncounterHandsOff:
    def test_a_flight_on_water_is_handed_to_the_chase_and_the_state_shows_it(self, hexlog, table):  # noqa: ARG002 - the fixture sets the table
        """decide-pursuit says the encounter handed off to the chase; ``hexlog state`` shows the chase under way."""
        _flight(hexlog)
        decided = hexlog("encounter", "decide-pursuit", "--pursue")
        assert decided.returncode == 0, decided.stderr
        assert "encounter hands off to chase" in decided.stdout
        assert (
            "chase 1 'pirates' (waterborne) from encounter 1: the party flee at 90 ft a round, pursued at 120 ft, "
            "30 ft apart" in decided.stdout
        )
        assert "-> CHASE; next: nothing" in decided.stdout
        assert "   waits for chase -> EVASION; next: hexlog chase evade" in decided.stdout
        state = hexlog("state").stdout
        assert "encounter: phase CHASE" in state
        assert "it waits for the chase (caught, the sides fight; got away, it ends)" in state
        assert "  next: nothing until its chase concludes" in state
        assert "chase: phase EVASION" in state
        assert "  chase 1 (waterborne): round 0, gap 30 ft" in state
        assert "  next: hexlog chase evade" in state
        player = hexlog("state", "--view", "player").stdout
        assert "chase: phase EVASION" in player
        assert "next:" not in player
        evaded = hexlog("chase", "evade")  # 13 on d100 against 40 %
        assert "chase has concluded: encounter resumes" in evaded.stdout
        assert (
            "encounter 1 ends: evaded after 0 rounds; 1 turn passes: the party got away on the water" in evaded.stdout
        )
        assert "   encounter resumes -> CONCLUDED; next: hexlog encounter start" in evaded.stdout

    def test_a_caught_ship_goes_back_to_its_encounter_to_fight(self, hexlog, table):  # noqa: ARG002 - the fixture sets the table
        """A free roll first moves the evasion to 74 on d100: it fails, one round closes the 30 ft, the fight is on."""
        _flight(hexlog, ("roll", "1d6", "--purpose", "the wind"))
        assert hexlog("encounter", "decide-pursuit", "--pursue").returncode == 0
        failed = hexlog("chase", "evade")
        assert "rolled 74: not evaded" in failed.stdout
        caught = hexlog("chase", "run")
        assert "chase 1 over after 1 round: caught; melee starts next round" in caught.stdout
        assert "chase has concluded: encounter resumes" in caught.stdout
        assert "   encounter resumes -> COMBAT; next: hexlog encounter " in caught.stdout
        state = hexlog("state").stdout
        assert "encounter: phase COMBAT" in state
        assert "the chase caught the party: the sides fight" in state


def _types_since(db, version: int) -> list[str]:
    """The event types written after stream version ``version``, in order."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT type FROM events WHERE stream_version > ? ORDER BY position", (version,))
        return [row[0].removeprefix("hexlog.") for row in rows]


def _version(db) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT max(stream_version) FROM events").fetchone()[0]


def _fled_in_a_delve(hexlog) -> None:
    """A lit delve meets 3 ghouls (120 ft) 30 ft away; the party (Bo, 90 ft) flees: the monsters' pursuit is next."""
    for args in (
        ("dungeon", "enter"),
        ("dungeon", "light", "torch", "--by", "Ann"),
        ("dungeon", "meet", "--name", "ghouls", "--monsters", "3"),
        ("encounter", "check-surprise"),
        ("encounter", "determine-distance", "--value", "30"),
        ("encounter", "roll-initiative"),
        ("encounter", "evade"),
    ):
        done = hexlog(*args)
        assert done.returncode == 0, (args, done.stderr)


def _met_in_the_dark(hexlog) -> None:
    """A delve with no light meets 3 ghouls 30 ft away, up to the encounter's initiative."""
    for args in (
        ("dungeon", "enter"),
        ("dungeon", "meet", "--name", "ghouls", "--monsters", "3"),
        ("encounter", "check-surprise"),
        ("encounter", "determine-distance", "--value", "30"),
        ("encounter", "roll-initiative"),
    ):
        done = hexlog(*args)
        assert done.returncode == 0, (args, done.stderr)


class TestADelvesChase:
    def test_the_chase_starts_at_once_with_no_turn_before_it(self, hexlog, table):
        """decide-pursuit hands the chase off from the encounter in the same append: no encounter.concluded, no
        clock.advanced (nor the wandering check or light it would bring) before chase.started; the clock stands."""
        _fled_in_a_delve(hexlog)
        before = _version(table)
        decided = hexlog("encounter", "decide-pursuit", "--pursue")
        assert decided.returncode == 0, decided.stderr
        assert "encounter hands off to chase" in decided.stdout
        assert "clock advances" not in decided.stdout
        assert _types_since(table, before) == [
            "encounter.pursuit_decided",
            "procedure.phase_changed",
            "procedure.phase_changed",
            "procedure.handed_off",
            "chase.started",
            "procedure.phase_changed",
        ]
        assert "clock: day 1 00:00 (0 s)" in hexlog("state").stdout

    def test_the_referee_is_pointed_from_conclude_in_pursuit_to_the_steps_that_hand_the_chase_off(self, hexlog, table):
        """conclude --outcome pursuit in a delve's encounter is refused with the command line's words for evade,
        decide-pursuit and a chase by hand; nothing is written."""
        _met_in_the_dark(hexlog)
        before = _version(table)
        refused = hexlog("encounter", "conclude", "--outcome", "pursuit")
        assert refused.returncode == 1
        assert "in a delve an encounter ends in pursuit only by its pursuers' decision" in refused.stderr
        assert "(hexlog encounter evade), then its pursuers decide (hexlog encounter decide-pursuit)" in refused.stderr
        assert "(hexlog chase start --from-encounter 1)" in refused.stderr
        assert "Traceback" not in refused.stderr
        assert _version(table) == before

    def test_a_caught_party_is_in_melee_with_the_encounter_it_fled(self, hexlog, table):  # noqa: ARG002 - the fixture sets the table
        """30 ft closed in one round: the chase ends caught and the encounter resumes in COMBAT, its next steps the
        fight's; the delve waits for it until it ends, then resumes exploring."""
        _fled_in_a_delve(hexlog)
        assert hexlog("encounter", "decide-pursuit", "--pursue").returncode == 0
        caught = hexlog("chase", "run")
        assert caught.returncode == 0, caught.stderr
        assert "chase 1 over after 1 round: caught; melee starts next round" in caught.stdout
        assert "chase has concluded: encounter resumes" in caught.stdout
        assert "   encounter resumes -> COMBAT; next: hexlog encounter react | round | conclude" in caught.stdout
        assert "-> CAUGHT; next: nothing (the chase is over; the encounter resumes)" in caught.stdout
        assert "next: start" not in caught.stdout
        assert "dungeon meet" not in caught.stdout  # the encounter the chase came from is the fight
        assert "dungeon resumes" not in caught.stdout
        state = hexlog("state").stdout
        assert "dungeon: phase ENCOUNTER" in state
        assert "  next: nothing until its encounter concludes" in state
        assert "encounter: phase COMBAT" in state
        assert "  encounter 1 'ghouls' (dungeon): the chase caught the party: the sides fight" in state
        assert "  next: hexlog encounter react | round | conclude" in state
        assert (  # as its command said: no fresh chase, the encounter's steps are next
            "chase: phase CAUGHT\n  chase 1 (dungeon): caught after 1 round\n  next: nothing (the chase is over; "
            "the encounter resumed: hexlog encounter react | round | conclude)\n" in state
        )
        assert "hexlog chase start" not in state
        assert json.loads(hexlog("state", "--json").stdout)["procedures"]["chase"]["next"] == []
        refused = hexlog("dungeon", "move")
        assert refused.returncode != 0
        assert "'move' is not allowed in state ENCOUNTER" in refused.stderr
        assert hexlog("encounter", "round").returncode == 0
        ended = hexlog("encounter", "conclude", "--outcome", "ghouls slain")
        assert ended.returncode == 0, ended.stderr
        assert "encounter 1 ends: ghouls slain after 1 round; 1 turn passes" in ended.stdout
        assert "encounter has concluded: dungeon resumes" in ended.stdout
        assert "   dungeon resumes -> EXPLORING; next: hexlog dungeon light" in ended.stdout
        assert "-> CONCLUDED; next: nothing (the encounter is over; the dungeon resumes)" in ended.stdout
        state = hexlog("state").stdout
        assert "encounter: phase CONCLUDED\n  next: nothing (the encounter is over; the dungeon resumed: " in state
        assert "  next: nothing (the chase is over; the encounter it resumed has ended since)\n" in state
        assert "hexlog encounter start" not in state
        assert "hexlog chase start" not in state
        assert hexlog("dungeon", "move").returncode == 0
        assert hexlog("session", "close").returncode == 0
        audited = hexlog("audit").stdout  # incomplete only as the secret was supplied: every decision re-run holds
        assert "INCOMPLETE: nothing is wrong" in audited

    def test_a_chase_started_by_hand_after_one_handed_off_offers_its_own_start_again(self, hexlog, table):  # noqa: ARG002 - the fixture sets the table
        """The chase the encounter handed off is over into its encounter; one the referee starts by hand afterwards
        ends on its own, and the state offers another start, as its command does."""
        _fled_in_a_delve(hexlog)
        for args in (
            ("encounter", "decide-pursuit", "--pursue"),
            ("chase", "run"),
            ("encounter", "round"),
            ("encounter", "conclude", "--outcome", "ghouls slain"),
        ):
            assert hexlog(*args).returncode == 0, args
        ended = "  next: nothing (the chase is over; the encounter it resumed has ended since)\n"
        assert ended in hexlog("state").stdout
        escaped = hexlog("chase", "start", "--gap-ft", "30", "--fleeing-ft", "120", "--pursuers-ft", "90")
        assert "-> ESCAPED; next: start\n" in escaped.stdout
        state = hexlog("state").stdout
        assert "  chase 2 (dungeon): escaped after 0 rounds\n  next: hexlog chase start\n" in state
        assert json.loads(hexlog("state", "--json").stdout)["procedures"]["chase"]["next"] == ["start"]

    def test_a_chase_started_by_hand_that_catches_the_party_points_to_the_delve_meeting_them(self, hexlog, table):  # noqa: ARG002 - the fixture sets the table
        """The encounter concluded as fled and the chase started from it by hand: nothing resumes when it catches the
        party, so its end names the delve's step that meets the pursuers; the delve explores until it is taken."""
        _met_in_the_dark(hexlog)
        fled = hexlog("encounter", "conclude", "--outcome", "fled")
        assert "-> CONCLUDED; next: nothing (the encounter is over; the dungeon resumes)" in fled.stdout
        assert hexlog("chase", "start", "--from-encounter", "1").returncode == 0
        caught = hexlog("chase", "run")
        assert caught.returncode == 0, caught.stderr
        assert "chase 1 over after 1 round: caught; melee starts next round" in caught.stdout
        assert "-> CAUGHT; next: start\n   the delve meets them: hexlog dungeon meet\n" in caught.stdout
        assert "dungeon: phase EXPLORING" in hexlog("state").stdout
        met = hexlog("dungeon", "meet", "--name", "ghouls", "--monsters", "3")
        assert met.returncode == 0, met.stderr
        assert "   waits for encounter -> SURPRISE" in met.stdout

    def test_a_chase_started_by_hand_outside_a_delve_has_the_sides_meet_in_an_encounter(self, hexlog, table):  # noqa: ARG002 - the fixture sets the table
        """Without a delve, a caught party's chase names no dungeon step: the sides meet in an encounter, both aware,
        in melee; the commands it names take the party there."""
        hexlog("chase", "start", "--gap-ft", "30", "--fleeing-ft", "90", "--pursuers-ft", "120")
        caught = hexlog("chase", "run")
        assert "dungeon meet" not in caught.stdout
        meet = "hexlog encounter start --setting dungeon --party-aware --monsters-aware"
        assert (
            f"-> CAUGHT; next: start\n   the sides meet in melee: {meet}, then hexlog encounter determine-distance "
            "--value 0\n" in caught.stdout
        )
        assert "  next: hexlog chase start" in hexlog("state").stdout  # started by hand: another may be
        for args in (meet.split()[1:], ("encounter", "check-surprise")):
            assert hexlog(*args).returncode == 0, args
        met = hexlog("encounter", "determine-distance", "--value", "0")
        assert "distance 0 ft (melee range)" in met.stdout

    def test_a_chase_that_gets_away_started_by_hand_outside_a_delve_names_no_meeting(self, hexlog, table):  # noqa: ARG002 - the fixture sets the table
        """A faster party escapes at once: nobody to meet."""
        escaped = hexlog("chase", "start", "--gap-ft", "30", "--fleeing-ft", "120", "--pursuers-ft", "90")
        assert "-> ESCAPED; next: start\n" in escaped.stdout
        assert "meet" not in escaped.stdout


class TestTheRefereeSaysWhatThePursuersAreLike:
    """decide-pursuit --pursue --likes-treasure / --hungry, where the encounter hands its chase off: the chase starts
    with them, and a drop tempts the pursuers; refused where they let go or the encounter concludes in pursuit."""

    def test_treasure_dropped_before_pursuers_said_to_like_it_rolls_to_stop_them(self, hexlog, table):  # noqa: ARG002 - the fixture sets the table
        _fled_in_a_delve(hexlog)
        decided = hexlog("encounter", "decide-pursuit", "--pursue", "--likes-treasure")
        assert decided.returncode == 0, decided.stderr
        assert "; the pursuers are fond of treasure" in decided.stdout
        dropped = hexlog("chase", "drop", "treasure")
        assert dropped.returncode == 0, dropped.stderr
        assert "they care nothing for treasure" not in dropped.stdout
        assert "for chase.drop (for monsters)" in dropped.stdout
        assert "treasure dropped (they like treasure: " in dropped.stdout
        assert hexlog("session", "close").returncode == 0
        audited = hexlog("audit").stdout
        assert "INCOMPLETE: nothing is wrong" in audited
        assert "the monsters pursue, decided by the referee (no reaction was rolled), who says they like " in audited

    def test_pursuers_let_go_or_a_pursuit_not_handed_off_are_refused_their_tastes(self, hexlog, table):
        """In a delve, --hungry with --let-go (or no --pursue) is refused; in the wilderness the encounter concludes in
        pursuit (the party pursuing monsters that fled), so --likes-treasure is refused with the chase by hand named:
        nothing is written."""
        _fled_in_a_delve(hexlog)
        before = _version(table)
        for args in (("--let-go", "--hungry"), ("--hungry",)):
            refused = hexlog("encounter", "decide-pursuit", *args)
            assert refused.returncode != 0
            assert "--hungry says what pursuers who give chase are like: say --pursue too" in refused.stderr
            assert "Traceback" not in refused.stderr
        assert _version(table) == before
        assert hexlog("encounter", "decide-pursuit", "--let-go").returncode == 0
        for args in (
            ("dungeon", "leave"),
            ("encounter", "start", "--setting", "wilderness", "--name", "elk", "--party-aware", "--monsters-aware"),
            ("encounter", "check-surprise"),
            ("encounter", "determine-distance", "--value", "60"),
            ("encounter", "roll-initiative"),
            ("encounter", "evade", "--side", "monsters"),
        ):
            done = hexlog(*args)
            assert done.returncode == 0, (args, done.stderr)
        before = _version(table)
        refused = hexlog("encounter", "decide-pursuit", "--pursue", "--likes-treasure")
        assert refused.returncode != 0
        assert (
            "this encounter hands no chase off (it concludes in pursuit): leave out --likes-treasure" in refused.stderr
        )
        assert "chase start, which takes --likes-treasure and --hungry" in refused.stderr
        assert _version(table) == before
