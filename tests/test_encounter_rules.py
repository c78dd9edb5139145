"""The encounter follows the rules: exact checks on scripted dice, distributions over seeded dice."""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from itertools import product
from typing import TYPE_CHECKING, Any

import pytest
from scipy.stats import chisquare

from hexlog.events import encounter as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import NotFoundError, RuleRefusedError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import PhaseChanged
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import table as tables
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.replay.audit import audit_store
from hexlog.service import render

if TYPE_CHECKING:
    from hexlog.events.base import Event

#: the words of an encounter's start the referee gave
STARTED = "the referee's count and speed (the evasion, a pursuit and a chase read them)"
CAMPAIGN = "t"
P_MIN = 0.001
MEMBERS = (c.AddMember(name="Ann", cha=13), c.AddMember(name="Bo", speed=90))


class Table:
    """A campaign on a scripted roller: ``faces`` are the dice the next commands roll, in order."""

    def __init__(
        self,
        ruleset: str = "ose",
        overrides: dict[str, Any] | None = None,
        members: tuple[c.AddMember, ...] = MEMBERS,
    ) -> None:
        self.script: list[int] = []
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(self.script))
        self.run(c.StartCampaign(ruleset=ruleset, overrides=overrides or {}))
        self.run(c.OpenSession(secret_hex="cd" * 32))
        for member in members:
            self.run(member)

    def run(self, command: c.Command, *faces: int) -> list[Event]:
        """Execute one command on the given faces; all of them must be used."""
        self.script.extend(faces)
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events

    @property
    def state(self) -> enc.EncounterState:
        """The folded encounter."""
        return self.handler.load(CAMPAIGN).procedures["encounter"]

    @property
    def version(self) -> int:
        """The stream version."""
        return self.handler.store.stream_version(tables.stream_for(CAMPAIGN))


def only(events: list[Event], kind: type[Any]) -> Any:
    """The one event of a kind."""
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


def rolls_of(events: list[Event]) -> tuple[int, ...]:
    """The nonces of the rolls among the events."""
    return tuple(e.nonce for e in events if isinstance(e, DiceRolled))


def to_actions(
    t: Table,
    start: enc.StartEncounter,
    *surprise: int,
    distance: tuple[int, ...] = (3, 4),
    initiative: tuple[int, ...] = (5, 2),
) -> None:
    """Run an encounter to ACTIONS."""
    t.run(start)
    t.run(enc.CheckSurprise(), *surprise)
    t.run(enc.DetermineDistance(), *distance)
    t.run(enc.RollInitiative(), *initiative)
    assert t.state.phase is enc.Phase.ACTIONS


class TestSurprise:
    def test_each_unaware_side_rolls_a_d6_and_is_surprised_on_1_or_2(self) -> None:
        """A 2 surprises the party, a 3 leaves the monsters unsurprised; the monsters gain the round."""
        t = Table()
        t.run(enc.StartEncounter())
        events = t.run(enc.CheckSurprise(), 2, 3)
        checked = only(events, ev.SurpriseChecked)
        assert (checked.party_face, checked.party_surprised) == (2, True)
        assert (checked.monsters_face, checked.monsters_surprised) == (3, False)
        assert (checked.advantage, checked.advantage_kind) == ("monsters", "round")
        assert checked.rolls == rolls_of(events) == (0, 1)

    def test_an_aware_side_does_not_roll(self) -> None:
        """Only the unaware monsters roll."""
        t = Table()
        t.run(enc.StartEncounter(party_aware=True))
        checked = only(t.run(enc.CheckSurprise(), 1), ev.SurpriseChecked)
        assert (checked.party_rolled, checked.party_surprised) == (False, False)
        assert (checked.monsters_rolled, checked.monsters_surprised) == (True, True)
        assert checked.advantage == "party"

    @pytest.mark.parametrize(("blocks", "monsters_roll"), [(True, False), (False, True)])
    def test_light_in_darkness_gives_the_party_away_when_light_blocks_surprise(self, blocks, monsters_roll) -> None:
        """With light_blocks_surprise the lit party cannot surprise, so the monsters do not roll."""
        t = Table(overrides={"options": {"light_blocks_surprise": blocks}})
        t.run(enc.StartEncounter(party_light=True))
        faces = (4, 1) if monsters_roll else (4,)
        checked = only(t.run(enc.CheckSurprise(), *faces), ev.SurpriseChecked)
        assert checked.monsters_rolled is monsters_roll
        assert checked.monsters_surprised is monsters_roll
        assert checked.advantage == ("party" if monsters_roll else "none")

    def test_both_surprised_gives_nobody_an_advantage_and_neither_rolls_initiative(self) -> None:
        """Two low dice cancel out; only sides that are not surprised roll initiative (seed 000), so nobody does."""
        t = Table()
        t.run(enc.StartEncounter())
        assert only(t.run(enc.CheckSurprise(), 1, 2), ev.SurpriseChecked).advantage == "none"
        t.run(enc.DetermineDistance(), 1, 1)
        rolled = only(t.run(enc.RollInitiative()), ev.InitiativeRolled)
        assert (rolled.first, rolled.rolls, rolled.party_face, rolled.monsters_face) == ("simultaneous", (), 0, 0)
        assert "both sides surprised" in rolled.reason
        assert "neither side rolls" in rolled.reason

    def test_with_the_option_surprised_sides_roll_initiative_too(self) -> None:
        """surprised_sides_roll_initiative = true: both surprised sides roll, 4 against 3."""
        t = Table(overrides={"options": {"surprised_sides_roll_initiative": True}})
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 1, 2)
        t.run(enc.DetermineDistance(), 1, 1)
        rolled = only(t.run(enc.RollInitiative(), 4, 3), ev.InitiativeRolled)
        assert (rolled.first, len(rolled.rolls)) == ("party", 2)


