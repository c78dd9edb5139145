"""The command line through a real subprocess: campaign, session, party and free rolls."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import stat

import pytest

SECRET = bytes(range(32)).hex()
COMMITMENT = hashlib.sha256(bytes(range(32))).hexdigest()


def _count_events(db) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


@pytest.fixture
def table(hexlog, tmp_path):
    """An initialised campaign with an open session whose secret is known."""
    assert hexlog("init").returncode == 0
    assert hexlog("session", "open", "--secret-file", "-", input_text=SECRET).returncode == 0
    return tmp_path / "hexlog.db"


class TestInit:
    def test_init_creates_a_campaign_and_prints_the_rules_hash(self, hexlog, tmp_path):
        """A new user's first command makes the database and names the rules in force."""
        result = hexlog("init")
        assert result.returncode == 0, result.stderr
        assert "campaign main started" in result.stdout
        assert "rules hash " in result.stdout
        assert (tmp_path / "hexlog.db").exists()

    def test_init_twice_is_refused_and_writes_nothing(self, hexlog, tmp_path):
        """A second init of the same campaign is an error, not a second start."""
        hexlog("init")
        before = _count_events(tmp_path / "hexlog.db")
        result = hexlog("init")
        assert result.returncode == 1
        assert "already exists" in result.stderr
        assert _count_events(tmp_path / "hexlog.db") == before

    def test_unknown_ruleset_is_a_usage_error_and_creates_no_database(self, hexlog, tmp_path):
        """A bad ruleset name exits 2 with the known names and leaves no file behind."""
        result = hexlog("init", "--ruleset", "nope")
        assert result.returncode == 2
        assert "unknown ruleset 'nope'" in result.stderr
        assert not (tmp_path / "hexlog.db").exists()

    def test_db_option_and_environment_variable_choose_the_file(self, hexlog, tmp_path):
        """--db and HEXLOG_DB both name the database."""
        assert hexlog("init", "--db", "a.db").returncode == 0
        assert (tmp_path / "a.db").exists()
        assert hexlog("init", env={"HEXLOG_DB": "b.db"}).returncode == 0
        assert (tmp_path / "b.db").exists()

    def test_commands_without_a_database_say_to_run_init(self, hexlog, tmp_path):
        """A command on a missing database names the fix and creates nothing."""
        result = hexlog("state")
        assert result.returncode == 2
        assert "run 'hexlog init' first" in result.stderr
        assert not (tmp_path / "hexlog.db").exists()

    def test_a_file_that_is_not_a_database_is_named_without_a_traceback(self, hexlog, tmp_path):
        """Garbage in the database file gives one clear line."""
        (tmp_path / "hexlog.db").write_bytes(b"this is not sqlite" * 100)
        result = hexlog("state")
        assert result.returncode == 1
        assert "is not a hexlog database" in result.stderr
        assert "Traceback" not in result.stderr


class TestSession:
    def test_open_prints_the_commitment_of_the_secret(self, hexlog):
        """The published commitment is sha256 of the secret."""
        hexlog("init")
        result = hexlog("session", "open", "--secret-file", "-", input_text=SECRET)
        assert result.returncode == 0
        assert "commitment 630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd" in result.stdout

    def test_the_key_file_is_readable_by_its_owner_only(self, hexlog, tmp_path):
        """The secret lives beside the database, mode 0600, and not in the log."""
        hexlog("init")
        hexlog("session", "open", "--secret-file", "-", input_text=SECRET)
        mode = stat.S_IMODE((tmp_path / "hexlog.db.keys").stat().st_mode)
        assert mode == 0o600
        assert json.loads((tmp_path / "hexlog.db.keys").read_text(encoding="utf-8")) == {f"main/{COMMITMENT}": SECRET}
        with sqlite3.connect(tmp_path / "hexlog.db") as conn:
            data = " ".join(r[0] for r in conn.execute("SELECT data FROM events"))
        assert SECRET not in data

    @pytest.mark.usefixtures("table")
    def test_the_known_answer_rolls_come_out_of_the_cli(self, hexlog):
        """Secret bytes(range(32)) and client seed table-7 give 1, 5 then 19 on a d20 (hexlog-dice-v2, public lane)."""
        assert hexlog("session", "seed", "table-7").returncode == 0
        first = hexlog("roll", "2d6+1", "--purpose", "test")
        assert "roll s1#0 2d6+1 -> 1+5+1 = 7" in first.stdout
        second = hexlog("roll", "d20+1", "--purpose", "test")
        assert "roll s1#1 1d20+1 -> 19+1 = 20" in second.stdout

    def test_a_client_seed_after_the_first_roll_is_refused(self, hexlog, table):
        """Players seed before any roll, never after."""
        hexlog("roll", "d6")
        before = _count_events(table)
        result = hexlog("session", "seed", "late")
        assert result.returncode == 1
        assert "only before the first roll" in result.stderr
        assert _count_events(table) == before

    @pytest.mark.usefixtures("table")
    def test_close_reveals_the_secret(self, hexlog):
        """Closing prints the secret the commitment promised."""
        result = hexlog("session", "close")
        assert result.returncode == 0
        assert SECRET in result.stdout

    def test_rolling_without_an_open_session_is_refused(self, hexlog, table):
        """After close no die can be rolled."""
        hexlog("session", "close")
        before = _count_events(table)
        result = hexlog("roll", "d6")
        assert result.returncode == 1
        assert "no session is open" in result.stderr
        assert _count_events(table) == before

    def test_a_malformed_secret_is_a_usage_error(self, hexlog):
        """A given secret is checked: 64 hex digits or a one-line refusal."""
        hexlog("init")
        result = hexlog("session", "open", "--secret-file", "-", input_text="abc")
        assert result.returncode == 2
        assert "32 bytes" in result.stderr


