"""The chase machine: every row of TRANSITIONS through the handler, every refusal writes nothing, and the
hand-off from a delve whose encounter ends in pursuit (and back)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from hexlog.events import chase as ev
from hexlog.events import dungeon as dg_ev
from hexlog.events import encounter as enc_ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.errors import IllegalTransitionError, RuleRefusedError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed
from hexlog.machine import chase as ch
from hexlog.machine import commands as c
from hexlog.machine import dungeon as dg
from hexlog.machine import encounter as enc
from hexlog.machine import ruleset as rulesets
from hexlog.machine import table as tables
from hexlog.machine.chase import Phase
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller

if TYPE_CHECKING:
    from hexlog.events.base import Event

CAMPAIGN = "t"
#: Ann runs 120, Bo 90: the party runs at 90 ft a round
MEMBERS = (c.AddMember(name="Ann"), c.AddMember(name="Bo", speed=90))
#: a dungeon chase the referee starts: 50 ft apart, the party at 90, the monsters at 120
DIRECT = ch.StartChase(gap_ft=50, fleeing_ft=90, pursuers_ft=120)
#: a waterborne chase: the vessel 60 ft a round slower (40 %), 300 ft apart
AFLOAT = ch.StartChase(setting="waterborne", gap_ft=300, fleeing_ft=90, pursuers_ft=150)


class Table:
    """A campaign on a scripted roller: ``faces`` are the dice the next command rolls, in order."""

    def __init__(
        self, ruleset: str = "explore", options: dict[str, Any] | None = None, tables: dict[str, Any] | None = None
    ) -> None:
        self.script: list[int] = []
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(self.script))
        overrides = {key: value for key, value in (("options", options), ("tables", tables)) if value}
        self.run(c.StartCampaign(ruleset=ruleset, overrides=overrides))
        self.run(c.OpenSession(secret_hex="cd" * 32))

    def run(self, command: c.Command, *faces: int) -> list[Event]:
        """Execute one command on the given faces; all of them must be used."""
        self.script.extend(faces)
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events

    def party(self, *members: c.AddMember) -> Table:
        for member in members or MEMBERS:
            self.run(member)
        return self

    @property
    def table(self) -> tables.Table:
        return self.handler.load(CAMPAIGN)

    @property
    def state(self) -> ch.ChaseState:
        """The folded chase."""
        return self.table.procedures["chase"]

    @property
    def version(self) -> int:
        """The stream version."""
        return self.handler.store.stream_version(tables.stream_for(CAMPAIGN))


def changes(events: list[Event], procedure: str = "chase") -> list[tuple[str, str, str]]:
    """The (trigger, source, dest) of a procedure's phase changes among ``events``."""
    return [(e.trigger, e.source, e.dest) for e in events if isinstance(e, PhaseChanged) and e.procedure == procedure]


def fled(t: Table, **start: Any) -> Table:
    """A dungeon encounter 30 ft away that the referee concluded in pursuit, the party fleeing (a pursuit decided in
    it would hand the chase off itself: ``test_hand_started_chase``)."""
    t.run(enc.StartEncounter(setting="dungeon", party_aware=True, monsters_aware=True, **start))
    t.run(enc.CheckSurprise())
    t.run(enc.DetermineDistance(value=30))
    t.run(enc.RollInitiative(), 5, 2)
    t.run(enc.ConcludeEncounter(outcome="pursuit", note="the party runs; the monsters give chase"))
    return t


# --- one recipe per phase ---------------------------------------------------------------------------


def idle() -> Table:
    return Table().party()


def repeat() -> Table:
    t = fled(Table(options={"pursuit_repeats_encounter_steps": True}).party())
    t.run(ch.StartChase(from_encounter=1))
    return t


def running() -> Table:
    t = idle()
    t.run(DIRECT)
    return t


def evasion() -> Table:
    t = idle()
    t.run(AFLOAT)
    return t


def closing() -> Table:
    t = evasion()
    t.run(ch.Evade(), 41)
    return t


def escaped() -> Table:
    t = idle()
    t.run(ch.StartChase(gap_ft=50, fleeing_ft=150, pursuers_ft=120))
    return t


