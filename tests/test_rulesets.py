"""Rulesets as data: the built-in TOML files, overrides, the hash, ``describe`` and ``diff``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from hexlog.machine import ruleset as rulesets
from hexlog.machine.ruleset import RulesError

BUILTINS = ["adnd", "explore", "ose"]

#: REFERENCE.md section 5: option -> the rulesets it concerns -> its default there
SECTION_5: list[tuple[str, str, Any]] = [
    ("round_seconds", "ose", 10),
    ("round_seconds", "adnd", 60),
    ("round_seconds", "explore", 60),
    ("initiative_tie", "ose", "simultaneous"),
    ("initiative_tie", "adnd", "simultaneous"),
    ("initiative_tie", "explore", "simultaneous"),
    ("wild_surprise_distance_trigger", "ose", "either"),
    ("surprise_advantage", "ose", "round"),
    ("surprise_advantage", "adnd", "segments"),
    ("surprise_advantage", "explore", "single_action"),
    ("light_blocks_surprise", "ose", True),
    ("light_blocks_surprise", "explore", True),
    ("pursue_if_reaction_at_most", "ose", 5),
    ("pursue_if_reaction_at_most", "explore", 5),
    ("segments_on_mutual_surprise", "adnd", "difference"),
    ("outdoor_distance_dice", "adnd", "18d4x10ft"),
    ("outdoor_min_distance_ft", "adnd", 10),
    ("avoid_rule", "adnd", "add20"),
    ("noisy_armor", "adnd", ["metal", "plated"]),
    ("wis_surprise_mod", "explore", "scale"),
    ("cha_reaction_scale", "ose", "ose"),
    ("cha_reaction_scale", "adnd", "ose"),
    ("cha_reaction_scale", "explore", "ose"),
    ("dungeon_distance", "explore", "2d4x10ft"),
    ("lost_encounter_source", "explore", "odd_p18"),
    ("afloat_rule", "explore", "seed"),
    ("carry_partial_hex", "explore", False),
    ("evasion_table", "ose", "bx"),
    ("evasion_table", "explore", "bx"),
    ("evasion_cap_pct", "ose", 100),
    ("evasion_cap_pct", "explore", 100),
    ("evasion_floor_pct", "ose", 0),
    ("evasion_floor_pct", "explore", 0),
    ("search_table", "explore", "default"),
    ("weather_table", "explore", "fallback"),
]

#: tables the encounter, travel and pursuit procedures read, by ruleset
TABLES: dict[str, list[str]] = {
    "ose": ["distance", "reaction", "cha_reaction", "evasion", "evasion_waterborne", "dungeon_pursuit"],
    "adnd": ["distance", "outdoor_dice", "outdoor_terrain", "small_room", "avoid", "armor_kind", "reaction",
             "cha_reaction"],
    "explore": ["distance", "dungeon_distance", "wis_surprise", "reaction", "cha_reaction", "travel_points",
                "lost_encounter", "lost_modifiers", "terrain_cost", "terrain_difficulty", "terrain_odd_row",
                "weather", "weather_flags", "search", "evasion", "evasion_adjust", "evasion_waterborne",
                "wilderness_pursuit", "castle", "castle_demands", "camp", "rest"],
}


def with_overrides(name: str, text: str) -> rulesets.Ruleset:
    """A built-in ruleset with a referee's house-rules TOML laid over it."""
    return rulesets.load(name, rulesets.load_overrides(text, "house.toml"))


