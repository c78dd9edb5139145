"""The chase follows its rules (OSE §2.9, seed 004 §4.4): known answers on scripted dice for every chance,
the gap round by round, exhaustion and its recovery, seeded rates over 20,000 rolls, and a delve on
committed dice whose chase replays and audits clean."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from scipy.stats import binomtest

from hexlog.events import chase as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import NotFoundError
from hexlog.events.memory import MemoryStore
from hexlog.machine import camp
from hexlog.machine import chase as ch
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine import dungeon as dg
from hexlog.machine import encounter as enc
from hexlog.machine import ruleset as rulesets
from hexlog.machine import table as tables
from hexlog.machine.chase.inverse import by_hand
from hexlog.machine.chase.rules import ChaseTables, evades, in_6, water_chance
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.context import StepContext
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import KeyRoller, Rolls
from hexlog.replay.audit import audit_store
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.rebuild import replay
from hexlog.service import render
from tests.test_chase_machine import CAMPAIGN, MEMBERS, Table, idle

RUNS = 20_000
P_MIN = 0.001
KEY = hexdice.derive_key(bytes.fromhex("72" * 32), "chase statistics")


def found(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def chasing(t: Table | None = None, **start: Any) -> Table:
    """A dungeon chase the referee starts: 50 ft apart, the party at 90, the monsters at 120 (unless given)."""
    t = t or idle()
    t.run(ch.StartChase(**{"gap_ft": 50, "fleeing_ft": 90, "pursuers_ft": 120, **start}))
    return t


def one_round(t: Table, command: ch.Run | None = None) -> ev.RoundRun:
    (run,) = found(t.run(command or ch.Run()), ev.RoundRun)
    return run


class TestDroppedItems:
    @pytest.mark.parametrize(
        ("traits", "item", "face", "stopped"),
        [
            ({"likes_treasure": True}, "treasure", 3, True),
            ({"likes_treasure": True}, "treasure", 4, False),
            ({"hungry": True}, "food", 3, True),
            ({"hungry": True}, "food", 4, False),
            ({"intelligent": False}, "food", 1, True),
            ({"intelligent": False}, "food", 6, False),
        ],
    )
    def test_pursuers_who_care_stop_on_3_in_6(self, traits, item, face, stopped):
        """Treasure lovers for treasure, hungry or unintelligent pursuers for food: stopped on 1-3."""
        t = chasing(**traits)
        events = t.run(ch.Drop(item=item), face)
        (dropped,) = found(events, ev.ItemDropped)
        assert (dropped.tempted, dropped.stop_in_6, dropped.face, dropped.stopped) == (True, 3, face, stopped)
        assert (t.state.phase is ch.Phase.ESCAPED) is stopped
        (roll,) = found(events, DiceRolled)
        assert (roll.purpose, roll.made_for, dropped.rolls) == ("chase.drop", "monsters", (roll.nonce,))

    @pytest.mark.parametrize(("traits", "item"), [({}, "treasure"), ({"hungry": False}, "food")])
    def test_pursuers_who_do_not_care_roll_nothing_and_run_on(self, traits, item):
        """Intelligent, sated pursuers ignore food; those who do not like treasure ignore it: no die."""
        t = chasing(**traits)
        events = t.run(ch.Drop(item=item))
        (dropped,) = found(events, ev.ItemDropped)
        assert (dropped.tempted, dropped.stopped, dropped.rolls) == (False, False, ())
        assert found(events, DiceRolled) == []
        assert t.state.phase is ch.Phase.RUNNING

    @pytest.mark.parametrize(
        ("key", "item", "trait"), [("treasure", "treasure", "likes_treasure"), ("food", "food", "hungry")]
    )
    def test_a_house_rule_changes_the_chance(self, key, item, trait):
        """With the item stopping pursuers on 1-in-6, a 2 no longer stops them."""
        t = chasing(Table(tables={"dungeon_pursuit": {f"dropped_{key}_stop_in_6": 1}}).party(), **{trait: True})
        (dropped,) = found(t.run(ch.Drop(item=item), 2), ev.ItemDropped)
        assert (dropped.stop_in_6, dropped.stopped) == (1, False)


class TestRounds:
    def test_the_gap_changes_by_the_difference_of_the_rates_and_a_round_passes(self):
        """50 ft, the monsters 30 ft a round faster: 20 ft, then caught at 0 (melee next round); 60 s a round."""
        t = chasing()
        events = t.run(ch.Run())
        (first,) = found(events, ev.RoundRun)
        assert (first.round, first.fleeing_ft, first.pursuers_ft, first.gap_before, first.gap_after) == (
            1,
            90,
            120,
            50,
            20,
        )
        (clock,) = found(events, ClockAdvanced)
        assert (clock.seconds, clock.reason) == (60, "chase 1: round 1")
        events = t.run(ch.Run())
        (ended,) = found(events, ev.ChaseEnded)
        assert (ended.outcome, ended.rounds, ended.gap_ft, ended.melee_next_round) == ("caught", 2, 0, True)
        assert t.state.phase is ch.Phase.CAUGHT

    def test_a_faster_fleeing_side_escapes_at_once_unless_forced_to_stop(self):
        """150 against 120: escaped on starting; forced to stop, the chase runs."""
        events = idle().run(ch.StartChase(gap_ft=50, fleeing_ft=150, pursuers_ft=120))
        (ended,) = found(events, ev.ChaseEnded)
        assert (ended.outcome, ended.rounds) == ("escaped", 0)
        assert "faster (150 against 120 ft a round)" in ended.reason
        t = chasing(fleeing_ft=150, forced_to_stop=True)
        assert t.state.phase is ch.Phase.RUNNING
        assert one_round(t).gap_after == 80

    def test_out_of_the_line_of_sight_most_monsters_give_up(self):
        """Even speeds, 60 ft line of sight: a 40 ft lead past it after one round of the party's 20 ft gain."""
        t = chasing(gap_ft=50, fleeing_ft=120, pursuers_ft=110, line_of_sight_ft=55)
        assert t.state.phase is ch.Phase.ESCAPED  # faster: gone at once
        t = chasing(gap_ft=50, fleeing_ft=120, pursuers_ft=120, line_of_sight_ft=55, forced_to_stop=True)
        run = one_round(t)
        assert (run.out_of_sight, t.state.phase) == (False, ch.Phase.RUNNING)
        run = one_round(t, ch.Run(obstacle="a narrow crack", slows_ft=10))
        assert (run.gap_after, run.out_of_sight, run.slowed_ft) == (60, True, 10)
        assert t.state.phase is ch.Phase.ESCAPED
        assert "beyond the 55 ft line of sight: the pursuers give up" in run.reason

    def test_relentless_pursuers_keep_on_out_of_sight(self):
        """The referee says they are out of sight; relentless pursuers run on."""
        t = chasing(gap_ft=200, relentless=True)
        run = one_round(t, ch.Run(out_of_sight=True))
        assert (run.out_of_sight, t.state.phase) == (True, ch.Phase.RUNNING)
        assert "the pursuers keep on" in run.reason
        t = chasing(gap_ft=200)
        one_round(t, ch.Run(out_of_sight=True))
        assert t.state.phase is ch.Phase.ESCAPED

    def test_the_referees_hand_names_a_sight_declared_not_one_the_line_of_sight_gives(self):
        """Out of sight by the referee's word is the referee's hand in the audit; beyond the line of sight it is not."""
        t = chasing(gap_ft=200, relentless=True)
        before = StepContext(table=t.table, registry=REGISTRY)
        run = one_round(t, ch.Run(out_of_sight=True))
        assert by_hand(run, before) == "the fleeing side declared out of the pursuers' sight in round 1"
        t = chasing(gap_ft=50, fleeing_ft=120, pursuers_ft=120, line_of_sight_ft=55, forced_to_stop=True)
        one_round(t)
        before = StepContext(table=t.table, registry=REGISTRY)
        run = one_round(t, ch.Run(obstacle="a narrow crack", slows_ft=10))
        assert run.out_of_sight
        assert by_hand(run, before) == "an obstacle declared in round 2: a narrow crack, costing the pursuers 10 ft"

    def test_burning_oil_slows_or_stops_the_pursuit(self):
        """Oil costing 60 ft: the gap grows by 30; a portcullis that stops them ends the chase."""
        t = chasing()
        run = one_round(t, ch.Run(obstacle="burning oil", slows_ft=60))
        assert (run.pursuers_ft, run.slowed_ft, run.gap_after) == (120, 60, 80)
        assert run.reason == "burning oil costs the pursuers 60 ft"
        events = t.run(ch.Run(obstacle="a portcullis", stops=True))
        (run,) = found(events, ev.RoundRun)
        assert (run.stopped, run.slowed_ft, run.gap_after) == (True, 120, 170)
        (ended,) = found(events, ev.ChaseEnded)
        assert (ended.outcome, ended.reason) == ("escaped", "a portcullis stops the pursuit; the party get away")