class TestDistance:
    def test_dungeon_distance_is_2d6_times_10_feet_and_names_its_roll(self) -> None:
        """3 + 4 on 2d6 puts the monsters 70 ft away, whatever the surprise."""
        t = Table()
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 1, 6)
        events = t.run(enc.DetermineDistance(), 3, 4)
        d = only(events, ev.DistanceDetermined)
        assert (d.value, d.unit, d.rule) == (70, "ft", "ose.dungeon 2d6x10ft")
        assert d.rolls == rolls_of(events) == (2,)
        assert "roll 2d6 = 7" in d.steps

    @pytest.mark.parametrize(
        ("trigger", "surprise", "faces", "value", "dice"),
        [
            ("either", (4, 1), (3,), 30, "1d4"),
            ("both", (4, 1), (1, 2, 3, 4), 100, "4d6"),
            ("both", (1, 1), (2,), 20, "1d4"),
            ("either", (4, 4), (6, 6, 6, 6), 240, "4d6"),
        ],
    )
    def test_wilderness_distance_shrinks_when_a_side_is_surprised_per_the_option(
        self,
        trigger: str,
        surprise: tuple[int, int],
        faces: tuple[int, ...],
        value: int,
        dice: str,
    ) -> None:
        """4d6 x 10 yd, or 1d4 x 10 yd when either (or, with the option, both) sides are surprised."""
        t = Table(overrides={"options": {"wild_surprise_distance_trigger": trigger}})
        t.run(enc.StartEncounter(setting="wilderness"))
        t.run(enc.CheckSurprise(), *surprise)
        d = only(t.run(enc.DetermineDistance(), *faces), ev.DistanceDetermined)
        assert (d.value, d.unit) == (value, "yd")
        assert dice in d.rule

    def test_the_referee_may_set_an_obvious_distance(self) -> None:
        """A given distance rolls nothing."""
        t = Table()
        t.run(enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.CheckSurprise())
        d = only(t.run(enc.DetermineDistance(value=40)), ev.DistanceDetermined)
        assert (d.value, d.unit, d.rule, d.rolls) == (40, "ft", "referee", ())

    def test_an_unknown_setting_is_refused(self) -> None:
        """OSE has no indoors setting."""
        t = Table()
        with pytest.raises(UsageError, match="dungeon, wilderness, waterborne"):
            t.run(enc.StartEncounter(setting="indoors"))


class TestInitiative:
    def test_the_higher_die_acts_first(self) -> None:
        """5 against 2: the party first."""
        t = Table()
        t.run(enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(), 1, 1)
        events = t.run(enc.RollInitiative(), 2, 5)
        rolled = only(events, ev.InitiativeRolled)
        assert (rolled.party_face, rolled.monsters_face, rolled.first) == (2, 5, "monsters")
        assert rolled.order == ("monsters", "party")
        assert rolled.rolls == rolls_of(events)

    @pytest.mark.parametrize(
        ("rule", "limit", "faces", "outcome"),
        [
            ("simultaneous", 10, (3, 3), ("simultaneous", "simultaneous", 0)),
            ("reroll", 10, (3, 3, 4, 1), ("party", "reroll", 1)),
            ("reroll", 2, (3, 3, 2, 2, 1, 1), ("simultaneous", "reroll", 2)),
        ],
    )
    def test_ties_follow_the_initiative_tie_option(self, rule, limit, faces, outcome) -> None:
        """Simultaneous at once, or re-rolled up to reroll_limit times and then simultaneous."""
        t = Table(overrides={"options": {"initiative_tie": rule, "reroll_limit": limit}})
        t.run(enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(), 1, 1)
        rolled = only(t.run(enc.RollInitiative(), *faces), ev.InitiativeRolled)
        assert (rolled.first, rolled.tie, rolled.rerolls) == outcome
        assert len(rolled.rolls) == len(faces)

    def test_a_lone_unsurprised_side_gains_the_free_round_and_rolls_nothing(self) -> None:
        """The surprised party cannot act in round 1; the monsters can."""
        t = Table()
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 1, 5)
        t.run(enc.DetermineDistance(), 2, 2)
        rolled = only(t.run(enc.RollInitiative()), ev.InitiativeRolled)
        assert (rolled.first, rolled.free_round, rolled.rolls) == ("monsters", "monsters", ())
        with pytest.raises(RuleRefusedError, match="cannot act in the first round"):
            t.run(enc.Fight(side="party"))
        played = only(t.run(enc.PlayRound()), ev.RoundPlayed)
        assert (played.round, played.acting) == (1, ("monsters",))
        t.run(enc.RollInitiative(), 4, 2)  # round 2 starts with its own initiative (initiative_each_round)
        t.run(enc.Fight(side="party"))
        assert t.state.in_combat


class TestReaction:
    def test_the_speakers_cha_modifier_is_added_and_the_band_read(self) -> None:
        """Ann (CHA 13, +1) speaks: 3 + 4 + 1 = 8, uncertain."""
        t = Table()
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        events = t.run(enc.RollReaction(speaker="Ann"), 3, 4)
        r = only(events, ev.ReactionRolled)
        assert (r.speaker, r.cha, r.cha_modifier, r.dice, r.total, r.result) == ("Ann", 13, 1, 7, 8, "uncertain")
        assert r.rolls == rolls_of(events)

    @pytest.mark.parametrize(
        ("scale", "cha", "mod"),
        [("ose", 18, 2), ("uniform", 18, 3), ("ose", 5, -1), ("uniform", 5, -2)],
    )
    def test_the_cha_scale_option_picks_the_modifier(self, scale: str, cha: int, mod: int) -> None:
        """cha_reaction_scale ose or uniform."""
        t = Table(overrides={"options": {"cha_reaction_scale": scale}}, members=(c.AddMember(name="Cy", cha=cha),))
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        r = only(t.run(enc.RollReaction(speaker="Cy"), 6, 6), ev.ReactionRolled)
        assert (r.cha_modifier, r.total) == (mod, 12 + mod)

    def test_an_unknown_speaker_is_refused(self) -> None:
        """Only a party member can speak."""
        t = Table()
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        with pytest.raises(NotFoundError):
            t.run(enc.RollReaction(speaker="Zed"))

    def test_an_uncertain_reaction_is_rerolled_once_and_only_after_a_round(self) -> None:
        """Refused at once, allowed after a round, refused a second time."""
        t = Table()
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.RollReaction(speaker="Ann"), 3, 3)
        version = t.version
        with pytest.raises(RuleRefusedError, match="a round must pass"):
            t.run(enc.RerollReaction())
        assert t.version == version
        t.run(enc.PlayRound())
        r = only(t.run(enc.RerollReaction(), 6, 5), ev.ReactionRolled)
        assert (r.reroll, r.speaker, r.round, r.result) == (True, "Ann", 1, "friendly")
        t.run(enc.RollInitiative(), 4, 2)
        t.run(enc.PlayRound())
        with pytest.raises(RuleRefusedError, match="only an uncertain reaction"):
            t.run(enc.RerollReaction())

    def test_a_reaction_still_uncertain_is_rolled_again_a_round_after_each_roll(self) -> None:
        """A7: the first re-roll is the rules', a later one the referee's: each a round after the last roll, while
        the reaction stays uncertain; neither react nor a second re-roll in the same round."""
        t = Table()
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.RollReaction(speaker="Ann"), 3, 3)
        t.run(enc.PlayRound())
        again = only(t.run(enc.RerollReaction(), 4, 3), ev.ReactionRolled)
        assert (again.reroll, again.round, again.result) == (True, 1, "uncertain")
        version = t.version
        with pytest.raises(RuleRefusedError, match="a round must pass"):
            t.run(enc.RerollReaction())
        with pytest.raises(RuleRefusedError, match="reroll-reaction when it is uncertain"):
            t.run(enc.RollReaction(speaker="Ann"))
        assert t.version == version
        t.run(enc.RollInitiative(), 4, 2)
        t.run(enc.PlayRound())
        third = only(t.run(enc.RerollReaction(speaker="Bo"), 2, 1), ev.ReactionRolled)
        assert (third.reroll, third.speaker, third.round, third.result) == (True, "Bo", 2, "hostile")
        # the referee, who knows the secret, chose to roll the third: the audit says so; the rules' re-roll it does not
        hand = [line.split(": ", 1)[1] for line in audit_store(t.handler.store, CAMPAIGN).by_hand]
        assert hand == [
            (
                f"encounter 1 met 1 monster at 120 ft a turn, {STARTED}; by the referee's word: the party aware of the "
                "monsters, the monsters aware of the party"
            ),
            f"the uncertain reaction rolled again at the referee's call in round 2 (reaction total {third.total})",
        ]

    def test_no_reroll_when_the_option_is_off(self) -> None:
        """reroll_uncertain_reaction = false refuses the reroll."""
        t = Table(overrides={"options": {"reroll_uncertain_reaction": False}})
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.RollReaction(), 3, 4)
        t.run(enc.PlayRound())
        with pytest.raises(RuleRefusedError, match="do not re-roll"):
            t.run(enc.RerollReaction())


