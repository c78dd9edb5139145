"""Rulesets as data: the built-in TOML files, their typed parts, house rules, the hash, ``describe`` and ``diff``."""

from __future__ import annotations

import copy
import enum
import re
import typing
from typing import Any

import pytest

from hexlog.events.encounter import AdvantageKind, ReactionResult
from hexlog.events.memory import MemoryStore
from hexlog.events.streams import stream_for
from hexlog.events.vocabulary import Setting, Unit
from hexlog.machine import commands as c
from hexlog.machine import ruleset as rulesets
from hexlog.machine.encounter.rules import (
    ArmorKind,
    AvoidRule,
    ChaScale,
    DistanceRow,
    EncounterOptions,
    EncounterTables,
    MutualSurprise,
    TieRule,
    WisSurprise,
)
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.kit.rules import help_of, keys_of, unstructure
from hexlog.machine.registry import REGISTRY
from hexlog.machine.ruleset import RulesError
from hexlog.machine.travel.rules import TravelOptions

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

#: tables the encounter, travel and pursuit procedures read (or will read), by ruleset
TABLES: dict[str, list[str]] = {
    "ose": ["distance", "reaction", "cha_reaction", "evasion", "evasion_waterborne", "dungeon_pursuit"],
    "adnd": [
        "distance",
        "outdoor_dice",
        "outdoor_terrain",
        "small_room",
        "avoid",
        "armor_kind",
        "reaction",
        "cha_reaction",
    ],
    "explore": [
        "distance",
        "dungeon_distance",
        "wis_surprise",
        "reaction",
        "cha_reaction",
        "travel_points",
        "lost_encounter",
        "lost_modifiers",
        "terrain_cost",
        "terrain_difficulty",
        "terrain_odd_row",
        "weather",
        "weather_flags",
        "search",
        "evasion",
        "evasion_adjust",
        "evasion_waterborne",
        "wilderness_pursuit",
        "castle",
        "castle_demands",
        "camp",
        "rest",
    ],
}

#: options no registered procedure reads yet -> the raw table whose entry they name
RAW_PICKS = {
    "lost_encounter_source": "lost_encounter",
    "evasion_table": "evasion",
    "search_table": "search",
    "weather_table": "weather",
}


def with_overrides(name: str, text: str) -> rulesets.Ruleset:
    """A built-in ruleset with a referee's house-rules TOML laid over it, checked as ``init`` checks it."""
    rules = rulesets.load(name, rulesets.load_overrides(text, "house.toml"), used=REGISTRY.used_keys())
    REGISTRY.check_rules(rules)
    return rules


def reader(section: str, key: str) -> type | None:
    """The typed part some procedure declares for a key, or None when no procedure reads it."""
    found = [part for part in REGISTRY.rule_parts if part.section == section and key in keys_of(part)]  # type: ignore[attr-defined]
    assert len(found) <= 1, f"{section}.{key} is declared by {found}"
    return found[0] if found else None


def enum_of(hint: Any) -> type[enum.Enum] | None:
    """The enum a field holds, alone, optional or as the elements of a tuple."""
    for arg in (hint, *typing.get_args(hint)):
        if isinstance(arg, type) and issubclass(arg, enum.Enum):
            return arg
        inner = typing.get_args(arg)
        if inner and isinstance(inner[0], type) and issubclass(inner[0], enum.Enum):
            return inner[0]
    return None


def holds(raw: Any, typed: Any) -> bool:
    """Whether every value of the raw data is kept in the typed part's plain data (defaults may be added)."""
    if isinstance(raw, dict):
        return isinstance(typed, dict) and all(k in typed and holds(v, typed[k]) for k, v in raw.items())
    if isinstance(raw, list):
        return isinstance(typed, list | tuple) and len(raw) == len(typed) and all(map(holds, raw, typed))
    return type(raw) is type(typed) and raw == typed if not isinstance(typed, enum.Enum) else raw == typed.value


def recorded_without(name: str, section: str, key: str) -> rulesets.Ruleset:
    """A built-in ruleset as a log could record it, with one key taken out."""
    content = copy.deepcopy(rulesets.load(name).content)
    del content[section][key]
    return rulesets.from_recorded(name, content)