class TestWaterborne:
    @pytest.mark.parametrize(
        ("fleeing", "pursuers", "row", "chance"),
        [
            (150, 120, "faster", 80),
            (120, 120, "0-30 ft/round slower", 50),
            (90, 120, "0-30 ft/round slower", 50),
            (89, 120, "31-60 ft/round slower", 40),
            (60, 120, "31-60 ft/round slower", 40),
            (59, 120, "61-90 ft/round slower", 35),
            (30, 120, "61-90 ft/round slower", 35),
            (29, 120, "91-120 ft/round slower", 25),
            (0, 120, "91-120 ft/round slower", 25),
            (0, 121, "121+ ft/round slower", 10),
        ],
    )
    def test_each_row_of_the_table_at_its_edges(self, fleeing, pursuers, row, chance):
        """The chance by how much slower the vessel is; the roll equal to the chance evades, one more does not."""
        for roll, evaded in ((chance, True), (chance + 1, False)):
            t = idle()
            t.run(ch.StartChase(setting="waterborne", gap_ft=300, fleeing_ft=fleeing, pursuers_ft=pursuers))
            events = t.run(ch.Evade(), roll)
            (rolled,) = found(events, ev.WaterEvasionRolled)
            assert (rolled.row, rolled.chance, rolled.roll, rolled.evaded) == (row, chance, roll, evaded)
            assert rolled.slower_by == pursuers - fleeing
            (die,) = found(events, DiceRolled)
            assert (die.sides, die.purpose, die.made_for) == ((100,), "chase.evasion", "party")

    def test_a_success_lets_the_pursuers_try_again_only_the_next_day(self):
        """Evaded: recorded on the roll and the end, and shown in the state."""
        t = idle()
        t.run(ch.StartChase(setting="waterborne", gap_ft=300, fleeing_ft=90, pursuers_ft=150))
        events = t.run(ch.Evade(), 12)
        (rolled,) = found(events, ev.WaterEvasionRolled)
        (ended,) = found(events, ev.ChaseEnded)
        assert (rolled.retry_next_day, ended.retry_next_day, ended.outcome) == (True, True, "escaped")
        assert "only tomorrow, if that day's encounter check comes up" in ended.reason
        lines = render.state_lines(CAMPAIGN, t.table)
        assert "  chase 1 (waterborne): escaped after 0 rounds (the pursuers may try again tomorrow)" in lines

    @pytest.mark.parametrize(
        ("fleeing", "pursuers", "close"), [(120, 130, 30), (120, 120, 30), (150, 120, 30), (90, 150, 60)]
    )
    def test_the_gap_closes_by_the_difference_but_at_least_30_ft_a_round(self, fleeing, pursuers, close):
        """A failed evasion: the rounds start from the encounter distance and close at least 30 ft."""
        t = idle()
        t.run(ch.StartChase(setting="waterborne", gap_ft=100, fleeing_ft=fleeing, pursuers_ft=pursuers))
        t.run(ch.Evade(), 100)
        run = one_round(t)
        assert (run.gap_before, run.gap_after, run.minimum_close_ft) == (100, 100 - close, 30)

    def test_the_least_closing_is_a_table_entry(self):
        """A house rule of 10 ft: 120 against 130 closes 10 ft."""
        t = Table(tables={"evasion_waterborne": {"min_close_ft_per_round": 10}}).party()
        t.run(ch.StartChase(setting="waterborne", gap_ft=100, fleeing_ft=120, pursuers_ft=130))
        t.run(ch.Evade(), 100)
        assert one_round(t).gap_after == 90

    def test_from_a_waterborne_encounter_the_gap_is_its_distance_in_feet(self):
        """Encounter distance 4d6 x 10 yd given as 40 yd: the chase the referee starts from it (the encounter
        concluded in pursuit, option waterborne_pursuit_hands_off off) starts 120 ft apart."""
        t = Table(options={"waterborne_pursuit_hands_off": False}).party()
        t.run(enc.StartEncounter(setting="waterborne", party_aware=True, monsters_aware=True))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(value=40))
        t.run(enc.RollInitiative(), 5, 2)
        t.run(enc.Evade(side="party"))
        t.run(enc.DecidePursuit(pursue=True))
        (started,) = found(
            t.run(ch.StartChase(setting="waterborne", from_encounter=1, fleeing_ft=60, pursuers_ft=90)), ev.ChaseStarted
        )
        assert started.gap_ft == 120


