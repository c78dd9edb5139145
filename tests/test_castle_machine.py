"""The castle machine: every row of TRANSITIONS through the handler, every other trigger refused, nothing written;
the travel day waits for an owed ride-out check; a castle met on a journey on committed dice replays and audits."""

from __future__ import annotations

import re
from typing import Any

import attrs
import pytest

from hexlog.events import castle as ev
from hexlog.events import pursuit as pev
from hexlog.events.codec import decode
from hexlog.events.encounter import EncounterConcluded, EncounterStarted
from hexlog.events.errors import HexlogError, IllegalTransitionError, RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff, PhaseChanged
from hexlog.machine import castle as k
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import table as tables
from hexlog.machine.castle import Phase
from hexlog.machine.castle.reach import due, owed
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import LoadMap, SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as pu
from hexlog.machine.pursuit.state import Phase as PursuitPhase
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import AuditReport, audit_store
from hexlog.replay.rebuild import replay
from hexlog.service import render

CAMPAIGN = "k"
STREAM = tables.stream_for(CAMPAIGN)
RUNNER = REGISTRY.runner("castle")
MEMBERS = ("Ann", "Bo")
#: castles known in advance, so no type or disposition is rolled at the meeting
LORD = k.PlaceCastle(hex="2,2", castle_type="lord", disposition="hostile")
WIZARD = k.PlaceCastle(hex="2,2", castle_type="wizard", disposition="neutral")
PATRIARCH = k.PlaceCastle(hex="2,2", castle_type="patriarch")
HAIL = k.HailCastle(hex="2,2")
MEET = k.MeetGarrison(riders=8)
FAST = k.MeetGarrison(riders=8, speed=240)
#: fast riders pursue (1); the evasion fails (100), the party flees N (1), the catch misses (3 on the woods
#: row's d4) and the hostile force gives up (5): the pursuit waits for its rest
ESCAPING = (HAIL, FAST, k.FleeGarrison(), pu.RollEvasion(), pu.Flee(), pu.Catch(), pu.ContinueCheck())
ESCAPING_FACES = (1, 100, 1, 3, 5)
#: the half day of rest after one hex rolls a 6 (an encounter on the woods row): both sides roll no surprise
#: (6, 6) and the initiative (3, 2) of the encounter handed off
RESTING_MEETS = (pu.Rest(), enc.CheckSurprise(), enc.DetermineDistance(value=60), enc.RollInitiative())
RESTING_FACES = (6, 6, 6, 3, 2)
#: the forces go on after the first hex (2) and give up after the second (5): a day of rest, two encounter rolls
#: (6, 6), and the first encounter handed off rolls no surprise (6, 6) and the initiative (3, 2)
ESCAPING_TWO_HEXES = (*ESCAPING, pu.Flee(), pu.Catch(), pu.ContinueCheck())
ESCAPING_TWO_HEXES_FACES = (1, 100, 1, 3, 2, 1, 3, 5)
RESTING_MEETS_TWO_FACES = (6, 6, 6, 6, 3, 2)


@attrs.frozen
class Recipe:
    """A way to reach a phase: the castle placed, the commands after it and the faces they roll."""

    place: c.Command | None = LORD
    commands: tuple[c.Command, ...] = ()
    faces: tuple[int, ...] = ()


def met(place: c.Command = LORD, *more: c.Command, faces: tuple[int, ...] = ()) -> Recipe:
    return Recipe(place, (HAIL, MEET, *more), faces)


RECIPES: dict[str, Recipe] = {
    "idle": Recipe(),
    "empty": Recipe(None),
    "met": met(),
    "met_wizard": met(WIZARD),
    "met_patriarch": met(PATRIARCH),
    "toll": met(LORD, k.DemandToll(), faces=(3,)),
    "toll_wizard": met(WIZARD, k.DemandToll(), faces=(2,)),
    "refused": met(LORD, k.RefuseDemand()),
    "fighting": met(LORD, k.FightGarrison()),
    "fighting_actions": met(
        LORD,
        k.FightGarrison(),
        enc.CheckSurprise(),
        enc.DetermineDistance(value=60),
        enc.RollInitiative(),
        faces=(6, 2),
    ),
    "done": met(LORD, k.PartWays()),
}

#: (trigger, source, dest) -> (recipe, command, faces the command rolls)
CASES: dict[tuple[str, str, str], tuple[str, c.Command, tuple[int, ...]]] = {
    ("place", "IDLE", "IDLE"): ("empty", LORD, ()),
    ("place", "DONE", "DONE"): ("done", k.PlaceCastle(hex="3,3"), ()),
    ("pass", "IDLE", "IDLE"): ("journey", k.PassCastles(), (4,)),
    ("pass", "DONE", "DONE"): ("journey_done", k.PassCastles(), (4,)),
    ("hail", "IDLE", "IDLE"): ("idle", HAIL, ()),
    ("hail", "DONE", "DONE"): ("done", HAIL, ()),
    ("meet", "IDLE", "MET"): ("hailed", MEET, ()),
    ("meet", "DONE", "MET"): ("done_hailed", MEET, ()),
    ("joust", "MET", "DONE"): ("met", k.Joust(fighter="Ann"), (5,)),
    ("toll", "MET", "TOLL"): ("met", k.DemandToll(), (4,)),
    ("pay", "TOLL", "DONE"): ("toll", k.PayToll(), ()),
    ("quest", "MET", "DONE"): ("met_wizard", k.AcceptQuest(), ()),
    ("quest", "TOLL", "DONE"): ("toll_wizard", k.AcceptQuest(), ()),
    ("refuse", "MET", "REFUSED"): ("met", k.RefuseDemand(), ()),
    ("refuse", "TOLL", "REFUSED"): ("toll", k.RefuseDemand(), ()),
    ("fight", "MET", "FIGHTING"): ("met", k.FightGarrison(), ()),
    ("fight", "TOLL", "FIGHTING"): ("toll", k.FightGarrison(), ()),
    ("fight", "REFUSED", "FIGHTING"): ("refused", k.FightGarrison(), ()),
    ("fight_over", "FIGHTING", "DONE"): ("fighting_actions", enc.ConcludeEncounter(), ()),
    ("flee", "MET", "FLED"): ("met", k.FleeGarrison(), (5,)),
    ("flee", "TOLL", "FLED"): ("toll", k.FleeGarrison(), (5,)),
    ("flee", "REFUSED", "FLED"): ("refused", k.FleeGarrison(), (1,)),
    # a hostile castle's forces pursue on 1-3: the pursuit takes over; else the meeting ends escaped
    ("pursue", "FLED", "PURSUED"): ("met", k.FleeGarrison(), (2,)),
    ("settle", "FLED", "DONE"): ("met", k.FleeGarrison(), (4,)),
    ("fight_over", "PURSUED", "DONE"): ("pursued_evaded", pu.Rest(), ()),
    # the rest after the escape meets an encounter: handed off, the castle waits for it, then is done
    ("fight_over", "PURSUED", "RESTING"): ("escaping", pu.Rest(), (6,)),
    ("fight_over", "RESTING", "DONE"): ("resting_met", enc.ConcludeEncounter(), ()),
    # the day of rest after two hexes met two encounters: when the first concludes the second is handed off
    ("fight_over", "RESTING", "RESTING"): ("resting_met_two", enc.ConcludeEncounter(), ()),
    # the party flees the encounter the rest met and its evasion fails (100): that pursuit is handed off
    ("fight_over", "RESTING", "PURSUED"): ("resting_met_fleeing", enc.RollEvasion(), (100,)),
    ("part", "MET", "DONE"): ("met", k.PartWays(), ()),
    ("part", "REFUSED", "DONE"): ("refused", k.PartWays(), ()),
}

