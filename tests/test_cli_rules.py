"""The rules commands and house-rules files through a real subprocess."""

from __future__ import annotations

import itertools
import json
import sqlite3
from typing import ClassVar

import pytest

from hexlog.events.encounter import SurpriseChecked
from hexlog.events.session import SessionClosed, SessionOpened
from hexlog.machine import ruleset as rulesets
from hexlog.machine.commands import CloseSession, OpenSession
from hexlog.machine.dungeon.rules import DungeonTables
from hexlog.machine.encounter.commands import StartEncounter
from hexlog.machine.encounter.rules import EncounterOptions, EncounterTables
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.kit.rules import help_of
from hexlog.machine.registry import REGISTRY
from hexlog.service.simulation import CAMPAIGN, SCENARIOS, Play, handler_for, secret_for

UNUSED = "[not used by any procedure yet]"


def _started_rules(db):
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT data FROM events WHERE type IN ('hexlog.campaign.started', 'hexlog.campaign.rules_changed') "
            "ORDER BY position",
        ).fetchall()
    return [json.loads(r[0]) for r in rows]


class TestRulesCommands:
    """list, show and diff of the built-in rulesets."""

    def test_list_names_the_three_built_in_rulesets(self, hexlog):
        """One per seed text."""
        result = hexlog("rules", "list")
        assert result.returncode == 0
        for name, seed in (("ose", "000"), ("adnd", "001"), ("explore", "004")):
            assert name in result.stdout
            assert seed in result.stdout

    def test_show_prints_every_option_with_its_value(self, hexlog):
        """Options and tables are readable."""
        result = hexlog("rules", "show", "adnd")
        assert result.returncode == 0
        assert "options.segments_on_mutual_surprise = difference  (choices: difference, face)" in result.stdout
        assert "tables.outdoor_terrain.forest = faces=[1, 2, 3, 4] change=-1 rank=3" in result.stdout

    def test_show_prints_a_given_tables_fields_left_to_their_defaults(self, hexlog, tmp_path):
        """explore's ``tables.dungeon`` leaves ``--danger``'s check to its defaults: they are in force, so shown; a
        house rule changes them, and then the rule's own value is shown instead."""
        shown = hexlog("rules", "show", "explore").stdout.splitlines()
        assert "tables.dungeon.danger_every_turns = 1 (default)" in shown
        assert "tables.dungeon.danger_wandering_on = [1, 2] (default)" in shown
        (tmp_path / "house.toml").write_text("[tables.dungeon]\ndanger_every_turns = 3\n", encoding="utf-8")
        shown = hexlog("rules", "show", "explore", "--rules", "house.toml").stdout
        assert "danger_every_turns=3" in shown
        assert "tables.dungeon.danger_every_turns = 1 (default)" not in shown
        assert "tables.dungeon.danger_wandering_on = [1, 2] (default)" in shown

    def test_show_prints_how_a_turn_of_searching_rolls_with_its_sentence(self, hexlog, tmp_path):
        """explore reads seed 004's one die for the party's turn of searching (§4.2): the table's line shows
        ``secret_door_roll=party`` and its sentence, read by the dungeon, explains both choices; a house rule of
        each_searcher is shown instead, and a value outside them is refused naming the key."""
        lines = hexlog("rules", "show", "explore").stdout.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("tables.dungeon = "))
        assert lines[at].endswith(" secret_door_roll=party")
        assert lines[at + 1] == f"    {help_of(DungeonTables, 'dungeon')} [read by dungeon]"
        assert "secret_door_roll: party (one secret d6 for each turn of searching" in lines[at + 1]
        assert "each_searcher (one for each searcher)" in lines[at + 1]
        (tmp_path / "house.toml").write_text('[tables.dungeon]\nsecret_door_roll = "each_searcher"\n', encoding="utf-8")
        shown = hexlog("rules", "show", "explore", "--rules", "house.toml").stdout
        assert " secret_door_roll=each_searcher" in shown
        (tmp_path / "bad.toml").write_text('[tables.dungeon]\nsecret_door_roll = "each"\n', encoding="utf-8")
        refused = hexlog("rules", "show", "explore", "--rules", "bad.toml")
        assert refused.returncode == 2
        assert "tables.dungeon.secret_door_roll: 'each' is not one of party, each_searcher" in refused.stderr

    def test_show_marks_the_keys_no_procedure_reads(self, hexlog):
        """An unused option or table says so on its line, and has no sentence under it."""
        lines = hexlog("rules", "show", "adnd").stdout.splitlines()
        for key in ("options.segment_seconds = 6",):
            found = [i for i, line in enumerate(lines) if line.startswith(key)]
            assert len(found) == 1, key
            assert lines[found[0]].endswith(f"  {UNUSED}"), lines[found[0]]
            assert not any(line.startswith("    ") for line in lines[found[0] + 1 : found[0] + 2]), key

    def test_show_says_the_ose_example_chance_for_a_surprised_side_is_not_applied(self, hexlog):
        """OSE's 10 % in dense woods is the text's example of what a referee may allow, which no step reads: its
        table's sentence says so and names the option that gives a chance."""
        lines = hexlog("rules", "show", "ose").stdout.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("tables.evasion_surprise = "))
        assert "surprised_example_pct=10" in lines[at]
        assert "surprised_example_pct is the text's example" in lines[at + 1]
        assert "not applied" in lines[at + 1]
        assert "--referee-pct" in lines[at + 1]

    def test_show_marks_what_only_a_procedure_the_rules_cannot_run_reads(self, hexlog):
        """ose has tables.light but no dungeon to read it (no tables.dungeon, tables.open_doors): its reader is marked,
        and a line says why the dungeon does not run; explore runs every procedure, and marks none."""
        lines = hexlog("rules", "show", "ose").stdout.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("tables.light = "))
        assert lines[at + 1].endswith("[read by dungeon (not run under these rules)]")
        assert "not run under these rules (dungeon): they have no tables.dungeon, tables.open_doors" in lines
        assert "not run under these rules (encounter)" not in "\n".join(lines)
        explore = hexlog("rules", "show", "explore").stdout
        assert "not run under these rules" not in explore

    def test_show_prints_the_sentence_of_each_used_key_on_the_next_line(self, hexlog):
        """A used option or table is not marked, and its part's sentence follows with who reads it."""
        lines = hexlog("rules", "show", "adnd").stdout.splitlines()
        for head, part, key, reader in (
            (
                "options.initiative_tie = simultaneous  (choices: simultaneous, reroll)",
                EncounterOptions,
                "initiative_tie",
                "encounter",
            ),
            ("options.round_seconds = 60", ClockOptions, "round_seconds", "campaign"),
            ("options.surprise_on = 2", EncounterOptions, "surprise_on", "encounter"),
            (
                "tables.small_room.size_ft = 20",
                EncounterTables,
                "small_room",
                "encounter when options.distance_rules is adnd",
            ),
        ):
            at = lines.index(head)
            assert lines[at + 1] == f"    {help_of(part, key)} [read by {reader}]"
        used = ("options.initiative_tie", "tables.small_room")
        assert not any(UNUSED in line for line in lines if line.startswith(used))
        assert "options.segment_seconds = 6  " + UNUSED in lines

    def test_show_names_the_pursuit_among_the_readers_of_the_chances_by_terrain_alone(self, hexlog):
        """The rest after a pursuit's escape reads the encounter chances of its terrain and their source: rules show
        names the pursuit among their readers, and not among those of the night's check or the weather's flags,
        which only the travel day and the camp read."""
        lines = hexlog("rules", "show", "explore").stdout.splitlines()
        for key, readers in (
            ("options.lost_encounter_source", "travel, camp, pursuit"),
            ("tables.lost_encounter", "travel, camp, pursuit"),
            ("options.night_encounter_check", "travel, camp"),
            ("tables.weather_flags", "travel, camp"),
        ):
            at = next(i for i, line in enumerate(lines) if line.startswith((f"{key} = ", f"{key}.")))
            assert lines[at + 1].endswith(f"[read by {readers}]"), key

    def test_diff_lists_the_keys_that_differ(self, hexlog):
        """Two rulesets compared key by key."""
        result = hexlog("rules", "diff", "ose", "explore")
        assert result.returncode == 0
        assert "options.round_seconds: 10 | 60" in result.stdout

    def test_diff_of_a_ruleset_with_itself_says_they_are_the_same(self, hexlog):
        """No differences is said plainly."""
        result = hexlog("rules", "diff", "ose", "ose")
        assert result.returncode == 0  # as when they differ: a comparison answered, not a failure
        assert "are the same" in result.stdout

    def test_an_unknown_ruleset_is_named(self, hexlog):
        """Exit 2 with the known names."""
        result = hexlog("rules", "show", "gurps")
        assert result.returncode == 2
        assert "unknown ruleset 'gurps'; known: adnd, explore, ose" in result.stderr