class TestPartyAndRolls:
    @pytest.mark.usefixtures("table")
    def test_party_add_shows_in_state(self, hexlog):
        """A member added is in the state with its scores."""
        assert hexlog("party", "add", "Ayla", "--cha", "16", "--speed", "90").returncode == 0
        result = hexlog("state")
        assert "Ayla: CHA 16" in result.stdout
        assert "moves at 90" in result.stdout

    @pytest.mark.usefixtures("table")
    def test_party_add_echoes_every_score_it_records(self, hexlog):
        """The line a member joins with names its infravision when it has some, as it names its other scores, so a
        referee sees at once what was typed; a member without any is not said to see 0 ft in the dark."""
        seer = hexlog("party", "add", "Mira", "--infravision", "60")
        plain = hexlog("party", "add", "Bo")
        assert seer.returncode == plain.returncode == 0, seer.stderr
        assert "Mira joins the party (CHA 10, WIS 10, DEX 10, STR 10, speed 120, armor none, infravision 60 ft)" in (
            seer.stdout
        )
        assert "Bo joins the party (CHA 10, WIS 10, DEX 10, STR 10, speed 120, armor none)" in plain.stdout

    def test_an_edit_to_an_empty_armor_is_refused_and_writes_nothing(self, hexlog, table):
        """Clearing a member's armor to empty text is refused (none is written none); the armor stays as it was."""
        assert hexlog("party", "add", "Ayla", "--armor", "chain").returncode == 0
        before = _count_events(table)
        result = hexlog("party", "edit", "Ayla", "--armor", "")
        assert result.returncode == 2
        assert "armor is empty" in result.stderr
        assert _count_events(table) == before
        assert "armor chain" in hexlog("state").stdout

    @pytest.mark.parametrize(
        ("args", "needle"),
        [
            (("party", "add", "Bo", "--cha", "19"), "cha must be 3 to 18"),
            (("party", "add", "Bo", "--speed", "0"), "speed must be"),
            (("party", "add", "Bo", "--infravision", "-10"), "infravision must be 0 to 1000 feet, not -10"),
            (("party", "add", "Bo", "--infravision", "1001"), "infravision must be 0 to 1000 feet"),
            (("party", "add", "Bo", "--infravision", "9" * 23), f"infravision must be 0 to 1000 feet, not {'9' * 23}"),
            (("party", "add", "Bo", "--cha", "9" * 23), "cha must be 3 to 18"),
            (("party", "add", "Bo", "--wis", "-" + "9" * 23), "wis must be 3 to 18"),
            (("party", "add", "Bo", "--dex", "9" * 23), "dex must be 3 to 18"),
            (("party", "add", "Bo", "--str", "9" * 23), "strength must be 3 to 18"),
            (("party", "add", "Bo", "--speed", "9" * 23), "speed must be 1 to 480"),
            (("session", "seed", "\udcff"), "client seed of 'set client seed' is not valid Unicode"),
            (("party", "add", "B\udce9"), "name of 'add member' is not valid Unicode"),
            (("roll", "d6", "--purpose", "caf\udce9"), "purpose of 'roll dice' is not valid Unicode"),
            (("session", "abandon", "--reason", "\udcff"), "reason of 'abandon session' is not valid Unicode"),
            (("party", "add", "!!"), "member name"),
            (("party", "add", "Rene\u0301e"), "it holds an accent typed apart from its letter ('Ren\u00e9e' is one)"),
            (("party", "add", "Bo", "--armor", ""), "armor is empty"),
            (("party", "add", "Bo", "--armor", "  "), "armor is empty"),
            (("party", "remove", "Nobody"), "no member called Nobody"),
            (("party", "remove", ""), "the party has no member with an empty name '': give one"),
            (("roll", "d6", "--for", " "), "Invalid value for '--for': is empty: give a value, or leave it out"),
            (("roll", "d6", "--for", ""), "Invalid value for '--for': is empty: give a value, or leave it out"),
            (("roll", "1001d6"), "number of dice must be 1 to 1000"),
            (("roll", "d1"), "2 to 1000 sides"),
            (("roll", "2x6"), "not a dice expression"),
            (("roll", "d6", "--purpose", ""), "the purpose is empty"),
            (("roll", "d6", "--purpose", "   "), "the purpose is empty"),
        ],
    )
    def test_bad_input_is_named_and_writes_nothing(self, hexlog, table, args, needle):
        """Each bad input exits non-zero with the problem named, and the log is unchanged."""
        before = _count_events(table)
        result = hexlog(*args)
        assert result.returncode in {1, 2}
        assert needle in result.stderr
        assert "Traceback" not in result.stderr
        assert not re.search(r"\b[A-Z][a-z]+[A-Z][a-z]+", result.stderr), "a class name in a message"
        assert _count_events(table) == before

    def test_unknown_commands_exit_2(self, hexlog):
        """Bad usage is exit code 2."""
        result = hexlog("frobnicate")
        assert result.returncode == 2
        assert "No such command" in result.stderr

    @pytest.mark.usefixtures("table")
    def test_a_secret_roll_is_marked_secret(self, hexlog):
        """The referee sees a secret roll marked as such."""
        result = hexlog("roll", "d20", "--secret", "--purpose", "wandering check")
        assert result.returncode == 0
        assert "[secret]" in result.stdout