class TestBuiltins:
    """The three shipped rulesets."""

    def test_the_builtins_are_the_three_seeds(self) -> None:
        """One TOML per seed text."""
        assert rulesets.builtin_names() == BUILTINS

    @pytest.mark.parametrize(("name", "seed"), [("ose", "000"), ("adnd", "001"), ("explore", "004")])
    def test_each_builtin_loads_with_its_name_seed_and_sections(self, name: str, seed: str) -> None:
        """Name, title, seed, options and tables are there; choices are enums of the typed parts, not a section."""
        rules = rulesets.load(name)
        assert rules.name == name
        assert rules.content["name"] == name
        assert rules.content["seed"] == seed
        assert rules.title != name
        assert {"options", "tables"} <= set(rules.content)
        assert "choices" not in rules.content

    @pytest.mark.parametrize(("option", "name", "default"), SECTION_5, ids=[f"{o}-{n}" for o, n, _ in SECTION_5])
    def test_every_section_5_option_has_its_default(self, option: str, name: str, default: Any) -> None:
        """REFERENCE.md section 5, option by option and ruleset by ruleset, as data and, when read, as typed."""
        rules = rulesets.load(name)
        assert rules.content["options"][option] == default
        part = reader("options", option)
        if part is not None:
            typed = getattr(rules.part(part), option)
            assert (list(typed) if isinstance(typed, tuple) else typed) == default

    @pytest.mark.parametrize("name", BUILTINS)
    def test_every_used_option_structures_into_its_typed_part(self, name: str) -> None:
        """Each option a procedure reads comes out of its part with the ruleset's value, an enum member for a choice."""
        rules = rulesets.load(name)
        used = [
            (key, value, part)
            for key, value in rules.content["options"].items()
            if (part := reader("options", key)) is not None
        ]
        parts = {part for _, _, part in used}
        assert {ClockOptions, EncounterOptions} <= parts <= set(REGISTRY.rule_parts)
        assert (TravelOptions in parts) == (name == "explore")
        for key, raw, part in used:
            typed = getattr(rules.part(part), key)
            assert holds(raw, unstructure(typed)), f"{name}: options.{key}"
            kind = enum_of(typing.get_type_hints(part)[key])
            if kind is not None:
                assert all(isinstance(v, kind) for v in (typed if isinstance(typed, tuple) else (typed,))), key

    @pytest.mark.parametrize("name", BUILTINS)
    def test_every_used_table_structures_into_its_typed_part(self, name: str) -> None:
        """Each table a procedure reads comes out of its part with every row and value of the ruleset kept."""
        rules = rulesets.load(name)
        used = [
            (key, raw, part)
            for key, raw in rules.content["tables"].items()
            if (part := reader("tables", key)) is not None
        ]
        assert {"distance", "reaction", "cha_reaction"} <= {key for key, _, _ in used}
        for key, raw, part in used:
            typed = getattr(rules.part(part), key)
            assert typed is not None, key
            assert holds(raw, unstructure(typed)), f"{name}: tables.{key}"

    @pytest.mark.parametrize("name", BUILTINS)
    def test_every_builtin_passes_the_checks_of_every_procedure(self, name: str) -> None:
        """Structuring every part and every procedure's own check accept the shipped rulesets."""
        rules = rulesets.load(name, parts=REGISTRY.rule_parts)
        REGISTRY.check_rules(rules)

    @pytest.mark.parametrize("name", BUILTINS)
    def test_each_builtin_has_the_tables_its_procedures_read(self, name: str) -> None:
        """Distances, reactions, and the travel, evasion and castle tables are in the data."""
        tables = rulesets.load(name).content["tables"]
        for table in TABLES[name]:
            assert tables[table], table

    @pytest.mark.parametrize("name", BUILTINS)
    def test_an_option_naming_a_table_entry_finds_it(self, name: str) -> None:
        """Options that pick a table entry pick one that exists; every CHA and WIS scale has its entry."""
        rules = rulesets.load(name)
        options, tables = rules.part(EncounterOptions), rules.part(EncounterTables)
        assert set(tables.cha_reaction) == set(ChaScale)
        assert options.cha_reaction_scale in tables.cha_reaction
        if options.outdoor_distance_dice is not None:
            assert tables.outdoor_dice is not None
            assert options.outdoor_distance_dice in tables.outdoor_dice
        if options.dungeon_distance is not None:
            assert tables.dungeon_distance is not None
            assert options.dungeon_distance in tables.dungeon_distance
        if options.wis_surprise_mod is not None:
            assert tables.wis_surprise is not None
            assert set(WisSurprise) - {WisSurprise.OFF} <= set(tables.wis_surprise)
        raw = rules.content
        for option, table in RAW_PICKS.items():
            if option in raw["options"]:
                assert raw["options"][option] in raw["tables"][table], f"{option}={raw['options'][option]}"

    def test_the_picks_of_each_builtin_are_the_expected_ones(self) -> None:
        """AD&D picks its outdoor dice, seed 004 its dungeon dice and the WIS scale; OSE picks neither."""
        ose, adnd, explore = (rulesets.load(n).part(EncounterOptions) for n in ("ose", "adnd", "explore"))
        assert (ose.outdoor_distance_dice, ose.dungeon_distance, ose.wis_surprise_mod) == (None, None, None)
        assert adnd.outdoor_distance_dice == "18d4x10ft"
        assert (explore.dungeon_distance, explore.wis_surprise_mod) == ("2d4x10ft", WisSurprise.SCALE)

    def test_the_ose_keys_others_code_against_are_kept(self) -> None:
        """The original OSE keys are still there with their values, as data and typed."""
        ose = rulesets.load("ose")
        options, tables = ose.part(EncounterOptions), ose.part(EncounterTables)
        assert options.surprise_on == 2
        assert options.encounter_move_divisor == 3
        assert tables.distance[Setting.WILDERNESS] == DistanceRow(
            unit=Unit.YD, dice="4d6", multiplier=10, surprised_dice="1d4"
        )
        assert ose.content["tables"]["distance"]["wilderness"] == {
            "dice": "4d6",
            "multiplier": 10,
            "unit": "yd",
            "surprised_dice": "1d4",
        }
        assert [band.at_least for band in tables.reaction] == [-99, 3, 6, 9, 12]
        assert [band.result for band in tables.reaction] == [
            ReactionResult.ATTACKS,
            ReactionResult.HOSTILE,
            ReactionResult.UNCERTAIN,
            ReactionResult.INDIFFERENT,
            ReactionResult.FRIENDLY,
        ]
        assert tables.cha_reaction[ChaScale.OSE][0] == (3, -2)

    def test_the_choices_are_the_enum_members(self) -> None:
        """Each AD&D choice is a member of its enum, equal to the string the TOML holds."""
        adnd = rulesets.load("adnd")
        options = adnd.part(EncounterOptions)
        assert options.initiative_tie is TieRule.SIMULTANEOUS
        assert options.surprise_advantage is AdvantageKind.SEGMENTS
        assert options.segments_on_mutual_surprise is MutualSurprise.DIFFERENCE
        assert options.avoid_rule is AvoidRule.ADD20
        assert options.noisy_armor == (ArmorKind.METAL, ArmorKind.PLATED)
        assert options.initiative_tie == adnd.content["options"]["initiative_tie"]

    def test_a_rule_a_ruleset_leaves_out_does_not_apply(self) -> None:
        """OSE has no avoid or armor rule and seed 004 no small room: their typed values are None."""
        ose, explore = rulesets.load("ose"), rulesets.load("explore")
        assert ose.part(EncounterOptions).avoid_rule is None
        assert ose.part(EncounterOptions).noisy_armor is None
        assert explore.part(EncounterTables).small_room is None
        assert explore.part(EncounterTables).avoid is None

    @pytest.mark.parametrize(
        ("section", "key"),
        [
            ("options", "initiative_tie"),
            ("options", "round_seconds"),
            ("options", "encounter_move_divisor"),
            ("tables", "reaction"),
            ("tables", "distance"),
        ],
    )
    def test_a_key_a_procedure_needs_is_refused_by_name_when_missing(self, section: str, key: str) -> None:
        """A recorded ruleset without a key its reader cannot do without names the key."""
        rules = recorded_without("adnd", section, key)
        with pytest.raises(RulesError, match=rf"{section}\.{key}: missing {key}"):
            REGISTRY.check_rules(rules)

    def test_a_ruleset_recorded_before_distance_rules_chose_them_by_its_name(self) -> None:
        """An old log's ruleset has no distance_rules: the ruleset's name chooses them."""
        for name in BUILTINS:
            content = copy.deepcopy(rulesets.load(name).content)
            del content["options"]["distance_rules"]
            rules = rulesets.from_recorded(name, content)
            REGISTRY.check_rules(rules)
            assert rules.part(EncounterOptions).distance_rules == name

    def test_an_unknown_ruleset_is_refused_with_the_known_names(self) -> None:
        """The message lists the built-ins."""
        with pytest.raises(RulesError, match="known: adnd, explore, ose"):
            rulesets.load("basic")