class TestHouseRules:
    """House-rules files given to ``init``, ``rules show`` and ``rules change``."""

    def test_a_typo_is_refused_with_the_key_named_and_no_database(self, hexlog, tmp_path):
        """A misspelt option never reaches the log."""
        (tmp_path / "house.toml").write_text('[options]\ninitiative_tye = "reroll"\n', encoding="utf-8")
        result = hexlog("init", "--rules", "house.toml")
        assert result.returncode == 2
        assert "unknown key 'options.initiative_tye'" in result.stderr
        assert not (tmp_path / "hexlog.db").exists()

    def test_a_wrong_type_is_refused_with_the_key_named(self, hexlog, tmp_path):
        """A string where a number belongs is named."""
        (tmp_path / "house.toml").write_text('[options]\nround_seconds = "ten"\n', encoding="utf-8")
        result = hexlog("init", "--rules", "house.toml")
        assert result.returncode == 2
        assert "options.round_seconds: expected an integer, got a string" in result.stderr

    def test_broken_toml_is_refused(self, hexlog, tmp_path):
        """A file that is not TOML says so."""
        (tmp_path / "house.toml").write_text("[options\n", encoding="utf-8")
        result = hexlog("init", "--rules", "house.toml")
        assert result.returncode == 2
        assert "is not valid TOML" in result.stderr

    def test_a_valid_file_changes_the_recorded_rules_and_hash(self, hexlog, tmp_path):
        """The campaign records the resolved rules and their hash."""
        (tmp_path / "house.toml").write_text('[options]\ninitiative_tie = "reroll"\n', encoding="utf-8")
        assert hexlog("init", "--db", "plain.db").returncode == 0
        assert hexlog("init", "--db", "house.db", "--rules", "house.toml").returncode == 0
        plain, house = _started_rules(tmp_path / "plain.db")[0], _started_rules(tmp_path / "house.db")[0]
        assert plain["rules_hash"] != house["rules_hash"]
        assert house["rules"]["options"]["initiative_tie"] == "reroll"
        assert plain["rules"]["options"]["initiative_tie"] == "simultaneous"
        shown = hexlog("rules", "show", "--db", "house.db")
        assert "options.initiative_tie = reroll" in shown.stdout

    def test_changing_rules_later_is_an_event(self, hexlog, tmp_path):
        """rules change appends an event; the start keeps the old rules."""
        hexlog("init")
        result = hexlog("rules", "change", "--ruleset", "explore", "--reason", "into the wilds")
        assert result.returncode == 0, result.stderr
        recorded = _started_rules(tmp_path / "hexlog.db")
        assert [r.get("ruleset") for r in recorded] == ["ose", "explore"]
        assert recorded[1]["reason"] == "into the wilds"
        assert "rules: Exploration" in hexlog("state").stdout


