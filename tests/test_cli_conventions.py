"""The command line as Typer users expect it: a version, global options, flags, one-line errors, exit codes."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest

from hexlog.events import releases
from hexlog.events.encounter import EncounterConcluded
from hexlog.service import render

from .conftest import secret_file

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


class TestVersionAndGlobalOptions:
    def test_version_prints_the_installed_version(self, hexlog):
        result = hexlog("--version")
        assert result.returncode == 0, result.stderr
        installed = importlib.metadata.version("hexlog")
        assert (
            result.stdout.strip()
            == f"hexlog {installed} (release {releases.CURRENT}, the number each session it opens records)"
        )
        assert len(releases.RAISED) == releases.CURRENT

    def test_db_and_campaign_before_the_command_apply_to_it(self, hexlog, tmp_path):
        """``hexlog --db X --campaign C init`` makes X holding C; later commands find it the same way."""
        assert hexlog("--db", "table.db", "--campaign", "keep", "init").returncode == 0
        assert (tmp_path / "table.db").exists()
        assert not (tmp_path / "hexlog.db").exists()
        shown = hexlog("--db", "table.db", "--campaign", "keep", "state")
        assert shown.returncode == 0, shown.stderr
        assert "keep" in shown.stdout
        assert hexlog("--db", "table.db", "party", "add", "Ann").returncode == 0

    def test_the_commands_own_option_wins_over_the_global_one(self, hexlog, tmp_path):
        assert hexlog("--db", "a.db", "init", "--db", "b.db").returncode == 0
        assert (tmp_path / "b.db").exists()
        assert not (tmp_path / "a.db").exists()


class TestHelpAndErrors:
    @pytest.mark.parametrize("args", [("roll", "--help"), ("encounter", "start", "--help"), ("--help",)])
    def test_flags_show_no_value_type(self, hexlog, args):
        text = hexlog(*args).stdout
        assert "--help" in text
        assert "<bool>" not in text

    @pytest.mark.parametrize("args", [("bench", "--help"), ("roll", "--help"), ("state", "--help")])
    def test_a_flag_is_one_option_without_a_negative_twin(self, hexlog, args):
        """``--quick`` as the README writes it; no ``--no-quick`` beside it."""
        text = hexlog(*args).stdout
        assert "--help" in text
        assert "--no-" not in text

    def test_the_global_db_option_says_it_takes_a_postgresql_url(self, hexlog):
        text = " ".join(hexlog("--help").stdout.split())
        assert "postgresql:// URL" in text

    @pytest.mark.parametrize(
        ("args", "needle"),
        [
            (("roll",), "Missing argument"),
            (("roll", "d6", "--bogus"), "No such option: --bogus"),
            (("party", "add", "Bo", "--cha", "many"), "'--cha'"),
            (("state", "--at"), "'--at' requires an argument"),
        ],
    )
    def test_argument_errors_are_one_line_and_exit_2(self, hexlog, args, needle):
        result = hexlog(*args)
        assert result.returncode == 2
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("hexlog: error: ")
        assert needle in lines[0]
        assert "╭" not in result.stderr

    def test_the_readme_documents_every_exit_code(self):
        table = README[README.index("| exit | meaning |") :]
        for code in ("0", "1", "2", "3", "70", "130", "141"):
            assert re.search(rf"^\| {code} \| \S", table, re.MULTILINE), code


class TestWords:
    def test_one_spelling_of_armor(self):
        """The option is --armor, so every message and help says armor.

        Only the words of a decision released versions recorded stay as they were ("noisy armour"):
        the audit re-derives a decision's reason and compares it byte for byte.
        """
        for folder in ("service", "machine", "replay", "projections", "events"):
            for path in (ROOT / folder).rglob("*.py"):
                lines = path.read_text(encoding="utf-8").lower().splitlines()
                odd = [line for line in lines if "armour" in line and "recorded words" not in line]
                assert not odd, (path, odd)
        assert "armour" not in README.lower()

    @pytest.mark.parametrize(
        ("turns", "rounds", "text"), [(1, 1, "1 round; 1 turn passes"), (2, 3, "3 rounds; 2 turns pass")]
    )
    def test_plurals_follow_the_count(self, turns, rounds, text):
        event = EncounterConcluded(number=1, outcome="fled", rounds=rounds, turns=turns, seconds=600 * turns)
        assert text in render.describe(event)


class TestDemoThenWalkThrough:
    def test_init_after_the_demo_starts_the_users_own_campaign(self, hexlog):
        """The README's order: the demo, then init and a session, in the same folder."""
        assert hexlog("demo", "--secret-file", "-", input_text="11" * 32).returncode == 0
        started = hexlog("init")
        assert started.returncode == 0, started.stderr
        assert "campaign main started" in started.stdout
        opened = hexlog("session", "open")
        assert opened.returncode == 0, opened.stderr
        assert "session s1 open" in opened.stdout
        assert "session s1" in hexlog("state").stdout
        demo = hexlog("state", "--campaign", "demo").stdout
        assert "closed" in demo

    @pytest.mark.parametrize("command", [("party", "add", "Xavier"), ("state",), ("log",), ("receipt",)])
    def test_without_init_a_command_never_takes_the_demos_campaign(self, hexlog, command):
        """Only the demo's campaign in the database: a command without --campaign is refused, nothing written."""
        assert hexlog("demo", "--secret-file", "-", input_text="13" * 32).returncode == 0
        before = hexlog("export", "--campaign", "demo").stdout
        refused = hexlog(*command)
        assert refused.returncode == 2
        assert refused.stdout == ""
        assert refused.stderr == (
            "hexlog: error: the database holds only the demo's campaigns (demo); run 'hexlog init' to start "
            "yours, or pass --campaign demo\n"
        )
        assert hexlog("export", "--campaign", "demo").stdout == before
        assert hexlog(command[0], *command[1:], "--campaign", "demo").returncode == 0

    def test_init_never_takes_the_demos_campaign(self, hexlog):
        assert hexlog("demo", "--secret-file", "-", input_text="12" * 32).returncode == 0
        refused = hexlog("init", "--campaign", "demo-2")
        assert refused.returncode == 2
        assert "kept for 'hexlog demo'" in refused.stderr
        again = hexlog("init", "--campaign", "demo")
        assert again.returncode != 0

    def test_a_second_init_is_refused_and_names_the_way(self, hexlog):
        assert hexlog("init").returncode == 0
        again = hexlog("init")
        assert again.returncode == 1
        assert "already exists (it needs no start); to start another: 'hexlog --campaign ID init'" in again.stderr

    @pytest.mark.parametrize("campaign", ["", " ", "a b", "x/y", "-a", "é", "a" * 65, "demo:1"])
    @pytest.mark.parametrize("command", [("init",), ("state",), ("session", "open")])
    def test_an_empty_or_malformed_campaign_id_is_refused(self, hexlog, tmp_path, campaign, command):
        if command != ("init",):
            assert hexlog("init").returncode == 0
        result = hexlog(*command, "--campaign", campaign)
        assert result.returncode == 2, result.stderr
        assert "campaign id" in result.stderr
        if command == ("init",):
            assert not (tmp_path / "hexlog.db").exists()
        before = hexlog("--campaign", campaign, *command)
        assert before.returncode == 2, before.stderr
        assert "campaign id" in before.stderr


