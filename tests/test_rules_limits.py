"""Every value a house rule may give a rule the encounter reads: refused at load, naming the key, or played through.

The table below walks every leaf of every option and table a procedure reads in the three
built-ins and lays boundary values over it (empty arrays and strings, 0, -1, the largest and
smallest 64-bit integers TOML can hold, dice that total below 0, bands out of order). Each house
rule is either refused when the campaign starts (a ``RulesError`` naming the key) or accepted, and
then whole encounters in every setting play through on extreme dice (every die low, every die
high, one side low) with no error at all and no negative distance.
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING, Any

import attrs
import pytest

from hexlog.events import encounter as ev
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.streams import stream_for
from hexlog.events.vocabulary import Side
from hexlog.machine import chase as ch
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import ruleset as rulesets
from hexlog.machine.chase import rules as chase_rules
from hexlog.machine.encounter import rules as enc_rules
from hexlog.machine.encounter.rules import EncounterOptions
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.rules import help_of
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.ruleset import RulesError

if TYPE_CHECKING:
    from hexlog.machine.table import Table

BUILTINS = ("ose", "adnd", "explore")
CAMPAIGN = "limits"
RUNNER = REGISTRY.runner("encounter")
INT64 = (-(2**63), 2**63 - 1)

#: boundary values by the kind of the leaf they replace
INTS = (0, -1, 1, *INT64)
STRINGS = ("", "1d6-100", "1000d1000+1000000")
#: leaves of free text, which any string suits
FREE_TEXT = frozenset({"text"})
INT_ARRAYS: tuple[list[Any], ...] = ([], [0], [-1], [INT64[1]])
STRING_ARRAYS: tuple[list[Any], ...] = ([], [""], ["nowhere"])
BAND_ARRAYS: tuple[list[Any], ...] = ([], [[]], [[3]], [[0, 0]], [[3, INT64[1]]], [[3, INT64[0]]])


def _boundaries(value: Any) -> list[Any]:
    """The boundary values for a leaf holding ``value`` (the leaf's own kind, plus its reversal for an array)."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [v for v in INTS if v != value]
    if isinstance(value, str):
        return [v for v in STRINGS if v != value]
    if isinstance(value, list):
        arrays = BAND_ARRAYS if value and isinstance(value[0], list) else INT_ARRAYS
        if value and isinstance(value[0], str):
            arrays = STRING_ARRAYS
        found: list[Any] = [list(a) for a in arrays]
        if len(value) > 1:
            found += [list(reversed(value)), [value[0], *value]]
        return found
    return []


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """Every leaf under ``value`` by its path of keys and array indexes (an array of values is one leaf)."""
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in _leaves(item, (*path, key))]
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [leaf for i, item in enumerate(value) for leaf in _leaves(item, (*path, i))]
    return [(path, value)]