RECIPES["hailed"] = Recipe(LORD, (HAIL,))
RECIPES["pursued"] = met(LORD, k.FleeGarrison(), faces=(2,))
#: two fleeing eight: the party's evasion chance is certain (nothing rolled); resting ends the pursuit, escaped
RECIPES["pursued_evaded"] = met(LORD, k.FleeGarrison(), pu.RollEvasion(), faces=(2,))
RECIPES["done_hailed"] = met(LORD, k.PartWays(), HAIL)
RECIPES["escaping"] = Recipe(LORD, ESCAPING, ESCAPING_FACES)
RECIPES["resting"] = Recipe(LORD, (*ESCAPING, pu.Rest()), (*ESCAPING_FACES, 6))
RECIPES["resting_met"] = Recipe(LORD, (*ESCAPING, *RESTING_MEETS), (*ESCAPING_FACES, *RESTING_FACES))
RECIPES["resting_met_fleeing"] = Recipe(
    LORD, (*ESCAPING, *RESTING_MEETS, enc.Evade()), (*ESCAPING_FACES, *RESTING_FACES)
)
RECIPES["escaping_two"] = Recipe(LORD, ESCAPING_TWO_HEXES, ESCAPING_TWO_HEXES_FACES)
RECIPES["resting_met_two"] = Recipe(
    LORD, (*ESCAPING_TWO_HEXES, *RESTING_MEETS), (*ESCAPING_TWO_HEXES_FACES, *RESTING_MEETS_TWO_FACES)
)

PHASE_RECIPES = {
    Phase.IDLE: "idle",
    Phase.MET: "met",
    Phase.TOLL: "toll",
    Phase.REFUSED: "refused",
    Phase.FIGHTING: "fighting",
    Phase.PURSUED: "pursued",
    Phase.RESTING: "resting",
    Phase.DONE: "done",
}
#: the phase a flight passes through within its own command (no command ever finds the castle there)
PASSING = frozenset({Phase.FLED})

#: a command for every trigger a referee gives
COMMAND_FOR: dict[str, c.Command] = {
    "place": k.PlaceCastle(hex="3,3"),
    "pass": k.PassCastles(),
    "hail": HAIL,
    "meet": MEET,
    "joust": k.Joust(fighter="Ann", winner="party"),
    "toll": k.DemandToll(),
    "pay": k.PayToll(),
    "quest": k.AcceptQuest(),
    "refuse": k.RefuseDemand(),
    "fight": k.FightGarrison(),
    "flee": k.FleeGarrison(),
    "part": k.PartWays(),
}


def campaign(faces: list[int], overrides: dict[str, Any] | None = None) -> Handler:
    """Explore rules, Ann and Bo, a road east along row 0 (0,0 to 5,0) and hills at 2,2 and 3,3."""
    handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(faces))
    handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore", overrides=overrides or {}))
    handler.execute(CAMPAIGN, c.OpenSession(secret_hex="ab" * 32))
    for member in MEMBERS:
        handler.execute(CAMPAIGN, c.AddMember(name=member))
    for col in range(6):
        handler.execute(CAMPAIGN, SetHex(hex=f"{col},0", terrain="meadow", road=True))
    for name in ("2,2", "3,3"):
        handler.execute(CAMPAIGN, SetHex(hex=name, terrain="hills"))
    return handler


def on_the_road(handler: Handler, hexes: int = 2) -> None:
    """Set out from 0,0 on a clear day and move east ``hexes`` hexes (SE then NE, along row 0)."""
    handler.execute(CAMPAIGN, t.StartJourney(hex="0,0"))
    handler.execute(CAMPAIGN, t.RollWeather(weather="clear"))
    handler.execute(CAMPAIGN, t.DeclareRoute(headings=("SE", "NE", "SE", "NE", "SE")))
    handler.execute(CAMPAIGN, t.Move(hexes=hexes))


def reach(name: str, extra_faces: tuple[int, ...] = ()) -> tuple[Handler, list[int]]:
    """A handler whose campaign has run the recipe; the script then holds ``extra_faces``."""
    script: list[int] = []
    handler = campaign(script)
    if name.startswith("journey"):
        handler.execute(CAMPAIGN, LORD)
        if name == "journey_done":
            for command in (HAIL, MEET, k.PartWays()):
                handler.execute(CAMPAIGN, command)
        script.extend([6, 1])  # the lost check (meadow, clear: never lost) and the heading die, read by none
        on_the_road(handler)
    else:
        recipe = RECIPES[name]
        script.extend(recipe.faces)
        if recipe.place is not None:
            handler.execute(CAMPAIGN, recipe.place)
        for command in recipe.commands:
            handler.execute(CAMPAIGN, command)
    assert script == [], f"recipe {name} left faces {script}"
    script.extend(extra_faces)
    return handler, script


def _castle(handler: Handler) -> Any:
    return handler.load(CAMPAIGN).procedures.get("castle")