def caught() -> Table:
    t = running()
    t.run(ch.Run())
    t.run(ch.Run())
    return t


RECIPES = {
    Phase.IDLE: idle,
    Phase.REPEAT: repeat,
    Phase.RUNNING: running,
    Phase.EVASION: evasion,
    Phase.CLOSING: closing,
    Phase.ESCAPED: escaped,
    Phase.CAUGHT: caught,
}
START_FROM = (Phase.IDLE, Phase.ESCAPED, Phase.CAUGHT)


def _start_cases() -> dict[tuple[str, str, str], tuple[Phase, c.Command, tuple[int, ...]]]:
    """Each of the four start rows, from each phase a chase may start in."""
    out: dict[tuple[str, str, str], tuple[Phase, c.Command, tuple[int, ...]]] = {}
    for source in START_FROM:
        out["start", source.name, "ESCAPED"] = (source, ch.StartChase(gap_ft=50, fleeing_ft=150, pursuers_ft=120), ())
        out["start", source.name, "EVASION"] = (source, AFLOAT, ())
        out["start", source.name, "RUNNING"] = (source, DIRECT, ())
    return out


#: (trigger, source, dest) -> (recipe phase, command, faces it rolls)
CASES: dict[tuple[str, str, str], tuple[Phase, c.Command, tuple[int, ...]]] = {
    **_start_cases(),
    ("repeat", "REPEAT", "RUNNING"): (Phase.REPEAT, ch.RepeatSteps(), (4, 5, 3, 4)),
    ("run", "RUNNING", "RUNNING"): (Phase.RUNNING, ch.Run(), ()),
    ("run", "RUNNING", "CAUGHT"): (Phase.RUNNING, ch.Run(slows_ft=0, note="a dead end"), ()),
    ("run", "RUNNING", "ESCAPED"): (Phase.RUNNING, ch.Run(out_of_sight=True), ()),
    ("drop", "RUNNING", "RUNNING"): (Phase.RUNNING, ch.Drop(item="treasure"), ()),
    ("run", "CLOSING", "CLOSING"): (Phase.CLOSING, ch.Run(), ()),
}