class TestRulesCheck:
    """The encounter's own check: options that name a table entry, and a reaction table that covers every total."""

    @pytest.mark.parametrize(
        ("name", "text", "needle"),
        [
            (
                "adnd",
                '[options]\noutdoor_distance_dice = "6d4x20ft"\n',
                "options.outdoor_distance_dice: '6d4x20ft' is not an entry of its table (it has 18d4x10ft, 6d4x30ft)",
            ),
            (
                "explore",
                '[options]\ndungeon_distance = "3d6x10ft"\n',
                "options.dungeon_distance: '3d6x10ft' is not an entry of its table (it has 2d4x10ft, 2d6x10ft)",
            ),
        ],
        ids=["outdoor-dice", "dungeon-distance"],
    )
    def test_an_option_naming_a_missing_entry_is_refused_by_a_house_rule(
        self,
        name: str,
        text: str,
        needle: str,
    ) -> None:
        """The option, the value and the entries the table has are named."""
        with pytest.raises(RulesError, match=re.escape(needle)):
            with_overrides(name, text)

    def test_an_option_naming_a_new_entry_a_house_rule_adds_is_accepted(self) -> None:
        """A house rule may add an outdoor dice entry and pick it in the same file."""
        text = (
            '[options]\noutdoor_distance_dice = "3d6x10ft"\n'
            '[tables.outdoor_dice."3d6x10ft"]\ndice = "3d6"\nmultiplier = 10\n'
        )
        house = with_overrides("adnd", text)
        assert house.part(EncounterOptions).outdoor_distance_dice == "3d6x10ft"
        assert house.part(EncounterTables).outdoor_dice["3d6x10ft"].dice == "3d6"  # type: ignore[index]

    def test_a_choice_whose_entry_is_missing_is_refused_naming_the_plain_value(self) -> None:
        """A recorded ruleset whose CHA table lacks the chosen scale is refused as a referee would read it."""
        content = copy.deepcopy(rulesets.load("ose").content)
        content["options"]["cha_reaction_scale"] = "uniform"
        del content["tables"]["cha_reaction"]["uniform"]
        with pytest.raises(
            RulesError,
            match=re.escape(
                "options.cha_reaction_scale: 'uniform' is not an entry of its table (it has ose)",
            ),
        ):
            REGISTRY.check_rules(rulesets.from_recorded("ose", content))

    def test_a_wis_scale_without_its_table_is_refused(self) -> None:
        """OSE has no WIS table, so a recorded OSE ruleset choosing the WIS scale is refused."""
        content = copy.deepcopy(rulesets.load("ose").content)
        content["options"]["wis_surprise_mod"] = "off"
        REGISTRY.check_rules(rulesets.from_recorded("ose", content))
        content["options"]["wis_surprise_mod"] = "scale"
        with pytest.raises(
            RulesError,
            match=r"options\.wis_surprise_mod: .*scale.* is not an entry of its table "
            r"\(it has nothing\)",
        ):
            REGISTRY.check_rules(rulesets.from_recorded("ose", content))

    def test_a_reaction_table_that_leaves_low_totals_without_a_band_is_refused(self) -> None:
        """The lowest band must start at -99 or lower."""
        text = "\n".join(
            f'[[tables.reaction]]\nat_least = {low}\nresult = "{res}"\ntext = "x"'
            for low, res in [(2, "attacks"), (6, "uncertain"), (10, "friendly")]
        )
        with pytest.raises(RulesError, match=r"tables\.reaction: the lowest band must start at -99 or lower"):
            with_overrides("ose", text)