class TestMutualSurprise:
    def test_the_initiative_line_says_nobody_acts_in_the_first_round(self) -> None:
        """OSE, both sides surprised (1 and 2): no initiative is rolled and neither side acts in the first round; the
        line does not also say both act at once."""
        t = Table()
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 1, 2)
        t.run(enc.DetermineDistance(), 3, 4)
        said = render.describe(only(t.run(enc.RollInitiative()), ev.InitiativeRolled))
        assert said.startswith("initiative: no roll: neither side acts in the first round (")
        assert "both act at once" not in said


class TestEvasion:
    def test_a_low_reaction_suggests_the_monsters_pursue(self) -> None:
        """No reaction yet: one is rolled, 1 + 2 = 3 <= 5, so they pursue: in the dungeon the encounter hands its chase
        off and waits for it."""
        t = Table()
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.Evade(side="party"))
        events = t.run(enc.DecidePursuit(), 1, 2)
        decided = only(events, ev.PursuitDecided)
        assert (decided.pursuer, decided.pursue, decided.suggested) == ("monsters", True, True)
        assert decided.decided_by == "reaction"
        assert decided.rolls == rolls_of(events)
        assert not [e for e in events if isinstance(e, ev.EncounterConcluded)]
        assert t.handler.load(CAMPAIGN).procedures["encounter"].phase is enc.Phase.CHASE

    def test_no_pursuit_means_the_encounter_is_avoided(self) -> None:
        """A friendly reaction (9 > 5) lets the party go: evaded."""
        t = Table()
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.RollReaction(), 4, 5)
        t.run(enc.Evade())
        events = t.run(enc.DecidePursuit())
        assert not only(events, ev.PursuitDecided).pursue
        assert only(events, ev.EncounterConcluded).outcome == "evaded"

    def test_the_audit_tells_a_pursuit_decided_without_a_reaction_from_one_against_it(self) -> None:
        """The referee's word with no reaction rolled is not said to go against a reaction; one against a rolled
        reaction is (in the wilderness, where each encounter concludes in pursuit)."""
        t = Table()
        wild = enc.StartEncounter(setting="wilderness", party_aware=True, monsters_aware=True)
        to_actions(t, wild, distance=(3, 4, 3, 4))
        t.run(enc.Evade(side="party"))
        t.run(enc.DecidePursuit(pursue=True))
        to_actions(t, wild, distance=(3, 4, 3, 4))
        t.run(enc.RollReaction(), 4, 5)
        t.run(enc.Evade(side="party"))
        t.run(enc.DecidePursuit(pursue=True))
        hand = [
            line.split(": ", 1)[1]
            for line in audit_store(t.handler.store, CAMPAIGN).by_hand
            if "the referee's count and speed" not in line  # each start's monsters: the referee's
        ]
        assert hand == [
            "the monsters pursue, decided by the referee (no reaction was rolled)",
            "the monsters pursue, decided by the referee (the reaction suggested no pursuit)",
        ]

    def test_the_players_decide_freely_whether_to_pursue(self) -> None:
        """Fleeing monsters: the players must say."""
        t = Table()
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.Evade(side="monsters"))
        with pytest.raises(UsageError, match="players decide"):
            t.run(enc.DecidePursuit())
        decided = only(t.run(enc.DecidePursuit(pursue=True)), ev.PursuitDecided)
        assert (decided.pursuer, decided.decided_by) == ("party", "players")

    def test_evasion_is_only_possible_before_combat(self) -> None:
        """Once combat begins, evade is not a trigger of the phase."""
        t = Table()
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.Fight())
        with pytest.raises(RuleRefusedError, match="COMBAT"):
            t.run(enc.Evade())