class TestEveryTransition:
    def test_every_row_of_the_table_has_a_case(self):
        """The cases here and the ones below cover every (trigger, source, dest) of the table."""
        elsewhere = {
            ("start", source.name, "REPEAT") for source in START_FROM
        } | {  # A18: from a concluded encounter (TestFromAnEncounter)
            ("settle", "RUNNING", "ESCAPED"),  # the drop that stops the pursuers (below)
            ("evade", "EVASION", "EVASION"),  # the evasion settles at once (below)
            ("settle", "EVASION", "ESCAPED"),
            ("settle", "EVASION", "CLOSING"),
            ("run", "CLOSING", "CAUGHT"),
        }
        assert set(ch.CHASE.edges()) == set(CASES) | elsewhere

    @pytest.mark.parametrize("row", list(CASES), ids="-".join)
    def test_each_row_moves_the_chase_and_records_its_phase_change(self, row):
        """The command fires its trigger from the source phase and lands in the destination."""
        source, command, faces = CASES[row]
        t = RECIPES[source]()
        if row == ("run", "RUNNING", "CAUGHT"):
            t.run(ch.Run())  # 50 -> 20 ft: the next round closes it
        events = t.run(command, *faces)
        assert changes(events)[0] == row
        assert t.state.phase is Phase[row[2]]

    @pytest.mark.parametrize("source", START_FROM, ids=lambda p: p.name)
    def test_a_chase_from_an_encounter_repeats_its_steps_under_a18(self, source):
        """start -> REPEAT from each phase a chase may start in, when the option is on."""
        t = fled(Table(options={"pursuit_repeats_encounter_steps": True}).party())
        if source is Phase.ESCAPED:
            t.run(ch.StartChase(gap_ft=50, fleeing_ft=150, pursuers_ft=120))
        elif source is Phase.CAUGHT:
            t.run(ch.StartChase(gap_ft=0, fleeing_ft=90, pursuers_ft=120))
            t.run(ch.Run())
        assert ch.CHASE.phase_of(t.table.procedures.get("chase")) is source
        events = t.run(ch.StartChase(from_encounter=1))
        assert changes(events) == [("start", source.name, "REPEAT")]

    def test_treasure_that_stops_the_pursuers_settles_the_chase(self):
        """drop RUNNING -> RUNNING, then settle RUNNING -> ESCAPED in the same append."""
        t = idle()
        t.run(ch.StartChase(gap_ft=50, fleeing_ft=90, pursuers_ft=120, likes_treasure=True))
        events = t.run(ch.Drop(item="treasure"), 3)
        assert changes(events) == [("drop", "RUNNING", "RUNNING"), ("settle", "RUNNING", "ESCAPED")]
        (ended,) = [e for e in events if isinstance(e, ev.ChaseEnded)]
        assert (ended.outcome, ended.reason) == ("escaped", "the pursuers stop for the treasure")

    @pytest.mark.parametrize(("face", "dest"), [(40, "ESCAPED"), (41, "CLOSING")])
    def test_the_vessel_evasion_settles_either_way(self, face, dest):
        """evade, then settle to ESCAPED (at most 40 %) or CLOSING."""
        events = evasion().run(ch.Evade(), face)
        assert changes(events) == [("evade", "EVASION", "EVASION"), ("settle", "EVASION", dest)]

    def test_the_pursuers_catch_the_vessel(self):
        """run CLOSING -> CAUGHT once the gap is gone: 300 ft at 60 ft a round is five rounds."""
        t = closing()
        for _ in range(4):
            assert changes(t.run(ch.Run())) == [("run", "CLOSING", "CLOSING")]
        events = t.run(ch.Run())
        assert changes(events) == [("run", "CLOSING", "CAUGHT")]
        (ended,) = [e for e in events if isinstance(e, ev.ChaseEnded)]
        assert (ended.outcome, ended.rounds, ended.melee_next_round) == ("caught", 5, True)


#: one command per trigger the referee gives
COMMANDS: dict[str, c.Command] = {
    "start": DIRECT,
    "repeat": ch.RepeatSteps(),
    "run": ch.Run(),
    "drop": ch.Drop(item="food"),
    "evade": ch.Evade(),
}
#: every (phase, trigger) without a row
REFUSED = [
    (phase, trigger)
    for phase in RECIPES
    for trigger in COMMANDS
    if not any(t == trigger and s == phase.name for t, s, _ in ch.CHASE.edges())
]