class TestBuiltins:
    """The three shipped rulesets."""

    def test_the_builtins_are_the_three_seeds(self) -> None:
        """One TOML per seed text."""
        assert rulesets.builtin_names() == BUILTINS

    @pytest.mark.parametrize(("name", "seed"), [("ose", "000"), ("adnd", "001"), ("explore", "004")])
    def test_each_builtin_loads_with_its_name_seed_and_sections(self, name: str, seed: str) -> None:
        """Name, title, seed, options, choices and tables are all there."""
        rules = rulesets.load(name)
        assert rules.name == name
        assert rules.content["name"] == name
        assert rules.content["seed"] == seed
        assert rules.title != name
        assert {"options", "choices", "tables"} <= set(rules.content)

    @pytest.mark.parametrize(("option", "name", "default"), SECTION_5, ids=[f"{o}-{n}" for o, n, _ in SECTION_5])
    def test_every_section_5_option_has_its_default(self, option: str, name: str, default: Any) -> None:
        """REFERENCE.md section 5, option by option and ruleset by ruleset."""
        assert rulesets.load(name).option(option) == default

    @pytest.mark.parametrize("name", BUILTINS)
    def test_each_default_is_one_of_its_choices(self, name: str) -> None:
        """Every enumerated option starts at an allowed value, and every choice names an option."""
        content = rulesets.load(name).content
        for option, allowed in content["choices"].items():
            value = content["options"][option]
            assert all(v in allowed for v in (value if isinstance(value, list) else [value])), option

    @pytest.mark.parametrize("name", BUILTINS)
    def test_each_builtin_has_the_tables_its_procedures_read(self, name: str) -> None:
        """Distances, reactions, and the travel, evasion and castle tables."""
        rules = rulesets.load(name)
        for table in TABLES[name]:
            assert rules.table(table), table

    @pytest.mark.parametrize("name", BUILTINS)
    def test_an_option_naming_a_table_entry_finds_it(self, name: str) -> None:
        """Options that pick a table entry pick one that exists, for every allowed value."""
        rules = rulesets.load(name)
        picks = {"outdoor_distance_dice": "outdoor_dice", "dungeon_distance": "dungeon_distance",
                 "wis_surprise_mod": "wis_surprise", "cha_reaction_scale": "cha_reaction",
                 "lost_encounter_source": "lost_encounter", "evasion_table": "evasion",
                 "search_table": "search", "weather_table": "weather"}
        for option, table in picks.items():
            for value in rules.content["choices"].get(option, []):
                if value != "off":
                    assert value in rules.table(table), f"{option}={value}"

    def test_the_ose_keys_others_code_against_are_kept(self) -> None:
        """The original OSE keys are still there with their values."""
        ose = rulesets.load("ose")
        assert ose.option("surprise_on") == 2
        assert ose.option("encounter_move_divisor") == 3
        assert ose.table("distance")["wilderness"] == {"dice": "4d6", "multiplier": 10, "unit": "yd",
                                                       "surprised_dice": "1d4"}
        assert [row["at_least"] for row in ose.table("reaction")] == [-99, 3, 6, 9, 12]
        assert ose.table("cha_reaction")["ose"][0] == [3, -2]

    def test_an_unknown_option_or_table_is_refused_by_name(self) -> None:
        """Asking for what a ruleset lacks names it."""
        with pytest.raises(RulesError, match="no option 'avoid_rule'"):
            rulesets.load("ose").option("avoid_rule")
        with pytest.raises(RulesError, match="no table 'small_room'"):
            rulesets.load("explore").table("small_room")

    def test_an_unknown_ruleset_is_refused_with_the_known_names(self) -> None:
        """The message lists the built-ins."""
        with pytest.raises(RulesError, match="known: adnd, explore, ose"):
            rulesets.load("basic")