def run_for(t: Table, count: int) -> list[Any]:
    events: list[Any] = []
    for _ in range(count):
        events += t.run(ch.Run())
    return events


def attack_for(t: Table, name: str, purpose: str = "attack") -> DiceRolled:
    (roll,) = found(t.run(c.RollDice(expression="1d20", purpose=purpose, made_for=name), 10), DiceRolled)
    return roll


class TestExhaustion:
    def test_thirty_rounds_of_running_exhaust_the_party_until_it_rests_three_turns(self):
        """Round 29 none; round 30: -2 to attack and damage rolls made for them, shown in the state; three
        turns of rest in the delve end it."""
        t = Table().party()
        chasing(t, gap_ft=100, fleeing_ft=120, pursuers_ft=120, forced_to_stop=True)
        assert found(run_for(t, 29), ev.ChaseExhausted) == []
        assert attack_for(t, "Ann").modifier == 0
        (exhausted,) = found(t.run(ch.Run()), ev.ChaseExhausted)
        assert (exhausted.round, exhausted.members, exhausted.penalty, exhausted.recover_after_turns) == (
            30,
            ("Ann", "Bo"),
            -2,
            3,
        )
        roll = attack_for(t, "Ann")
        assert (roll.modifier, roll.total) == (-2, 8)
        assert roll.modifiers[0].source == "exhausted by running (0 of 3 turns of rest)"
        assert attack_for(t, "Bo", "damage.sword").modifier == -2
        assert attack_for(t, "party").modifier == -2
        assert attack_for(t, "Ann", "free roll").modifier == 0
        assert "  exhausted: Ann, Bo: -2 to attack, damage and AC (0 of 3 turns of rest)" in render.state_lines(
            CAMPAIGN, t.table
        )
        t.run(ch.Run(out_of_sight=True))  # away, into a delve to rest
        t.run(dg.EnterDungeon())
        t.run(dg.Rest())
        t.run(dg.Rest(), 6)  # turn 2: a wandering check, no monster
        assert attack_for(t, "Ann").modifier == -2
        assert t.state.exhaustion is not None
        assert t.state.exhaustion.rested_turns == 2
        t.run(dg.Rest())
        assert attack_for(t, "Ann").modifier == 0
        assert not any(line.startswith("  exhausted") for line in render.state_lines(CAMPAIGN, t.table))

    def test_a_roll_is_made_for_a_member_or_a_side_only(self):
        """``roll --for`` names a party member or a side; anyone else is refused and nothing is written."""
        t = idle()
        before = t.version
        with pytest.raises(NotFoundError, match="no member called Zed"):
            t.run(c.RollDice(expression="1d20", purpose="attack", made_for="Zed"))
        assert t.version == before

    def test_a_night_in_camp_or_a_rest_day_ends_it_and_a_new_chase_keeps_it(self):
        """Exhaustion outlives its chase; a full rest ends it at once."""
        t = Table().party()
        chasing(t, gap_ft=100, fleeing_ft=120, pursuers_ft=120, forced_to_stop=True)
        run_for(t, 30)
        t.run(ch.Run(out_of_sight=True))
        chasing(t)
        assert t.state.exhausted == ("Ann", "Bo")
        t.run(ch.Run(out_of_sight=True))
        t.run(camp.MakeCamp(weather="clear", terrain="clear"))
        t.run(camp.SetWatches(watches=("1=Ann", "2=Bo", "3=Ann", "4=Bo")))
        t.run(camp.CheckNight(), 1, 1)
        assert t.state.exhausted == ("Ann", "Bo")
        t.run(camp.BreakCamp())
        assert t.state.exhausted == ()
        assert attack_for(t, "Ann").modifier == 0

    def test_the_rounds_and_the_penalty_are_table_entries(self):
        """A house rule: exhausted after 2 rounds, -1."""
        t = Table(tables={"dungeon_pursuit": {"exhaustion_rounds": 2, "exhaustion_penalty": -1}}).party()
        chasing(t, gap_ft=100, fleeing_ft=120, pursuers_ft=120, forced_to_stop=True)
        (exhausted,) = found(run_for(t, 2), ev.ChaseExhausted)
        assert (exhausted.round, exhausted.penalty) == (2, -1)
        assert attack_for(t, "Ann").modifier == -1

    def test_no_exhaustion_on_water(self):
        """Vessels closing for 30 rounds tire nobody."""
        t = idle()
        t.run(ch.StartChase(setting="waterborne", gap_ft=3000, fleeing_ft=120, pursuers_ft=120))
        t.run(ch.Evade(), 100)
        assert found(run_for(t, 30), ev.ChaseExhausted) == []


