"""Wilderness evasion: known answers for every cell of the table, every adjustment, the stacking order and
the clamp (REFERENCE §2.9, §4.13, A26, A27, A37), and the encounter's evasion in the wilderness through
the handler (the three behaviours of issue 9 that were wrong)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from hexlog.events import encounter as ev
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import RuleRefusedError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import evasion
from hexlog.machine import ruleset as rulesets
from hexlog.machine import table as tables
from hexlog.machine.evasion import EvasionAdjust, EvasionRow, EvasionSpeed, EvasionSurprise, Situation
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller

#: the B/X table of REFERENCE §2.9 (A37: the 1-4 row ends "4+"), as (fleeing, pursuers) -> %
CELLS = {
    (1, 1): 50, (4, 1): 50, (1, 2): 70, (3, 3): 70, (2, 4): 90, (4, 100): 90,
    (5, 1): 35, (12, 3): 35, (5, 4): 50, (12, 8): 50, (8, 9): 70, (12, 500): 70,
    (13, 1): 25, (24, 6): 25, (13, 7): 35, (24, 16): 35, (20, 17): 50, (24, 99): 50,
    (25, 1): 10, (100, 10): 10, (25, 11): 25, (60, 30): 25, (25, 31): 35, (9999, 9999): 35,
}  # fmt: skip
ADJUST = EvasionAdjust(
    surprised_enemy_multiplier=2,
    surprised_in_woods_pct=10,
    woods_pct=25,
    speed_ratio=2,
    evaders_faster_pct=25,
    pursuers_faster_pct=-25,
    magic_counts_as_unsurprised=True,
)
SPEED = EvasionSpeed(speed_ratio=2, pursuers_faster_pct=-25, fleeing_faster_pct=25, floor_pct=5)
SURPRISE = EvasionSurprise(surprisers_evade=True, surprised_example_pct=10)


def rows(ruleset: str = "explore") -> tuple[EvasionRow, ...]:
    tables = rulesets.load(ruleset).part(evasion.EvasionTables).evasion
    assert tables is not None
    return tables["bx"]


def sit(fleeing: int = 8, pursuers: int = 1, **more: Any) -> Situation:
    """A situation at equal speeds unless told."""
    return Situation(
        fleeing=fleeing,
        pursuers=pursuers,
        fleeing_speed=more.pop("fs", 120),
        pursuers_speed=more.pop("ps", 120),
        **more,
    )


class TestTheTable:
    @pytest.mark.parametrize(("cell", "pct"), sorted(CELLS.items()), ids=str)
    @pytest.mark.parametrize("ruleset", ["ose", "explore"])
    def test_every_cell_of_both_rulesets(self, ruleset: str, cell: tuple[int, int], pct: int) -> None:
        """Each band's lowest and highest size (or a large one) reads the filled value."""
        assert evasion.base_chance(rows(ruleset), *cell) == pct

    def test_a_side_of_no_one_cannot_evade(self) -> None:
        with pytest.raises(UsageError, match="at least one"):
            evasion.base_chance(rows(), 0, 3)

    def test_a_replaced_table_is_read(self) -> None:
        """The referee's own rows (option evasion_table = custom) replace the B/X values."""
        mine = (EvasionRow(fleeing_at_least=1, bands=((1, 40), (6, 60))),)
        assert evasion.base_chance(mine, 30, 5) == 40
        assert evasion.base_chance(mine, 30, 6) == 60