class TestRefusals:
    @pytest.mark.parametrize(("phase", "trigger"), REFUSED, ids=lambda x: getattr(x, "name", x))
    def test_a_trigger_the_phase_does_not_have_is_refused_and_writes_nothing(self, phase, trigger):
        """Every trigger without a row from the phase is refused, naming the steps allowed now."""
        t = RECIPES[phase]()
        before = t.version
        with pytest.raises(IllegalTransitionError):
            t.run(COMMANDS[trigger], 1, 1, 1, 1)
        assert t.version == before

    @pytest.mark.parametrize(
        ("recipe", "command", "error", "why"),
        [
            (Table, DIRECT, RuleRefusedError, "the party has no members"),
            (lambda: Table("adnd").party(), DIRECT, RuleRefusedError, r"no tables\.dungeon_pursuit"),
            (lambda: Table("adnd").party(), AFLOAT, RuleRefusedError, r"no tables\.evasion_waterborne"),
            (idle, ch.StartChase(setting="lake", gap_ft=1, fleeing_ft=1, pursuers_ft=2), UsageError, "not 'lake'"),
            (idle, ch.StartChase(fleeing="both", gap_ft=1, fleeing_ft=1, pursuers_ft=2), UsageError, "not 'both'"),
            (idle, ch.StartChase(fleeing_ft=90), UsageError, "give --gap-ft, --pursuers-ft"),
            (idle, ch.StartChase(from_encounter=1), RuleRefusedError, r"latest encounter \(none\)"),
            (running, ch.Drop(item="gold"), UsageError, "drop treasure or food"),
            (closing, ch.Run(obstacle="a reef", slows_ft=30), UsageError, "no obstacles"),
        ],
    )
    def test_a_refused_command_writes_nothing_and_says_why(self, recipe, command, error, why):
        """A refusal by a condition or a step names the reason; the stream does not move."""
        t = recipe()
        before = t.version
        with pytest.raises(error, match=why):
            t.run(command)
        assert t.version == before

    def test_a_chase_follows_only_a_concluded_encounter(self):
        """An encounter still under way cannot be fled from by a chase yet."""
        t = idle()
        t.run(enc.StartEncounter(setting="dungeon", party_aware=True, monsters_aware=True))
        before = t.version
        with pytest.raises(RuleRefusedError, match="still under way"):
            t.run(ch.StartChase(from_encounter=1))
        with pytest.raises(RuleRefusedError, match=r"latest encounter \(1\), not encounter 2"):
            t.run(ch.StartChase(from_encounter=2))
        assert t.version == before

    def test_the_steps_allowed_are_offered_in_each_phase(self):
        """The runner offers the referee's triggers that have a row from the phase (settle never)."""
        runner = REGISTRY.runner("chase")
        expected = {
            Phase.IDLE: {"start"},
            Phase.REPEAT: {"repeat"},
            Phase.RUNNING: {"run", "drop"},
            Phase.EVASION: {"evade"},
            Phase.CLOSING: {"run"},
            Phase.ESCAPED: {"start"},
            Phase.CAUGHT: {"start"},
        }
        for phase, recipe in RECIPES.items():
            t = recipe()
            offered = {trigger for trigger, _ in runner.allowed(t.table.procedures.get("chase"), t.table)}
            assert offered == expected[phase], phase


class TestFromAnEncounter:
    def test_the_chase_takes_the_encounters_facts(self):
        """From encounter 1: its 30 ft, the party's 90 against the monsters' 120, its name and intelligence."""
        t = fled(idle(), name="ghouls", monster_speed=120, intelligent=False)
        events = t.run(ch.StartChase(from_encounter=1))
        (started,) = [e for e in events if isinstance(e, ev.ChaseStarted)]
        facts = (started.gap_ft, started.fleeing_ft, started.pursuers_ft, started.name, started.intelligent)
        assert facts == (30, 90, 120, "ghouls", False)
        assert started.runners == ("Ann", "Bo")

    def test_the_repeated_steps_give_a_new_gap_and_a_surprised_side_loses_the_first_round(self):
        """A18: the monsters surprised (2), 1d3 gives 20 ft; in round 1 only the party runs: 20 + 90 = 110 ft."""
        t = repeat()
        events = t.run(ch.RepeatSteps(), 5, 2, 2)
        (repeated,) = [e for e in events if isinstance(e, ev.StepsRepeated)]
        assert (repeated.party_surprised, repeated.monsters_surprised, repeated.gap_ft) == (False, True, 20)
        assert repeated.rule == "explore.dungeon 1d3x10ft (surprised)"
        (run,) = [e for e in t.run(ch.Run()) if isinstance(e, ev.RoundRun)]
        assert (run.fleeing_ft, run.pursuers_ft, run.gap_after) == (90, 0, 110)
        assert run.reason == "the pursuers lose the round to surprise"
        (second,) = [e for e in t.run(ch.Run()) if isinstance(e, ev.RoundRun)]
        assert (second.pursuers_ft, second.gap_after) == (120, 80)


def delve_to_pursuit(options: dict[str, Any] | None = None) -> Table:
    """A lit delve whose monster (met on a wandering check) pursues the fleeing party."""
    t = Table(options=options).party()
    t.run(dg.EnterDungeon())
    t.run(dg.LightSource(kind="torch", by="Ann"))
    t.run(dg.Meet(name="ghouls", monster_speed=120))
    t.run(enc.CheckSurprise(), 4)  # the party's torch: only the monsters roll
    t.run(enc.DetermineDistance(), 2, 3)
    t.run(enc.RollInitiative(), 5, 2)
    t.run(enc.Evade(side="party"))
    return t