class TestAbandon:
    def test_abandon_ends_the_session_and_says_its_rolls_can_never_be_verified(self, hexlog, table, tmp_path):
        """The referee abandons the open session once its key file is lost: told what happened, audit marks
        its rolls unverifiable (INCOMPLETE, once for the session).

        A new session then opens.
        """
        hexlog("roll", "d6")
        hexlog("roll", "d20", "--secret")
        before = _count_events(table)
        kept = hexlog("session", "abandon", "--reason", "spilled coffee on the laptop")
        assert kept.returncode == 1
        assert "the key file still holds the secret of session s1" in kept.stderr
        assert _count_events(table) == before
        (tmp_path / "hexlog.db.keys").unlink()
        result = hexlog("session", "abandon", "--reason", "spilled coffee on the laptop")
        assert result.returncode == 0, result.stderr
        said = "session s1 abandoned: its secret was never revealed, a withheld reveal (spilled coffee on the laptop)"
        assert said in result.stdout
        assert "the 2 rolls of session s1 can never be verified" in result.stdout
        assert SECRET not in result.stdout
        with sqlite3.connect(table) as conn:
            assert SECRET not in " ".join(r[0] for r in conn.execute("SELECT data FROM events"))
        assert "no session is open" in hexlog("roll", "d6").stderr
        audit = hexlog("audit")
        assert audit.returncode == 3, audit.stdout + audit.stderr
        assert "0 of 2 rolls re-derived" in audit.stdout
        assert "INCOMPLETE: nothing is wrong" in audit.stdout
        assert audit.stdout.count("abandoned") == 1
        assert "session s1 was abandoned, a withheld reveal: its 2 rolls can never be verified" in audit.stdout
        assert hexlog("session", "open").returncode == 0

    def test_abandon_without_an_open_session_is_refused(self, hexlog, table):
        """Nothing to abandon after a close: exit 1, nothing written."""
        hexlog("session", "close")
        before = _count_events(table)
        result = hexlog("session", "abandon", "--reason", "why not")
        assert result.returncode == 1
        assert "no session is open" in result.stderr
        assert _count_events(table) == before

    def test_abandon_needs_a_reason(self, hexlog, table, tmp_path):
        """--reason is required; an empty one is a usage error (the key file is lost, so abandon may be asked)."""
        (tmp_path / "hexlog.db.keys").unlink()
        before = _count_events(table)
        assert hexlog("session", "abandon").returncode == 2
        empty = hexlog("session", "abandon", "--reason", " ")
        assert empty.returncode == 2
        assert "needs a reason" in empty.stderr
        assert _count_events(table) == before

    def test_a_lost_key_file_is_recovered_by_abandoning_the_session(self, hexlog, table, tmp_path):
        """Key file deleted: roll, close and open refuse (naming abandon).

        Abandoning the session lets a new one open, roll and verify.
        """
        assert hexlog("roll", "d6").returncode == 0
        (tmp_path / "hexlog.db.keys").unlink()
        before = _count_events(table)
        for args in (("roll", "d6"), ("session", "close")):
            stuck = hexlog(*args)
            assert stuck.returncode == 2
            assert "session abandon" in stuck.stderr
        stuck = hexlog("session", "open")
        assert stuck.returncode == 1
        assert "session abandon" in stuck.stderr
        assert _count_events(table) == before
        assert hexlog("session", "abandon", "--reason", "key file lost").returncode == 0
        opened = hexlog("session", "open")
        assert opened.returncode == 0, opened.stderr
        assert "session s2 open" in opened.stdout
        rolled = hexlog("roll", "2d6")
        assert rolled.returncode == 0, rolled.stderr
        assert "roll s2#0 2d6" in rolled.stdout
        assert hexlog("session", "close").returncode == 0
        audit = hexlog("audit")
        assert audit.returncode == 3, audit.stdout + audit.stderr
        assert "1 of 2 rolls re-derived" in audit.stdout
        assert "INCOMPLETE: nothing is wrong" in audit.stdout
        assert "session s1 was abandoned, a withheld reveal: its 1 roll can never be verified" in audit.stdout
