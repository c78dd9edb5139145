"""The encounter as the seed texts say it: reactions, AD&D positions, rounds and movement, surprise facts.

Each test drives the handler with chosen dice (a ``ScriptedRoller``) and names the seed text it holds
the encounter to; the audit re-runs the new decisions from the recorded rolls.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from hexlog.events import codec
from hexlog.events import encounter as ev
from hexlog.events.errors import RuleRefusedError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import table as tables
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.replay.decisions import check_decisions
from hexlog.service import render, render_encounter
from hexlog.service.render import describe

from .test_encounter_rules import CAMPAIGN, only
from .test_encounter_rules import Table as RulesTable


class Table(RulesTable):
    """The rules tests' scripted campaign, with refusals counted."""

    def refused(self, command: c.Command, match: str) -> int:
        """The command is refused with ``match`` in its reason; the events it wrote (none, when right)."""
        version = self.version
        with pytest.raises(RuleRefusedError, match=match):
            self.handler.execute(CAMPAIGN, command)
        return self.version - version


def aware(t: Table, setting: str = "dungeon", **start: Any) -> None:
    """Both sides aware, the referee's 30 ft, initiative 5 against 2: the encounter is in its actions."""
    t.run(enc.StartEncounter(setting=setting, party_aware=True, monsters_aware=True, **start))
    t.run(enc.CheckSurprise())
    t.run(enc.DetermineDistance(value=30))
    t.run(enc.RollInitiative(), 5, 2)


class TestReactions:
    """Seed 000 §2.5: "Further rolls may be made at any point in an encounter when monsters' reaction is uncertain"."""

    def test_a_second_reaction_roll_needs_the_rules_reason(self) -> None:
        """react once; again at once (another speaker) is refused, pointing to reroll-reaction."""
        t = Table()
        aware(t)
        t.run(enc.RollReaction(speaker="Ann"), 3, 4)
        assert t.refused(enc.RollReaction(speaker="Bo"), "a further roll needs a reason the rules give") == 0
        assert t.state.reactions == 1

    def test_the_reaction_may_be_rolled_in_combat_and_an_uncertain_one_again_after_a_round(self) -> None:
        """Combat included: the first roll, then (uncertain 7) a re-roll once a combat round has passed."""
        t = Table()
        aware(t)
        t.run(enc.Fight())
        assert only(t.run(enc.RollReaction(), 3, 4), ev.ReactionRolled).result == "uncertain"
        t.run(enc.PlayRound())
        again = only(t.run(enc.RerollReaction(), 6, 6), ev.ReactionRolled)
        assert (again.reroll, again.round, t.state.phase.name) == (True, 1, "COMBAT")

    @pytest.mark.parametrize(
        ("faces", "said"),
        [
            ((1, 1), "total 3 -> Hostile, may attack ["),
            ((3, 3), "total 7 -> Uncertain, neutral ["),
            ((6, 6), "total 13 -> Eager, friendly ["),
        ],
    )
    def test_the_reaction_line_says_the_band_once_in_the_rules_words(self, faces: tuple[int, int], said: str) -> None:
        """Seed 000 §2.5's words name the band (``Hostile, may attack`` for ``hostile``): the line says them once, not
        the band and then the words again (``hostile (Hostile, may attack)``)."""
        t = Table()
        aware(t)
        line = describe(only(t.run(enc.RollReaction(speaker="Ann"), *faces), ev.ReactionRolled))
        assert said in line, line
        assert "(Hostile" not in line
        assert "(Uncertain" not in line
        assert "(Eager" not in line

    def test_a_reaction_band_the_words_do_not_name_is_said_with_them(self) -> None:
        """The rules' words said alone where they name the band, in any case; a house band whose words do not name
        it keeps its name before them, and a band without words (a log of hexlog 0.1.0) is said alone."""
        said = {
            (result, text): render_encounter.reaction_result(result, text)
            for result, text in (
                ("attacks", "Attacks (hostile)"),
                ("friendly", "Eager, friendly"),
                ("wary", "Keeps its distance"),
                ("wary", ""),
                ("hostile", "Hostilely"),
            )
        }
        assert list(said.values()) == [
            "Attacks (hostile)",
            "Eager, friendly",
            "wary (Keeps its distance)",
            "wary",
            "hostile (Hostilely)",
        ]

    @pytest.mark.parametrize("ruleset", ["ose", "adnd", "explore"])
    def test_non_intelligent_monsters_do_not_react(self, ruleset: str) -> None:
        """Under every ruleset, whether or not its rules send them straight to melee."""
        t = Table(ruleset=ruleset)
        aware(t, setting="indoors" if ruleset == "adnd" else "dungeon", intelligent=False)
        assert t.refused(enc.RollReaction(), "non-intelligent monsters roll no reaction") == 0