class TestSeed004:
    def chance(self, s: Situation, floor: int = 0, cap: int = 100) -> evasion.Chance:
        return evasion.odd_chance(s, rows(), ADJUST, floor, cap)

    def test_eight_fleeing_one_is_35(self) -> None:
        """The issue's example: a party of 8 fleeing 1 monster, 35 %."""
        found = self.chance(sit(8, 1))
        assert (found.pct, found.roll) == (35, True)

    @pytest.mark.parametrize(
        ("situation", "pct"),
        [
            (sit(8, 1, woods=True), 60),  # +25 woods
            (sit(8, 1, fs=240), 60),  # evaders at twice the speed
            (sit(8, 1, ps=240), 10),  # pursuers at twice the speed
            (sit(8, 1, fs=230), 35),  # not quite twice
            (sit(8, 1, surprised_enemy=True), 70),  # x2
            (sit(8, 1, woods=True, surprised_enemy=True), 100),  # (35+25)x2 = 120, capped
            (sit(8, 1, ps=240, surprised_enemy=True), 20),  # (35-25)x2: the modifiers before the doubling
            (sit(1, 1, woods=True, fs=240), 100),  # 50+25+25
            (sit(30, 2, ps=240), 0),  # 10-25 clamped to 0
        ],
    )
    def test_adjustments_stack_base_then_modifiers_then_double_then_clamp(self, situation: Situation, pct: int) -> None:
        assert self.chance(situation).pct == pct

    def test_the_cap_and_floor_are_the_options(self) -> None:
        assert self.chance(sit(8, 1, woods=True, surprised_enemy=True), cap=95).pct == 95
        assert self.chance(sit(30, 2, ps=240), floor=5).pct == 5

    def test_a_surprised_party_has_no_chance_outside_woods(self) -> None:
        found = self.chance(sit(8, 1, surprised=True), floor=5)
        assert (found.pct, found.roll) == (0, False)

    def test_a_surprised_party_in_woods_has_a_flat_10(self) -> None:
        """Nothing else applies: not the woods' +25, not the speed."""
        assert self.chance(sit(8, 1, surprised=True, woods=True, fs=240)).pct == 10

    def test_magic_makes_a_surprised_party_roll_as_unsurprised(self) -> None:
        assert self.chance(sit(8, 1, surprised=True, magic=True)).pct == 35
        strict = attrs.evolve(ADJUST, magic_counts_as_unsurprised=False)
        assert evasion.odd_chance(sit(8, 1, surprised=True, magic=True), rows(), strict, 0, 100).pct == 0

    def test_a_certain_chance_needs_no_roll(self) -> None:
        assert not self.chance(sit(1, 1, woods=True, fs=240)).roll

    def test_the_steps_say_what_was_applied_in_order(self) -> None:
        steps = self.chance(sit(8, 1, ps=240, surprised_enemy=True)).steps
        assert steps[0].startswith("base 35 %")
        assert "-25 %" in steps[1]
        assert steps[2].endswith("x2 = 20 %")


class TestOse:
    def chance(self, s: Situation, speed: EvasionSpeed | None = None, floor: int = 0) -> evasion.Chance:
        return evasion.ose_chance(s, rows("ose"), surprise=SURPRISE, speed=speed, floor=floor, cap=100)

    def test_the_surprisers_evade_automatically(self) -> None:
        found = self.chance(sit(30, 1, surprised_enemy=True))
        assert (found.pct, found.roll) == (100, False)

    def test_the_surprised_have_only_the_referees_chance(self) -> None:
        assert (self.chance(sit(2, 5, surprised=True)).pct, self.chance(sit(2, 5, surprised=True)).roll) == (0, False)
        assert self.chance(sit(2, 5, surprised=True, referee_pct=10)).pct == 10

    def test_no_speed_modifiers_unless_switched_on(self) -> None:
        assert self.chance(sit(8, 1, ps=240)).pct == 35
        assert self.chance(sit(8, 1, ps=240), SPEED).pct == 10
        assert self.chance(sit(8, 1, fs=240), SPEED).pct == 60

    def test_the_floor_is_5_with_the_modifiers(self) -> None:
        assert self.chance(sit(30, 2, ps=240), SPEED).pct == 5
        assert self.chance(sit(30, 2, ps=240)).pct == 10

    def test_the_woods_do_not_change_ose(self) -> None:
        assert self.chance(sit(8, 1, woods=True)).pct == 35