class TestMovementAndClock:
    def test_movement_is_a_third_of_the_base_rate_and_the_party_moves_at_its_slowest(self) -> None:
        """Bo (90) sets the party's 30 ft a round; the monsters' 150 gives 50 yd outdoors."""
        t = Table()
        rated = only(t.run(enc.StartEncounter(setting="wilderness", monster_speed=150)), ev.MovementRated)
        assert (rated.slowest_member, rated.party_per_round) == ("Bo", 30)
        assert (rated.monsters_per_round, rated.unit) == (50, "yd")
        assert rated.max_rounds == 60

    def test_an_encounter_takes_at_least_one_turn(self) -> None:
        """No rounds played: the clock still moves one turn (600 s)."""
        t = Table()
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        events = t.run(enc.ConcludeEncounter(outcome="parleyed"))
        advanced = only(events, ClockAdvanced)
        assert (advanced.seconds, advanced.turns, advanced.rounds) == (600, 1, 60)
        assert only(events, ev.EncounterConcluded).turns == 1
        assert t.handler.load(CAMPAIGN).clock.seconds == 600

    def test_rounds_beyond_a_turn_round_up_to_whole_turns(self) -> None:
        """004 rounds are a minute: 11 rounds are 2 turns."""
        t = Table(ruleset="explore")
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True), distance=(2, 2))
        t.run(enc.Fight())
        for _ in range(11):
            t.run(enc.PlayRound())
        advanced = only(t.run(enc.ConcludeEncounter()), ClockAdvanced)
        assert (advanced.seconds, advanced.turns) == (1200, 2)

    def test_encounter_movement_lasts_at_most_the_maximum_of_rounds(self) -> None:
        """The 61st OSE round is refused (here the 4th), its initiative rolled or not."""
        t = Table(overrides={"options": {"encounter_move_max_rounds": 3}})
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.PlayRound())
        for _ in range(2):
            t.run(enc.RollInitiative(), 4, 2)
            t.run(enc.PlayRound())
        with pytest.raises(RuleRefusedError, match="at most 3 rounds"):
            t.run(enc.PlayRound())
        t.run(enc.RollInitiative(), 4, 2)
        with pytest.raises(RuleRefusedError, match="at most 3 rounds"):
            t.run(enc.PlayRound())

    def test_combat_rounds_are_not_limited_by_the_movement_maximum(self) -> None:
        """OSE §2.7 limits encounter movement, not combat: round 4 of a fight is played."""
        t = Table(overrides={"options": {"encounter_move_max_rounds": 3}})
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.Fight())
        t.run(enc.PlayRound())
        for _ in range(3):
            t.run(enc.RollInitiative(), 4, 2)  # each later round on its own initiative (initiative_each_round)
            t.run(enc.PlayRound())
        assert t.state.rounds == 4


class TestExplore:
    """Seed 004: free single actions, the three action branches, the wilderness."""

    def test_party_surprising_monsters_takes_one_free_action(self) -> None:
        """3b: the party's free action, then initiative."""
        t = Table(ruleset="explore")
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 6, 1)
        d = only(t.run(enc.DetermineDistance(), 3), ev.DistanceDetermined)
        assert (d.value, d.rule) == (30, "explore.dungeon 1d3x10ft (surprised)")
        assert t.state.phase is enc.Phase.FREE_ACTION
        free = only(t.run(enc.TakeFreeAction(action="attack")), ev.FreeActionTaken)
        assert (free.side, free.kind) == ("party", "single_action")
        assert t.state.phase is enc.Phase.INITIATIVE

    def test_both_surprised_go_straight_to_combat(self) -> None:
        """3c: no free actions, no initiative."""
        t = Table(ruleset="explore")
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 2, 1)
        events = t.run(enc.DetermineDistance(), 1)
        assert only(events, ev.ActionChosen).action == "combat"
        assert t.state.phase is enc.Phase.COMBAT

    def test_intelligent_monsters_that_surprise_the_party_roll_reaction(self) -> None:
        """3a: after their free action the monsters' reaction is rolled."""
        t = Table(ruleset="explore")
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 1, 4)
        t.run(enc.DetermineDistance(), 2)
        assert only(t.run(enc.TakeFreeAction(action="move")), ev.FreeActionTaken).side == "monsters"
        t.run(enc.RollInitiative(), 3, 4)
        assert only(t.run(enc.RollReaction(), 5, 5), ev.ReactionRolled).result == "indifferent"

    def test_non_intelligent_monsters_close_to_melee(self) -> None:
        """3a: beyond 30 ft they go straight to melee, and roll no reaction."""
        t = Table(ruleset="explore")
        t.run(enc.StartEncounter(intelligent=False))
        t.run(enc.CheckSurprise(), 1, 4)
        t.run(enc.DetermineDistance(value=40))
        events = t.run(enc.TakeFreeAction(action="charge"))
        assert only(events, ev.ActionChosen).side == "monsters"
        assert t.state.phase is enc.Phase.COMBAT

    def test_a_party_surprised_within_30_ft_may_flee_after_the_free_action(self) -> None:
        """On a rolled distance (1d3: 3 = 30 ft) non-intelligent monsters move directly to melee (3a);
        A38: the party surprised within 30 ft may still flee after their free action, before any round."""
        t = Table(ruleset="explore")
        t.run(enc.StartEncounter(intelligent=False))
        t.run(enc.CheckSurprise(), 1, 4)
        t.run(enc.DetermineDistance(), 3)
        events = t.run(enc.TakeFreeAction(action="bite"))
        assert only(events, ev.ActionChosen).note == "non-intelligent monsters move directly to melee"
        assert t.state.phase is enc.Phase.COMBAT
        with pytest.raises(RuleRefusedError, match="non-intelligent monsters roll no reaction"):
            t.run(enc.RollReaction())
        t.run(enc.Evade(side="party"))
        assert t.state.phase is enc.Phase.EVASION

    def test_once_a_round_is_fought_the_charged_party_may_not_flee(self) -> None:
        """A38 allows the flight right after the charge only."""
        t = Table(ruleset="explore")
        t.run(enc.StartEncounter(intelligent=False))
        t.run(enc.CheckSurprise(), 1, 4)
        t.run(enc.DetermineDistance(), 2)
        t.run(enc.TakeFreeAction(action="bite"))
        t.run(enc.PlayRound())
        with pytest.raises(RuleRefusedError, match="flight limit"):
            t.run(enc.Evade(side="party"))

    def test_under_ose_a_party_in_combat_is_told_evasion_comes_before_combat(self) -> None:
        """OSE has no flight limit (§2.8: evasion only before combat): the refusal names no such limit."""
        t = Table(ruleset="ose")
        t.run(enc.StartEncounter(party_aware=True, monsters_aware=True))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(), 3, 4)
        t.run(enc.RollInitiative(), 5, 2)
        t.run(enc.Fight(side="party"))
        with pytest.raises(RuleRefusedError, match=r"evasion is possible only before combat has begun") as refused:
            t.run(enc.Evade(side="party"))
        assert "flight limit" not in str(refused.value)

    def test_a_party_surprised_further_away_may_not_flee(self) -> None:
        """3a limits flight to 30 ft."""
        t = Table(ruleset="explore")
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 1, 4)
        t.run(enc.DetermineDistance(value=50))
        t.run(enc.TakeFreeAction(action="move"))
        t.run(enc.RollInitiative(), 2, 5)
        with pytest.raises(RuleRefusedError, match="within 30 ft"):
            t.run(enc.Evade(side="party"))

    def test_wisdom_modifies_each_characters_surprise(self) -> None:
        """One d6 of 3: WIS 5 (-1) is surprised at 2, WIS 18 (+2) is not: Dim alone is surprised, Wise acts."""
        t = Table(ruleset="explore", members=(c.AddMember(name="Wise", wis=18), c.AddMember(name="Dim", wis=5)))
        t.run(enc.StartEncounter())
        checked = only(t.run(enc.CheckSurprise(), 3, 5), ev.SurpriseChecked)
        assert not checked.party_surprised
        assert checked.advantage == "none"
        assert checked.party_characters_surprised == ("Dim",)
        assert checked.party_reason.endswith("Dim surprised; Wise is not and acts")
        # the party as a side is not surprised: the normal 2d4 distance, no free action for the monsters
        distance = only(t.run(enc.DetermineDistance(), 2, 3), ev.DistanceDetermined)
        assert distance.rule == "explore.dungeon 2d4x10ft"
        assert t.state.phase.name == "INITIATIVE"

    def test_one_surprised_character_surprises_the_party_under_the_party_scope(self) -> None:
        """wis_surprise_scope = party: Dim's failed roll makes the whole party surprised (the monsters' free action)."""
        members = (c.AddMember(name="Wise", wis=18), c.AddMember(name="Dim", wis=5))
        t = Table(ruleset="explore", members=members, overrides={"options": {"wis_surprise_scope": "party"}})
        t.run(enc.StartEncounter())
        checked = only(t.run(enc.CheckSurprise(), 3, 5), ev.SurpriseChecked)
        assert (checked.party_surprised, checked.advantage) == (True, "monsters")
        assert checked.party_reason.endswith("; surprised: Dim")

    def test_every_character_surprised_surprises_the_party(self) -> None:
        """A d6 of 2 surprises Mid (WIS 10, +0) and Dim (-1): all surprised, so the party is, and the monsters act."""
        t = Table(ruleset="explore", members=(c.AddMember(name="Mid", wis=10), c.AddMember(name="Dim", wis=5)))
        t.run(enc.StartEncounter())
        checked = only(t.run(enc.CheckSurprise(), 2, 5), ev.SurpriseChecked)
        assert (checked.party_surprised, checked.advantage) == (True, "monsters")
        assert checked.party_characters_surprised == ("Mid", "Dim")
        assert checked.party_reason.endswith("all surprised: the party is surprised")

    @pytest.mark.parametrize(("monsters", "surrounded"), [(3, True), (2, False)])
    def test_a_party_surprised_by_three_or_more_monsters_in_the_wilderness_is_surrounded(self, monsters, surrounded):
        """Wilderness: surprise 2-in-6, and encircled by 3+."""
        t = Table(ruleset="explore")
        t.run(enc.StartEncounter(setting="wilderness", monster_count=monsters))
        events = t.run(enc.CheckSurprise(), 2, 3)
        assert any(isinstance(e, ev.PartySurrounded) for e in events) is surrounded
        d = only(t.run(enc.DetermineDistance(), 1), ev.DistanceDetermined)
        assert (d.value, d.unit, d.missiles_possible) == (10, "yd", True)
        assert t.state.phase is enc.Phase.INITIATIVE


