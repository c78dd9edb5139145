"""The rules commands and house-rules files through a real subprocess."""

from __future__ import annotations

import json
import sqlite3


def _started_rules(db):
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT data FROM events WHERE type IN ('hexlog.campaign.started', 'hexlog.campaign.rules_changed') ORDER BY position").fetchall()
    return [json.loads(r[0]) for r in rows]


class TestRulesCommands:
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
        assert "options.segments_on_mutual_surprise = difference" in result.stdout
        assert "tables.outdoor_terrain.forest" in result.stdout

    def test_diff_lists_the_keys_that_differ(self, hexlog):
        """Two rulesets compared key by key."""
        result = hexlog("rules", "diff", "ose", "explore")
        assert result.returncode == 0
        assert "options.round_seconds: 10 | 60" in result.stdout

    def test_diff_of_a_ruleset_with_itself_says_they_are_the_same(self, hexlog):
        """No differences is said plainly."""
        result = hexlog("rules", "diff", "ose", "ose")
        assert "are the same" in result.stdout

    def test_an_unknown_ruleset_is_named(self, hexlog):
        """Exit 2 with the known names."""
        result = hexlog("rules", "show", "gurps")
        assert result.returncode == 2
        assert "unknown ruleset 'gurps'; known: adnd, explore, ose" in result.stderr


class TestHouseRules:
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
        assert "options.round_seconds: expected integer, got string" in result.stderr

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