class TestRulesChoose:
    def test_the_options_pick_the_reading_and_the_table(self) -> None:
        explore = rulesets.load("explore")
        assert evasion.chance(explore, sit(8, 1, surprised_enemy=True)).pct == 70
        ose = rulesets.load("ose")
        assert evasion.chance(ose, sit(8, 1, surprised_enemy=True)).pct == 100

    def test_rules_without_evasion_refuse(self) -> None:
        with pytest.raises(UsageError, match="no wilderness evasion"):
            evasion.chance(rulesets.load("adnd"), sit())

    def test_an_empty_custom_table_refuses_the_roll(self) -> None:
        rules = rulesets.load("explore", {"options": {"evasion_table": "custom"}})
        with pytest.raises(UsageError, match="is empty"):
            evasion.chance(rules, sit())

    def test_a_missing_table_entry_is_refused_when_loaded(self) -> None:
        with pytest.raises(UsageError, match="evasion_table"):
            REGISTRY.check_rules(rulesets.load("explore", {"options": {"evasion_table": "odd_p20"}}))

    def test_a_floor_above_the_cap_is_refused(self) -> None:
        with pytest.raises(UsageError, match="above"):
            REGISTRY.check_rules(
                rulesets.load("explore", {"options": {"evasion_floor_pct": 50, "evasion_cap_pct": 40}})
            )


# --- the encounter, through the handler --------------------------------------------------------------

CAMPAIGN = "ev"
EIGHT = tuple(c.AddMember(name=f"M{i}") for i in range(8))


@attrs.define
class Table:
    """A campaign on a scripted roller."""

    ruleset: str = "explore"
    members: tuple[c.AddMember, ...] = EIGHT
    script: list[int] = attrs.field(factory=list)
    handler: Handler = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(self.script))
        self.run(c.StartCampaign(ruleset=self.ruleset))
        self.run(c.OpenSession(secret_hex="ef" * 32))
        for m in self.members:
            self.run(m)

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        self.script.extend(faces)
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events

    @property
    def version(self) -> int:
        return self.handler.store.stream_version(tables.stream_for(CAMPAIGN))


def only(events: list[Any], kind: type[Any]) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


def flee_in_the_wilderness(t: Table, *, surprise: tuple[int, int] = (4, 4), distance: int = 3, **start: Any) -> None:
    """Surprise on the given faces, distance (4d6, or 1d3 when surprised), initiative 5 vs 2 (in the open surprise
    gives no free action under explore: both sides roll), the party evades."""
    t.run(enc.StartEncounter(setting="wilderness", **start))
    t.run(enc.CheckSurprise(), *surprise)
    surprised = min(surprise) <= 2
    t.run(enc.DetermineDistance(), *((distance,) if surprised else (distance, 1, 1, 1)))
    if t.handler.load(CAMPAIGN).procedures["encounter"].phase is not enc.Phase.INITIATIVE:
        t.run(enc.TakeFreeAction(action="close in"))
    t.run(enc.RollInitiative(), 5, 2)
    t.run(enc.Evade())