def reach_owed(handler: Handler) -> bool:
    """Whether a ride-out check is owed: the day's check of the castles checked every day, or a passed one's."""
    table = handler.load(CAMPAIGN)
    return bool(owed(table)) or due(table)


def version(handler: Handler) -> int:
    return handler.store.stream_version(STREAM)


ROW_IDS = [f"{tr}:{s}->{d}" for tr, s, d in k.CASTLE.edges()]


class TestTransitions:
    @pytest.mark.parametrize(("trigger", "source", "dest"), k.CASTLE.edges(), ids=ROW_IDS)
    def test_every_row_is_taken_through_the_handler(self, trigger: str, source: str, dest: str) -> None:
        """Each row of TRANSITIONS is reachable, uses exactly its faces and records its PhaseChanged."""
        recipe, command, faces = CASES[(trigger, source, dest)]
        handler, script = reach(recipe, faces)
        # a row from a passing phase is taken by the command that enters it (the flight from MET)
        assert k.CASTLE.phase_of(_castle(handler)).name == source or Phase[source] in PASSING
        out = handler.execute(CAMPAIGN, command)
        assert PhaseChanged(procedure="castle", trigger=trigger, source=source, dest=dest) in out.events
        assert script == []
        # a phase a step follows on from is left within the same command
        assert out.table.procedures["castle"].phase.name == dest or Phase[dest] in PASSING

    @pytest.mark.parametrize(("trigger", "source", "dest"), k.CASTLE.edges(), ids=ROW_IDS)
    def test_replay_folds_to_the_live_state(self, trigger: str, source: str, dest: str) -> None:
        """Folding the stored events gives the castle state the command returned, and the stored table agrees."""
        recipe, command, faces = CASES[(trigger, source, dest)]
        handler, _ = reach(recipe, faces)
        live = handler.execute(CAMPAIGN, command).table.procedures["castle"]
        replayed = None
        for record in handler.store.read_stream(STREAM):
            replayed = k.CASTLE.fold(replayed, decode(record.envelope))  # type: ignore[misc]
        assert replayed == live
        assert handler.load(CAMPAIGN).procedures["castle"] == live

    def test_every_row_has_a_case(self) -> None:
        """The cases above cover the table exactly."""
        assert set(CASES) == set(k.CASTLE.edges())

    def test_every_trigger_but_the_resume_has_a_command(self) -> None:
        """The commands' triggers are the table's triggers, except the one the kit fires on a resume."""
        kits = {"fight_over", "pursue", "settle"}
        assert set(k.TRIGGERS.values()) == {row["trigger"] for row in k.TRANSITIONS} - kits
        assert set(COMMAND_FOR) == set(k.TRIGGERS.values())

    def test_recorded_transitions_are_checked_against_the_table(self) -> None:
        """Audit accepts each row and rejects a pair that is not in the table."""
        assert all(RUNNER.recorded_ok(*row) for row in k.CASTLE.edges())
        assert not RUNNER.recorded_ok("pay", "MET", "DONE")
        assert not RUNNER.recorded_ok("meet", "MET", "MET")


def _refusals() -> list[tuple[Phase, str]]:
    return [
        (phase, tr)
        for phase in Phase
        if phase not in PASSING
        for tr in sorted(COMMAND_FOR)
        if tr not in RUNNER.triggers(phase)
    ]


class TestRefusals:
    @pytest.mark.parametrize(("phase", "trigger"), _refusals(), ids=lambda v: getattr(v, "name", v))
    def test_a_trigger_the_phase_does_not_allow_is_refused_and_nothing_is_written(self, phase, trigger) -> None:
        """IllegalTransitionError names the phase; the stream is unchanged."""
        handler, _ = reach(PHASE_RECIPES[phase])
        before = version(handler)
        with pytest.raises(IllegalTransitionError) as caught:
            handler.execute(CAMPAIGN, COMMAND_FOR[trigger])
        assert caught.value.trigger == trigger
        assert phase.name in str(caught.value)
        assert version(handler) == before

    @pytest.mark.parametrize(
        ("recipe", "command", "needle"),
        [
            ("idle", k.PassCastles(), "no ride-out check is owed: the castles are checked once a travel day"),
            ("idle", MEET, "no garrison rides out; hail a castle or pass one first"),
            ("hailed", HAIL, "the garrison of the castle at 2,2 rides out; meet it first"),
            ("hailed", k.PassCastles(), "the garrison of the castle at 2,2 rides out; meet it first"),
            ("met_wizard", k.Joust(fighter="Ann"), "a magic_user castle does not joust"),
            ("met", k.AcceptQuest(), "a fighter castle places no quest"),
        ],
        ids=["nothing-passed", "nothing-coming", "hail-coming", "pass-coming", "no-joust", "no-quest"],
    )
    def test_a_condition_that_fails_is_refused_with_its_reason_and_writes_nothing(self, recipe, command, needle):
        """The machine's conditions say why, and the stream is unchanged."""
        handler, _ = reach(recipe)
        before = version(handler)
        with pytest.raises(RuleRefusedError, match=needle):
            handler.execute(CAMPAIGN, command)
        assert version(handler) == before

    @pytest.mark.parametrize(
        ("recipe", "command", "needle"),
        [
            ("idle", k.PlaceCastle(hex="9,9"), "hex 9,9 is not on the map"),
            ("idle", k.PlaceCastle(hex="2,2"), "a castle stands at 2,2 already"),
            ("empty", k.PlaceCastle(hex="2,2", castle_type="baron"), "castle type 'baron' is not one of"),
            ("empty", k.PlaceCastle(hex="2,2", disposition="grumpy"), "disposition 'grumpy' is not one of"),
            ("empty", k.PlaceCastle(hex="2,2", castle_type="patriarch", disposition="hostile"), "always friendly"),
            ("idle", k.HailCastle(hex="3,3"), "no castle stands at 3,3"),
            ("idle", k.HailCastle(), "no castle is within two hexes of the party"),
            ("met", k.Joust(fighter="Cy"), r"no member called Cy \(its members: Ann, Bo\)"),
            ("met", k.Joust(fighter="Ann", winner="nobody"), "the winner is castle or party"),
            ("toll", k.PayToll(item="wand"), "a fighter castle takes no magic item"),
        ],
        ids=["off-map", "twice", "type", "disposition", "always", "no-castle", "none-near", "member", "winner", "item"],
    )
    def test_a_step_that_refuses_writes_nothing(self, recipe, command, needle):
        """A step's own refusals name what is wrong, and the stream is unchanged."""
        handler, _ = reach(recipe)
        before = version(handler)
        with pytest.raises(HexlogError, match=needle):
            handler.execute(CAMPAIGN, command)
        assert version(handler) == before

    @pytest.mark.parametrize("ruleset", ["ose", "adnd"])
    def test_rules_without_a_castle_table_have_no_castles(self, ruleset: str) -> None:
        """Under ose and adnd a castle cannot be placed, and nothing is written."""
        handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller([]))
        handler.execute(CAMPAIGN, c.StartCampaign(ruleset=ruleset))
        handler.execute(CAMPAIGN, SetHex(hex="2,2", terrain="mountains"))
        before = version(handler)
        with pytest.raises(RuleRefusedError, match="no castle table"):
            handler.execute(CAMPAIGN, LORD)
        assert version(handler) == before