class TestAdndPositions:
    """Seed 001 §3.1-3.4."""

    def test_the_side_left_with_free_segments_after_mutual_surprise_may_avoid(self) -> None:
        """Party 1, monsters 3 (surprised on 1-4): both surprised; the monsters lose 2; the party slips away."""
        t = Table(ruleset="adnd")
        t.run(enc.StartEncounter(setting="indoors", monsters_surprise_on=4))
        checked = only(t.run(enc.CheckSurprise(), 1, 3), ev.SurpriseChecked)
        assert (checked.party_surprised, checked.monsters_surprised, checked.advantage) == (True, True, "party")
        t.run(enc.DetermineDistance(value=30))
        events = t.run(enc.Avoid(side="party"))
        assert only(events, ev.EncounterConcluded).outcome == "avoided"

    def test_a_party_in_noisy_armor_may_be_avoided_as_a_noisy_one(self) -> None:
        """Seed 001: "Certain types of armor will make considerable noise": Ann's plate gives the party away, so the
        monsters are not surprised (no roll) and "can avoid the encounter by fleeing or hiding", as from a party that
        makes noise."""
        t = Table(ruleset="adnd", members=(c.AddMember(name="Ann", armor="plate"), c.AddMember(name="Bo")))
        t.run(enc.StartEncounter(setting="indoors"))
        checked = only(t.run(enc.CheckSurprise(), 5), ev.SurpriseChecked)
        assert (checked.monsters_rolled, checked.advantage) == (False, "none")
        t.run(enc.DetermineDistance(value=60))
        t.run(enc.RollInitiative(), 5, 2)
        chosen = only(t.run(enc.Avoid(side="monsters")), ev.ActionChosen)
        assert chosen.note == "the party wear noisy armor (plate): the monsters slip away before they are noticed"
        assert t.state.concluded is not None
        assert t.state.concluded.outcome == "avoided"

    def test_a_party_in_quiet_armor_is_not_avoided_so(self) -> None:
        """Leather is quiet: the monsters rolled surprise, and without the advantage they may not slip away."""
        t = Table(ruleset="adnd", members=(c.AddMember(name="Ann", armor="leather"),))
        t.run(enc.StartEncounter(setting="indoors"))
        t.run(enc.CheckSurprise(), 5, 5)
        t.run(enc.DetermineDistance(value=60))
        t.run(enc.RollInitiative(), 5, 2)
        assert t.refused(enc.Avoid(side="monsters"), "or faces a noisy one, may avoid it") == 0

    def test_under_face_the_free_segments_are_the_gap_between_the_losses(self) -> None:
        """Party 1, monsters 3 (on 1-4) under face: each loses its own face (1 and 3), the party is 2 segments ahead."""
        t = Table(ruleset="adnd", overrides={"options": {"segments_on_mutual_surprise": "face"}})
        t.run(enc.StartEncounter(setting="indoors", monsters_surprise_on=4))
        checked = only(t.run(enc.CheckSurprise(), 1, 3), ev.SurpriseChecked)
        assert (checked.party_segments, checked.monsters_segments) == (1, 3)
        t.run(enc.DetermineDistance(value=30))
        free = only(t.run(enc.TakeFreeAction(action="loose arrows")), ev.FreeActionTaken)
        assert (free.side, free.segments) == ("party", 2)
        t.run(enc.RollInitiative(), 5, 2)
        assert "lose the first 2 segments" in only(t.run(enc.PlayRound()), ev.RoundPlayed).reason

    def test_a_members_infravision_limits_the_distance_without_light(self) -> None:
        """(1d6+4) x 10 on a 6 is 100 ft; Ann's 60 ft infravision, recorded at the start, caps it."""
        members = (c.AddMember(name="Ann", infravision_ft=60), c.AddMember(name="Bo", infravision_ft=30))
        t = Table(ruleset="adnd", members=members)
        started = only(t.run(enc.StartEncounter(setting="indoors", party_aware=True)), ev.EncounterStarted)
        assert started.party_vision_ft == 60
        t.run(enc.CheckSurprise(), 5)
        distance = only(t.run(enc.DetermineDistance(), 6), ev.DistanceDetermined)
        assert distance.value == 60
        assert "cap by vision 60 ft -> 60 ft" in distance.steps

    def test_infravision_does_not_limit_a_party_that_carries_light(self) -> None:
        """Infravision is of no use in the party's own light: without a radius given, the light caps the distance at
        twice the rules' radius (A39: 2 x 30 ft = 60 ft), not the 60 ft of infravision; with a 100 ft radius the
        100 ft stands (2 x 100 ft caps nothing, and infravision none)."""
        for radius, distance, words in ((None, 60, "2 x 30 ft (the rules' radius"), (100, 100, "2 x 100 ft = 200 ft")):
            t = Table(ruleset="adnd", members=(c.AddMember(name="Ann", infravision_ft=30),))
            start = enc.StartEncounter(setting="indoors", party_aware=True, party_light=True, light_radius_ft=radius)
            t.run(start)
            t.run(enc.CheckSurprise(), 5)
            found = only(t.run(enc.DetermineDistance(), 6), ev.DistanceDetermined)
            assert found.value == distance
            assert any(words in step for step in found.steps), found.steps
            assert not any("vision 30" in step and "cap" in step for step in found.steps)