def _dotted(path: tuple[Any, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(path))


def _set(content: Any, path: tuple[Any, ...], value: Any) -> None:
    for step in path[:-1]:
        content = content[step]
    content[path[-1]] = value


def _cases() -> list[Any]:
    """(ruleset, section, key, overrides) for every boundary of every read leaf of every built-in.

    A table that several built-ins share word for word (the reaction table) is walked in the first.
    """
    used = REGISTRY.used_keys()
    found = []
    seen: list[tuple[str, Any]] = []
    for name in BUILTINS:
        content = rulesets.load(name).content
        for section in rulesets.SECTIONS:
            for key, value in content[section].items():
                if (section, key) not in used or (section == "tables" and (key, value) in seen):
                    continue
                seen.append((key, value))
                for path, leaf in _leaves(value, (key,)):
                    if path[-1] in FREE_TEXT:
                        continue
                    for bound in _boundaries(leaf):
                        changed = copy.deepcopy(value)
                        if len(path) > 1:
                            _set(changed, path[1:], bound)
                        else:
                            changed = bound
                        dotted = f"{section}.{_dotted(path)}"
                        overrides = {section: {key: changed}}
                        found.append(pytest.param(name, section, key, overrides, id=f"{name}:{dotted}={bound!r}"[:120]))
    return found


def _added() -> list[Any]:
    """A key one built-in leaves out, laid over it with the value another built-in gives it."""
    used = REGISTRY.used_keys()
    found = []
    for name in BUILTINS:
        content = rulesets.load(name).content
        for section, key in sorted(used):
            if key in content[section]:
                continue
            for other in BUILTINS:
                there = rulesets.load(other).content[section]
                if key in there:
                    overrides = {section: {key: copy.deepcopy(there[key])}}
                    found.append(pytest.param(name, section, key, overrides, id=f"{name}+{section}.{key}"))
                    break
    return found


@attrs.frozen
class Extreme:
    """Dice that show their lowest or highest face, by the roll's nonce: ``pattern[nonce % len]`` (L or H)."""

    pattern: str

    def faces(self, nonce: int, sides: tuple[int, ...], lane: str = "") -> tuple[int, ...]:  # noqa: ARG002 - protocol
        """Every die of the roll at 1 or at its highest face."""
        low = self.pattern[nonce % len(self.pattern)] == "L"
        return tuple(1 if low else s for s in sides)


#: every die low (both sides surprised, the shortest distances), every die high, and each side alone low
ROLLERS = ("L", "H", "LH", "HL")
#: the rollers each situation meets, by its index: both, neither, and one side alone surprised
PASSES = (("L", "H", "LH"), ("L", "H", "HL"))


def _roller(table: Table) -> Extreme:
    """The roller of the encounter under way: encounters 1, 2, 3 take the rollers of the first pass, and so on."""
    state = table.procedures.get("encounter")
    number = state.started.number if state is not None else 1
    passes = [pattern for i in range(len(PASSES)) for pattern in PASSES[i]]
    return Extreme(passes[(number - 1) % len(passes)])


def _situations(table: Table) -> list[enc.StartEncounter]:
    """One encounter per setting the rules have, and the AD&D extras: hiding, a small lit room, every terrain."""
    assert table.rules is not None
    tables = table.rules.part(enc_rules.EncounterTables)
    options = table.rules.part(enc_rules.EncounterOptions)
    found = []
    for setting in tables.distance:
        adnd = options.distance_rules is enc_rules.DistanceRules.ADND
        if adnd and setting in {"indoors", "dungeon"}:
            room = tables.small_room.size_ft if tables.small_room is not None else 20
            found += [
                enc.StartEncounter(setting=setting, monster_count=5, area_ft=room, light_radius_ft=10),
                enc.StartEncounter(setting=setting, hiding=True, monsters_noisy=True),
            ]
        elif adnd and setting == "outdoors":
            terrains = tuple(tables.outdoor_terrain or ())
            found += [enc.StartEncounter(setting=setting, monster_count=5, terrains=terrains)]
        else:
            found += [enc.StartEncounter(setting=setting, monster_count=5, intelligent=False)]
    return found


#: the steps an encounter walks, in order, each taken when it is allowed (two ways out: fight or evade)
FIGHT = ("check_surprise", "determine_distance", "avoid", "take_free_action", "roll_initiative", "react", "round")
WALKS = (
    (*FIGHT, "reroll_reaction", "fight", "round", "conclude"),
    (*FIGHT, "evade", "decide_pursuit", "roll_evasion", "conclude"),
)
COMMANDS: dict[str, type[c.Command]] = {trigger: cls for cls, trigger in enc.TRIGGERS.items()}
#: the most commands a chase handed off may take (on water its evasion, then rounds closing at least 30 ft)
MAX_CHASE_COMMANDS = 5_000


@attrs.define
class Play:
    """A campaign on extreme dice, and every event its commands recorded."""

    handler: Handler
    events: list[Any] = attrs.field(factory=list)

    def run(self, command: c.Command) -> None:
        """Execute a command, keeping its events."""
        self.events.extend(self.handler.execute(CAMPAIGN, command).events)

    def walk(self, walk: tuple[str, ...]) -> None:
        """Take each step of ``walk`` the encounter allows now, for the first side allowed to take it."""
        for trigger in walk:
            table = self.handler.load(CAMPAIGN)
            allowed = dict(RUNNER.allowed(table.procedures.get("encounter"), table))
            if trigger not in allowed:
                continue
            cls = COMMANDS[trigger]
            fields = attrs.fields_dict(cls)
            args: dict[str, Any] = {}
            if "side" in fields and allowed[trigger]:
                args["side"] = allowed[trigger][0]
            if "speaker" in fields:
                args["speaker"] = "Ann"
            if "pursue" in fields:  # the players decide for the party; the monsters follow their reaction
                meeting = table.procedures["encounter"]
                mindless = (
                    not meeting.started.intelligent and table.rules.part(EncounterOptions).unintelligent_monsters_attack
                )
                # non-intelligent monsters roll no reaction: the referee says they pursue
                args["pursue"] = False if meeting.fleeing is Side.MONSTERS else (True if mindless else None)
                if meeting.distance_ft > chase_rules.MAX_FT:
                    args["pursue"] = False  # a chase handed off over a gap no chase reads would never end here
            self.run(cls(**args))
        self.chase_to_its_end()
        state = self.handler.load(CAMPAIGN).procedures.get("encounter")
        if state is not None and state.phase is not enc.Phase.CONCLUDED:
            self.run(enc.ConcludeEncounter())

    def chase_to_its_end(self) -> None:
        """A pursuit the encounter handed to the chase (on water, in the dungeon): the vessel's evasion, or the
        encounter's steps repeated (A18), then rounds until the chase ends and the encounter takes up again (caught: a
        fight to conclude; escaped: it concluded)."""
        for _ in range(MAX_CHASE_COMMANDS):
            table = self.handler.load(CAMPAIGN)
            if table.procedures["encounter"].phase is not enc.Phase.CHASE:
                return
            phase = table.procedures["chase"].phase
            steps = {ch.Phase.EVASION: ch.Evade, ch.Phase.REPEAT: ch.RepeatSteps}
            self.run(steps.get(phase, ch.Run)())
        msg = f"the chase did not end in {MAX_CHASE_COMMANDS} commands"
        raise AssertionError(msg)


def _play(name: str, overrides: dict[str, Any]) -> int:
    """Every situation on extreme dice, in one campaign: no error, no negative distance or segments.

    Returns how many encounters were played to their conclusion."""
    play = Play(Handler(MemoryStore(), MemoryKeeper(), roller=_roller))
    play.run(c.StartCampaign(ruleset=name, overrides=overrides))
    play.run(c.OpenSession(secret_hex="ab" * 32))
    play.run(c.AddMember(name="Ann", cha=3, wis=3))
    play.run(c.AddMember(name="Bo", cha=18, wis=18, speed=90))
    situations = _situations(play.handler.load(CAMPAIGN))
    for i, start in enumerate(situations):
        for j, _ in enumerate(PASSES[i % len(PASSES)]):
            play.run(start)
            play.walk(WALKS[(i + j) % len(WALKS)])
    concluded = [e for e in play.events if isinstance(e, ev.EncounterConcluded)]
    assert len(concluded) == sum(len(PASSES[i % len(PASSES)]) for i in range(len(situations)))
    for event in play.events:
        if isinstance(event, ev.DistanceDetermined):
            assert event.value >= 0, event
        if isinstance(event, ev.SurpriseChecked):
            assert event.party_segments >= 0, event
            assert event.monsters_segments >= 0, event
    return len(concluded)


def _refusal(name: str, overrides: dict[str, Any]) -> str:
    """Why ``init`` with these house rules is refused ("" when it is not)."""
    try:
        REGISTRY.check_rules(rulesets.load(name, overrides, used=REGISTRY.used_keys()))
    except RulesError as err:
        return str(err)
    return ""


def _refused_or_played(name: str, section: str, key: str, overrides: dict[str, Any]) -> str:
    """``"played"`` when whole encounters played through, ``"refused"`` when ``init`` refused, naming the key."""
    refused = _refusal(name, overrides)
    if not refused:
        return "played" if _play(name, overrides) > 0 else "nothing played"
    assert f"{section}.{key}" in refused, refused
    handler = Handler(MemoryStore(), MemoryKeeper())
    with pytest.raises(RulesError, match=re.escape(refused)):
        handler.execute(CAMPAIGN, c.StartCampaign(ruleset=name, overrides=overrides))
    assert handler.store.stream_version(stream_for(CAMPAIGN)) == 0
    return "refused"


@pytest.mark.parametrize(("name", "section", "key", "overrides"), _cases())
def test_a_boundary_value_is_refused_by_key_or_plays_through(
    name: str, section: str, key: str, overrides: dict[str, Any]
) -> None:
    """Refused at ``init`` naming the key, or whole encounters play through on extreme dice."""
    assert _refused_or_played(name, section, key, overrides) in {"refused", "played"}


@pytest.mark.parametrize(("name", "section", "key", "overrides"), _added())
def test_a_key_a_builtin_leaves_out_may_be_added_and_is_checked(
    name: str, section: str, key: str, overrides: dict[str, Any]
) -> None:
    """Another built-in's value for a key this one leaves out: refused by key, or it plays through."""
    assert _refused_or_played(name, section, key, overrides) in {"refused", "played"}


@pytest.mark.parametrize("name", BUILTINS)
def test_every_builtin_plays_through_on_extreme_dice(name: str) -> None:
    """The walk itself finds nothing wrong with the rules as shipped."""
    assert _play(name, {}) > 0


def _load(name: str, text: str) -> rulesets.Ruleset:
    """A built-in with a house-rules file laid over it, checked as ``init`` checks it."""
    rules = rulesets.load(name, rulesets.load_overrides(text), used=REGISTRY.used_keys())
    REGISTRY.check_rules(rules)
    return rules


#: values that crashed, misbehaved or made nonsense later, each refused at load naming the key and why
REFUSED = [
    ("explore", "[tables.wis_surprise]\nscale = []\n", "tables.wis_surprise.scale: is empty; at least one band"),
    (
        "explore",
        "[tables.wis_surprise]\nscale = [[9, 0], [13, 1]]\n",
        "tables.wis_surprise.scale[0][0]: the first band starts at 9; it must start at 3",
    ),
    (
        "explore",
        "[tables.wis_surprise]\nscale = [[3, 0], [13, 1], [9, 2]]\n",
        "tables.wis_surprise.scale[2][0]: 9 does not rise above the band before (13)",
    ),
    (
        "ose",
        "[tables.cha_reaction]\nose = [[3, 11]]\n",
        "tables.cha_reaction.ose[0][1]: 11 is out of range; allowed -10 to 10",
    ),
    (
        "adnd",
        '[tables.outdoor_dice."18d4x10ft"]\ndice = ""\n',
        "tables.outdoor_dice.18d4x10ft.dice: is empty; this entry needs a dice expression",
    ),
    (
        "explore",
        '[tables.dungeon_distance.x]\ndice = ""\nmultiplier = 10\n',
        "tables.dungeon_distance.x.dice: is empty; this entry needs a dice expression",
    ),
    (
        "ose",
        '[tables.distance.dungeon]\ndice = "1d6-10"\n',
        "tables.distance.dungeon.dice: '1d6-10' can total -9; allowed lowest total 0 or more",
    ),
    (
        "adnd",
        "[tables.outdoor_terrain.forest]\nchange = -100\n",
        "tables.outdoor_terrain.forest.change: -100 would turn a 1 into -99; a die may fall to 0, not below",
    ),
    (
        "adnd",
        "[tables.outdoor_terrain.scrub]\nchange = -4\n",
        "tables.outdoor_terrain.scrub.change: -4 would turn a 3 into -1",
    ),
    (
        "adnd",
        "[tables.outdoor_terrain.forest]\nfaces = [0, 1]\n",
        "tables.outdoor_terrain.forest.faces[0]: 0 is out of range; allowed 1 to 1000",
    ),
    (
        "adnd",
        "[tables.distance.outdoors]\nsegment_ft = -30\n",
        "tables.distance.outdoors.segment_ft: -30 is out of range; allowed 0 to 100000",
    ),
    (
        "adnd",
        "[tables.distance.indoors]\nlight_cap_multiplier = 0\n",
        "tables.distance.indoors.light_cap_multiplier: 0 is out of range; allowed 1 to 10000",
    ),
    (
        "adnd",
        "[tables.distance.indoors]\nsurprised_melee_faces = [1, 4]\n",
        "tables.distance.indoors.surprised_melee_faces[1]: 4 is not a total 1d3 can show; allowed 1 to 3",
    ),
    (
        "adnd",
        "[tables.avoid]\ndetection_open_multiplier = 0\n",
        "tables.avoid.detection_open_multiplier: 0 is out of range; allowed 1 to 10000",
    ),
    (
        "adnd",
        "[tables.avoid]\nft_per_inch_outdoors = -3\n",
        "tables.avoid.ft_per_inch_outdoors: -3 is out of range; allowed 1 to 1000",
    ),
    (
        "adnd",
        '[tables.avoid]\nclose_terrains = ["forest", "swamp"]\n',
        "tables.avoid.close_terrains[1]: 'swamp' is not a terrain of tables.outdoor_terrain",
    ),
    ("adnd", "[tables.small_room]\nsize_ft = 0\n", "tables.small_room.size_ft: 0 is out of range; allowed 1 to 100000"),
    (
        "adnd",
        "[tables.small_room]\nrows = [{ at_most = 4, ft = 5, melee = true }]\n",
        "tables.small_room.rows[0].at_most: 4 leaves 6 without a row; cover 1d6 up to 6",
    ),
    (
        "adnd",
        "[tables.small_room]\nrows = [{ at_most = 6, ft = 5, melee = true }, { at_most = 2, ft = 1, melee = false }]\n",
        "tables.small_room.rows[1].at_most: 2 does not rise above the row before (6)",
    ),
    (
        "adnd",
        '[tables.outdoor_dice."18d4x10ft"]\ndice = "18d4+5"\n',
        "tables.outdoor_dice.18d4x10ft.dice '18d4+5' adds a number, which terrain applied die by die cannot use",
    ),
    ("adnd", '[tables.distance.indoors]\nunit = "yd"\n', "tables.distance.indoors.unit is yd; the adnd distance"),
    (
        "ose",
        "[tables.distance.wilderness]\nmissiles_at_most = -1\n",
        "tables.distance.wilderness.missiles_at_most: -1 is out of range; allowed 0 to 100000",
    ),
    (
        "ose",
        '[[tables.reaction]]\nat_least = -99\nresult = "attacks"\n' * 2,
        "tables.reaction[1].at_least: -99 starts band 0 too; each band starts at its own total",
    ),
    ("ose", '[options]\navoid_rule = "add20"\n', "options.avoid_rule: the rule reads tables.avoid"),
    ("ose", '[options]\nnoisy_armor = ["metal"]\n', "options.noisy_armor: the rule reads tables.armor_kind"),
    (
        "ose",
        '[options]\nwis_surprise_mod = "scale"\n',
        "options.wis_surprise_mod: 'scale' is not an entry of its table",
    ),
]


class TestRefusedAtLoad:
    """What a house rule may not set: refused by ``init`` and ``rules change``, naming the key and the limit."""

    @pytest.mark.parametrize(("name", "text", "needle"), REFUSED, ids=[needle[:60] for _, _, needle in REFUSED])
    def test_a_value_that_would_break_play_is_refused_naming_the_key(self, name: str, text: str, needle: str) -> None:
        """The dotted key and what is wrong with it; the campaign is not started."""
        with pytest.raises(RulesError, match=re.escape(needle)):
            _load(name, text)
        handler = Handler(MemoryStore(), MemoryKeeper())
        with pytest.raises(RulesError, match=re.escape(needle)):
            handler.execute(CAMPAIGN, c.StartCampaign(ruleset=name, overrides=rulesets.load_overrides(text)))
        assert handler.store.stream_version(stream_for(CAMPAIGN)) == 0

    def test_an_empty_wis_scale_no_longer_starts_a_campaign_it_would_lock(self, hexlog, tmp_path) -> None:
        """The reviewer's file: refused at init (exit 2, the key named), where it used to crash check-surprise."""
        (tmp_path / "h.toml").write_text("[tables.wis_surprise]\nscale = []\n", encoding="utf-8")
        result = hexlog("init", "--ruleset", "explore", "--rules", "h.toml")
        assert result.returncode == 2, result.stderr
        assert "tables.wis_surprise.scale: is empty" in result.stderr
        assert "internal error" not in result.stderr
        assert not (tmp_path / "hexlog.db").exists()

    def test_the_edges_are_accepted(self) -> None:
        """A die may fall to 0, a segment may cost 0 ft, a room's last row may reach past its die."""
        rules = _load(
            "adnd",
            "[tables.outdoor_terrain.scrub]\nchange = -3\n"
            "[tables.distance.outdoors]\nsegment_ft = 0\n"
            "[tables.small_room]\n"
            "rows = [{ at_most = 1, ft = 5, melee = true }, { at_most = 9, ft = 20, melee = false }]\n",
        )
        tables = rules.part(enc_rules.EncounterTables)
        assert tables.outdoor_terrain is not None
        assert tables.outdoor_terrain["scrub"].change == -3
        assert tables.distance[enc_rules.Setting.OUTDOORS].segment_ft == 0
        assert tables.small_room is not None
        assert [row.at_most for row in tables.small_room.rows] == [1, 9]


AVOID = """[options]
avoid_rule = "add20"
[tables.avoid]
add20_min_ft_indoors = 20
add20_min_ft_outdoors = 60
ft_per_inch_indoors = 1
ft_per_inch_outdoors = 3
default_rate_inches = 12
detection_open_multiplier = 2
detection_close_add_ft = 30
close_terrains = []
"""
WIS = """[options]
wis_surprise_mod = "scale"
[tables.wis_surprise]
scale = [[3, -2], [4, -1], [9, 0], [13, 1], [18, 2]]
"""


class Scripted:
    """A campaign on scripted dice with two members, WIS 3 and WIS 18."""

    def __init__(self, ruleset: str, text: str) -> None:
        self.script: list[int] = []
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(self.script))
        overrides = rulesets.load_overrides(text)
        self.run(c.StartCampaign(ruleset=ruleset, overrides=overrides))
        self.run(c.OpenSession(secret_hex="ab" * 32))
        self.run(c.AddMember(name="Ann", wis=3))
        self.run(c.AddMember(name="Bo", wis=18))

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        """Execute a command on the given faces; its events."""
        self.script.extend(faces)
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert not self.script
        return events