class TestOverrides:
    """A referee's house rules: checked key by key, as ``init`` and ``rules change`` check them."""

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
        with pytest.raises(RulesError, match=r"options\.round_seconds: expected an integer, got a string"):
            with_overrides("adnd", '[options]\nround_seconds = "sixty"\n')

    def test_a_fraction_where_an_integer_belongs_is_refused(self) -> None:
        """Distances are whole feet."""
        with pytest.raises(RulesError, match=r"options\.outdoor_min_distance_ft: expected an integer, got a number"):
            with_overrides("adnd", "[options]\noutdoor_min_distance_ft = 10.5\n")

    @pytest.mark.parametrize(
        ("text", "needle"),
        [
            (
                "[options]\nlight_blocks_surprise = 1\n",
                "options.light_blocks_surprise: expected a boolean, got an integer",
            ),
            ("[options]\nsurprise_on = true\n", "options.surprise_on: expected an integer, got a boolean"),
            (
                '[options]\nreroll_uncertain_reaction = "yes"\n',
                "options.reroll_uncertain_reaction: expected a boolean, got a string",
            ),
            (
                "[tables.distance.dungeon]\nmultiplier = 2.5\n",
                "tables.distance.dungeon.multiplier: expected an integer, got a number",
            ),
        ],
        ids=["int-for-bool", "bool-for-int", "string-for-bool", "fraction-in-table"],
    )
    def test_booleans_and_numbers_are_not_taken_for_each_other(self, text: str, needle: str) -> None:
        """TOML's kinds are kept apart: a boolean is not an integer and neither is a fraction."""
        with pytest.raises(RulesError, match=re.escape(needle)):
            with_overrides("ose", text)

    @pytest.mark.parametrize(
        ("name", "text", "needle"),
        [
            ("adnd", '[options]\navoid_rule = "run"\n', "options.avoid_rule: 'run' is not one of add20, movement"),
            (
                "ose",
                '[options]\ninitiative_tie = "sometimes"\n',
                "options.initiative_tie: 'sometimes' is not one of simultaneous, reroll",
            ),
            (
                "ose",
                '[options]\ndistance_rules = "gurps"\n',
                "options.distance_rules: 'gurps' is not one of ose, adnd, explore",
            ),
            (
                "explore",
                '[options]\nsurprise_advantage = "never"\n',
                "options.surprise_advantage: 'never' is not one of round, segments, single_action",
            ),
            (
                "ose",
                '[tables.distance.dungeon]\nunit = "mile"\n',
                "tables.distance.dungeon.unit: 'mile' is not one of ft, yd",
            ),
            (
                "ose",
                '[[tables.reaction]]\nat_least = -99\nresult = "sulks"\n',
                "tables.reaction[0].result: 'sulks' is not one of",
            ),
        ],
        ids=["avoid", "tie", "distance-rules", "advantage", "unit", "reaction-result"],
    )
    def test_a_bad_choice_is_refused_with_the_allowed_values(self, name: str, text: str, needle: str) -> None:
        """An enum option or table value names its key, the value and the allowed ones."""
        with pytest.raises(RulesError, match=re.escape(needle)):
            with_overrides(name, text)

    def test_a_bad_element_of_a_list_option_is_refused(self) -> None:
        """``noisy_armor`` holds armor kinds only; the element's index is named."""
        needle = r"options\.noisy_armor\[1\]: 'wood' is not one of cloth, leather, metal, plated"
        with pytest.raises(RulesError, match=needle):
            with_overrides("adnd", '[options]\nnoisy_armor = ["metal", "wood"]\n')

    def test_a_table_keyed_by_a_choice_refuses_an_unknown_key(self) -> None:
        """Distances are by setting and CHA scales by scale name."""
        with pytest.raises(RulesError, match=r"tables\.distance\.castle: 'castle' is not one of dungeon, wilderness"):
            with_overrides("ose", '[tables.distance.castle]\nunit = "ft"\n')
        with pytest.raises(RulesError, match=r"tables\.cha_reaction\.weird: 'weird' is not one of ose, uniform"):
            with_overrides("ose", "[tables.cha_reaction]\nweird = [[3, 1]]\n")

    def test_the_name_seed_and_choices_cannot_be_overridden(self) -> None:
        """Name and seed identify the ruleset; there is no choices section any more."""
        for text in ('name = "x"\n', 'seed = "999"\n'):
            with pytest.raises(RulesError, match="cannot be overridden"):
                with_overrides("adnd", text)
        with pytest.raises(RulesError, match="unknown key 'choices'"):
            with_overrides("adnd", '[choices]\navoid_rule = ["run"]\n')

    @pytest.mark.parametrize(
        ("name", "text", "key"),
        [
            ("adnd", "[options]\nsegment_seconds = 5\n", "options.segment_seconds"),
            ("adnd", "[options]\nsegment_seconds = 60\n", "options.segment_seconds"),
        ],
        ids=["segment-seconds", "segment-minute"],
    )
    def test_an_override_of_an_unused_key_is_refused(self, name: str, text: str, key: str) -> None:
        """A key no procedure reads cannot be changed by a house rule: the change would do nothing."""
        section, inner = key.split(".")
        assert reader(section, inner) is None
        needle = f"{key} is not used by any procedure yet, so a house rule cannot change it"
        with pytest.raises(RulesError, match=re.escape(needle)):
            with_overrides(name, text)

    def test_an_unused_key_stays_in_the_ruleset_and_its_hash(self) -> None:
        """Data waiting for its procedure is kept: it is loaded, recorded and hashed."""
        adnd = rulesets.load("adnd")
        assert reader("options", "segment_seconds") is None
        assert adnd.content["options"]["segment_seconds"] == 6
        content = copy.deepcopy(adnd.content)
        content["options"]["segment_seconds"] = 60
        assert rulesets.from_recorded("adnd", content).hash != adnd.hash

    def test_a_valid_override_changes_the_hash_and_only_the_overridden_value(self) -> None:
        """The diff against the built-in is exactly the one option, and the typed part reads the new value."""
        base = rulesets.load("adnd")
        house = with_overrides("adnd", '[options]\noutdoor_distance_dice = "6d4x30ft"\n')
        assert house.hash != base.hash
        assert rulesets.diff(base, house) == [("options.outdoor_distance_dice", "18d4x10ft", "6d4x30ft")]
        assert house.part(EncounterOptions).outdoor_distance_dice == "6d4x30ft"
        assert base.part(EncounterOptions).outdoor_distance_dice == "18d4x10ft"

    def test_a_valid_choice_override_is_read_as_its_enum_member(self) -> None:
        """``initiative_tie = "reroll"`` is TieRule.REROLL to the encounter."""
        house = with_overrides("ose", '[options]\ninitiative_tie = "reroll"\n')
        assert house.part(EncounterOptions).initiative_tie is TieRule.REROLL

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
        assert [row["at_least"] for row in house.content["tables"]["reaction"]] == [-99, 7, 10]
        assert [band.at_least for band in house.part(EncounterTables).reaction] == [-99, 7, 10]

    def test_an_array_element_of_the_wrong_kind_is_refused_with_its_index(self) -> None:
        """A string band floor in an array of tables."""
        text = '[[tables.reaction]]\nat_least = "low"\nresult = "attacks"\ntext = "x"\n'
        with pytest.raises(RulesError, match=r"tables\.reaction\[0\]\.at_least: expected an integer, got a string"):
            with_overrides("ose", text)

    def test_an_array_element_with_a_missing_key_is_refused_with_its_index(self) -> None:
        """An element without its result."""
        with pytest.raises(RulesError, match=r"tables\.reaction\[0\]\.result: missing result"):
            with_overrides("ose", '[[tables.reaction]]\nat_least = -99\ntext = "x"\n')

    def test_an_array_element_with_an_unknown_key_is_refused_with_the_dotted_key(self) -> None:
        """A typo in an element is named by its whole path."""
        with pytest.raises(RulesError, match=r"unknown key 'tables\.reaction\[0\]\.reslt'"):
            with_overrides("ose", '[[tables.reaction]]\nat_least = -99\nresult = "attacks"\nreslt = "x"\n')

    def test_nested_arrays_keep_their_element_kind(self) -> None:
        """CHA bands are pairs of integers; a string in a pair is refused, good pairs are taken."""
        with pytest.raises(RulesError, match=r"tables\.cha_reaction\.ose\[1\]\[1\]: expected an integer, got a string"):
            with_overrides("ose", '[tables.cha_reaction]\nose = [[3, -1], [9, "x"]]\n')
        house = with_overrides("ose", "[tables.cha_reaction]\nose = [[3, -1], [9, 0], [16, 1]]\n")
        assert house.content["tables"]["cha_reaction"]["ose"] == [[3, -1], [9, 0], [16, 1]]
        assert house.part(EncounterTables).cha_reaction[ChaScale.OSE] == ((3, -1), (9, 0), (16, 1))

    def test_a_string_where_an_array_belongs_is_refused_as_such(self) -> None:
        """``noisy_armor = "metal"`` is not read letter by letter."""
        with pytest.raises(RulesError, match=r"options\.noisy_armor: expected an array, got a string"):
            with_overrides("adnd", '[options]\nnoisy_armor = "metal"\n')

    def test_a_value_where_a_table_belongs_is_refused_as_such(self) -> None:
        """``tables.distance = 3`` names the key and the kinds."""
        with pytest.raises(RulesError, match=r"tables\.distance: expected a table, got an integer"):
            with_overrides("ose", "[tables]\ndistance = 3\n")

    def test_a_section_that_is_not_a_table_is_refused(self) -> None:
        """``options = 3`` is not a section."""
        with pytest.raises(RulesError, match=r"options: expected a table, got "):
            with_overrides("ose", "options = 3\n")

    def test_invalid_toml_is_refused_with_its_source(self) -> None:
        """The message names the file."""
        with pytest.raises(RulesError, match=r"house\.toml is not valid TOML"):
            rulesets.load_overrides("[options\n", "house.toml")