class TestRoundsAndMovement:
    """Seed 000 §2.7: "at most 60 rounds (one turn)"; OSE rolls initiative every round."""

    @pytest.mark.parametrize(("ruleset", "setting", "rounds"), [("adnd", "indoors", 10), ("explore", "dungeon", 10)])
    def test_encounter_movement_lasts_one_turn_of_one_minute_rounds(self, ruleset: str, setting: str, rounds: int):
        """10 one-minute rounds, then an 11th is refused."""
        t = Table(ruleset=ruleset)
        aware(t, setting=setting)
        assert t.state.movement is not None
        assert t.state.movement.max_rounds == rounds
        for _ in range(rounds):
            t.run(enc.PlayRound())
        assert t.refused(enc.PlayRound(), f"at most {rounds} rounds") == 0

    @pytest.mark.parametrize(("setting", "per_round", "monsters"), [("indoors", 90, 120), ("outdoors", 270, 360)])
    def test_adnd_movement_is_the_whole_rate_a_round_in_the_distances_unit(self, setting, per_round, monsters):
        """Bo's 9" and the monsters' 12": 90 and 120 ft a round indoors, 90 and 120 yd = 270 and 360 ft outdoors."""
        t = Table(ruleset="adnd")
        movement = only(t.run(enc.StartEncounter(setting=setting)), ev.MovementRated)
        assert (movement.party_per_round, movement.monsters_per_round, movement.unit) == (per_round, monsters, "ft")

    def test_ose_rolls_initiative_again_each_round(self) -> None:
        """After round 1 the initiative of round 2 is rolled (1 against 6), once; then round 2 is played."""
        t = Table()
        aware(t)
        assert t.refused(enc.RollInitiative(), "once a round has been played") == 0
        t.run(enc.PlayRound())
        again = only(t.run(enc.RollInitiative(), 1, 6), ev.InitiativeRolled)
        assert (again.first, again.reason) == ("monsters", "initiative for round 2")
        assert t.refused(enc.RollInitiative(), "initiative for round 2 is already rolled") == 0
        t.run(enc.Fight(side="monsters"))
        t.run(enc.PlayRound())
        assert only(t.run(enc.RollInitiative(), 4, 3), ev.InitiativeRolled).first == "party"

    def test_once_per_encounter_initiative_is_an_option(self) -> None:
        """initiative_each_round = false: a second initiative is refused."""
        t = Table(overrides={"options": {"initiative_each_round": False}})
        aware(t)
        t.run(enc.PlayRound())
        assert t.refused(enc.RollInitiative(), "once per encounter") == 0