class TestOverrides:
    """A referee's house rules: checked key by key."""

    def test_a_typo_in_a_key_is_refused_with_the_dotted_key(self) -> None:
        """``round_secnds`` is not an option."""
        with pytest.raises(RulesError, match=r"unknown key 'options\.round_secnds'"):
            with_overrides("ose", "[options]\nround_secnds = 6\n")

    def test_a_typo_in_a_table_key_is_refused_with_the_dotted_key(self) -> None:
        """``tables.distance.dungeon.dise`` is not a key."""
        with pytest.raises(RulesError, match=r"unknown key 'tables\.distance\.dungeon\.dise'"):
            with_overrides("ose", '[tables.distance.dungeon]\ndise = "3d6"\n')

    def test_a_wrong_type_is_refused_with_the_dotted_key(self) -> None:
        """A string where an integer belongs."""
        with pytest.raises(RulesError, match=r"options\.round_seconds: expected integer, got string"):
            with_overrides("adnd", '[options]\nround_seconds = "sixty"\n')

    def test_a_fraction_where_an_integer_belongs_is_refused(self) -> None:
        """Distances are whole feet."""
        with pytest.raises(RulesError, match=r"options\.outdoor_min_distance_ft: expected integer, got number"):
            with_overrides("adnd", "[options]\noutdoor_min_distance_ft = 10.5\n")

    def test_a_bad_choice_is_refused_with_the_allowed_values(self) -> None:
        """``avoid_rule`` is add20 or movement."""
        with pytest.raises(RulesError, match=r"options\.avoid_rule: 'run' is not one of add20, movement"):
            with_overrides("adnd", '[options]\navoid_rule = "run"\n')

    def test_a_bad_element_of_a_list_option_is_refused(self) -> None:
        """``noisy_armor`` holds armour kinds only."""
        with pytest.raises(RulesError, match=r"options\.noisy_armor: 'wood' is not one of"):
            with_overrides("adnd", '[options]\nnoisy_armor = ["metal", "wood"]\n')

    def test_the_name_seed_and_choices_cannot_be_overridden(self) -> None:
        """They identify the ruleset."""
        for text in ('name = "x"\n', 'seed = "999"\n', '[choices]\navoid_rule = ["run"]\n'):
            with pytest.raises(RulesError, match="cannot be overridden"):
                with_overrides("adnd", text)

    def test_a_valid_override_changes_the_hash_and_only_the_overridden_value(self) -> None:
        """The diff against the built-in is exactly the one option."""
        base = rulesets.load("adnd")
        house = with_overrides("adnd", '[options]\noutdoor_distance_dice = "6d4x30ft"\n')
        assert house.hash != base.hash
        assert rulesets.diff(base, house) == [("options.outdoor_distance_dice", "18d4x10ft", "6d4x30ft")]

    def test_an_array_override_replaces_the_array_whole(self) -> None:
        """Three reaction bands replace five."""
        text = """
[[tables.reaction]]
at_least = -99
result = "attacks"
text = "Attacks"
[[tables.reaction]]
at_least = 7
result = "uncertain"
text = "Unsure"
[[tables.reaction]]
at_least = 10
result = "friendly"
text = "Friendly"
"""
        house = with_overrides("ose", text)
        assert [row["at_least"] for row in house.table("reaction")] == [-99, 7, 10]

    def test_an_array_element_of_the_wrong_kind_is_refused_with_its_index(self) -> None:
        """A string band floor in an array of tables."""
        text = '[[tables.reaction]]\nat_least = "low"\nresult = "attacks"\ntext = "x"\n'
        with pytest.raises(RulesError, match=r"tables\.reaction\[0\]\.at_least: expected integer, got string"):
            with_overrides("ose", text)

    def test_an_array_element_with_an_unknown_or_missing_key_is_refused(self) -> None:
        """A typo in an element, and an element without its result."""
        with pytest.raises(RulesError, match=r"unknown key 'tables\.reaction\[0\]\.reslt'"):
            with_overrides("ose", '[[tables.reaction]]\nat_least = 1\nreslt = "x"\ntext = "x"\n')
        with pytest.raises(RulesError, match=r"tables\.reaction\[0\]: missing result"):
            with_overrides("ose", '[[tables.reaction]]\nat_least = 1\ntext = "x"\n')

    def test_nested_arrays_keep_their_element_kind(self) -> None:
        """CHA bands are pairs of integers; a string in a pair is refused, good pairs are taken."""
        with pytest.raises(RulesError, match=r"tables\.cha_reaction\.ose\[1\]\[1\]: expected integer, got string"):
            with_overrides("ose", '[tables.cha_reaction]\nose = [[3, -1], [9, "x"]]\n')
        house = with_overrides("ose", "[tables.cha_reaction]\nose = [[3, -1], [9, 0], [16, 1]]\n")
        assert house.table("cha_reaction")["ose"] == [[3, -1], [9, 0], [16, 1]]

    def test_an_array_where_a_table_belongs_and_back_is_refused(self) -> None:
        """Kinds must match both ways."""
        with pytest.raises(RulesError, match=r"options\.noisy_armor: expected array, got string"):
            with_overrides("adnd", '[options]\nnoisy_armor = "metal"\n')
        with pytest.raises(RulesError, match=r"tables\.light: expected a table, got integer"):
            with_overrides("ose", "[tables]\nlight = 3\n")

    def test_an_empty_slot_takes_rows_of_any_shape(self) -> None:
        """``tables.evasion.custom`` starts empty for the referee's own evasion table."""
        text = (
            '[options]\nevasion_table = "custom"\n'
            "[tables.evasion]\ncustom = [{ fleeing_at_least = 1, bands = [[1, 60]] }]\n"
        )
        house = with_overrides("explore", text)
        assert house.option("evasion_table") == "custom"
        assert house.table("evasion")["custom"][0]["bands"] == [[1, 60]]

    def test_invalid_toml_is_refused_with_its_source(self) -> None:
        """The message names the file."""
        with pytest.raises(RulesError, match=r"house\.toml is not valid TOML"):
            rulesets.load_overrides("[options\n", "house.toml")


