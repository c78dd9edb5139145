"""The encounter machine: every row of TRANSITIONS through the handler, every other trigger refused."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from hexlog.events.codec import decode
from hexlog.events.errors import IllegalTransitionError, RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import PhaseChanged
from hexlog.machine import chase as ch
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import table as tables
from hexlog.machine.encounter import Phase
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.replay.dice_audit import check_dice

CAMPAIGN = "t"
STREAM = tables.stream_for(CAMPAIGN)
RUNNER = REGISTRY.runner("encounter")


@attrs.frozen
class Recipe:
    """A way to reach a phase: the ruleset, the encounter, the commands and the faces they roll."""

    ruleset: str
    start: enc.StartEncounter | None
    commands: tuple[c.Command, ...] = ()
    faces: tuple[int, ...] = ()


AWARE = enc.StartEncounter(party_aware=True, monsters_aware=True)
TO_INITIATIVE = (enc.CheckSurprise(), enc.DetermineDistance())
TO_ACTIONS = (*TO_INITIATIVE, enc.RollInitiative())
ACTIONS_FACES = (3, 4, 5, 2)  # distance 2d6, initiative party 5, monsters 2
PARTY_SURPRISES = enc.StartEncounter(setting="dungeon")  # scripted: party 6, monsters 1

RECIPES: dict[str, Recipe] = {
    "idle": Recipe("ose", None),
    "surprise": Recipe("ose", AWARE),
    "distance": Recipe("ose", AWARE, (enc.CheckSurprise(),)),
    "initiative": Recipe("ose", AWARE, TO_INITIATIVE, (3, 4)),
    "actions": Recipe("ose", AWARE, TO_ACTIONS, ACTIONS_FACES),
    "combat": Recipe("ose", AWARE, (*TO_ACTIONS, enc.Fight()), ACTIONS_FACES),
    "evasion": Recipe("ose", AWARE, (*TO_ACTIONS, enc.Evade()), ACTIONS_FACES),
    "concluded": Recipe("ose", AWARE, (*TO_ACTIONS, enc.ConcludeEncounter()), ACTIONS_FACES),
    "actions_after_round": Recipe("ose", AWARE, (*TO_ACTIONS, enc.PlayRound()), ACTIONS_FACES),
    "combat_after_round": Recipe("ose", AWARE, (*TO_ACTIONS, enc.Fight(), enc.PlayRound()), ACTIONS_FACES),
    "uncertain_in_combat": Recipe(
        "ose",
        AWARE,
        (*TO_ACTIONS, enc.RollReaction(), enc.Fight(), enc.PlayRound()),
        (*ACTIONS_FACES, 3, 4),
    ),
    "uncertain_after_round": Recipe(
        "ose",
        AWARE,
        (*TO_ACTIONS, enc.RollReaction(), enc.PlayRound()),
        (*ACTIONS_FACES, 3, 4),
    ),
    # 004 dungeon, the party surprises the monsters: one free action
    "explore_free_action": Recipe("explore", PARTY_SURPRISES, TO_INITIATIVE, (6, 1, 2)),
    # 004 dungeon, the party surprises the monsters, before the distance
    "explore_distance_one": Recipe("explore", PARTY_SURPRISES, (enc.CheckSurprise(),), (6, 1)),
    # 004 dungeon, both surprised
    "explore_distance_both": Recipe("explore", PARTY_SURPRISES, (enc.CheckSurprise(),), (1, 1)),
    # 004 dungeon, non-intelligent monsters surprise the party 60 ft away
    "explore_melee": Recipe(
        "explore",
        enc.StartEncounter(intelligent=False),
        (enc.CheckSurprise(), enc.DetermineDistance(value=60)),
        (1, 6),
    ),
    # 004 dungeon, non-intelligent monsters surprise the party 20 ft away (1d3: 2) and charge (A38)
    "explore_charge": Recipe(
        "explore",
        enc.StartEncounter(intelligent=False),
        (enc.CheckSurprise(), enc.DetermineDistance(), enc.TakeFreeAction(action="charge")),
        (1, 6, 2),
    ),
    # OSE wilderness, no journey: the aware party flees the aware monsters 60 yd away (no chase is handed off there)
    "ose_wild_evasion": Recipe(
        "ose",
        enc.StartEncounter(setting="wilderness", party_aware=True, monsters_aware=True),
        (enc.CheckSurprise(), enc.DetermineDistance(value=60), enc.RollInitiative(), enc.Evade()),
        (5, 2),
    ),
    # 004 wilderness: the aware party flees the aware monsters
    "explore_wild_evasion": Recipe(
        "explore",
        enc.StartEncounter(setting="wilderness", party_aware=True, monsters_aware=True),
        (enc.CheckSurprise(), enc.DetermineDistance(), enc.RollInitiative(), enc.Evade()),
        (1, 1, 1, 1, 5, 2),
    ),
    # AD&D indoors, the party surprises the monsters (they lose 1 segment) 30 ft away
    "adnd_free_segments": Recipe(
        "adnd",
        enc.StartEncounter(setting="indoors"),
        (enc.CheckSurprise(), enc.DetermineDistance(value=30)),
        (6, 1),
    ),
    # OSE on water, both sides aware 100 yd (300 ft) apart: the party's ship flees
    "afloat_evasion": Recipe(
        "ose",
        enc.StartEncounter(setting="waterborne", party_aware=True, monsters_aware=True, monster_speed=150),
        (enc.CheckSurprise(), enc.DetermineDistance(value=100), enc.RollInitiative(), enc.Evade()),
        (5, 2),
    ),
    # ... and the pirates give chase: the encounter waits for the chase on water
    "afloat_chase": Recipe(
        "ose",
        enc.StartEncounter(setting="waterborne", party_aware=True, monsters_aware=True, monster_speed=150),
        (
            enc.CheckSurprise(),
            enc.DetermineDistance(value=10),
            enc.RollInitiative(),
            enc.Evade(),
            enc.DecidePursuit(pursue=True),
        ),
        (5, 2),
    ),
    # ... and the ship's evasion failed (90 on d100): 30 ft apart, the pirates close 60 ft a round
    "afloat_closing": Recipe(
        "ose",
        enc.StartEncounter(setting="waterborne", party_aware=True, monsters_aware=True, monster_speed=150),
        (
            enc.CheckSurprise(),
            enc.DetermineDistance(value=10),
            enc.RollInitiative(),
            enc.Evade(),
            enc.DecidePursuit(pursue=True),
            ch.Evade(),
        ),
        (5, 2, 90),
    ),
    # OSE wilderness: three monsters that know of the party surprise it (its d6 of 2): the referee may encircle it
    "ose_encircle": Recipe(
        "ose",
        enc.StartEncounter(setting="wilderness", monster_count=3, monsters_aware=True),
        (enc.CheckSurprise(),),
        (2,),
    ),
    # AD&D: noisy monsters cannot surprise the party, which may slip away
    "adnd_noisy_actions": Recipe(
        "adnd",
        enc.StartEncounter(setting="indoors", monsters_noisy=True),
        TO_ACTIONS,
        (6, 3, 4, 2),
    ),
}

#: (trigger, source, dest) -> (recipe, command, faces the command rolls)
CASES: dict[tuple[str, str, str], tuple[str, c.Command, tuple[int, ...]]] = {
    ("start", "IDLE", "SURPRISE"): ("idle", AWARE, ()),
    ("start", "CONCLUDED", "SURPRISE"): ("concluded", AWARE, ()),
    ("check_surprise", "SURPRISE", "DISTANCE"): ("surprise", enc.CheckSurprise(), ()),
    ("encircle", "DISTANCE", "DISTANCE"): ("ose_encircle", enc.Encircle(), ()),
    ("determine_distance", "DISTANCE", "FREE_ACTION"): ("explore_distance_one", enc.DetermineDistance(), (2,)),
    ("determine_distance", "DISTANCE", "COMBAT"): ("explore_distance_both", enc.DetermineDistance(), (2,)),
    ("determine_distance", "DISTANCE", "INITIATIVE"): ("distance", enc.DetermineDistance(), (3, 4)),
    ("take_free_action", "FREE_ACTION", "COMBAT"): ("explore_melee", enc.TakeFreeAction(action="attack"), ()),
    ("take_free_action", "FREE_ACTION", "INITIATIVE"): ("explore_free_action", enc.TakeFreeAction(action="move"), ()),
    ("avoid", "FREE_ACTION", "CONCLUDED"): ("adnd_free_segments", enc.Avoid(side="party"), ()),
    ("avoid", "ACTIONS", "CONCLUDED"): ("adnd_noisy_actions", enc.Avoid(side="party"), ()),
    ("roll_initiative", "INITIATIVE", "ACTIONS"): ("initiative", enc.RollInitiative(), (5, 2)),
    # OSE rolls initiative again at the start of every later round
    ("roll_initiative", "ACTIONS", "ACTIONS"): ("actions_after_round", enc.RollInitiative(), (1, 6)),
    ("roll_initiative", "COMBAT", "COMBAT"): ("combat_after_round", enc.RollInitiative(), (1, 6)),
    ("react", "ACTIONS", "ACTIONS"): ("actions", enc.RollReaction(), (4, 4)),
    ("react", "COMBAT", "COMBAT"): ("combat", enc.RollReaction(), (4, 4)),
    ("reroll_reaction", "ACTIONS", "ACTIONS"): ("uncertain_after_round", enc.RerollReaction(), (6, 6)),
    ("reroll_reaction", "COMBAT", "COMBAT"): ("uncertain_in_combat", enc.RerollReaction(), (6, 6)),
    ("parley", "ACTIONS", "ACTIONS"): ("actions", enc.Parley(), ()),
    ("wait", "ACTIONS", "ACTIONS"): ("actions", enc.Wait(), ()),
    ("round", "ACTIONS", "ACTIONS"): ("actions", enc.PlayRound(), ()),
    ("round", "COMBAT", "COMBAT"): ("combat", enc.PlayRound(), ()),
    ("fight", "ACTIONS", "COMBAT"): ("actions", enc.Fight(side="monsters"), ()),
    ("evade", "ACTIONS", "EVASION"): ("actions", enc.Evade(), ()),
    ("decide_pursuit", "EVASION", "CONCLUDED"): ("ose_wild_evasion", enc.DecidePursuit(pursue=True), ()),
    ("evade", "COMBAT", "EVASION"): ("explore_charge", enc.Evade(), ()),
    ("roll_evasion", "EVASION", "CONCLUDED"): ("explore_wild_evasion", enc.RollEvasion(), (50,)),
    ("conclude", "ACTIONS", "CONCLUDED"): ("actions", enc.ConcludeEncounter(), ()),
    ("conclude", "COMBAT", "CONCLUDED"): ("combat", enc.ConcludeEncounter(), ()),
}

#: the rows of the hand-off to the chase on water: the command records the encounter's changes in this order,
#: among the chase's (trigger, source, dest) -> (recipe, command, faces, the encounter's changes)
AFLOAT: dict[tuple[str, str, str], tuple[str, c.Command, tuple[int, ...], tuple[tuple[str, str, str], ...]]] = {
    ("decide_pursuit", "EVASION", "EVASION"): (
        "afloat_evasion",
        enc.DecidePursuit(pursue=True),
        (),
        (("decide_pursuit", "EVASION", "EVASION"), ("settle", "EVASION", "CHASE")),
    ),
    ("settle", "EVASION", "CHASE"): (
        "afloat_evasion",
        enc.DecidePursuit(pursue=True),
        (),
        (("decide_pursuit", "EVASION", "EVASION"), ("settle", "EVASION", "CHASE")),
    ),
    ("settle", "EVASION", "CONCLUDED"): (
        "afloat_evasion",
        enc.DecidePursuit(pursue=False),
        (),
        (("decide_pursuit", "EVASION", "EVASION"), ("settle", "EVASION", "CONCLUDED")),
    ),
    ("resume", "CHASE", "CONCLUDED"): ("afloat_chase", ch.Evade(), (1,), (("resume", "CHASE", "CONCLUDED"),)),
    ("resume", "CHASE", "COMBAT"): ("afloat_closing", ch.Run(), (), (("resume", "CHASE", "COMBAT"),)),
}

#: one recipe per phase, for the refusal checks
PHASE_RECIPES = {
    Phase.IDLE: "idle",
    Phase.SURPRISE: "surprise",
    Phase.DISTANCE: "distance",
    Phase.FREE_ACTION: "explore_free_action",
    Phase.INITIATIVE: "initiative",
    Phase.ACTIONS: "actions",
    Phase.EVASION: "evasion",
    Phase.CHASE: "afloat_chase",
    Phase.COMBAT: "combat",
    Phase.CONCLUDED: "concluded",
}

CASES.update(
    {
        key: case
        for phase in enc.RUNNING
        for key, case in (
            (("cancel", phase.name, "CONCLUDED"), (PHASE_RECIPES[phase], enc.CancelEncounter(reason="by mistake"), ())),
            ((("correct", phase.name, phase.name)), (PHASE_RECIPES[phase], enc.CorrectEncounter(monster_count=7), ())),
        )
    }
)

#: a default command for every trigger
COMMAND_FOR: dict[str, c.Command] = {trigger: cls() for cls, trigger in enc.TRIGGERS.items()}


def _rows() -> list[tuple[str, str, str]]:
    """Every (trigger, source, dest) the table allows, one per source of a row, but those of the chase on water."""
    return [row for row in enc.ENCOUNTER.edges() if row not in AFLOAT]


def reach(name: str, extra_faces: tuple[int, ...] = ()) -> tuple[Handler, list[int]]:
    """A handler whose campaign has run the recipe; the script then holds ``extra_faces``."""
    recipe = RECIPES[name]
    script = [*recipe.faces]
    handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
    handler.execute(CAMPAIGN, c.StartCampaign(ruleset=recipe.ruleset))
    handler.execute(CAMPAIGN, c.OpenSession(secret_hex="ab" * 32))
    handler.execute(CAMPAIGN, c.AddMember(name="Ann", cha=13))
    handler.execute(CAMPAIGN, c.AddMember(name="Bo", speed=90))
    for command in (recipe.start, *recipe.commands) if recipe.start else ():
        handler.execute(CAMPAIGN, command)
    assert script == [], f"recipe {name} left faces {script}"
    script.extend(extra_faces)
    return handler, script


def _encounter(handler: Handler) -> Any:
    return handler.load(CAMPAIGN).procedures.get("encounter")


ROW_IDS = [f"{t}:{s}->{d}" for t, s, d in _rows()]


class TestTransitions:
    @pytest.mark.parametrize(("trigger", "source", "dest"), _rows(), ids=ROW_IDS)
    def test_every_row_is_taken_through_the_handler(self, trigger: str, source: str, dest: str) -> None:
        """Each row of TRANSITIONS is reachable and records its PhaseChanged last."""
        recipe, command, faces = CASES[(trigger, source, dest)]
        handler, script = reach(recipe, faces)
        assert enc.ENCOUNTER.phase_of(_encounter(handler)).name == source
        out = handler.execute(CAMPAIGN, command)
        assert out.events[-1] == PhaseChanged(procedure="encounter", trigger=trigger, source=source, dest=dest)
        assert script == []
        assert out.table.procedures["encounter"].phase.name == dest

    @pytest.mark.parametrize(("trigger", "source", "dest"), _rows(), ids=ROW_IDS)
    def test_replay_folds_to_the_live_state(self, trigger: str, source: str, dest: str) -> None:
        """Folding the stored events gives the same encounter state as the command returned."""
        recipe, command, faces = CASES[(trigger, source, dest)]
        handler, _ = reach(recipe, faces)
        live = handler.execute(CAMPAIGN, command).table.procedures["encounter"]
        events = [decode(r.envelope) for r in handler.store.read_stream(STREAM)]
        replayed = None
        for event in events:
            replayed = enc.ENCOUNTER.fold(replayed, event)
        assert replayed == live
        assert handler.load(CAMPAIGN).procedures["encounter"] == live

    @pytest.mark.parametrize(("trigger", "source", "dest"), sorted(AFLOAT), ids=lambda v: v)
    def test_every_row_of_the_chase_on_water_is_taken_in_its_command(self, trigger: str, source: str, dest: str):
        """The rows a step or the kit fires on water are taken in the command that leads to them, in order."""
        recipe, command, faces, expected = AFLOAT[(trigger, source, dest)]
        handler, script = reach(recipe, faces)
        assert enc.ENCOUNTER.phase_of(_encounter(handler)).name == source
        out = handler.execute(CAMPAIGN, command)
        found = tuple(
            (e.trigger, e.source, e.dest)
            for e in out.events
            if isinstance(e, PhaseChanged) and e.procedure == "encounter"
        )
        assert found == expected
        assert (trigger, source, dest) in found
        assert script == []
        assert out.table.procedures["encounter"].phase.name == expected[-1][2]
        events = [decode(r.envelope) for r in handler.store.read_stream(STREAM)]
        replayed = None
        for event in events:
            replayed = enc.ENCOUNTER.fold(replayed, event)
        assert replayed == out.table.procedures["encounter"]

    def test_every_row_has_a_case(self) -> None:
        """The cases above cover the table exactly."""
        assert set(CASES) | set(AFLOAT) == set(enc.ENCOUNTER.edges())
        assert not set(CASES) & set(AFLOAT)

    def test_every_trigger_has_a_command(self) -> None:
        """The commands' triggers are the table's triggers but those the kit and a step fire themselves."""
        kits = {"settle", "resume"}
        assert set(enc.TRIGGERS.values()) == {row["trigger"] for row in enc.TRANSITIONS} - kits
        assert not kits & set(enc.TRIGGERS.values())

    def test_recorded_transitions_are_checked_against_the_table(self) -> None:
        """Audit accepts each row and rejects a pair that is not in the table."""
        assert all(RUNNER.recorded_ok(*row) for row in _rows())
        assert not RUNNER.recorded_ok("fight", "SURPRISE", "COMBAT")
        assert not RUNNER.recorded_ok("determine_distance", "DISTANCE", "ACTIONS")

    def test_a_whole_encounter_records_only_allowed_transitions(self) -> None:
        """Every PhaseChanged of a run matches a row of the table."""
        handler, _ = reach("concluded")
        changes = [e for r in handler.store.read_stream(STREAM) if isinstance(e := decode(r.envelope), PhaseChanged)]
        triggers = ["start", "check_surprise", "determine_distance", "roll_initiative", "conclude"]
        assert [ch.trigger for ch in changes] == triggers
        assert all(RUNNER.recorded_ok(ch.trigger, ch.source, ch.dest) for ch in changes)

    @pytest.mark.parametrize("ruleset", ["ose", "adnd", "explore"])
    def test_a_whole_encounter_on_committed_dice_passes_the_audit(self, ruleset: str) -> None:
        """Real dice, every phase change allowed, every roll re-derived from the revealed secret."""
        handler = Handler(MemoryStore(), MemoryKeeper())
        for command in (c.StartCampaign(ruleset=ruleset), c.OpenSession(secret_hex="5a" * 32), c.AddMember(name="Ann")):
            handler.execute(CAMPAIGN, command)
        setting = "indoors" if ruleset == "adnd" else "dungeon"
        for number in range(1, 6):
            handler.execute(CAMPAIGN, enc.StartEncounter(setting=setting, name=f"e{number}"))
            handler.execute(CAMPAIGN, enc.CheckSurprise())
            handler.execute(CAMPAIGN, enc.DetermineDistance())
            if enc.ENCOUNTER.phase_of(_encounter(handler)) is Phase.FREE_ACTION:
                handler.execute(CAMPAIGN, enc.TakeFreeAction(action="move"))
            if enc.ENCOUNTER.phase_of(_encounter(handler)) is Phase.INITIATIVE:
                handler.execute(CAMPAIGN, enc.RollInitiative())
            if enc.ENCOUNTER.phase_of(_encounter(handler)) is Phase.ACTIONS:
                handler.execute(CAMPAIGN, enc.PlayRound())
            handler.execute(CAMPAIGN, enc.ConcludeEncounter())
        handler.execute(CAMPAIGN, c.CloseSession())
        events = [decode(r.envelope) for r in handler.store.read_stream(STREAM)]
        found = check_dice(events, REGISTRY)
        assert [i for i in found.issues if not i.note] == []
        assert found.verified == found.rolls > 0
        assert handler.load(CAMPAIGN).procedures["encounter"].started.number == 5


def _refusals() -> list[tuple[Phase, str]]:
    return [(phase, t) for phase in Phase for t in sorted(COMMAND_FOR) if t not in RUNNER.triggers(phase)]


class TestRefusals:
    @pytest.mark.parametrize(("phase", "trigger"), _refusals(), ids=lambda v: getattr(v, "name", v))
    def test_a_trigger_the_phase_does_not_allow_is_refused_and_nothing_is_written(self, phase, trigger) -> None:
        """IllegalTransitionError names the phase and the triggers available now; the stream is unchanged."""
        handler, _ = reach(PHASE_RECIPES[phase])
        assert enc.ENCOUNTER.phase_of(_encounter(handler)) is phase
        version = handler.store.stream_version(STREAM)
        with pytest.raises(IllegalTransitionError) as caught:
            handler.execute(CAMPAIGN, COMMAND_FOR[trigger])
        assert caught.value.state == phase.name
        assert caught.value.trigger == trigger
        table = handler.load(CAMPAIGN)
        assert caught.value.allowed == sorted(t for t, _ in RUNNER.allowed(_encounter(handler), table))
        assert set(caught.value.allowed) <= set(RUNNER.triggers(phase))
        assert phase.name in str(caught.value)
        assert handler.store.stream_version(STREAM) == version

    def test_the_allowed_triggers_come_from_the_machine(self) -> None:
        """The runner lists each phase's rows in table order, conditions aside."""
        assert RUNNER.triggers(enc.ENCOUNTER.phase_of(None)) == ["start"]
        assert RUNNER.triggers(Phase.ACTIONS) == [
            "avoid",
            "roll_initiative",
            "react",
            "reroll_reaction",
            "parley",
            "wait",
            "round",
            "fight",
            "evade",
            "conclude",
            "cancel",
            "correct",
        ]
        assert RUNNER.triggers(Phase.CONCLUDED) == ["start"]
        assert "cancel" not in [
            t for t, _ in RUNNER.allowed(_encounter(reach("actions")[0]), reach("actions")[0].load(CAMPAIGN))
        ]

    def test_a_failing_condition_is_refused_with_a_reason_and_nothing_is_written(self) -> None:
        """A reroll before any reaction is a RuleRefusedError, not an illegal transition."""
        handler, _ = reach("actions")
        version = handler.store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="only an uncertain reaction") as caught:
            handler.execute(CAMPAIGN, enc.RerollReaction())
        assert not isinstance(caught.value, IllegalTransitionError)
        assert handler.store.stream_version(STREAM) == version

    def test_an_encounter_needs_a_party(self) -> None:
        """Starting with nobody in the party is refused."""
        handler = Handler(MemoryStore(), MemoryKeeper())
        handler.execute(CAMPAIGN, c.StartCampaign())
        with pytest.raises(RuleRefusedError, match="no members"):
            handler.execute(CAMPAIGN, enc.StartEncounter())
        assert handler.store.stream_version(STREAM) == 1