class TestExploreEncounterEvasion:
    def test_a_party_of_8_fleeing_1_monster_rolls_35_percent(self) -> None:
        """Wrong before: the monsters' pursue-or-not reaction decided (26 in 36). Now d100 at most 35 evades."""
        t = Table()
        flee_in_the_wilderness(t)
        with pytest.raises(RuleRefusedError, match="roll-evasion"):
            t.run(enc.DecidePursuit())
        events = t.run(enc.RollEvasion(), 35)
        rolled = only(events, ev.EvasionRolled)
        assert (rolled.chance, rolled.total, rolled.evaded) == (35, 35, True)
        assert only(events, DiceRolled).purpose == "encounter.evasion"
        assert only(events, ev.EncounterConcluded).outcome == "evaded"

    def test_36_fails_and_the_party_is_pursued(self) -> None:
        t = Table()
        flee_in_the_wilderness(t)
        events = t.run(enc.RollEvasion(), 36)
        assert not only(events, ev.EvasionRolled).evaded
        assert only(events, ev.EncounterConcluded).outcome == "pursuit"

    def test_woods_and_speed_and_surprise_change_the_chance(self) -> None:
        t = Table()
        flee_in_the_wilderness(t, surprise=(4, 1), monster_speed=240)  # the party surprised them; twice as fast
        rolled = only(t.run(enc.RollEvasion(woods=True), 99), ev.EvasionRolled)
        assert rolled.chance == 70  # (35 + 25 - 25) x 2

    def test_a_surprised_party_10_yd_away_has_no_chance_unless_in_woods(self) -> None:
        """Wrong before: the dungeon's 30 ft rule let it flee at 10 yd. Now no chance, and no roll."""
        t = Table()
        flee_in_the_wilderness(t, surprise=(1, 4), distance=1)
        events = t.run(enc.RollEvasion())
        rolled = only(events, ev.EvasionRolled)
        assert (rolled.chance, rolled.total, rolled.evaded) == (0, 0, False)
        assert not [e for e in events if isinstance(e, DiceRolled)]
        assert only(events, ev.EncounterConcluded).outcome == "pursuit"

    def test_a_surprised_party_in_woods_has_10_percent(self) -> None:
        t = Table()
        flee_in_the_wilderness(t, surprise=(1, 4), distance=1)
        assert only(t.run(enc.RollEvasion(woods=True), 10), ev.EvasionRolled).evaded

    def test_a_surprised_party_further_than_30_ft_may_try_to_flee_outdoors(self) -> None:
        """Wrong before: refused beyond 30 ft, a dungeon rule; outdoors the flight is judged by the roll."""
        t = Table()
        flee_in_the_wilderness(t, surprise=(1, 4), distance=3)  # 30 yd = 90 ft
        assert t.handler.load(CAMPAIGN).procedures["encounter"].phase is enc.Phase.EVASION

    def test_the_dungeon_still_decides_pursuit(self) -> None:
        t = Table()
        t.run(enc.StartEncounter(setting="dungeon", party_aware=True, monsters_aware=True))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(), 2, 2)
        t.run(enc.RollInitiative(), 5, 2)
        t.run(enc.Evade())
        before = t.version
        with pytest.raises(RuleRefusedError, match="decide-pursuit"):
            t.run(enc.RollEvasion())
        assert t.version == before
        assert only(t.run(enc.DecidePursuit(pursue=False)), ev.PursuitDecided).decided_by == "referee"

    def test_ose_keeps_its_pursuit_decision(self) -> None:
        t = Table(ruleset="ose")
        flee_in_the_wilderness(t)
        with pytest.raises(RuleRefusedError, match="decide-pursuit"):
            t.run(enc.RollEvasion())
        assert only(t.run(enc.DecidePursuit(), 1, 1), ev.PursuitDecided).pursue


class TestNonIntelligentMonsters:
    def test_roll_no_reaction_for_the_pursuit_decision(self) -> None:
        """Wrong before: a reaction was rolled silently. Now the referee says, and no dice are rolled."""
        t = Table()
        t.run(enc.StartEncounter(setting="dungeon", intelligent=False, party_aware=True, monsters_aware=True))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(), 2, 2)
        t.run(enc.RollInitiative(), 5, 2)
        t.run(enc.Evade())
        before = t.version
        with pytest.raises(UsageError, match="non-intelligent monsters roll no reaction"):
            t.run(enc.DecidePursuit(), 3, 3)
        assert t.version == before
        t.script.clear()
        decided = only(t.run(enc.DecidePursuit(pursue=True)), ev.PursuitDecided)
        assert (decided.pursue, decided.rolls) == (True, ())

    @pytest.mark.parametrize("face", [1, 2, 3])
    def test_close_to_melee_on_every_rolled_distance(self, face: int) -> None:
        """Wrong before: within the 30 ft flight limit (every 1d3 x 10 ft) they never charged."""
        t = Table()
        t.run(enc.StartEncounter(setting="dungeon", intelligent=False))
        t.run(enc.CheckSurprise(), 1, 4)
        t.run(enc.DetermineDistance(), face)
        events = t.run(enc.TakeFreeAction(action="charge"))
        assert only(events, ev.ActionChosen).action == "combat"
        assert t.handler.load(CAMPAIGN).procedures["encounter"].phase is enc.Phase.COMBAT