class TestTheTravelDayWaits:
    def test_the_day_does_not_close_until_the_castles_are_checked_and_again_after_each_move(self) -> None:
        """Two hexes from 2,2 (at 2,0): the day goes on (the move is the players' to see), but it does not close
        until ``castle pass``, nothing written on the refusal. The check of 2,2 is owed; after a move the day owes
        another, in which 2,2, checked already, is rolled for show, as far castles are every day."""
        handler, script = reach("journey")
        before = version(handler)
        with pytest.raises(RuleRefusedError, match=r"checked each travel day before it closes.*PassCastles"):
            handler.execute(CAMPAIGN, t.CheckWandering())
        assert version(handler) == before
        script.append(2)  # at two hexes the garrison rides out on 1 only
        out = handler.execute(CAMPAIGN, k.PassCastles())
        passed = next(e for e in out.events if isinstance(e, ev.CastlesPassed))
        assert passed.passed == (ev.Passed(hex="2,2", distance=2, ride_out_on=(1,), face=2, rides_out=False),)
        with pytest.raises(RuleRefusedError, match="no ride-out check is owed"):
            handler.execute(CAMPAIGN, k.PassCastles())
        handler.execute(CAMPAIGN, t.Move(hexes=1))  # the day goes on; 2,2 is checked for today
        with pytest.raises(RuleRefusedError, match="checked each travel day before it closes"):
            handler.execute(CAMPAIGN, t.EndDay())
        script.append(1)  # a face that would ride out: for show, it does not
        again = next(e for e in handler.execute(CAMPAIGN, k.PassCastles()).events if isinstance(e, ev.CastlesPassed))
        ((shown,),) = [again.passed]
        assert (shown.hex, shown.ride_out_on, shown.face, shown.rides_out) == ("2,2", (), 1, False)
        assert len(again.referee_rolls) == 1
        assert not _castle(handler).coming
        script.append(1)  # no wandering monsters
        handler.execute(CAMPAIGN, t.CheckWandering())

    def test_a_castle_placed_after_the_days_check_is_checked_before_the_day_closes(self) -> None:
        """The day's check made, a castle the referee places then is checked too before the day closes: its die and
        the first's again (for show), as every check rolls every castle."""
        handler, script = reach("journey")
        script.append(6)
        handler.execute(CAMPAIGN, k.PassCastles())
        handler.execute(CAMPAIGN, k.PlaceCastle(hex="4,0", castle_type="lord", disposition="neutral"))
        with pytest.raises(RuleRefusedError, match="checked each travel day before it closes"):
            handler.execute(CAMPAIGN, t.CheckWandering())
        script.extend([6, 6])
        passed = next(e for e in handler.execute(CAMPAIGN, k.PassCastles()).events if isinstance(e, ev.CastlesPassed))
        assert sorted((p.hex, p.ride_out_on) for p in passed.passed) == [("2,2", ()), ("4,0", (1,))]
        script.append(1)  # no wandering monsters
        handler.execute(CAMPAIGN, t.CheckWandering())
        assert script == []

    def test_the_first_castle_placed_during_a_day_is_checked_after_every_move(self) -> None:
        """A campaign's first castle placed on the road, after the route: checked before the day goes on, and again
        once the party moved into its reach (its state begun during the day counts the moves all the same)."""
        script: list[int] = []
        handler = campaign(script)
        script.extend([6, 1])  # the lost check and the heading die
        handler.execute(CAMPAIGN, t.StartJourney(hex="0,0"))
        handler.execute(CAMPAIGN, t.RollWeather(weather="clear"))
        handler.execute(CAMPAIGN, t.DeclareRoute(headings=("SE", "NE")))
        handler.execute(CAMPAIGN, LORD)  # 2,2: three hexes from 0,0
        script.append(6)
        first = next(e for e in handler.execute(CAMPAIGN, k.PassCastles()).events if isinstance(e, ev.CastlesPassed))
        assert [(p.hex, p.ride_out_on) for p in first.passed] == [("2,2", ())]
        handler.execute(CAMPAIGN, t.Move(hexes=2))  # into 2,0: two hexes from the castle
        with pytest.raises(RuleRefusedError, match="checked each travel day before it closes"):
            handler.execute(CAMPAIGN, t.CheckWandering())
        script.append(6)
        again = next(e for e in handler.execute(CAMPAIGN, k.PassCastles()).events if isinstance(e, ev.CastlesPassed))
        assert [(p.hex, p.distance, p.ride_out_on) for p in again.passed] == [("2,2", 2, (1,))]
        assert script == []

    def test_a_garrison_riding_out_and_a_meeting_hold_the_day(self) -> None:
        """The day waits while a garrison rides out and while the meeting lasts; it goes on once it ends."""
        handler, script = reach("journey")
        script.append(1)
        handler.execute(CAMPAIGN, k.PassCastles())
        with pytest.raises(RuleRefusedError, match="rides out; meet it first"):
            handler.execute(CAMPAIGN, t.CheckWandering())
        handler.execute(CAMPAIGN, MEET)
        with pytest.raises(RuleRefusedError, match="meeting the garrison of the castle at 2,2"):
            handler.execute(CAMPAIGN, t.Move(hexes=1))
        handler.execute(CAMPAIGN, k.PartWays())
        handler.execute(CAMPAIGN, t.Move(hexes=1))

    def test_no_check_is_owed_between_days_and_one_is_at_the_next_days_start(self) -> None:
        """After the day ends the castle owes nothing (a rest day goes on, the party passing no castle: its wandering
        check and its end are not held up); the next day owes it from its weather: the day goes on, but does not close
        until it is made."""
        handler, script = reach("journey")
        script.append(6)
        handler.execute(CAMPAIGN, k.PassCastles())
        script.append(1)  # no wandering monsters
        handler.execute(CAMPAIGN, t.CheckWandering())
        handler.execute(CAMPAIGN, t.EndDay())
        handler.execute(CAMPAIGN, t.RestDay(weather="clear"))
        script.append(1)  # no wandering monsters at the rest day's end
        handler.execute(CAMPAIGN, t.CheckWandering())
        assert not reach_owed(handler)
        handler.execute(CAMPAIGN, t.EndDay())
        handler.execute(CAMPAIGN, t.RollWeather(weather="clear"))
        assert reach_owed(handler)
        script.extend([6, 1])  # the lost check and the heading die
        handler.execute(CAMPAIGN, t.DeclareRoute(headings=("SE",)))
        with pytest.raises(RuleRefusedError, match="PassCastles"):  # the command each door names in its words
            handler.execute(CAMPAIGN, t.CheckWandering())