def _count_events(db):
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


#: house rules refused before anything is written: ruleset, TOML, what stderr must say
BAD_HOUSE_RULES = (
    (
        "ose",
        "[options]\nencounter_move_divisor = 0\n",
        "options.encounter_move_divisor: 0 is out of range; allowed 1 to 1000",
    ),
    ("adnd", '[tables.distance.indoors]\ndice = "zz"\n', "tables.distance.indoors.dice: not a dice expression: 'zz'"),
    (
        "explore",
        "[tables.distance.wilderness]\nmultiplier = nan\n",
        "tables.distance.wilderness.multiplier: nan is not allowed",
    ),
    (
        "ose",
        '[options]\ninitiative_tie = "sometimes"\n',
        "options.initiative_tie: 'sometimes' is not one of simultaneous, reroll",
    ),
    (
        "adnd",
        '[options]\noutdoor_distance_dice = "6d4x20ft"\n',
        "options.outdoor_distance_dice: '6d4x20ft' is not an entry of its table",
    ),
    (
        "adnd",
        "[options]\nsegment_seconds = 12\n",
        "options.segment_seconds is not used by any procedure yet, so a house rule cannot change it",
    ),
)
BAD_IDS = ("divisor-0", "dice-zz", "nan", "unknown-choice", "missing-entry", "unused-key")