class TestSuggestions:
    @pytest.mark.parametrize(
        ("args", "said"),
        [
            (("encounter", "round", "--sid", "party"), "No such option: --sid; see 'hexlog encounter round --help'"),
            (("state", "--jsn"), "No such option: --jsn (Possible options: --json); see 'hexlog state --help'"),
        ],
    )
    def test_an_unknown_option_is_offered_only_options_alike_in_name(self, hexlog, args, said):
        """Only a real option of the command that looks like the one given; none rather than one alike only in
        its dashes (``--db`` for ``--sid``)."""
        refused = hexlog(*args)
        assert refused.returncode == 2
        assert refused.stderr == f"hexlog: error: {said}\n"


class TestLogLevel:
    def test_a_log_level_hexlog_does_not_know_is_warned_of_once_naming_those_it_takes(self, hexlog):
        assert hexlog("init").returncode == 0
        shown = hexlog("state", env={"HEXLOG_LOG": "bogus"})
        assert shown.returncode == 0
        assert shown.stderr == (
            "hexlog: warning: HEXLOG_LOG must be one of debug, info, warning, error, not 'bogus'; logging at warning\n"
        )

    @pytest.mark.parametrize("level", ["warning", "ERROR", ""])
    def test_a_known_level_is_taken_quietly(self, hexlog, level):
        assert hexlog("init").returncode == 0
        assert hexlog("state", env={"HEXLOG_LOG": level}).stderr == ""