class TestSurpriseAndInitiative:
    """Seed 000 §2.2/§2.4, seed 001 §3.1 and seed 004 §4.3, §4.5."""

    def test_a_surprised_side_cannot_wait_in_the_first_round(self) -> None:
        """OSE: the surprised party may not act at all in the monsters' round, not even wait."""
        t = Table()
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 1, 5)
        t.run(enc.DetermineDistance(), 3, 3)
        t.run(enc.RollInitiative())
        assert t.refused(enc.Wait(side="party"), "cannot act in the first round") == 0
        t.run(enc.Wait(side="monsters"))
        t.run(enc.PlayRound())
        t.run(enc.RollInitiative(), 4, 2)  # round 2 starts with its own initiative (initiative_each_round)
        t.run(enc.Wait(side="party"))

    def test_surprise_in_the_open_gives_no_free_action_under_explore(self) -> None:
        """Seed 004 §4.5: in the open surprise shortens the distance (1d3") and bears on evasion; the single action
        is the dungeon's (§4.3 1a). The surprised party rolls initiative and acts in the first round."""
        t = Table(ruleset="explore", members=(c.AddMember(name="Ann", wis=10),))
        t.run(enc.StartEncounter(setting="wilderness"))
        events = t.run(enc.CheckSurprise(), 1, 5)
        checked = only(events, ev.SurpriseChecked)
        assert (checked.party_surprised, checked.advantage, checked.advantage_kind) == (
            True,
            "monsters",
            "single_action",
        )
        told = render.context(t.handler.load(CAMPAIGN))
        assert "monsters gain the advantage (in the open no free action: the closer distance and evasion only) [" in (
            describe(checked, told)
        )
        assert only(t.run(enc.DetermineDistance(), 2), ev.DistanceDetermined).value == 20
        first = only(t.run(enc.RollInitiative(), 2, 5), ev.InitiativeRolled)
        assert (first.first, first.free_round) == ("monsters", "")
        t.run(enc.Wait(side="party"))
        assert only(t.run(enc.PlayRound()), ev.RoundPlayed).acting == ("party", "monsters")

    def test_the_single_action_stays_the_dungeons(self) -> None:
        """Seed 004 §4.3 1a underground: the monsters that surprised the party take their one free action first."""
        t = Table(ruleset="explore", members=(c.AddMember(name="Ann", wis=10),))
        t.run(enc.StartEncounter(setting="dungeon"))
        checked = only(t.run(enc.CheckSurprise(), 1, 5), ev.SurpriseChecked)
        assert "monsters gain the advantage (single action) [" in describe(
            checked, render.context(t.handler.load(CAMPAIGN))
        )
        t.run(enc.DetermineDistance(), 2)
        assert t.refused(enc.RollInitiative(), "allowed now: take_free_action") == 0

    def test_a_side_surprised_more_often_is_a_fact_of_the_start(self) -> None:
        """Monsters surprised on 1-4 (seed 001's creatures): their 3 surprises them, the party's 3 does not."""
        t = Table()
        started = only(t.run(enc.StartEncounter(monsters_surprise_on=4)), ev.EncounterStarted)
        assert (started.party_surprise_on, started.monsters_surprise_on) == (-1, 4)
        checked = only(t.run(enc.CheckSurprise(), 3, 3), ev.SurpriseChecked)
        assert (checked.party_surprised, checked.monsters_surprised, checked.advantage) == (False, True, "party")

    def test_monsters_that_cannot_be_surprised_roll_nothing(self) -> None:
        """Only the party's die is rolled; the monsters' reason says why."""
        t = Table()
        t.run(enc.StartEncounter(monsters_unsurprisable=True))
        checked = only(t.run(enc.CheckSurprise(), 1), ev.SurpriseChecked)
        assert (checked.monsters_rolled, checked.monsters_surprised, checked.advantage) == (False, False, "monsters")
        assert checked.monsters_reason == "the monsters cannot be surprised: no roll"

    def test_circumstances_adjust_a_sides_die(self) -> None:
        """Seed 004: "light, noise, or other circumstances may adjust the roll": a 2 with +1 is 3, not surprised."""
        t = Table(ruleset="explore", members=(c.AddMember(name="Ann", wis=10),))
        t.run(enc.StartEncounter(party_surprise_modifier=1, monsters_surprise_modifier=-2))
        checked = only(t.run(enc.CheckSurprise(), 2, 4), ev.SurpriseChecked)
        assert (checked.party_surprised, checked.monsters_surprised) == (False, True)
        assert checked.monsters_reason == "d6 = 4 -2 = 2 <= 2: surprised"

    @pytest.mark.parametrize(
        "start",
        [
            enc.StartEncounter(party_surprise_on=7),
            enc.StartEncounter(monsters_surprise_on=-1),
            enc.StartEncounter(party_surprise_modifier=9),
        ],
    )
    def test_surprise_facts_out_of_range_are_refused(self, start: enc.StartEncounter) -> None:
        """A chance is 0 to 6, an adjustment within ±6; nothing is written."""
        t = Table()
        version = t.version
        with pytest.raises(UsageError):
            t.run(start)
        assert t.version == version

    @pytest.mark.parametrize(("ruleset", "setting"), [("ose", "dungeon"), ("adnd", "outdoors"), ("explore", "dungeon")])
    def test_missiles_are_possible_where_the_rules_set_no_limit(self, ruleset: str, setting: str) -> None:
        """A rolled distance records missiles possible unless a table limit says otherwise."""
        t = Table(ruleset=ruleset)
        t.run(enc.StartEncounter(setting=setting, party_aware=True, monsters_aware=True))
        t.run(enc.CheckSurprise())
        faces = {"ose": (3, 4), "adnd": (2,) * 18, "explore": (2, 3)}[ruleset]
        assert only(t.run(enc.DetermineDistance(), *faces), ev.DistanceDetermined).missiles_possible

    def test_explores_wilderness_announces_only_what_it_grants(self) -> None:
        """Surprised monsters in the open: no free round, no single action, and the line says so."""
        t = Table(ruleset="explore")
        t.run(enc.StartEncounter(setting="wilderness", party_aware=True))
        checked = only(t.run(enc.CheckSurprise(), 1), ev.SurpriseChecked)
        assert (checked.advantage, checked.advantage_kind) == ("party", "single_action")
        assert "(in the open no free action" in describe(checked, render.context(t.handler.load(CAMPAIGN)))
        t.run(enc.DetermineDistance(), 2)
        assert only(t.run(enc.RollInitiative(), 3, 4), ev.InitiativeRolled).free_round == ""
        assert only(t.run(enc.PlayRound()), ev.RoundPlayed).acting == ("party", "monsters")

    def test_the_surprise_line_names_who_is_surprised(self) -> None:
        """Never "party SURPRISED" when most of it is not."""
        members = (
            c.AddMember(name="Aldric", wis=13),
            c.AddMember(name="Corvin", wis=10),
            c.AddMember(name="Delphine", wis=5),
        )
        t = Table(ruleset="explore", members=members)
        t.run(enc.StartEncounter(monsters_aware=True))
        text = describe(only(t.run(enc.CheckSurprise(), 3), ev.SurpriseChecked))
        assert "SURPRISED" not in text
        assert "Delphine surprised; Aldric and Corvin are not and act" in text