# --- seeded statistics -----------------------------------------------------------------------------


def totals(expression: str, purpose: str) -> list[int]:
    """20,000 committed rolls for ``purpose``."""
    roll = Rolls(KeyRoller(KEY))
    return [roll(expression, purpose, made_for="monsters").total for _ in range(RUNS)]


def rate_check(hits: int, p: float) -> None:
    """An exact binomial test of the hits against the chance."""
    assert binomtest(hits, RUNS, p).pvalue > P_MIN, (hits, p)


class TestRates:
    @pytest.mark.parametrize("key", ["dropped_treasure_stop_in_6", "dropped_food_stop_in_6"])
    def test_dropped_items_stop_pursuers_half_the_time(self, key):
        """3-in-6 over 20,000 drops, by the step's own rule."""
        chance = getattr(rulesets.load("explore").part(ChaseTables).dungeon_pursuit, key)
        stops = sum(in_6(face, chance) for face in totals("1d6", "chase.drop"))
        rate_check(stops, chance / 6)

    @pytest.mark.parametrize(
        ("fleeing", "pursuers"), [(150, 120), (120, 120), (60, 120), (30, 120), (0, 120), (0, 200)]
    )
    def test_vessels_evade_at_the_rate_of_their_row(self, fleeing, pursuers):
        """20,000 percentile rolls read by the step's rule evade at the row's chance."""
        table = rulesets.load("ose").part(ChaseTables).evasion_waterborne
        assert table is not None
        _, _, chance = water_chance(table, fleeing, pursuers)
        hits = sum(evades(total, chance) for total in totals("1d100", "chase.evasion"))
        rate_check(hits, chance / 100)