def _options_left_out_as_empty_text() -> list[tuple[tuple[str, ...], str]]:
    """Every option of every command whose default is empty text (``--name``, ``--note``, ``--door``, ``--for``), with
    the words that reach it: typed empty, it would read as the option left out. An option whose step cannot go without
    it (``encounter cancel --reason``, declared ``needed``) is left to the step, which asks for it in its own words."""
    import attrs  # noqa: PLC0415
    import typer  # noqa: PLC0415

    from hexlog.machine.commands import FLAG, NEEDED  # noqa: PLC0415
    from hexlog.machine.registry import REGISTRY  # noqa: PLC0415
    from hexlog.service.cli import app  # noqa: PLC0415

    needed = {
        ((procedure.name, render.subcommand(trigger)), field.metadata.get(FLAG) or "--" + field.name.replace("_", "-"))
        for procedure in REGISTRY.machines
        for cls, trigger in procedure.triggers.items()
        for field in attrs.fields(cls)
        if field.metadata.get(NEEDED)
    }
    found: list[tuple[tuple[str, ...], str]] = []

    def walk(command: typer.core.TyperCommand | typer.core.TyperGroup, path: tuple[str, ...]) -> None:
        if isinstance(command, typer.core.TyperGroup):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))
            return
        options = [
            p for p in command.params if isinstance(p, typer.core.TyperOption) and not p.is_flag and p.default == ""
        ]
        found.extend((path, p.opts[0]) for p in options if (path, p.opts[0]) not in needed)

    walk(typer.main.get_command(app), ())
    return found