class TestPerCharacterSurprise:
    """Seed 004 §4.3: "Apply each character's Wisdom Surprise Modifier"."""

    def test_the_characters_surprised_alone_sit_out_the_first_round(self) -> None:
        """Dim (WIS 5) is surprised on a 3, Wise (WIS 18) is not: the party acts, Dim only from round 2."""
        members = (c.AddMember(name="Wise", wis=18), c.AddMember(name="Dim", wis=5))
        t = Table(ruleset="explore", members=members)
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 3, 5)
        t.run(enc.DetermineDistance(), 2, 3)
        t.run(enc.RollInitiative(), 4, 2)
        first = only(t.run(enc.PlayRound()), ev.RoundPlayed)
        assert first.acting == ("party", "monsters")
        assert first.reason == "Dim is surprised and cannot act in the first round"
        assert only(t.run(enc.PlayRound()), ev.RoundPlayed).reason == ""


class TestTwoSides:
    def test_rules_show_says_what_hexlog_does_instead_of_more_sides(self, hexlog: Any) -> None:
        """Seed 000's further sides are stated as not modelled, with what to do instead."""
        result = hexlog("rules", "show", "ose")
        assert "not modelled (encounter): two sides only" in result.stdout
        assert "fold a third group into the monsters' side" in result.stdout