class TestAdnd:
    @pytest.mark.parametrize(
        ("start", "distance", "words"),
        [
            ({"party_light": True}, 60, "light: 2 x 30 ft (the rules' radius of a light carried) = 60 ft"),
            ({"monsters_light": True}, 60, "light: 2 x 30 ft (the rules' radius of a light carried) = 60 ft"),
            ({"party_light": True, "light_radius_ft": 10}, 20, "light: 2 x 10 ft = 20 ft"),
            ({}, 100, None),
        ],
    )
    def test_a_light_without_a_radius_caps_the_distance_at_the_rules_radius(self, start, distance, words) -> None:
        """A39: a light carried without --light-radius lights default_light_radius_ft (30 ft): (6 + 4) x 10 = 100 ft
        becomes 2 x 30 = 60 ft; the referee's radius wins; no light, no cap."""
        t = Table(ruleset="adnd")
        t.run(enc.StartEncounter(setting="indoors", party_aware=True, monsters_aware=True, **start))
        t.run(enc.CheckSurprise())
        d = only(t.run(enc.DetermineDistance(), 6), ev.DistanceDetermined)
        assert (d.value, d.unit) == (distance, "ft")
        assert any(words in step for step in d.steps) if words else not any("light" in step for step in d.steps)

    @pytest.mark.parametrize(("noise_outdoors", "slips_away"), [(False, False), (True, True)])
    def test_outdoors_a_noisy_foe_opens_no_way_out_unless_noise_counts_there(self, noise_outdoors, slips_away) -> None:
        """Seed 001's noise modifier is an indoor one: outdoors the party facing noisy monsters rolls its surprise as
        usual and may not avoid them for their noise; with noise_outdoors = true it is not surprised and may."""
        t = Table(ruleset="adnd", overrides={"options": {"noise_outdoors": noise_outdoors}})
        t.run(enc.StartEncounter(setting="outdoors", monsters_noisy=True))
        checked = only(t.run(enc.CheckSurprise(), *((6, 6) if not noise_outdoors else (6,))), ev.SurpriseChecked)
        assert checked.party_rolled is not noise_outdoors
        t.run(enc.DetermineDistance(value=300))
        t.run(enc.RollInitiative(), 5, 2)
        if slips_away:
            t.run(enc.Avoid(side="party"))
            assert t.state.phase is enc.Phase.CONCLUDED
        else:
            with pytest.raises(RuleRefusedError, match="faces a noisy one"):
                t.run(enc.Avoid(side="party"))

    def test_a_noisy_side_facing_a_noisy_one_is_told_both_are_heard(self) -> None:
        """Indoors a party in plate facing noisy monsters: neither is surprised by the other, and the party may not
        slip away for the monsters' noise, since its own armor is heard too; the refusal says so."""
        t = Table(ruleset="adnd", members=(c.AddMember(name="Ann", armor="plate_mail"),))
        t.run(enc.StartEncounter(setting="indoors", monsters_noisy=True))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(value=30))
        t.run(enc.RollInitiative(), 5, 2)
        with pytest.raises(RuleRefusedError) as refused:
            t.run(enc.Avoid(side="party"))
        assert (
            "the monsters make noise, but the party wear noisy armor (plate_mail) too: it cannot slip away unnoticed"
        ) in str(refused.value)

    @pytest.mark.parametrize(("setting", "rolled"), [("outdoors", True), ("indoors", False)])
    def test_noise_counts_indoors_only(self, setting, rolled) -> None:
        """Seed 001 lists noise (and noisy armor) under INDOORS: outdoors the monsters facing a party in plate still
        roll their surprise, indoors they cannot be surprised by it (noise_outdoors = false)."""
        t = Table(ruleset="adnd", members=(c.AddMember(name="Ann", armor="plate_mail"),))
        t.run(enc.StartEncounter(setting=setting, party_aware=True))
        checked = only(t.run(enc.CheckSurprise(), *((4,) if rolled else ())), ev.SurpriseChecked)
        assert checked.monsters_rolled is rolled
        if not rolled:
            assert "noisy armour (plate_mail)" in checked.monsters_reason

    def test_the_surprising_side_uses_its_free_segments(self) -> None:
        """The monsters lose 2 segments; the party's free action records them."""
        t = Table(ruleset="adnd")
        t.run(enc.StartEncounter(setting="indoors"))
        t.run(enc.CheckSurprise(), 5, 2)
        t.run(enc.DetermineDistance(), 3)
        free = only(t.run(enc.TakeFreeAction(action="close")), ev.FreeActionTaken)
        assert (free.side, free.kind, free.segments) == ("party", "segments", 2)

    def test_avoiding_needs_distance_under_add20(self) -> None:
        """10 ft away the party is too close to slip away."""
        t = Table(ruleset="adnd")
        t.run(enc.StartEncounter(setting="indoors"))
        t.run(enc.CheckSurprise(), 5, 2)
        t.run(enc.DetermineDistance(value=10))
        with pytest.raises(RuleRefusedError, match="too close"):
            t.run(enc.Avoid(side="party"))

    def test_the_surprisers_can_slip_away_only_in_their_free_segments(self) -> None:
        """Once the free action is taken, avoiding is refused."""
        t = Table(ruleset="adnd")
        t.run(enc.StartEncounter(setting="indoors"))
        t.run(enc.CheckSurprise(), 5, 2)
        t.run(enc.DetermineDistance(value=30))
        t.run(enc.TakeFreeAction(action="watch"))
        t.run(enc.RollInitiative(), 4, 3)
        with pytest.raises(RuleRefusedError, match="free segments, which have passed"):
            t.run(enc.Avoid(side="party"))

    @pytest.mark.parametrize(("action", "may_avoid"), [("attack", False), ("cast sleep", False), ("", True)])
    def test_surprisers_who_spent_their_segments_on_an_action_cannot_avoid(self, action, may_avoid) -> None:
        """§3.3: the monsters facing a party in plate (noisy: it cannot surprise them) may slip away, but not once they
        spent their free segments on an action of their own (an attack, a spell): avoiding is what the segments are
        for. The step is then neither offered nor allowed, and nothing is written; monsters that took no free action
        still may slip away."""
        t = Table(ruleset="adnd", members=(c.AddMember(name="Ann", armor="plate"),))
        t.run(enc.StartEncounter(setting="indoors"))
        checked = only(t.run(enc.CheckSurprise(), 2), ev.SurpriseChecked)
        assert (checked.party_surprised, checked.monsters_rolled, checked.advantage) == (True, False, "monsters")
        t.run(enc.DetermineDistance(value=30))
        if action:
            assert only(t.run(enc.TakeFreeAction(action=action)), ev.FreeActionTaken).side == "monsters"
            t.run(enc.RollInitiative(), 4, 3)
        table = t.handler.load(CAMPAIGN)
        offered = dict(REGISTRY.runner("encounter").allowed(table.procedures["encounter"], table))
        assert ("avoid" in offered) is may_avoid
        if may_avoid:
            assert offered["avoid"] == ("monsters",)
            t.run(enc.Avoid(side="monsters"))
            assert t.state.phase is enc.Phase.CONCLUDED
            return
        before = t.version
        with pytest.raises(RuleRefusedError, match=r"monsters spent their free segments on an action \("):
            t.run(enc.Avoid(side="monsters"))
        assert t.version == before
        assert t.state.phase is enc.Phase.ACTIONS

    @pytest.mark.parametrize("rounds", [0, 1, 3])
    def test_a_side_facing_a_noisy_foe_may_avoid_only_before_a_round_is_played(self, rounds) -> None:
        """Seed 001: the side facing a noisy one "can avoid the encounter by fleeing or hiding", a way out of the
        meeting before the sides close: once a round of encounter movement has been played it is neither offered
        nor allowed, and the refusal says why and writes nothing."""
        t = Table(ruleset="adnd")
        t.run(enc.StartEncounter(setting="indoors", monsters_noisy=True, monsters_aware=True))
        checked = only(t.run(enc.CheckSurprise()), ev.SurpriseChecked)
        assert (checked.party_rolled, checked.monsters_rolled, checked.advantage) == (False, False, "none")
        t.run(enc.DetermineDistance(value=60))
        t.run(enc.RollInitiative(), 5, 2)
        for _ in range(rounds):
            t.run(enc.PlayRound())
        table = t.handler.load(CAMPAIGN)
        offered = dict(REGISTRY.runner("encounter").allowed(table.procedures["encounter"], table))
        assert ("avoid" in offered) is (rounds == 0)
        if rounds == 0:
            chosen = only(t.run(enc.Avoid(side="party")), ev.ActionChosen)
            assert chosen.note == "the monsters make noise: the party slip away before they are noticed"
            assert t.state.phase is enc.Phase.CONCLUDED
            return
        before = t.version
        played = "1 round of encounter movement has" if rounds == 1 else f"{rounds} rounds of encounter movement have"
        with pytest.raises(
            RuleRefusedError,
            match=f"the party may slip away from the noisy monsters only before the sides close, and {played} been",
        ):
            t.run(enc.Avoid(side="party"))
        assert t.version == before
        assert t.state.phase is enc.Phase.ACTIONS

    @pytest.mark.parametrize(
        ("speaker", "chosen", "open_after"),
        [
            ("party", "parley", False),
            ("monsters", "parley", False),
            ("party", "wait", True),
            ("monsters", "wait", True),
        ],
    )
    def test_a_parley_closes_the_way_out_a_wait_does_not(self, speaker, chosen, open_after) -> None:
        """§3.2 / §3.4: avoiding is slipping away unseen and unheard. Once either side has parleyed the sides have
        spoken and know of each other: avoid is neither offered nor allowed, the refusal names the parley and writes
        nothing. Waiting to see what the other side does reveals nobody: the party may still slip away."""
        t = Table(ruleset="adnd")
        t.run(enc.StartEncounter(setting="indoors", monsters_noisy=True, monsters_aware=True))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(value=60))
        t.run(enc.RollInitiative(), 5, 2)
        command = enc.Parley if chosen == "parley" else enc.Wait
        t.run(command(side=speaker, note="hail"))
        table = t.handler.load(CAMPAIGN)
        offered = dict(REGISTRY.runner("encounter").allowed(table.procedures["encounter"], table))
        assert ("avoid" in offered) is open_after
        if open_after:
            t.run(enc.Avoid(side="party"))
            assert t.state.phase is enc.Phase.CONCLUDED
            return
        before = t.version
        with pytest.raises(RuleRefusedError, match=rf"the {speaker} parleyed \(hail\): the sides have spoken"):
            t.run(enc.Avoid(side="party"))
        assert t.version == before
        assert t.state.phase is enc.Phase.ACTIONS

    def test_outdoors_the_distance_loses_30_ft_per_surprise_segment(self) -> None:
        """A9: the surprised party's face of 2 takes 60 ft off 18d4 x 10 ft."""
        t = Table(ruleset="adnd")
        t.run(enc.StartEncounter(setting="outdoors"))
        t.run(enc.CheckSurprise(), 2, 5)
        d = only(t.run(enc.DetermineDistance(), *([2] * 18)), ev.DistanceDetermined)
        assert (d.value, d.unit, d.rule) == (300, "ft", "adnd.outdoors 18d4x10ft")

    def test_an_unknown_terrain_is_refused_at_the_start(self) -> None:
        """Terrains must be ones the outdoor table knows."""
        t = Table(ruleset="adnd")
        with pytest.raises(UsageError, match="unknown terrain jungle"):
            t.run(enc.StartEncounter(setting="outdoors", terrains=("jungle",)))

    def test_ose_has_no_avoid_rule(self) -> None:
        """Avoiding is an AD&D rule; OSE uses evasion."""
        t = Table()
        to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
        with pytest.raises(RuleRefusedError, match="no avoid-encounter rule"):
            t.run(enc.Avoid())