class TestHouseRuleRanges:
    """Values out of range, NaN and bad dice are refused before anything is written."""

    @pytest.mark.parametrize(("ruleset", "text", "needle"), BAD_HOUSE_RULES, ids=BAD_IDS)
    def test_init_refuses_and_creates_no_database(self, hexlog, tmp_path, ruleset, text, needle):
        """Exit 2 naming the key and the range; no hexlog.db."""
        (tmp_path / "house.toml").write_text(text, encoding="utf-8")
        result = hexlog("init", "--ruleset", ruleset, "--rules", "house.toml")
        assert result.returncode == 2, result.stderr
        assert needle in " ".join(result.stderr.split())
        assert "Traceback" not in result.stderr
        assert not (tmp_path / "hexlog.db").exists()

    @pytest.mark.parametrize(("ruleset", "text", "needle"), BAD_HOUSE_RULES, ids=BAD_IDS)
    def test_rules_change_refuses_and_writes_nothing(self, hexlog, tmp_path, ruleset, text, needle):
        """Exit 2 naming the key; the log keeps its events and the rules in force are unchanged."""
        assert hexlog("init").returncode == 0
        before = _count_events(tmp_path / "hexlog.db")
        (tmp_path / "house.toml").write_text(text, encoding="utf-8")
        result = hexlog("rules", "change", "--ruleset", ruleset, "--rules", "house.toml", "--reason", "house")
        assert result.returncode == 2, result.stderr
        assert needle in " ".join(result.stderr.split())
        assert "Traceback" not in result.stderr
        assert _count_events(tmp_path / "hexlog.db") == before
        assert [r.get("ruleset") for r in _started_rules(tmp_path / "hexlog.db")] == ["ose"]

    @pytest.mark.parametrize(("ruleset", "text", "needle"), BAD_HOUSE_RULES, ids=BAD_IDS)
    def test_rules_show_and_diff_refuse(self, hexlog, tmp_path, ruleset, text, needle):
        """The same file is refused by ``rules show --rules`` and ``rules diff --rules``."""
        (tmp_path / "house.toml").write_text(text, encoding="utf-8")
        for args in (
            ("rules", "show", ruleset, "--rules", "house.toml"),
            ("rules", "diff", ruleset, ruleset, "--rules", "house.toml"),
        ):
            result = hexlog(*args)
            assert result.returncode == 2, (args, result.stderr)
            assert needle in " ".join(result.stderr.split()), args
            assert "Traceback" not in result.stderr
        assert not (tmp_path / "hexlog.db").exists()


class TestEncounterBounds:
    """``encounter start`` refuses absurd counts and lengths instead of recording them."""

    @pytest.mark.parametrize(
        ("args", "needle"),
        [
            (("--monsters", "99999999999999999999999"), "monster count must be 1 to 10000"),
            (("--monsters", "10001"), "monster count must be 1 to 10000, not 10001"),
            (("--line-of-sight", "100001"), "line of sight must be 0 to 100000 ft, not 100001"),
            (("--area", "99999999999999999999"), "area must be 0 to 100000 ft"),
            (("--light-radius", "100001"), "light radius must be 0 to 100000 ft"),
            (("--vision", "100001"), "vision must be 0 to 100000 ft"),
        ],
        ids=["monsters-huge", "monsters-10001", "line-of-sight", "area", "light-radius", "vision"],
    )
    def test_a_count_or_length_out_of_range_is_refused_and_writes_nothing(self, hexlog, tmp_path, args, needle):
        """Exit 2 naming the field; the event count is unchanged."""
        assert hexlog("init", "--ruleset", "adnd").returncode == 0
        assert hexlog("party", "add", "Ayla").returncode == 0
        before = _count_events(tmp_path / "hexlog.db")
        result = hexlog("encounter", "start", "--setting", "indoors", *args)
        assert result.returncode == 2, result.stderr
        assert needle in " ".join(result.stderr.split())
        assert "Traceback" not in result.stderr
        assert _count_events(tmp_path / "hexlog.db") == before

    def test_the_largest_allowed_values_are_recorded(self, hexlog):
        """10,000 monsters and 100,000 ft are still accepted."""
        assert hexlog("init", "--ruleset", "adnd").returncode == 0
        assert hexlog("party", "add", "Ayla").returncode == 0
        result = hexlog(
            "encounter",
            "start",
            "--setting",
            "indoors",
            "--monsters",
            "10000",
            "--line-of-sight",
            "100000",
            "--vision",
            "100000",
        )
        assert result.returncode == 0, result.stderr