#: one house rule of each kind that is refused, with the dotted key and the problem the message names
REFUSED: list[tuple[str, str, str]] = [
    ("ose", '[options]\nround_seconds = "ten"\n', "options.round_seconds: expected an integer, got a string"),
    (
        "ose",
        '[options]\ninitiative_tie = "sometimes"\n',
        "options.initiative_tie: 'sometimes' is not one of simultaneous, reroll",
    ),
    ("ose", "[options]\nround_seconds = 0\n", "options.round_seconds: 0 is out of range; allowed 1 to 86400"),
    ("adnd", '[tables.distance.indoors]\ndice = "zz"\n', "tables.distance.indoors.dice: not a dice expression: 'zz'"),
    ("ose", '[options]\ninitiative_tye = "reroll"\n', "unknown key 'options.initiative_tye'"),
    (
        "adnd",
        "[options]\nsegment_seconds = 12\n",
        "options.segment_seconds is not used by any procedure yet, so a house rule cannot change it",
    ),
]
REFUSED_IDS = ["wrong-type", "unknown-choice", "out-of-range", "bad-dice", "unknown-key", "unused-key"]


class TestInitAndRulesChange:
    """The campaign's commands refuse a bad house rule before anything is written."""

    @staticmethod
    def _handler() -> Handler:
        return Handler(MemoryStore(), MemoryKeeper(), registry=REGISTRY)

    @pytest.mark.parametrize(("name", "text", "needle"), REFUSED, ids=REFUSED_IDS)
    def test_starting_a_campaign_refuses_naming_the_key_and_writes_nothing(
        self,
        name: str,
        text: str,
        needle: str,
    ) -> None:
        """``init`` with the house rule is refused; the campaign's stream stays empty."""
        h = self._handler()
        with pytest.raises(RulesError, match=re.escape(needle)):
            h.execute("c1", c.StartCampaign(ruleset=name, overrides=rulesets.load_overrides(text)))
        assert h.store.stream_version(stream_for("c1")) == 0

    @pytest.mark.parametrize(("name", "text", "needle"), REFUSED, ids=REFUSED_IDS)
    def test_changing_the_rules_refuses_naming_the_key_and_keeps_the_old_rules(
        self,
        name: str,
        text: str,
        needle: str,
    ) -> None:
        """``rules change`` with the house rule is refused; the rules in force and the log are unchanged."""
        h = self._handler()
        h.execute("c1", c.StartCampaign(ruleset="explore"))
        before = h.store.stream_version(stream_for("c1"))
        with pytest.raises(RulesError, match=re.escape(needle)):
            h.execute("c1", c.ChangeRules(ruleset=name, overrides=rulesets.load_overrides(text), reason="house"))
        assert h.store.stream_version(stream_for("c1")) == before
        table = h.load("c1")
        assert table.rules is not None
        assert table.rules.name == "explore"

    def test_a_valid_house_rule_is_recorded_and_read_typed(self) -> None:
        """The same path accepts a good file: the rules in force read the new value."""
        h = self._handler()
        h.execute("c1", c.StartCampaign(ruleset="ose", overrides={"options": {"initiative_tie": "reroll"}}))
        h.execute("c1", c.ChangeRules(ruleset="adnd", overrides={"options": {"surprise_on": 3}}, reason="house"))
        rules = h.load("c1").rules
        assert rules is not None
        assert rules.name == "adnd"
        assert rules.part(EncounterOptions).surprise_on == 3


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

    def test_reading_a_typed_part_does_not_change_the_content_or_hash(self) -> None:
        """Structuring is a view: the recorded content stays as the TOML gave it."""
        rules = rulesets.load("adnd")
        before = (copy.deepcopy(rules.content), rules.hash)
        REGISTRY.check_rules(rules)
        assert (rules.content, rules.hash) == before
        assert rules.content["options"]["noisy_armor"] == ["metal", "plated"]