def test_a_new_encounter_replaces_the_concluded_one() -> None:
    """Encounters are numbered; the fold keeps the latest."""
    t = Table()
    to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True, name="rats"))
    t.run(enc.ConcludeEncounter())
    started = only(t.run(enc.StartEncounter(name="bats")), ev.EncounterStarted)
    assert (started.number, started.name, started.party) == (2, "bats", ("Ann", "Bo"))
    assert t.state.phase is enc.Phase.SURPRISE
    assert t.state.concluded is None


def test_a_side_must_be_party_or_monsters() -> None:
    """Anything else is a usage error."""
    t = Table()
    to_actions(t, enc.StartEncounter(party_aware=True, monsters_aware=True))
    with pytest.raises(UsageError, match="side must be"):
        t.run(enc.Fight(side="goblins"))


def test_every_roll_names_whom_it_was_made_for() -> None:
    """Surprise and initiative dice are made for their side, the reaction for the monsters, the distance for nobody."""
    t = Table()
    t.run(enc.StartEncounter())
    events = t.run(enc.CheckSurprise(), 4, 4)
    events += t.run(enc.DetermineDistance(), 3, 3)
    events += t.run(enc.RollInitiative(), 5, 2)
    events += t.run(enc.RollReaction(speaker="Ann"), 3, 4)
    assert [(e.purpose, e.made_for) for e in events if isinstance(e, DiceRolled)] == [
        ("encounter.surprise.party", "party"),
        ("encounter.surprise.monsters", "monsters"),
        ("encounter.distance", ""),
        ("encounter.initiative.party", "party"),
        ("encounter.initiative.monsters", "monsters"),
        ("encounter.reaction", "monsters"),
    ]
    assert all(e.modifiers == () for e in events if isinstance(e, DiceRolled))