class TestEntriesAnOptionNames:
    """A table of named entries the procedures read one of, the one an option names (the search tables, the lost and
    encounter chances by source, the weather and evasion tables, the distance dice): ``rules show`` marks each other
    entry as not read, naming the option and its value, so that no table reads as in force that no code reads."""

    #: under explore: each entry not read, and the option that names another
    IDLE: ClassVar[dict[str, str]] = {
        "tables.search.dvdm": "options.search_table is default",
        "tables.lost_encounter.dolmenwood.road": "options.lost_encounter_source is odd_p18",
        "tables.lost_encounter.dolmenwood.light": "options.lost_encounter_source is odd_p18",
        "tables.weather.custom": "options.weather_table is fallback",
        "tables.evasion.custom": "options.evasion_table is bx",
        "tables.dungeon_distance.2d6x10ft": "options.dungeon_distance is 2d4x10ft",
    }
    #: under explore: entries in force, never marked
    READ: ClassVar[tuple[str, ...]] = (
        "tables.search.default",
        "tables.lost_encounter.odd_p18.woods",
        "tables.weather.fallback[0]",
        "tables.evasion.bx[0]",
        "tables.dungeon_distance.2d4x10ft",
    )

    @staticmethod
    def _lines(hexlog, *args: str) -> dict[str, str]:
        shown = hexlog("rules", "show", "explore", *args)
        assert shown.returncode == 0, shown.stderr
        return {line.split(" = ")[0]: line for line in shown.stdout.splitlines() if " = " in line}

    def test_an_entry_the_option_does_not_name_is_marked_not_read(self, hexlog):
        lines = self._lines(hexlog)
        for key, why in self.IDLE.items():
            assert lines[key].endswith(f"[not read under these rules: {why}]"), lines[key]
        for key in self.READ:
            assert "not read" not in lines[key], lines[key]

    def test_a_house_rule_that_names_another_entry_moves_the_mark(self, hexlog, tmp_path):
        (tmp_path / "house.toml").write_text(
            '[options]\nsearch_table = "dvdm"\nlost_encounter_source = "dolmenwood"\n', encoding="utf-8"
        )
        lines = self._lines(hexlog, "--rules", "house.toml")
        assert "not read" not in lines["tables.search.dvdm"]
        assert "not read" not in lines["tables.lost_encounter.dolmenwood.road"]
        assert lines["tables.search.default"].endswith("[not read under these rules: options.search_table is dvdm]")
        woods = lines["tables.lost_encounter.odd_p18.woods"]
        assert woods.endswith("[not read under these rules: options.lost_encounter_source is dolmenwood]")