# --- replay and audit ------------------------------------------------------------------------------


def run_out(h: Handler) -> None:
    """The chase the delve's encounter handed off: the steps repeated, treasure dropped, then food, then rounds; a
    party caught fights the encounter out."""
    h.execute(CAMPAIGN, ch.RepeatSteps())
    for command in (ch.Drop(item="treasure"), ch.Drop(item="food"), ch.Drop(item="food")):
        if h.load(CAMPAIGN).procedures["chase"].phase is ch.Phase.RUNNING:
            h.execute(CAMPAIGN, command)
    for _ in range(30):  # burning oil holds them to the party's pace: exhausted after 30 rounds
        if h.load(CAMPAIGN).procedures["chase"].phase is ch.Phase.RUNNING:
            h.execute(CAMPAIGN, ch.Run(obstacle="burning oil", slows_ft=30))
    if h.load(CAMPAIGN).procedures["chase"].phase is ch.Phase.RUNNING:
        h.execute(CAMPAIGN, ch.Run(out_of_sight=True))
    if h.load(CAMPAIGN).procedures["encounter"].phase is enc.Phase.COMBAT:  # caught: the encounter's fight, then on
        h.execute(CAMPAIGN, enc.ConcludeEncounter(outcome="fought off"))


def committed_delve() -> Handler:
    """A delve on committed dice: pursued out of an encounter, treasure dropped, then food, then rounds."""
    h = Handler(MemoryStore(), MemoryKeeper())
    rules = {"options": {"pursuit_repeats_encounter_steps": True}}
    for command in (
        c.StartCampaign(ruleset="explore", overrides=rules),
        c.OpenSession(secret_hex="5e" * 32),
        c.SetClientSeed(client_seed="players"),
        *MEMBERS,
        dg.EnterDungeon(),
        dg.LightSource(kind="torch", by="Ann"),
        dg.Meet(name="ghouls", monster_speed=120, intelligent=False),
    ):
        h.execute(CAMPAIGN, command)
    for command in (enc.CheckSurprise(), enc.DetermineDistance(), enc.RollInitiative()):
        h.execute(CAMPAIGN, command)
    h.execute(CAMPAIGN, enc.Evade(side="party"))
    h.execute(CAMPAIGN, enc.DecidePursuit(pursue=True))
    run_out(h)
    h.execute(CAMPAIGN, c.RollDice(expression="1d20", purpose="attack", made_for="Ann"))
    for _ in range(3):
        if not h.load(CAMPAIGN).procedures["dungeon"].monster_due:
            h.execute(CAMPAIGN, dg.Rest())
    h.execute(CAMPAIGN, ch.StartChase(setting="waterborne", gap_ft=300, fleeing_ft=90, pursuers_ft=150))
    h.execute(CAMPAIGN, ch.Evade())
    h.execute(CAMPAIGN, c.CloseSession())
    return h