class TestEmptyText:
    OPTIONS = _options_left_out_as_empty_text()

    def test_the_options_left_out_as_empty_text_are_found(self):
        """The walk reaches the commands' own options and those the command line declares itself, and leaves out
        the reason a cancelled encounter cannot go without."""
        for expected in (
            (("encounter", "start"), "--name"),
            (("encounter", "react"), "--speaker"),
            (("dungeon", "door"), "--door"),
            (("roll",), "--for"),
            (("party", "remove"), "--reason"),
            (("clock", "advance"), "--reason"),
            (("simulate", "encounter"), "--name"),
        ):
            assert expected in self.OPTIONS
        assert (("encounter", "cancel"), "--reason") not in self.OPTIONS

    @pytest.mark.parametrize("value", ["", "  "])
    def test_empty_text_for_an_option_it_would_leave_unset_is_refused_naming_it(self, hexlog, value):
        """``--name ""`` is not taken as no name: the option is named, exit 2, nothing written."""
        assert hexlog("init").returncode == 0
        assert hexlog("session", "open").returncode == 0
        before = hexlog("receipt").stdout
        for path, flag in self.OPTIONS:
            refused = hexlog(*path, flag, value)
            assert refused.returncode == 2, (path, flag, refused.stderr)
            said = f"hexlog: error: Invalid value for '{flag}': is empty: give a value, or leave it out"
            assert refused.stderr.startswith(said), (path, refused.stderr)
        assert hexlog("receipt").stdout == before

    def test_nobody_speaking_at_a_reroll_is_the_one_empty_text_taken_and_its_help_says_so(self, hexlog, tmp_path):
        """``reroll-reaction --speaker ""``: nobody speaks now (left out: the one who spoke before). The walk leaves it
        out of the refusal, its help names it, and the reroll after Ann spoke (CHA 18, +2) adds nothing for her."""
        assert (("encounter", "reroll-reaction"), "--speaker") not in self.OPTIONS
        helped = hexlog("encounter", "reroll-reaction", "--help", env={"COLUMNS": "250", "TERMINAL_WIDTH": "250"})
        assert 'who speaks now (default: the same who spoke before; "" for nobody: no CHA modifier applies)' in (
            helped.stdout
        )
        for args in (
            ("init", "--ruleset", "ose"),
            ("session", "open", "--secret-file", secret_file(tmp_path, (2).to_bytes(32, "big").hex())),
            ("party", "add", "Ann", "--cha", "18"),
            ("encounter", "start", "--party-aware", "--monsters-aware"),
            ("encounter", "check-surprise"),
            ("encounter", "determine-distance", "--value", "30"),
            ("encounter", "roll-initiative"),
        ):
            assert hexlog(*args).returncode == 0, args
        reacted = hexlog("encounter", "react", "--speaker", "Ann")
        assert "Ann speaks (CHA 18, +2): total 8 -> Uncertain, neutral [rolls" in reacted.stdout
        assert hexlog("encounter", "round").returncode == 0
        rerolled = hexlog("encounter", "reroll-reaction", "--speaker", "")
        assert rerolled.returncode == 0, rerolled.stderr
        assert "reaction re-rolled 2d6=6, nobody speaks: total 6 -> Uncertain, neutral [rolls" in rerolled.stdout

    def test_an_option_left_out_still_takes_its_default(self, hexlog):
        """Only text typed empty is refused: a roll without ``--for`` and a member removed without a reason are
        as before."""
        assert hexlog("init").returncode == 0
        assert hexlog("session", "open").returncode == 0
        assert hexlog("party", "add", "Ann").returncode == 0
        assert hexlog("roll", "d6").returncode == 0
        assert hexlog("party", "remove", "Ann").returncode == 0


class TestNewDatabaseFolder:
    def test_init_makes_the_databases_folder_with_its_parents(self, hexlog, tmp_path):
        """``hexlog init --db campaigns/keep/table.db`` in a folder without ``campaigns`` starts the campaign there,
        as ``git init`` makes its folder; the other commands then find it."""
        made = hexlog("init", "--db", "campaigns/keep/table.db")
        assert made.returncode == 0, made.stderr
        assert (tmp_path / "campaigns" / "keep" / "table.db").is_file()
        assert hexlog("--db", "campaigns/keep/table.db", "party", "add", "Ann").returncode == 0

    def test_import_makes_the_databases_folder_too(self, hexlog, tmp_path):
        assert hexlog("init").returncode == 0
        assert hexlog("export", "--out", "keep.jsonl").returncode == 0
        imported = hexlog("import", "keep.jsonl", "--db", "copies/keep.db")
        assert imported.returncode == 0, imported.stderr
        assert (tmp_path / "copies" / "keep.db").is_file()

    def test_a_file_where_the_folder_would_be_is_refused_by_name(self, hexlog, tmp_path):
        (tmp_path / "notes").write_text("not a folder\n", encoding="utf-8")
        refused = hexlog("init", "--db", "notes/keep/table.db")
        assert refused.returncode == 2, refused.stderr
        assert refused.stderr == (
            "hexlog: error: cannot make the folder notes/keep for the database notes/keep/table.db: "
            "notes is not a folder\n"
        )
        assert (tmp_path / "notes").read_text(encoding="utf-8") == "not a folder\n"

    def test_an_init_refused_leaves_no_folder_it_made(self, hexlog, tmp_path):
        refused = hexlog("init", "--db", "campaigns/keep/table.db", "--campaign", "demo")
        assert refused.returncode == 2, refused.stderr
        assert not (tmp_path / "campaigns").exists()

    def test_a_command_that_does_not_create_makes_no_folder(self, hexlog, tmp_path):
        refused = hexlog("state", "--db", "campaigns/keep/table.db")
        assert refused.returncode == 2
        assert "run 'hexlog init' first" in refused.stderr
        assert not (tmp_path / "campaigns").exists()