def test_the_machine_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """Attaching the model binds its triggers without a warning from transitions."""
    caplog.set_level(logging.DEBUG - 1)
    t = Table()
    caplog.clear()
    t.run(enc.StartEncounter())
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


# --- distributions over committed dice -------------------------------------------------------

N = 2000
TWO_D6 = Counter(a + b for a, b in product(range(1, 7), repeat=2))


def _band(total: int, bands: list[tuple[int, str]]) -> str:
    return max((b for b in bands if total >= b[0]), key=lambda b: b[0])[1]


@pytest.fixture(scope="module")
def seeded() -> list[list[Event]]:
    """N OSE dungeon encounters in one campaign on one fixed secret, each to the reaction (Ann speaking: where the
    party is surprised, once the first round, in which it cannot speak, is played) and concluded."""
    handler = Handler(MemoryStore(), MemoryKeeper())
    secret = hashlib.sha256(b"hexlog-test-distributions").hexdigest()
    for command in (c.StartCampaign(), c.OpenSession(secret_hex=secret), c.AddMember(name="Ann", cha=13)):
        handler.execute("sim", command)
    runs = []
    for _ in range(N):
        run: list[Event] = []
        for command in (enc.StartEncounter(), enc.CheckSurprise(), enc.DetermineDistance(), enc.RollInitiative()):
            run.extend(handler.execute("sim", command).events)
        if not enc.party_may_speak(handler.load("sim")):
            run.extend(handler.execute("sim", enc.PlayRound()).events)
        for command in (enc.RollReaction(speaker="Ann"), enc.ConcludeEncounter()):
            run.extend(handler.execute("sim", command).events)
        runs.append(run)
    return runs