class TestHash:
    """The content hash."""

    @pytest.mark.parametrize("name", BUILTINS)
    def test_the_same_content_hashes_the_same(self, name: str) -> None:
        """Loading twice, recording and key order do not change the hash."""
        first = rulesets.load(name)
        again = rulesets.load(name)
        recorded = rulesets.from_recorded(name, first.content)
        reordered = rulesets.from_recorded(name, dict(reversed(list(first.content.items()))))
        assert first.hash == again.hash == recorded.hash == reordered.hash
        assert len(first.hash) == 64

    def test_the_builtins_hash_differently(self) -> None:
        """Three rulesets, three hashes."""
        assert len({rulesets.load(n).hash for n in BUILTINS}) == 3

    def test_an_override_to_the_default_value_keeps_the_hash(self) -> None:
        """Only content counts, not whether it came from an override."""
        assert with_overrides("ose", "[options]\nround_seconds = 10\n").hash == rulesets.load("ose").hash


class TestDiff:
    """``diff`` lists differing dotted key paths."""

    def test_ose_against_explore_lists_the_known_differences(self) -> None:
        """Round length, surprise advantage, dungeon and wilderness surprised dice, options only one has."""
        rows = {path: (a, b) for path, a, b in rulesets.diff(rulesets.load("ose"), rulesets.load("explore"))}
        assert rows["options.round_seconds"] == (10, 60)
        assert rows["options.surprise_advantage"] == ("round", "single_action")
        assert rows["tables.distance.wilderness.surprised_dice"] == ("1d4", "1d3")
        assert rows["tables.distance.dungeon.dice"] == ("2d6", None)
        assert rows["options.wild_surprise_distance_trigger"] == ("either", None)
        assert rows["options.dungeon_distance"] == (None, "2d4x10ft")
        assert "options.cha_reaction_scale" not in rows
        assert "tables.reaction[0].result" not in rows

    def test_a_ruleset_does_not_differ_from_itself(self) -> None:
        """No rows."""
        assert rulesets.diff(rulesets.load("adnd"), rulesets.load("adnd")) == []

    def test_arrays_of_tables_are_compared_by_index(self) -> None:
        """A changed reaction band shows as its own dotted path."""
        house = with_overrides("ose", "\n".join(
            f'[[tables.reaction]]\nat_least = {low}\nresult = "{res}"\ntext = "{text}"'
            for low, res, text in [
                (-99, "attacks", "Attacks (hostile)"), (3, "hostile", "Hostile, may attack"),
                (7, "uncertain", "Uncertain, neutral"), (9, "indifferent", "Indifferent, uninterested"),
                (12, "friendly", "Eager, friendly"),
            ]
        ))
        assert rulesets.diff(rulesets.load("ose"), house) == [("tables.reaction[2].at_least", 6, 7)]

    def test_arrays_of_values_differ_as_a_whole(self) -> None:
        """A changed CHA band shows the whole scale on both sides."""
        house = with_overrides("ose", "[tables.cha_reaction]\nose = [[3, -3], [4, -1], [9, 0], [13, 1], [18, 2]]\n")
        assert rulesets.diff(rulesets.load("ose"), house) == [
            ("tables.cha_reaction.ose", [[3, -2], [4, -1], [9, 0], [13, 1], [18, 2]],
             [[3, -3], [4, -1], [9, 0], [13, 1], [18, 2]]),
        ]

    def test_diff_is_symmetric(self) -> None:
        """Swapping the sides swaps the values."""
        ab = {p: (a, b) for p, a, b in rulesets.diff(rulesets.load("ose"), rulesets.load("adnd"))}
        ba = {p: (b, a) for p, a, b in rulesets.diff(rulesets.load("adnd"), rulesets.load("ose"))}
        assert ab == ba