class TestDiff:
    """``diff`` lists differing dotted key paths."""

    def test_ose_against_explore_lists_the_known_differences(self) -> None:
        """Round length, surprise advantage, dungeon and wilderness surprised dice, options only one has."""
        rows = {path: (a, b) for path, a, b in rulesets.diff(rulesets.load("ose"), rulesets.load("explore"))}
        assert rows["options.round_seconds"] == (10, 60)
        assert rows["options.surprise_advantage"] == ("round", "single_action")
        assert rows["options.distance_rules"] == ("ose", "explore")
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
        house = with_overrides(
            "ose",
            "\n".join(
                f'[[tables.reaction]]\nat_least = {low}\nresult = "{res}"\ntext = "{text}"'
                for low, res, text in [
                    (-99, "attacks", "Attacks (hostile)"),
                    (3, "hostile", "Hostile, may attack"),
                    (7, "uncertain", "Uncertain, neutral"),
                    (9, "indifferent", "Indifferent, uninterested"),
                    (12, "friendly", "Eager, friendly"),
                ]
            ),
        )
        assert rulesets.diff(rulesets.load("ose"), house) == [("tables.reaction[2].at_least", 6, 7)]

    def test_arrays_of_values_differ_as_a_whole(self) -> None:
        """A changed CHA band shows the whole scale on both sides."""
        house = with_overrides("ose", "[tables.cha_reaction]\nose = [[3, -3], [4, -1], [9, 0], [13, 1], [18, 2]]\n")
        assert rulesets.diff(rulesets.load("ose"), house) == [
            (
                "tables.cha_reaction.ose",
                [[3, -2], [4, -1], [9, 0], [13, 1], [18, 2]],
                [[3, -3], [4, -1], [9, 0], [13, 1], [18, 2]],
            ),
        ]

    def test_diff_is_symmetric(self) -> None:
        """Swapping the sides swaps the values."""
        ab = {p: (a, b) for p, a, b in rulesets.diff(rulesets.load("ose"), rulesets.load("adnd"))}
        ba = {p: (b, a) for p, a, b in rulesets.diff(rulesets.load("adnd"), rulesets.load("ose"))}
        assert ab == ba


def describe(name: str) -> dict[str, rulesets.Row]:
    """The rows ``rules show`` prints for a built-in ruleset, by key."""
    return {row.key: row for row in rulesets.describe(rulesets.load(name), REGISTRY.readers, REGISTRY.rule_parts)}