class TestReadUnder:
    """A rule read only under some options (one text's distance procedure, a tie rule, the segments rule) is shown
    as not read under other rules, and truly is not: changing it changes no encounter there
    (``rule(read_when=...)``)."""

    @pytest.mark.parametrize(
        ("name", "idle", "read"),
        [
            ("explore", "wild_surprise_distance_trigger", "dungeon_distance"),
            ("ose", "dungeon_distance", "wild_surprise_distance_trigger"),
            ("adnd", "wild_surprise_distance_trigger", "outdoor_min_distance_ft"),
        ],
    )
    def test_show_says_which_rules_the_distance_procedure_in_force_does_not_read(self, hexlog, name, idle, read):
        """The option shown with its default is marked as not read, naming the option that decides it."""
        lines = hexlog("rules", "show", name).stdout.splitlines()
        idle_line = next(line for line in lines if line.startswith(f"options.{idle} ="))
        read_line = next(line for line in lines if line.startswith(f"options.{read} ="))
        assert f"[not read under these rules: options.distance_rules is {name}]" in idle_line
        assert "not read" not in read_line

    #: each option read only under some rules: the ruleset and house rules that read it, and a value that moves its
    #: encounters there
    CHANGES: ClassVar[dict[str, tuple[str, dict[str, object], object]]] = {
        "wild_surprise_distance_trigger": ("ose", {}, "both"),
        "default_light_radius_ft": ("adnd", {}, 5),
        "outdoor_min_distance_ft": ("adnd", {}, 400),
        "reroll_limit": ("ose", {"initiative_tie": "reroll"}, 0),
        "segments_on_mutual_surprise": ("adnd", {}, "face"),
        # both sides surprised: read only where surprise gives a free round (ose); the others act at once by default
        "mutually_surprised_sides_act": ("ose", {"mutually_surprised_sides_act": True}, False),
    }

    #: each option read only in an encounter another procedure hands off, which no encounter trial meets: that
    #: procedure (where the option is marked as not read, the procedure cannot run at all)
    UNMET: ClassVar[dict[str, str]] = {"caught_distance": "pursuit"}

    @staticmethod
    def _outcomes(name: str, overrides: dict[str, object]) -> list[object]:
        """Every event of 60 encounters in each setting of the ruleset, with the party lit and unlit (three monsters;
        a light the monsters see keeps them from being surprised, so only unlit are both sides surprised), each
        played as ``hexlog simulate encounter`` plays a trial, on the same dice whatever the house rules (the
        sessions aside: the first one's secret is drawn)."""
        settings = {"adnd": ("indoors", "outdoors")}.get(name, ("dungeon", "wilderness", "waterborne"))
        out: list[object] = []
        for setting, light in itertools.product(settings, (True, False)):
            play = Play(handler_for(name, CAMPAIGN, overrides))
            situation = StartEncounter(setting=setting, monster_count=3, party_light=light)
            for index in range(60):
                play.run(CloseSession())
                play.run(OpenSession(secret_hex=secret_for(1, index)))
                SCENARIOS["encounter"].trial(play, situation)
            out.append([e for e in play.events if not isinstance(e, SessionOpened | SessionClosed)])
        return out

    @pytest.mark.parametrize("name", ["ose", "adnd", "explore"])
    def test_an_option_shown_as_not_read_changes_no_encounter(self, name):
        """Each option a built-in's ``rules show`` marks as not read (with a value: one not set names a table entry),
        set to a value that moves the encounters where it is read, leaves every outcome as it was: the marks are not a
        guess."""

        rules = rulesets.load(name)
        rows = rulesets.describe(rules, REGISTRY.readers, REGISTRY.rule_parts, left_out=True)
        idle = {
            row.key.removeprefix("options.")
            for row in rows
            if row.idle and row.key.startswith("options.") and "(not set)" not in row.value
        }
        assert idle, "no option is marked as not read"
        for key, procedure in self.UNMET.items():  # the trials never meet it: where idle, its procedure cannot run
            if key in idle:
                unavailable = REGISTRY.procedure(procedure).unavailable
                assert unavailable is not None, (key, procedure)
                assert unavailable(rules), (key, procedure)
        idle -= set(self.UNMET)
        assert idle <= set(self.CHANGES), f"give these a value that moves encounters: {idle - set(self.CHANGES)}"
        changed = {key: self.CHANGES[key][2] for key in idle}
        assert self._outcomes(name, {"options": changed}) == self._outcomes(name, {}), changed

    @pytest.mark.parametrize(("name", "read"), [("ose", True), ("explore", False), ("adnd", False)])
    def test_acting_after_mutual_surprise_is_read_only_where_surprise_gives_a_free_round(self, hexlog, name, read):
        """Both sides surprised, ``mutually_surprised_sides_act`` decides whether the free round OSE's surprise gives
        passes with nobody acting; explore's single action and AD&D's segments never read it: ``rules show`` says so,
        and setting it there leaves every event of encounters that meet mutual surprise as it was."""
        lines = hexlog("rules", "show", name).stdout.splitlines()
        line = next(line for line in lines if line.startswith("options.mutually_surprised_sides_act ="))
        assert ("[not read under these rules: options.surprise_advantage is" in line) is not read
        if read:
            return
        changed = self._outcomes(name, {"options": {"mutually_surprised_sides_act": False}})
        mutual = [e for events in changed for e in events if isinstance(e, SurpriseChecked) and e.monsters_surprised]
        assert any(e.party_surprised for e in mutual)  # the encounters meet the case the option is about
        assert changed == self._outcomes(name, {})

    @pytest.mark.parametrize("key", sorted(CHANGES))
    def test_the_same_change_moves_the_encounters_of_the_rules_that_read_it(self, key):
        """The test above can fail: under the rules that read it, each change moves the outcomes."""
        name, reading, value = self.CHANGES[key]
        assert self._outcomes(name, {"options": {**reading, key: value}}) != self._outcomes(name, {"options": reading})