ENDINGS: dict[str, c.Command] = {"lord": k.DemandToll(), "superhero": k.Joust(fighter="Ann")}


def settle(handler: Handler) -> int:
    """Make every ride-out check owed and play every garrison that rides out; the number of meetings."""
    meetings = 0
    while True:
        state = _castle(handler)
        if state.coming:
            met = next(e for e in handler.execute(CAMPAIGN, MEET).events if isinstance(e, ev.GarrisonMet))
            meetings += 1
            ending = ENDINGS.get(met.castle_type, k.FleeGarrison())
            handler.execute(CAMPAIGN, ending)
            if isinstance(ending, k.DemandToll):
                handler.execute(CAMPAIGN, k.PayToll())
            chase(handler)
        elif reach_owed(handler):
            handler.execute(CAMPAIGN, k.PassCastles())
        else:
            return meetings


def _pursuit(handler: Handler) -> Any:
    return handler.load(CAMPAIGN).procedures.get("pursuit")


def chase(handler: Handler) -> None:
    """Play a pursuit the castle handed off to its end, as a referee would: the step the rolls call for,
    an encounter of a caught party (or one its rest met) to its end, a hex the flight leaves the map for drawn
    (clear)."""
    while _castle(handler).phase in {Phase.PURSUED, Phase.RESTING}:
        state = _pursuit(handler)
        phase = state.phase
        if enc.ENCOUNTER.is_open(handler.load(CAMPAIGN).procedures.get("encounter")):
            conclude_any_encounter(handler)
            continue
        command: c.Command = {
            PursuitPhase.EVASION: pu.RollEvasion(),
            PursuitPhase.EVASION_ROLLED: pu.Rest() if state.evaded else pu.Flee(),
            PursuitPhase.FLED: pu.Catch() if state.pursuers_faster else pu.Rest(),
            PursuitPhase.CATCH_ROLLED: pu.ContinueCheck(),
            PursuitPhase.CONTINUE_ROLLED: pu.Rest()
            if state.continued is not None and not state.continued.continues
            else pu.Flee(),
        }[phase]
        try:
            handler.execute(CAMPAIGN, command)
        except RuleRefusedError as refused:
            drawn = re.search(r"into (\d+,\d+), which is not on the map", str(refused))
            if drawn is None:
                raise
            handler.execute(CAMPAIGN, SetHex(hex=drawn.group(1), terrain="clear"))


def conclude_any_encounter(handler: Handler) -> None:
    """Play a wandering encounter the day's check handed off to its end."""
    if not enc.ENCOUNTER.is_open(handler.load(CAMPAIGN).procedures.get("encounter")):
        return
    handler.execute(CAMPAIGN, enc.CheckSurprise())
    handler.execute(CAMPAIGN, enc.DetermineDistance(value=60))
    if enc.ENCOUNTER.phase_of(handler.load(CAMPAIGN).procedures["encounter"]) is enc.Phase.FREE_ACTION:
        handler.execute(CAMPAIGN, enc.TakeFreeAction(action="move"))
    if enc.ENCOUNTER.phase_of(handler.load(CAMPAIGN).procedures["encounter"]) is enc.Phase.INITIATIVE:
        handler.execute(CAMPAIGN, enc.RollInitiative())
    handler.execute(CAMPAIGN, enc.ConcludeEncounter(outcome="avoided"))


class TestOnAJourney:
    def test_a_castle_met_on_a_journey_on_committed_dice_replays_and_audits_clean(self) -> None:
        """Real dice: castles along the road, each day's checks, every meeting played; replay and audit are clean."""
        handler = Handler(MemoryStore(), MemoryKeeper())
        for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex="5a" * 32)):
            handler.execute(CAMPAIGN, command)
        for member in MEMBERS:
            handler.execute(CAMPAIGN, c.AddMember(name=member))
        for col in range(8):
            handler.execute(CAMPAIGN, SetHex(hex=f"{col},0", terrain="meadow", road=True))
            handler.execute(CAMPAIGN, SetHex(hex=f"{col},1", terrain="hills"))
            handler.execute(CAMPAIGN, k.PlaceCastle(hex=f"{col},1"))
        handler.execute(CAMPAIGN, t.StartJourney(hex="0,0"))
        meetings = 0
        for day in range(12):
            west = day % 2
            handler.execute(CAMPAIGN, t.RollWeather(weather="clear"))
            route = ("NW", "SW") * 4 if west else ("SE", "NE") * 4
            meetings += settle(handler)
            handler.execute(CAMPAIGN, t.DeclareRoute(headings=route))
            while True:
                try:
                    handler.execute(CAMPAIGN, t.Move(hexes=1))
                except RuleRefusedError:
                    break
                meetings += settle(handler)
            handler.execute(CAMPAIGN, t.CheckWandering())
            conclude_any_encounter(handler)
            handler.execute(CAMPAIGN, t.EndDay())
        handler.execute(CAMPAIGN, c.CloseSession())
        assert meetings > 0
        recorded = [decode(record.envelope) for record in handler.store.read_stream(STREAM)]
        ends = [e.outcome for e in recorded if isinstance(e, ev.MeetingEnded) and e.reason.startswith("pursuit")]
        assert ends, "no garrison pursued the party on these dice"
        report = replayed_and_audited(handler)
        assert report.rolls_verified == report.rolls
        assert report.decisions >= 12 + meetings