class TestAudit:
    def test_a_delve_with_a_chase_on_committed_dice_replays_and_audits_clean(self):
        """Every chase decision (the repeated steps, each drop, the vessel's evasion) re-derives from its rolls."""
        h = committed_delve()
        assert h.load(CAMPAIGN).procedures["dungeon"].phase is dg.Phase.EXPLORING
        assert replay(h.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
        types = [e.envelope.type for e in h.store.read_all()]
        assert "hexlog.chase.steps_repeated" in types
        assert "hexlog.chase.water_evasion_rolled" in types
        assert report.decisions >= 3 + types.count("hexlog.chase.item_dropped")
        assert any(
            "an obstacle declared in round 2: burning oil, costing the pursuers 30 ft" in h for h in report.by_hand
        )

    @pytest.mark.parametrize(
        ("kind", "change"),
        [
            (ev.ItemDropped, lambda e: {"tempted": not e.tempted}),
            (ev.WaterEvasionRolled, lambda e: {"evaded": not e.evaded}),
            (ev.StepsRepeated, lambda e: {"gap_ft": e.gap_ft + 10}),
        ],
    )
    def test_a_forged_chase_decision_is_an_audit_finding(self, kind, change):
        """A decision recorded otherwise than its rolls say is caught by the re-run."""
        h = committed_delve()
        events = list(h.store.read_stream(tables.stream_for(CAMPAIGN)))
        decoded = [decode(e.envelope) for e in events]
        assert check_decision_events(decoded).issues == ()
        at = next(i for i, e in enumerate(decoded) if isinstance(e, kind))
        decoded[at] = attrs.evolve(decoded[at], **change(decoded[at]))
        found_issues = check_decision_events(decoded).issues
        assert any(issue.at == at for issue in found_issues), found_issues