class TestDistributions:
    def test_each_unaware_side_is_surprised_a_third_of_the_time(self, seeded: list[list[Event]]) -> None:
        """Chi-square of surprised / not against 1/3 : 2/3, per side."""
        checks = [next(e for e in run if isinstance(e, ev.SurpriseChecked)) for run in seeded]
        for side in ("party", "monsters"):
            hit = sum(getattr(ch, f"{side}_surprised") for ch in checks)
            assert chisquare([hit, N - hit], [N / 3, 2 * N / 3]).pvalue > P_MIN
            assert all(getattr(ch, f"{side}_surprised") == (getattr(ch, f"{side}_face") <= 2) for ch in checks)

    def test_dungeon_distance_follows_2d6_times_10(self, seeded: list[list[Event]]) -> None:
        """Chi-square of the distances against the 2d6 distribution."""
        seen = Counter(next(e for e in run if isinstance(e, ev.DistanceDetermined)).value for run in seeded)
        observed = [seen[10 * s] for s in range(2, 13)]
        expected = [N * TWO_D6[s] / 36 for s in range(2, 13)]
        assert chisquare(observed, expected).pvalue > P_MIN

    def test_initiative_order_is_fair_without_an_advantage(self, seeded: list[list[Event]]) -> None:
        """Party first, monsters first, simultaneous: 15 : 15 : 6 when nobody alone is surprised."""
        rolled = [next(e for e in run if isinstance(e, ev.InitiativeRolled)) for run in seeded]
        free = [r for r in rolled if r.free_round]
        fair = [r for r in rolled if r.rolls]
        confused = [r for r in rolled if not r.free_round and not r.rolls]
        assert all(r.rolls == () and r.first == r.free_round for r in free)
        # both surprised: neither side rolls, both act at once
        assert all(r.first == "simultaneous" and "both sides surprised" in r.reason for r in confused)
        assert len(free) + len(fair) + len(confused) == N
        seen = Counter(r.first for r in fair)
        total = len(fair)
        expected = [total * 15 / 36, total * 15 / 36, total * 6 / 36]
        assert chisquare([seen["party"], seen["monsters"], seen["simultaneous"]], expected).pvalue > P_MIN

    def test_reaction_bands_match_2d6_plus_the_cha_modifier(self, seeded: list[list[Event]]) -> None:
        """Every result is the band of 2d6 + 1 exactly, and the bands' counts fit their odds."""
        bands = [(-99, "attacks"), (3, "hostile"), (6, "uncertain"), (9, "indifferent"), (12, "friendly")]
        reactions = [next(e for e in run if isinstance(e, ev.ReactionRolled)) for run in seeded]
        assert all(r.cha_modifier == 1 and r.total == r.dice + 1 for r in reactions)
        assert all(r.result == _band(r.total, bands) for r in reactions)
        odds = Counter()
        for s, ways in TWO_D6.items():
            odds[_band(s + 1, bands)] += ways
        seen = Counter(r.result for r in reactions)
        names = [name for _, name in bands if odds[name]]
        assert seen["attacks"] == 0
        assert chisquare([seen[n] for n in names], [N * odds[n] / 36 for n in names]).pvalue > P_MIN


#: explore encounters for the per-character surprise: Ann (WIS 3, -2) and Bo (WIS 10, +0) on one party die
N_WIS = 720


@pytest.fixture(scope="module")
def seeded_wis() -> list[list[Event]]:
    """N_WIS explore dungeon encounters on one fixed secret, each to its first actions and concluded."""
    handler = Handler(MemoryStore(), MemoryKeeper())
    secret = hashlib.sha256(b"hexlog-test-wis-surprise").hexdigest()
    setup = (
        c.StartCampaign(ruleset="explore"),
        c.OpenSession(secret_hex=secret),
        c.AddMember(name="Ann", wis=3),
        c.AddMember(name="Bo", wis=10),
    )
    for command in setup:
        handler.execute("wis", command)
    runs = []
    for _ in range(N_WIS):
        run: list[Event] = []
        for command in (enc.StartEncounter(), enc.CheckSurprise(), enc.DetermineDistance()):
            run.extend(handler.execute("wis", command).events)
        phase = handler.load("wis").procedures["encounter"].phase
        if phase is enc.Phase.FREE_ACTION:
            run.extend(handler.execute("wis", enc.TakeFreeAction(action="move")).events)
        if handler.load("wis").procedures["encounter"].phase is enc.Phase.INITIATIVE:
            run.extend(handler.execute("wis", enc.RollInitiative()).events)
        run.extend(handler.execute("wis", enc.ConcludeEncounter()).events)
        runs.append(run)
    return runs


class TestPerCharacterSurpriseDistribution:
    def test_who_is_surprised_the_advantage_and_the_distance_follow_the_two_dice_exactly(
        self, seeded_wis: list[list[Event]]
    ) -> None:
        """Enumerated over the party's and the monsters' d6: Ann on 1-4, Bo on 1-2, the party only when both are.

        The advantage, the shrunken distance (1d3 when a side is surprised) and the way on (the
        surprisers' free action, straight to combat, or initiative) follow the side's surprise, never
        one character's.
        """
        expected: Counter[tuple[Any, ...]] = Counter()
        for a, b in product(range(1, 7), repeat=2):
            hit = tuple(name for name, mod in (("Ann", -2), ("Bo", 0)) if a + mod <= 2)
            party, monsters = len(hit) == 2, b <= 2
            advantage = "monsters" if party and not monsters else "party" if monsters and not party else "none"
            way = "COMBAT" if party and monsters else "FREE_ACTION" if party or monsters else "INITIATIVE"
            expected[party, hit, monsters, advantage, party or monsters, way] += 1
        seen: Counter[tuple[Any, ...]] = Counter()
        for run in seeded_wis:
            checked = next(e for e in run if isinstance(e, ev.SurpriseChecked))
            distance = next(e for e in run if isinstance(e, ev.DistanceDetermined))
            way = next(e.dest for e in run if isinstance(e, PhaseChanged) and e.trigger == "determine_distance")
            key = (
                checked.party_surprised,
                checked.party_characters_surprised,
                checked.monsters_surprised,
                str(checked.advantage),
                "(surprised)" in distance.rule,
                way,
            )
            seen[key] += 1
        assert set(seen) <= set(expected), set(seen) - set(expected)
        keys = sorted(expected, key=str)
        observed = [seen[k] for k in keys]
        assert chisquare(observed, [N_WIS * expected[k] / 36 for k in keys]).pvalue > P_MIN


class TestReactionModifierBound:
    def test_an_absurd_situational_modifier_is_refused_and_nothing_is_written(self) -> None:
        """A modifier past ±10 is named as bad input before any die is rolled."""
        t = Table()
        to_actions(t, enc.StartEncounter(), 4, 4)
        version = t.version
        with pytest.raises(UsageError, match="within ±10"):
            t.run(enc.RollReaction(modifier=99))
        assert t.version == version
        t.run(enc.RollReaction(modifier=-10), 6, 6)
        assert t.state.reaction.total == 2