def replayed_and_audited(handler: Handler) -> AuditReport:
    """The campaign's audit, once its replay matches the stored state and the audit finds nothing wrong."""
    assert replay(handler.store, CAMPAIGN, REGISTRY).ok
    report = audit_store(handler.store, CAMPAIGN, REGISTRY)
    assert report.findings == (), report.text()
    return report


def events_of(handler: Handler, *commands: c.Command) -> list[Any]:
    found: list[Any] = []
    for command in commands:
        found += handler.execute(CAMPAIGN, command).events
    return found


class TestThePursuit:
    def test_forces_that_pursue_hand_off_to_the_pursuit_and_the_meeting_ends_escaped(self) -> None:
        """Pursued (hostile, 2 on 1-3): the riders pursue as a hostile castle force; the castle ends escaped."""
        handler, script = reach("met", (2,))
        out = handler.execute(CAMPAIGN, k.FleeGarrison())
        started = next(e for e in out.events if isinstance(e, pev.PursuitStarted))
        assert (started.pursuers_kind, started.disposition, started.pursuers, started.pursuers_speed) == (
            pev.Pursuers.CASTLE,
            pev.Disposition.HOSTILE,
            8,
            120,
        )
        assert (started.terrain, started.evasion_failed) == ("woods", False)  # hills read the woods row
        assert not any(isinstance(e, ev.MeetingEnded) for e in out.events)
        assert _castle(handler).phase is Phase.PURSUED
        with pytest.raises(IllegalTransitionError, match="'part' is not allowed in state PURSUED"):
            handler.execute(CAMPAIGN, k.PartWays())
        done = events_of(handler, pu.RollEvasion(), pu.Rest())
        ended = next(e for e in done if isinstance(e, ev.MeetingEnded))
        assert (ended.outcome, ended.reason.startswith("pursuit 1: ")) == ("escaped", True)
        assert PhaseChanged(procedure="castle", trigger="fight_over", source="PURSUED", dest="DONE") in done
        assert script == []

    @pytest.mark.parametrize(
        ("place", "continues"),
        [(LORD, True), (k.PlaceCastle(hex="2,2", castle_type="lord", disposition="neutral"), False)],
    )
    def test_the_castles_disposition_decides_the_continue_check(self, place: c.Command, continues: bool) -> None:  # noqa: FBT001 - a column
        """Missed by the catch (3 on a d4 in the woods row), a hostile force keeps on at 2 (1-3), a neutral one
        gives up (1 only)."""
        script: list[int] = []
        handler = campaign(script)
        handler.execute(CAMPAIGN, place)
        # pursued on 1; the evasion fails (100); the party flees N (1); the catch misses (3); the check shows 2
        script.extend([1, 100, 1, 3, 2])
        out = events_of(handler, HAIL, FAST, k.FleeGarrison(), pu.RollEvasion(), pu.Flee(), pu.Catch())
        checked = events_of(handler, pu.ContinueCheck())
        found = next(e for e in checked if isinstance(e, pev.ContinueChecked))
        assert (found.total, found.continues) == (2, continues)
        assert any(isinstance(e, pev.PursuitFled) for e in out)
        assert script == []
        if not continues:
            script.append(6)  # the half day of rest after one hex fled: its wilderness encounter roll
            ended = next(e for e in events_of(handler, pu.Rest()) if isinstance(e, ev.MeetingEnded))
            assert ended.outcome == "escaped"
            return
        assert _castle(handler).phase is Phase.PURSUED

    def test_an_encounter_met_in_the_rest_after_the_escape_is_handed_off_and_the_castle_waits_for_it(self) -> None:
        """The force gives up and the half day of rest rolls a 6 (an encounter on the woods row): the meeting ends
        escaped and the castle hands that encounter to the encounter procedure, as a travel day or a camp does,
        waiting in RESTING (the travel day with it); when the encounter concludes the castle is done."""
        handler, script = reach("escaping", (6,))
        rested = events_of(handler, pu.Rest())
        assert next(e for e in rested if isinstance(e, pev.PursuitRested)).encounters == 1
        ended = [e for e in rested if isinstance(e, ev.MeetingEnded)]
        assert [(e.number, e.outcome) for e in ended] == [(1, "escaped")]
        assert PhaseChanged(procedure="castle", trigger="fight_over", source="PURSUED", dest="RESTING") in rested
        kinds = [type(e) for e in rested]
        assert kinds.index(ev.MeetingEnded) < kinds.index(HandedOff) < kinds.index(EncounterStarted)
        assert HandedOff(parent="castle", child="encounter") in rested
        started = next(e for e in rested if isinstance(e, EncounterStarted))
        assert started.name == "pursuit 1: wandering monsters while resting"
        assert (started.party_aware, started.monsters_aware) == (False, False)
        assert _castle(handler).phase is Phase.RESTING
        assert handler.load(CAMPAIGN).handoffs == (("castle", "encounter"),)
        before = version(handler)
        with pytest.raises(IllegalTransitionError, match="'hail' is not allowed in state RESTING"):
            handler.execute(CAMPAIGN, HAIL)
        with pytest.raises(RuleRefusedError, match="while it rested after the pursuit; conclude that encounter"):
            handler.execute(CAMPAIGN, t.StartJourney(hex="0,0"))
        assert version(handler) == before
        script.extend([6, 6, 3, 2])  # nobody surprised; the initiative
        done = events_of(
            handler, enc.CheckSurprise(), enc.DetermineDistance(value=60), enc.RollInitiative(), enc.ConcludeEncounter()
        )
        assert PhaseChanged(procedure="castle", trigger="fight_over", source="RESTING", dest="DONE") in done
        assert not [e for e in done if isinstance(e, ev.MeetingEnded)]  # the meeting ended with the pursuit
        assert _castle(handler).phase is Phase.DONE
        assert handler.load(CAMPAIGN).handoffs == ()
        assert script == []
        replayed_and_audited(handler)
        seen = render.timeline(handler.store.read_stream(STREAM), player=True)
        assert not [line for line in seen if line.hidden]  # no secret roll here: the player sees it all
        assert "castle hands off to encounter" in [line.text for line in seen]

    def test_each_encounter_the_rest_met_is_handed_off_in_turn(self) -> None:
        """The forces go on after one hex and give up after the second: a day of rest, two encounter rolls, both
        met. The castle hands off the first and waits in RESTING; when it concludes it hands off the second, and
        is done when that one concludes; replayed and audited clean."""
        handler, script = reach("escaping_two", (6, 6))  # both half days of rest meet an encounter
        rested = events_of(handler, pu.Rest())
        assert next(e for e in rested if isinstance(e, pev.PursuitRested)).encounters == 2
        assert [e.name for e in rested if isinstance(e, EncounterStarted)] == [
            "pursuit 1: wandering monsters while resting"
        ]
        assert handler.load(CAMPAIGN).procedures["pursuit"].resting_met == 1
        meeting = (enc.CheckSurprise(), enc.DetermineDistance(value=60), enc.RollInitiative(), enc.ConcludeEncounter())
        script.extend([6, 6, 3, 2])  # nobody surprised; the initiative
        first = events_of(handler, *meeting)
        assert PhaseChanged(procedure="castle", trigger="fight_over", source="RESTING", dest="RESTING") in first
        assert [e.number for e in first if isinstance(e, EncounterStarted)] == [2]
        assert HandedOff(parent="castle", child="encounter") in first
        assert _castle(handler).phase is Phase.RESTING
        assert handler.load(CAMPAIGN).handoffs == (("castle", "encounter"),)
        script.extend([6, 6, 3, 2])
        second = events_of(handler, *meeting)
        assert PhaseChanged(procedure="castle", trigger="fight_over", source="RESTING", dest="DONE") in second
        assert not [e for e in second if isinstance(e, EncounterStarted)]
        assert _castle(handler).phase is Phase.DONE
        assert handler.load(CAMPAIGN).handoffs == ()
        assert handler.load(CAMPAIGN).procedures["pursuit"].resting_met == 2
        assert script == []
        replayed_and_audited(handler)

    def test_an_encounter_the_rest_met_that_ends_in_pursuit_hands_that_pursuit_off(self) -> None:
        """A day of rest met two encounters; the party flees the first and its evasion fails (100): the castle hands
        off the pursuit with that encounter's facts, as a travel day or a camp does, and waits in PURSUED. The
        meeting ended with the garrison's pursuit and is not ended again; the rest that pursuit cut short meets
        nothing more (its second encounter is not handed off); when the new pursuit ends escaped, with nothing met
        in its own rest, the castle is done; replayed and audited clean."""
        handler, script = reach("resting_met_two")
        events_of(handler, enc.Evade())
        script.append(100)  # 100 against 50 %: the monster pursues
        fled = events_of(handler, enc.RollEvasion())
        assert PhaseChanged(procedure="castle", trigger="fight_over", source="RESTING", dest="PURSUED") in fled
        assert HandedOff(parent="castle", child="pursuit") in fled
        started = next(e for e in fled if isinstance(e, pev.PursuitStarted))
        encounter = next(e for e in fled if isinstance(e, EncounterConcluded))
        assert (started.number, started.encounter, started.evasion_failed) == (2, encounter.number, True)
        assert (started.party_size, started.pursuers, started.pursuers_speed) == (2, 1, 120)
        assert started.name == "after encounter 1 (pursuit 1: wandering monsters while resting)"
        assert started.disposition is pev.Disposition.NONE  # the monsters pursue, not the castle's forces
        assert not [e for e in fled if isinstance(e, (ev.MeetingEnded, EncounterStarted))]
        assert _castle(handler).phase is Phase.PURSUED
        assert handler.load(CAMPAIGN).handoffs == (("castle", "pursuit"),)
        script.extend([1, 1])  # the party flees N; the half day of rest after it meets nothing
        done = events_of(handler, pu.Flee(), pu.Rest())
        assert PhaseChanged(procedure="castle", trigger="fight_over", source="PURSUED", dest="DONE") in done
        assert not [e for e in done if isinstance(e, (ev.MeetingEnded, EncounterStarted))]
        ended = [e for e in handler.store.read_stream(STREAM) if e.envelope.type == ev.MeetingEnded.cloud_type()]
        assert len(ended) == 1  # the meeting ended once, with the garrison's pursuit
        assert _castle(handler).phase is Phase.DONE
        assert handler.load(CAMPAIGN).handoffs == ()
        assert script == []
        replayed_and_audited(handler)

    def test_the_rest_after_a_pursuit_an_encounter_of_the_rest_began_hands_off_what_it_meets(self) -> None:
        """The pursuit of an encounter the rest met ends escaped too, and its own rest meets an encounter: the castle
        hands that one off, waits in RESTING, and is done when it concludes."""
        handler, script = reach("resting_met_fleeing", (100,))
        events_of(handler, enc.RollEvasion())
        script.extend([1, 6])  # the party flees N; the half day of rest after it meets an encounter
        rested = events_of(handler, pu.Flee(), pu.Rest())
        assert PhaseChanged(procedure="castle", trigger="fight_over", source="PURSUED", dest="RESTING") in rested
        assert [e.name for e in rested if isinstance(e, EncounterStarted)] == [
            "pursuit 2: wandering monsters while resting"
        ]
        assert not [e for e in rested if isinstance(e, ev.MeetingEnded)]
        assert _castle(handler).phase is Phase.RESTING
        script.extend([6, 6, 3, 2])  # nobody surprised; the initiative
        done = events_of(
            handler, enc.CheckSurprise(), enc.DetermineDistance(value=60), enc.RollInitiative(), enc.ConcludeEncounter()
        )
        assert PhaseChanged(procedure="castle", trigger="fight_over", source="RESTING", dest="DONE") in done
        assert _castle(handler).phase is Phase.DONE
        assert handler.load(CAMPAIGN).handoffs == ()
        assert script == []
        replayed_and_audited(handler)

    def test_an_encounter_met_while_resting_on_committed_dice_audits_verified(self) -> None:
        """Real dice: a hostile lord's fast riders in a swamp met and fled until a rest after an escape meets an
        encounter; it is handed off and played; replay is clean and the audit verifies every roll."""
        handler = Handler(MemoryStore(), MemoryKeeper())
        for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex="77" * 32)):
            handler.execute(CAMPAIGN, command)
        for member in MEMBERS:
            handler.execute(CAMPAIGN, c.AddMember(name=member))
        handler.execute(CAMPAIGN, SetHex(hex="2,2", terrain="swamp"))
        handler.execute(CAMPAIGN, LORD)
        resting = 0
        for _ in range(20):
            out = events_of(handler, HAIL, FAST, k.FleeGarrison())
            while _castle(handler).phase in {Phase.PURSUED, Phase.RESTING}:
                before = version(handler)
                chase(handler)
                out += [decode(r.envelope) for r in handler.store.read_stream(STREAM, before + 1)]
            resting += PhaseChanged(procedure="castle", trigger="fight_over", source="PURSUED", dest="RESTING") in out
            if resting:
                break
        assert resting == 1
        assert _castle(handler).phase is Phase.DONE
        handler.execute(CAMPAIGN, c.CloseSession())
        report = replayed_and_audited(handler)
        assert report.rolls_verified == report.rolls

    def test_a_caught_party_fights_and_the_meeting_ends_caught(self) -> None:
        """Caught (1 on a d4 in the woods row): the pursuit hands the fight to the encounter; when it ends, the
        pursuit ends caught and the castle resumes and ends caught, in the same append."""
        script: list[int] = []
        handler = campaign(script)
        handler.execute(CAMPAIGN, LORD)
        script.extend([1, 100, 1, 1])
        out = events_of(handler, HAIL, FAST, k.FleeGarrison(), pu.RollEvasion(), pu.Flee(), pu.Catch())
        assert next(e for e in out if isinstance(e, pev.CatchRolled)).caught
        meeting = handler.load(CAMPAIGN).procedures["encounter"]
        assert (meeting.started.monster_count, meeting.started.monster_speed) == (8, 240)
        script.extend([6, 2])
        last = events_of(
            handler, enc.CheckSurprise(), enc.DetermineDistance(value=60), enc.RollInitiative(), enc.ConcludeEncounter()
        )
        assert next(e for e in last if isinstance(e, pev.PursuitEnded)).outcome == "caught"
        ended = next(e for e in last if isinstance(e, ev.MeetingEnded))
        assert ended.outcome == "caught"
        assert _castle(handler).phase is Phase.DONE
        assert script == []

    def test_a_pursuit_from_a_castle_on_committed_dice_replays_and_audits_clean(self) -> None:
        """Real dice: a hostile lord's fast riders met and fled ten times, each pursuit played to its end."""
        handler = Handler(MemoryStore(), MemoryKeeper())
        for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex="c3" * 32)):
            handler.execute(CAMPAIGN, command)
        for member in MEMBERS:
            handler.execute(CAMPAIGN, c.AddMember(name=member))
        handler.execute(CAMPAIGN, SetHex(hex="2,2", terrain="hills"))
        handler.execute(CAMPAIGN, LORD)
        for _ in range(10):
            events_of(handler, HAIL, FAST, k.FleeGarrison())
            chase(handler)
            assert _castle(handler).phase is Phase.DONE
        handler.execute(CAMPAIGN, c.CloseSession())
        recorded = [decode(record.envelope) for record in handler.store.read_stream(STREAM)]
        outcomes = {e.outcome for e in recorded if isinstance(e, ev.MeetingEnded)}
        assert sum(isinstance(e, pev.PursuitStarted) for e in recorded) > 0
        assert outcomes <= {"escaped", "caught"}
        report = replayed_and_audited(handler)
        assert report.rolls_verified == report.rolls