class TestDescribe:
    """``describe`` gives readable rows for ``rules show``: the value, who reads it, why, and the choices."""

    @pytest.mark.parametrize("name", BUILTINS)
    def test_every_option_and_table_has_a_row(self, name: str) -> None:
        """Each option is a row; each table shows under its own dotted path."""
        rules = rulesets.load(name)
        rows = describe(name)
        assert rows["hash"].value == rules.hash
        for option in rules.content["options"]:
            assert f"options.{option}" in rows
        for table in rules.content["tables"]:
            assert any(
                k == f"tables.{table}" or k.startswith((f"tables.{table}.", f"tables.{table}[")) for k in rows
            ), table
        assert all(isinstance(row.key, str) and isinstance(row.value, str) for row in rows.values())

    @pytest.mark.parametrize("name", BUILTINS)
    def test_a_row_is_read_and_explained_exactly_when_a_procedure_reads_its_key(self, name: str) -> None:
        """Used keys name their readers and carry their part's sentence; unused keys have neither."""
        rows = describe(name)
        seen_used = seen_unused = 0
        for key, row in rows.items():
            section, _, rest = key.partition(".")
            if section not in rulesets.SECTIONS:
                assert row.readers == ()
                continue
            top = re.split(r"[.\[]", rest)[0]
            part = reader(section, top)
            if part is None:
                seen_unused += 1
                assert (row.readers, row.help, row.choices) == ((), "", ()), key
            else:
                seen_used += 1
                assert row.readers == tuple(REGISTRY.readers(section, top)) != (), key
                assert row.help == help_of(part, top) != "", key
        assert seen_used
        # every key of ose is read now; adnd keeps one unread (segment_seconds), explore one (tables.hex: the
        # miles across a hex, which no procedure reckons with)
        assert seen_unused == (1 if name in {"adnd", "explore"} else 0)

    def test_rows_are_compact_and_show_choices(self) -> None:
        """Booleans read as TOML, enumerated options list their choices, arrays of tables one row each."""
        rows = describe("adnd")
        assert rows["options.avoid_rule"].value == "add20"
        assert rows["options.avoid_rule"].choices == ("add20", "movement")
        assert rows["options.noisy_armor"].value == "[metal, plated]"
        assert rows["options.noisy_armor"].choices == tuple(k.value for k in ArmorKind)
        assert rows["options.round_seconds"].choices == ()
        assert rows["options.noise_blocks_surprise"].value == "true"
        assert rows["tables.small_room.rows[0]"].value == "at_most=2 ft=5 melee=true"
        assert rows["tables.outdoor_terrain.forest"].value == "faces=[1, 2, 3, 4] change=-1 rank=3"
        assert rows["tables.reaction[0]"].value == 'at_least=-99 result=attacks text="Attacks (hostile)"'

    def test_each_row_names_the_procedure_that_reads_it(self) -> None:
        """The clock's units are the campaign's; the encounter's options and tables are the encounter's."""
        rows = describe("adnd")
        assert rows["options.round_seconds"].readers == ("campaign",)
        assert rows["options.initiative_tie"].readers == ("encounter",)
        assert rows["tables.small_room.rows[0]"].readers == ("encounter",)
        assert rows["options.segment_seconds"].readers == ()
        assert rows["options.initiative_tie"].help == "An initiative tie: both act at once, or both roll again (A2)."

    def test_every_key_a_part_declares_has_a_sentence(self) -> None:
        """No typed field is left without the sentence ``rules show`` prints beside it."""
        for part in REGISTRY.rule_parts:
            for key in keys_of(part):
                assert help_of(part, key), f"{part.__name__}.{key}"


def _used_integer_options() -> list[tuple[str, str, Any]]:
    """Every (ruleset, option, value) of the built-ins that a procedure reads as an integer."""
    found = []
    for name in BUILTINS:
        for option, value in rulesets.load(name).content["options"].items():
            part = reader("options", option)
            if part is not None and typing.get_type_hints(part)[option] is int:
                found.append((name, option, value))
    return found