class TestAudit:
    def test_the_new_decisions_are_re_derived_from_their_rolls(self) -> None:
        """Real dice: per-character surprise, start facts and per-round initiative all audit clean."""
        handler = Handler(MemoryStore(), MemoryKeeper())
        secret = hashlib.sha256(b"hexlog-encounter-texts").hexdigest()
        setup = (
            c.StartCampaign(ruleset="explore"),
            c.OpenSession(secret_hex=secret),
            c.AddMember(name="Ann", wis=3),
            c.AddMember(name="Bo", wis=18),
        )
        for command in setup:
            handler.execute(CAMPAIGN, command)
        for number in range(12):
            start = enc.StartEncounter(monsters_surprise_on=number % 4, party_surprise_modifier=number % 3 - 1)
            handler.execute(CAMPAIGN, start)
            handler.execute(CAMPAIGN, enc.CheckSurprise())
            handler.execute(CAMPAIGN, enc.DetermineDistance())
            phase = handler.load(CAMPAIGN).procedures["encounter"].phase
            if phase.name == "FREE_ACTION":
                handler.execute(CAMPAIGN, enc.TakeFreeAction(action="move"))
            if handler.load(CAMPAIGN).procedures["encounter"].phase.name == "INITIATIVE":
                handler.execute(CAMPAIGN, enc.RollInitiative())
            handler.execute(CAMPAIGN, enc.ConcludeEncounter())
        handler.execute(CAMPAIGN, c.ChangeRules(ruleset="ose"))
        for _ in range(4):
            handler.execute(CAMPAIGN, enc.StartEncounter())
            handler.execute(CAMPAIGN, enc.CheckSurprise())
            handler.execute(CAMPAIGN, enc.DetermineDistance())
            handler.execute(CAMPAIGN, enc.RollInitiative())
            handler.execute(CAMPAIGN, enc.PlayRound())
            handler.execute(CAMPAIGN, enc.RollInitiative())
            handler.execute(CAMPAIGN, enc.ConcludeEncounter())
        handler.execute(CAMPAIGN, c.CloseSession())
        envelopes = [r.envelope for r in handler.store.read_stream(tables.stream_for(CAMPAIGN))]
        kinds = [e.type for e in envelopes]
        assert kinds.count("hexlog.encounter.initiative_rolled") >= 8
        assert check_decisions(envelopes) == []


class TestTheSchema:
    def test_a_version_2_start_reads_with_the_rules_surprise_and_no_infravision(self) -> None:
        """A start recorded before version 3 keeps its meaning: the rules' chance, no adjustment, no infravision."""
        golden = Path(__file__).resolve().parent / "golden" / "events" / "encounter.started.v2.json"
        data = json.loads(golden.read_text(encoding="utf-8"))
        started = codec.from_data(data["type"], 2, data["data"])
        assert isinstance(started, ev.EncounterStarted)
        facts = (
            started.party_surprise_on,
            started.monsters_surprise_on,
            started.monsters_unsurprisable,
            started.party_surprise_modifier,
            started.monsters_surprise_modifier,
            started.party_vision_ft,
        )
        assert facts == (-1, -1, False, 0, 0, 0)