MAP = """
[hex."0,0"]
terrain = "meadow"
[hex."2,2"]
terrain = "hills"
castle = { type = "wizard", disposition = "neutral", name = "Blackspire" }
[hex."3,3"]
terrain = "hills"
castle = {}
"""


class TestTheMapFile:
    def test_a_map_file_places_its_castles(self, tmp_path: Any) -> None:
        """``castle = {...}`` on a hex places a castle; what it leaves out is rolled when met; a reload keeps it."""
        path = tmp_path / "valley.toml"
        path.write_text(MAP, encoding="utf-8")
        handler = campaign([])
        out = handler.execute(CAMPAIGN, LoadMap(file=str(path)))
        placed = [e for e in out.events if isinstance(e, ev.CastlePlaced)]
        assert placed == [
            ev.CastlePlaced(hex="2,2", castle_type="wizard", disposition="neutral", name="Blackspire"),
            ev.CastlePlaced(hex="3,3"),
        ]
        handler.execute(CAMPAIGN, HAIL)  # no faces are scripted: the meeting rolls nothing
        met = next(e for e in handler.execute(CAMPAIGN, MEET).events if isinstance(e, ev.GarrisonMet))
        assert (met.castle_type, met.disposition, met.rolls) == ("wizard", "neutral", ())
        again = handler.execute(CAMPAIGN, LoadMap(file=str(path)))
        assert [e for e in again.events if isinstance(e, ev.CastlePlaced)] == []
        assert _castle(handler).castle("2,2").disposition == "neutral"

    @pytest.mark.parametrize(
        ("castle", "needle"),
        [
            ('{ type = "baron" }', "castle type 'baron' is not one of"),
            ('{ type = "patriarch", disposition = "hostile" }', "always friendly"),
            ('{ colour = "red" }', "unknown castle key colour"),
            ("true", "castle must be a table"),
        ],
        ids=["type", "always", "key", "table"],
    )
    def test_a_castle_the_rules_refuse_refuses_the_map_and_writes_nothing(
        self, tmp_path: Any, castle: str, needle: str
    ) -> None:
        """The map is recorded whole or not at all."""
        path = tmp_path / "bad.toml"
        path.write_text(f'[hex."2,2"]\nterrain = "hills"\ncastle = {castle}\n', encoding="utf-8")
        handler = campaign([])
        before = version(handler)
        with pytest.raises(HexlogError, match=needle):
            handler.execute(CAMPAIGN, LoadMap(file=str(path)))
        assert version(handler) == before

    def test_under_rules_without_castles_a_map_with_one_is_refused(self, tmp_path: Any) -> None:
        """ose has no castle table: the castle is named and nothing is written."""
        path = tmp_path / "ose.toml"
        path.write_text('[hex."2,2"]\nterrain = "mountains"\ncastle = {}\n', encoding="utf-8")
        handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller([]))
        handler.execute(CAMPAIGN, c.StartCampaign(ruleset="ose"))
        before = version(handler)
        with pytest.raises(HexlogError, match="no castle table"):
            handler.execute(CAMPAIGN, LoadMap(file=str(path)))
        assert version(handler) == before