class TestTheDelveHandsOff:
    def test_the_delves_encounter_hands_the_chase_off_at_once_and_the_delve_waits(self):
        """Pursued, the encounter hands off to the chase in the same append (encounter.pursuit_decided v2): it does
        not conclude, no time passes before the chase, and the delve waits for the encounter, which waits for it."""
        t = delve_to_pursuit()
        before = t.table.clock.seconds
        events = t.run(enc.DecidePursuit(pursue=True))
        assert HandedOff(parent="encounter", child="chase") in events
        assert ("settle", "EVASION", "CHASE") in changes(events, "encounter")
        assert not [e for e in events if isinstance(e, enc_ev.EncounterConcluded | ClockAdvanced | Resumed)]
        assert changes(events, "dungeon") == []
        (started,) = [e for e in events if isinstance(e, ev.ChaseStarted)]
        assert (started.from_encounter, started.gap_ft, started.name) == (1, 50, "ghouls")
        assert t.table.clock.seconds == before
        assert t.table.handoffs == (("dungeon", "encounter"), ("encounter", "chase"))
        with pytest.raises(IllegalTransitionError, match="not allowed in state ENCOUNTER"):
            t.run(dg.Move())

    def test_a_caught_party_fights_the_encounter_it_fled_and_its_end_resumes_the_delve(self):
        """50 ft, closing 30 ft a round: caught in round 2, the encounter resumes in COMBAT (the delve still waits);
        concluding it resumes the delve exploring."""
        t = delve_to_pursuit()
        t.run(enc.DecidePursuit(pursue=True))
        t.run(ch.Run())
        events = t.run(ch.Run())
        assert Resumed(parent="encounter", child="chase") in events
        assert changes(events, "encounter") == [("resume", "CHASE", "COMBAT")]
        assert changes(events, "dungeon") == []
        assert t.table.handoffs == (("dungeon", "encounter"),)
        assert t.table.procedures["encounter"].phase is enc.Phase.COMBAT
        t.run(enc.PlayRound())
        events = t.run(enc.ConcludeEncounter(outcome="ghouls slain"))
        assert Resumed(parent="dungeon", child="encounter") in events
        assert changes(events, "dungeon") == [("resume", "ENCOUNTER", "EXPLORING")]
        assert t.table.procedures["dungeon"].phase is dg.Phase.EXPLORING
        assert t.table.handoffs == ()

    def test_a_party_that_gets_away_ends_the_encounter_and_the_delve_resumes(self):
        """Out of sight after a round: the chase ends escaped, the encounter concludes evaded (its turn passing
        then), and the delve resumes exploring, all in one append."""
        t = delve_to_pursuit()
        t.run(enc.DecidePursuit(pursue=True))
        events = t.run(ch.Run(out_of_sight=True))
        (concluded,) = [e for e in events if isinstance(e, enc_ev.EncounterConcluded)]
        assert (concluded.outcome, concluded.turns) == ("evaded", 1)
        assert changes(events, "encounter") == [("resume", "CHASE", "CONCLUDED")]
        assert changes(events, "dungeon") == [("resume", "ENCOUNTER", "EXPLORING")]
        assert t.table.handoffs == ()

    def test_a_party_caught_after_fleeing_the_charge_cannot_flee_it_again(self):
        """Surprised 30 ft from unintelligent rats, the party flees their charge (A38); caught, the encounter is
        combat begun: evade is refused, and nothing is written."""
        t = Table().party()
        t.run(dg.EnterDungeon())
        t.run(dg.LightSource(kind="torch", by="Ann"))
        t.run(dg.Meet(name="rats", monster_speed=120, intelligent=False))
        t.run(enc.CheckSurprise(), 1)  # the party's torch: it alone rolls, and is surprised
        t.run(enc.DetermineDistance(), 3)  # 1d3: 30 ft
        t.run(enc.TakeFreeAction(action="attack"))  # the rats close to melee
        t.run(enc.Evade(side="party"))
        t.run(enc.DecidePursuit(pursue=True))
        t.run(ch.Run())
        assert t.table.procedures["encounter"].phase is enc.Phase.COMBAT
        before = t.version
        with pytest.raises(RuleRefusedError, match="the chase caught the party: the melee is on"):
            t.run(enc.Evade(side="party"))
        assert t.version == before

    def test_the_rounds_pass_on_the_delves_clock_and_its_torch_burns_out(self):
        """No turn passes before the chase; 60 rounds of a minute end turn 6, when Ann's torch goes out. (The
        delve's wandering checks wait while it is not exploring.)"""
        t = delve_to_pursuit()
        t.run(enc.DecidePursuit(pursue=True))
        burned = []
        for number in range(1, 61):
            events = t.run(ch.Run(obstacle="burning oil", slows_ft=30))
            burned += [number for e in events if isinstance(e, dg_ev.LightBurnedOut)]
            assert not [e for e in events if isinstance(e, dg_ev.WanderingChecked)]
        assert t.table.clock.seconds == 3600
        assert burned == [60]

    def test_an_encounter_the_monsters_let_go_resumes_exploring(self):
        """No pursuit: the delve resumes exploring, no chase."""
        t = delve_to_pursuit()
        events = t.run(enc.DecidePursuit(pursue=False))
        assert changes(events, "dungeon") == [("resume", "ENCOUNTER", "EXPLORING")]
        assert "chase" not in t.table.procedures

    def test_without_a_dungeon_pursuit_table_the_delve_goes_on_exploring(self):
        """Rules without tables.dungeon_pursuit: the pursuit is the referee's to play; the encounter still ends."""
        explore = rulesets.load("explore").content["tables"]
        dungeon = {key: explore[key] for key in ("light", "dungeon", "open_doors")}
        t = Table("adnd", tables=dungeon).party()
        t.run(dg.EnterDungeon())
        t.run(dg.Meet(name="ghouls"))
        t.run(enc.CheckSurprise(), 6, 6)
        t.run(enc.DetermineDistance(value=30))
        t.run(enc.RollInitiative(), 5, 2)
        t.run(enc.Evade(side="party"))
        events = t.run(enc.DecidePursuit(pursue=True))
        assert changes(events, "dungeon") == [("resume", "ENCOUNTER", "EXPLORING")]
        assert "chase" not in t.table.procedures

    @pytest.mark.parametrize("fight", [False, True], ids=["actions", "combat"])
    def test_the_referee_cannot_conclude_the_delves_encounter_in_pursuit(self, fight):
        """A conclusion in pursuit would have the delve hand the chase on, and a party caught there would go back to
        exploring unfought: it is refused, naming the steps that hand the chase off (or a chase by hand), and
        nothing is written; another outcome still concludes it."""
        t = Table().party()
        t.run(dg.EnterDungeon())
        t.run(dg.LightSource(kind="torch", by="Ann"))
        t.run(dg.Meet(name="ghouls", monster_speed=120))
        t.run(enc.CheckSurprise(), 4)
        t.run(enc.DetermineDistance(), 2, 3)
        t.run(enc.RollInitiative(), 5, 2)
        if fight:
            t.run(enc.Fight(side="party"))
        before = t.version
        with pytest.raises(
            RuleRefusedError, match="in a delve an encounter ends in pursuit only by its pursuers'"
        ) as e:
            t.run(enc.ConcludeEncounter(outcome="pursuit"))
        said = str(e.value)
        assert "StartChase(from_encounter 1)" in said
        assert "Evade()" in said
        assert ("DecidePursuit()" in said) is not fight
        assert t.version == before
        events = t.run(enc.ConcludeEncounter(outcome="fled"))
        assert changes(events, "dungeon") == [("resume", "ENCOUNTER", "EXPLORING")]
        assert "chase" not in t.table.procedures

    def test_under_a18_the_handed_off_chase_waits_to_repeat_the_steps(self):
        """With the option on, the chase the delve starts waits in REPEAT."""
        t = delve_to_pursuit({"pursuit_repeats_encounter_steps": True})
        t.run(enc.DecidePursuit(pursue=True))
        assert t.state.phase is Phase.REPEAT