class TestDescribe:
    """``describe`` gives readable rows for ``rules show``."""

    @pytest.mark.parametrize("name", BUILTINS)
    def test_every_option_and_table_has_a_row(self, name: str) -> None:
        """Each option is a row; each table shows under its own dotted path."""
        rules = rulesets.load(name)
        rows = dict(rulesets.describe(rules))
        assert rows["hash"] == rules.hash
        for option in rules.content["options"]:
            assert f"options.{option}" in rows
        for table in rules.content["tables"]:
            assert any(k == f"tables.{table}" or k.startswith((f"tables.{table}.", f"tables.{table}["))
                       for k in rows), table
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in rows.items())

    def test_rows_are_compact_and_show_choices(self) -> None:
        """Booleans read as TOML, enumerated options list their choices, arrays of tables one row each."""
        rows = dict(rulesets.describe(rulesets.load("adnd")))
        assert rows["options.avoid_rule"] == "add20  (choices: add20, movement)"
        assert rows["options.noise_blocks_surprise"] == "true"
        assert rows["tables.small_room.rows[0]"] == "at_most=2 ft=5 melee=true"
        assert rows["tables.outdoor_terrain.forest"] == "faces=[1, 2, 3, 4] change=-1 rank=3"
        assert rows["tables.reaction[0]"] == 'at_least=-99 result=attacks text="Attacks (hostile)"'


def _numeric_options() -> list[tuple[str, str, Any]]:
    """Every (ruleset, option, value) of the built-ins whose value is a number (booleans aside)."""
    return [
        (name, option, value)
        for name in BUILTINS
        for option, value in rulesets.load(name).content["options"].items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    ]