class TestRanges:
    """Values are range-checked as well as type-checked by their typed fields: built-ins and house rules alike."""

    def test_every_used_integer_option_refuses_an_absurd_value(self) -> None:
        """Walk all read integer options of all built-ins: each has a range, and its built-in value is inside it."""
        found = _used_integer_options()
        assert len({option for _, option, _ in found}) >= 10
        for name, option, value in found:
            for absurd in (10**9, -(10**9)):
                with pytest.raises(RulesError, match=rf"options\.{option}: {absurd} is out of range; allowed"):
                    with_overrides(name, f"[options]\n{option} = {absurd}\n")
            assert with_overrides(name, f"[options]\n{option} = {value}\n").hash == rulesets.load(name).hash

    def test_every_key_a_part_declares_is_in_some_builtin(self) -> None:
        """No stale declarations: each key a procedure reads is set by at least one shipped ruleset."""
        present = {
            (section, key)
            for name in BUILTINS
            for section in rulesets.SECTIONS
            for key in rulesets.load(name).content[section]
        }
        assert REGISTRY.used_keys() <= present

    @pytest.mark.parametrize(
        ("name", "option", "value", "allowed"),
        [
            ("ose", "encounter_move_divisor", 0, "1 to 1000"),
            ("adnd", "encounter_move_divisor", -3, "1 to 1000"),
            ("ose", "round_seconds", 0, "1 to 86400"),
            ("explore", "round_seconds", 86401, "1 to 86400"),
            ("adnd", "turn_seconds", 0, "1 to 86400"),
            ("ose", "turn_seconds", 86401, "1 to 86400"),
            ("ose", "surprise_on", 7, "0 to 6"),
            ("explore", "surprise_on", -1, "0 to 6"),
            ("adnd", "outdoor_min_distance_ft", -10, "0 to 100000"),
            ("explore", "surprised_party_flees_within_ft", -1, "0 to 100000"),
            ("ose", "reroll_limit", -1, "0 to 1000"),
            ("ose", "surrounded_at_monsters", -1, "0 to 10000"),
            ("adnd", "encounter_move_max_rounds", -1, "0 to 100000"),
            ("ose", "pursue_if_reaction_at_most", 1000, "-100 to 100"),
            ("explore", "pursue_if_reaction_at_most", -101, "-100 to 100"),
        ],
    )
    def test_an_option_out_of_range_is_refused_with_the_key_and_range(
        self,
        name: str,
        option: str,
        value: int,
        allowed: str,
    ) -> None:
        """The dotted key, the value and the allowed range are named."""
        with pytest.raises(RulesError, match=rf"options\.{option}: {value} is out of range; allowed {allowed}"):
            with_overrides(name, f"[options]\n{option} = {value}\n")

    def test_the_edges_of_a_range_are_accepted(self) -> None:
        """surprise_on 0 and 6, a divisor of 1, a day-long round, the lowest pursuit threshold."""
        assert with_overrides("ose", "[options]\nsurprise_on = 0\n").part(EncounterOptions).surprise_on == 0
        assert with_overrides("ose", "[options]\nsurprise_on = 6\n").part(EncounterOptions).surprise_on == 6
        assert (
            with_overrides("ose", "[options]\nencounter_move_divisor = 1\n")
            .part(EncounterOptions)
            .encounter_move_divisor
            == 1
        )
        assert with_overrides("adnd", "[options]\nround_seconds = 86400\n").part(ClockOptions).round_seconds == 86400
        assert (
            with_overrides("explore", "[options]\npursue_if_reaction_at_most = -100\n")
            .part(EncounterOptions)
            .pursue_if_reaction_at_most
            == -100
        )

    @pytest.mark.parametrize("value", ["nan", "+nan", "-nan", "inf", "+inf", "-inf"])
    def test_nan_and_infinities_are_refused_by_dotted_key(self, value: str) -> None:
        """A number in a ruleset must be finite: NaN is not JSON and would poison the hash."""
        with pytest.raises(RulesError, match=r"tables\.distance\.dungeon\.multiplier: .* is not allowed"):
            with_overrides("ose", f"[tables.distance.dungeon]\nmultiplier = {value}\n")

    def test_nan_deep_in_a_nested_array_is_refused_with_its_path(self) -> None:
        """A CHA band takes integers, and never a NaN."""
        with pytest.raises(RulesError, match=r"tables\.cha_reaction\.ose\[0\]\[1\]: nan is not allowed"):
            with_overrides("ose", "[tables.cha_reaction]\nose = [[3, nan]]\n")

    @pytest.mark.parametrize(
        ("name", "text", "key", "problem"),
        [
            (
                "adnd",
                '[tables.distance.indoors]\ndice = "zz"\n',
                "tables.distance.indoors.dice",
                "not a dice expression",
            ),
            (
                "ose",
                '[tables.distance.dungeon]\nsurprised_dice = "1d0"\n',
                "tables.distance.dungeon.surprised_dice",
                "sides",
            ),
            (
                "adnd",
                '[tables.outdoor_dice."6d4x30ft"]\ndice = "0d6"\n',
                "tables.outdoor_dice.6d4x30ft.dice",
                "number of dice",
            ),
            (
                "explore",
                '[tables.dungeon_distance."2d4x10ft"]\ndice = "\uff12d4"\n',
                "tables.dungeon_distance.2d4x10ft.dice",
                "not a dice expression",
            ),
            (
                "adnd",
                '[tables.outdoor_dice."6d4x30ft"]\ndice = "6d4x30"\n',
                "tables.outdoor_dice.6d4x30ft.dice",
                "not a dice expression",
            ),
            ("adnd", '[tables.small_room]\ndice = "d"\n', "tables.small_room.dice", "not a dice expression"),
            (
                "adnd",
                '[tables.distance.indoors]\nhiding_dice = "1d4+"\n',
                "tables.distance.indoors.hiding_dice",
                "not a dice expression",
            ),
        ],
        ids=["letters", "no-sides", "no-dice", "fullwidth-digit", "multiplier-in-dice", "small-room", "hiding"],
    )
    def test_a_bad_dice_expression_in_a_used_table_is_refused(
        self,
        name: str,
        text: str,
        key: str,
        problem: str,
    ) -> None:
        """Every dice string a procedure reads parses, or the dotted key is named."""
        with pytest.raises(RulesError, match=f"{re.escape(key)}: .*{problem}"):
            with_overrides(name, text)

    def test_an_empty_dice_string_means_not_reduced_and_is_kept(self) -> None:
        """OSE's dungeon has no surprised dice: "" stays allowed, as data and typed."""
        house = with_overrides("ose", '[tables.distance.wilderness]\nsurprised_dice = ""\n')
        assert house.content["tables"]["distance"]["wilderness"]["surprised_dice"] == ""
        assert house.part(EncounterTables).distance[Setting.WILDERNESS].surprised_dice == ""

    @pytest.mark.parametrize(
        ("name", "text", "key"),
        [
            ("ose", "[tables.distance.dungeon]\nmultiplier = 0\n", "tables.distance.dungeon.multiplier"),
            ("adnd", '[tables.outdoor_dice."6d4x30ft"]\nmultiplier = -2\n', "tables.outdoor_dice.6d4x30ft.multiplier"),
            (
                "explore",
                '[tables.dungeon_distance."2d6x10ft"]\nmultiplier = 0\n',
                "tables.dungeon_distance.2d6x10ft.multiplier",
            ),
        ],
    )
    def test_a_table_multiplier_below_one_is_refused(self, name: str, text: str, key: str) -> None:
        """A distance multiplier is at least 1, as a divisor option is."""
        with pytest.raises(RulesError, match=rf"{re.escape(key)}: -?\d+ is out of range; allowed 1 to 10000"):
            with_overrides(name, text)