class TestEveryReadOptionIsSettable:
    """A rule a procedure reads may be added by a house rule where the built-in leaves it out, and is shown."""

    def test_ose_takes_the_wis_surprise_rule_with_its_table(self) -> None:
        """d6 = 3: Ann (WIS 3, -2) is surprised at 1, Bo (WIS 18, +2) is not."""
        t = Scripted("ose", WIS)
        t.run(enc.StartEncounter(setting="dungeon"))
        checked = t.run(enc.CheckSurprise(), 3, 6)
        found = next(e for e in checked if isinstance(e, ev.SurpriseChecked))
        assert found.party_characters_surprised == ("Ann",)
        rules = t.handler.load(CAMPAIGN).rules
        assert rules is not None
        assert rulesets.display_name(rules).startswith("ose + house rules")

    def test_ose_takes_the_avoid_rule_with_its_table(self) -> None:
        """The party, not surprised and quiet, slips away from noisy monsters (§3.4 under OSE)."""
        t = Scripted("ose", AVOID)
        t.run(enc.StartEncounter(setting="dungeon", monsters_noisy=True))
        t.run(enc.CheckSurprise(), 5)
        t.run(enc.DetermineDistance(), 3, 3)
        t.run(enc.RollInitiative(), 4, 2)
        concluded = t.run(enc.Avoid(side="party"))
        assert any(isinstance(e, ev.EncounterConcluded) and e.outcome == "avoided" for e in concluded)

    def test_without_the_rule_ose_still_refuses_to_avoid(self) -> None:
        """The built-in is unchanged: no avoid rule, so avoid is refused with the reason."""
        t = Scripted("ose", "")
        t.run(enc.StartEncounter(setting="dungeon", monsters_noisy=True))
        t.run(enc.CheckSurprise(), 5)
        t.run(enc.DetermineDistance(), 3, 3)
        t.run(enc.RollInitiative(), 4, 2)
        with pytest.raises(RuleRefusedError, match="no avoid-encounter rule"):
            t.run(enc.Avoid(side="party"))

    @pytest.mark.parametrize("name", BUILTINS)
    def test_the_builtins_are_unchanged_and_named_by_their_name(self, name: str) -> None:
        """Nothing was added to the files: new campaigns hash as before and show no house rules."""
        rules = rulesets.load(name)
        assert rulesets.display_name(rules) == name
        assert rulesets.origin(rules).base == name

    @pytest.mark.parametrize("name", BUILTINS)
    def test_rules_show_lists_every_key_a_procedure_reads(self, name: str) -> None:
        """A key the ruleset leaves out is shown with its default, or as not set, with its sentence."""
        rows = rulesets.describe(rulesets.load(name), REGISTRY.readers, REGISTRY.rule_parts, left_out=True)
        keys = {row.key.split("[")[0] for row in rows}
        heads = {".".join(k.split(".")[:2]) for k in keys}
        assert {f"{section}.{key}" for section, key in REGISTRY.used_keys()} <= heads
        shown = {row.key: row for row in rows}
        if name == "ose":
            assert shown["options.avoid_rule"].value == rulesets.NOT_SET
            assert shown["options.avoid_rule"].choices == ("add20", "movement")
            assert shown["options.avoid_rule"].readers == ("encounter",)
            assert shown["options.segments_on_mutual_surprise"].value == "difference (default)"
            assert shown["tables.wis_surprise"].value == rulesets.NOT_SET
            assert shown["tables.wis_surprise"].help

    def test_rules_show_prints_a_left_out_key_with_its_sentence(self, hexlog) -> None:
        """``hexlog rules show ose`` has the avoid rule, not set, its choices and who reads it."""
        lines = hexlog("rules", "show", "ose").stdout.splitlines()
        at = lines.index(f"options.avoid_rule = {rulesets.NOT_SET}  (choices: add20, movement)")
        assert lines[at + 1] == f"    {help_of(enc_rules.EncounterOptions, 'avoid_rule')} [read by encounter]"
        segments = "options.segments_on_mutual_surprise = difference (default)  (choices: difference, face)"
        assert any(line.startswith(segments) for line in lines)

    def test_a_key_no_procedure_reads_still_cannot_be_added(self) -> None:
        """Only read keys may be added: a typo stays an unknown key."""
        with pytest.raises(RulesError, match=re.escape("unknown key 'options.avoid_rules'")):
            _load("ose", '[options]\navoid_rules = "add20"\n')
        with pytest.raises(RulesError, match=re.escape("unknown key 'tables.wis_surprises'")):
            _load("ose", "[tables.wis_surprises]\nscale = [[3, 0]]\n")


def test_positions_and_positions_adnd_import_each_other_nowhere_inside_a_function() -> None:
    """The AD&D module builds on ``distance``, so ``positions`` imports it at the top, and nothing is imported late."""
    import ast  # noqa: PLC0415 - only this test reads source
    from pathlib import Path  # noqa: PLC0415 - only this test reads source

    folder = Path(enc_rules.__file__).parent
    for module in ("positions", "positions_adnd", "distance"):
        tree = ast.parse((folder / f"{module}.py").read_text(encoding="utf-8"))
        late = [
            node.lineno
            for fn in ast.walk(tree)
            if isinstance(fn, ast.FunctionDef)
            for node in ast.walk(fn)
            if isinstance(node, ast.Import | ast.ImportFrom)
        ]
        assert late == [], (module, late)
    adnd = (folder / "positions_adnd.py").read_text(encoding="utf-8")
    assert "encounter.positions import" not in adnd
    assert "encounter import positions\n" not in adnd