class TestRanges:
    """Values are range-checked as well as type-checked: built-ins and house rules alike."""

    def test_every_numeric_option_of_every_builtin_has_a_bound_it_keeps(self) -> None:
        """Walk all options of all built-ins: each integer option is in the bounds table, inside its range."""
        found = _numeric_options()
        assert found
        for name, option, value in found:
            assert option in rulesets.OPTION_BOUNDS, f"{name}: options.{option} has no bound"
            low, high = rulesets.OPTION_BOUNDS[option]
            assert low <= value <= high, f"{name}: options.{option} = {value}"

    def test_every_bound_names_an_option_of_a_builtin(self) -> None:
        """No stale entries: each bounded option exists in some built-in."""
        assert set(rulesets.OPTION_BOUNDS) == {option for _, option, _ in _numeric_options()}

    def test_the_bounds_file_is_not_a_ruleset_and_its_pairs_name_bounded_options(self) -> None:
        """``_bounds.toml`` sits beside the rulesets but is neither listed nor loadable."""
        assert "_bounds" not in rulesets.builtin_names()
        with pytest.raises(RulesError, match="unknown ruleset '_bounds'"):
            rulesets.load("_bounds")
        assert rulesets.AT_MOST
        assert set(rulesets.AT_MOST) | set(rulesets.AT_MOST.values()) <= set(rulesets.OPTION_BOUNDS)

    @pytest.mark.parametrize("name", BUILTINS)
    def test_every_builtin_passes_the_value_checks(self, name: str) -> None:
        """The raw TOML of each built-in is finite, in range, and its dice parse."""
        rulesets.check_values(rulesets._builtin_content(name))

    @pytest.mark.parametrize(
        ("name", "option", "value", "allowed"),
        [
            ("ose", "encounter_move_divisor", 0, "1 to 1000"),
            ("adnd", "encounter_move_divisor", -3, "1 to 1000"),
            ("ose", "round_seconds", 0, "1 to 86400"),
            ("explore", "watch_seconds", 0, "1 to 86400"),
            ("adnd", "segment_seconds", 0, "1 to 86400"),
            ("ose", "turn_seconds", 86401, "1 to 86400"),
            ("ose", "surprise_on", 7, "0 to 6"),
            ("explore", "surprise_on", -1, "0 to 6"),
            ("ose", "evasion_cap_pct", 101, "0 to 100"),
            ("explore", "evasion_floor_pct", -1, "0 to 100"),
            ("adnd", "outdoor_min_distance_ft", -10, "0 to 100000"),
            ("explore", "surprised_party_flees_within_ft", -1, "0 to 100000"),
            ("ose", "reroll_limit", -1, "0 to 1000"),
            ("ose", "surrounded_at_monsters", -1, "0 to 10000"),
            ("adnd", "encounter_move_max_rounds", -1, "0 to 100000"),
            ("ose", "pursue_if_reaction_at_most", 1000, "-100 to 100"),
        ],
    )
    def test_an_option_out_of_range_is_refused_with_the_key_and_range(
        self, name: str, option: str, value: int, allowed: str,
    ) -> None:
        """The dotted key, the value and the allowed range are named."""
        with pytest.raises(RulesError, match=rf"options\.{option}: {value} is out of range; allowed {allowed}"):
            with_overrides(name, f"[options]\n{option} = {value}\n")

    def test_the_edges_of_a_range_are_accepted(self) -> None:
        """surprise_on 0 and 6, a divisor of 1, a cap of 0 over a floor of 0."""
        assert with_overrides("ose", "[options]\nsurprise_on = 0\n").option("surprise_on") == 0
        assert with_overrides("ose", "[options]\nsurprise_on = 6\n").option("surprise_on") == 6
        assert with_overrides("ose", "[options]\nencounter_move_divisor = 1\n").option("encounter_move_divisor") == 1
        assert with_overrides("explore", "[options]\nevasion_cap_pct = 0\n").option("evasion_cap_pct") == 0

    def test_an_evasion_floor_above_the_cap_is_refused(self) -> None:
        """The clamp floor..cap must not be empty."""
        with pytest.raises(RulesError, match=r"options\.evasion_floor_pct: 60 is above options\.evasion_cap_pct 50"):
            with_overrides("ose", "[options]\nevasion_floor_pct = 60\nevasion_cap_pct = 50\n")

    @pytest.mark.parametrize("value", ["nan", "+nan", "-nan", "inf", "+inf", "-inf"])
    def test_nan_and_infinities_are_refused_by_dotted_key(self, value: str) -> None:
        """A float table value must be finite: NaN is not JSON and would poison the hash."""
        with pytest.raises(RulesError, match=r"tables\.wilderness_pursuit\.rest_days_per_hex: .* is not allowed"):
            with_overrides("explore", f"[tables.wilderness_pursuit]\nrest_days_per_hex = {value}\n")

    def test_nan_deep_in_an_empty_slot_is_refused_with_its_path(self) -> None:
        """The custom evasion slot takes any rows, but not a NaN chance."""
        text = "[tables.evasion]\ncustom = [{ fleeing_at_least = 1, bands = [[1, nan]] }]\n"
        with pytest.raises(RulesError, match=r"tables\.evasion\.custom\[0\]\.bands\[0\]\[1\]: nan is not allowed"):
            with_overrides("ose", text)

    @pytest.mark.parametrize(
        ("name", "text", "key", "problem"),
        [
            ("adnd", '[tables.distance.indoors]\ndice = "zz"\n', "tables.distance.indoors.dice",
             "not a dice expression"),
            ("ose", '[tables.distance.dungeon]\nsurprised_dice = "1d0"\n', "tables.distance.dungeon.surprised_dice",
             "sides"),
            ("explore", '[tables.camp]\nfirewood_dice = "0d6"\n', "tables.camp.firewood_dice", "number of dice"),
            ("explore", '[tables.castle_demands.fighter]\ntoll_dice = "\uff11d6"\n',
             "tables.castle_demands.fighter.toll_dice", "not a dice expression"),
            ("adnd", '[tables.outdoor_dice."6d4x30ft"]\ndice = "6d4x30"\n', "tables.outdoor_dice.6d4x30ft.dice",
             "not a dice expression"),
        ],
    )
    def test_a_bad_dice_expression_in_a_table_is_refused(self, name: str, text: str, key: str, problem: str) -> None:
        """Every ``dice`` or ``*_dice`` string of the tables parses, or the dotted key is named."""
        with pytest.raises(RulesError, match=f"{re.escape(key)}: .*{problem}"):
            with_overrides(name, text)

    def test_an_empty_dice_string_means_not_reduced_and_is_kept(self) -> None:
        """OSE's dungeon has no surprised dice: "" stays allowed."""
        house = with_overrides("ose", '[tables.distance.wilderness]\nsurprised_dice = ""\n')
        assert house.table("distance")["wilderness"]["surprised_dice"] == ""

    @pytest.mark.parametrize(
        ("text", "key"),
        [
            ("[tables.weather_effects]\npoor_visibility_distance_divisor = 0\n",
             "tables.weather_effects.poor_visibility_distance_divisor"),
            ("[tables.travel_points]\nspeed_divisor = 0\n", "tables.travel_points.speed_divisor"),
            ("[tables.camp]\nfirewood_wet_divisor = -2\n", "tables.camp.firewood_wet_divisor"),
        ],
    )
    def test_a_table_divisor_below_one_is_refused(self, text: str, key: str) -> None:
        """A divisor of a table is at least 1, as an option's is."""
        with pytest.raises(RulesError, match=rf"{re.escape(key)}: -?\d+ is out of range; allowed 1 to 1000"):
            with_overrides("explore", text)
