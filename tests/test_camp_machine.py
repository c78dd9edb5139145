"""The camp machine: every row of TRANSITIONS through the handler, every other trigger refused, nothing written."""

from __future__ import annotations

import re
from typing import Any

import attrs
import pytest

from hexlog.events import camp as ev
from hexlog.events import pursuit as pev
from hexlog.events import travel as tev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode
from hexlog.events.encounter import EncounterStarted
from hexlog.events.errors import CorruptLogError, IllegalTransitionError, RuleRefusedError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff, PhaseChanged
from hexlog.machine import camp, text
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import table as tables
from hexlog.machine.camp import Phase
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as pu
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_store
from hexlog.replay.export import import_envelopes
from hexlog.replay.rebuild import replay
from hexlog.service import render

from .test_session_release import today, today_writes

CAMPAIGN = "t"
STREAM = tables.stream_for(CAMPAIGN)
RUNNER = REGISTRY.runner("camp")
MEMBERS = ("Aldric", "Brom", "Cara", "Dain")
WATCHES = camp.SetWatches(watches=("1=Aldric", "2=Brom", "3=Cara", "4=Dain,Aldric"))
MAKE = camp.MakeCamp(terrain="woods")
#: the night's check in the woods: 5 is an encounter (on 5-6), the watch die then shows 3 (Cara's watch)
QUIET, ENCOUNTER = (1, 2), (5, 3)  # the watch die is rolled either way; only an encounter reads it
NO_CHECK = {"options": {"night_encounter_check": False}}
TWO_CHECKS = {"tables": {"camp": {"night_checks": 2}}}


@attrs.frozen
class Recipe:
    """A way to reach a phase: house rules, the commands and the faces they roll."""

    overrides: dict[str, Any]
    commands: tuple[c.Command, ...] = ()
    faces: tuple[int, ...] = ()


TO_NIGHT = (MAKE, WATCHES, camp.CheckNight())
RECIPES: dict[str, Recipe] = {
    "idle": Recipe({}),
    "pitched": Recipe({}, (MAKE,)),
    "fuelled": Recipe({}, (MAKE, camp.GatherFirewood(gatherers=("Aldric",))), (4,)),
    "watched": Recipe({}, (MAKE, WATCHES)),
    "watched_no_check": Recipe(NO_CHECK, (MAKE, WATCHES)),
    "watched_no_terrain": Recipe({}, (camp.MakeCamp(), WATCHES)),
    "night": Recipe({}, TO_NIGHT, QUIET),
    "night_two_checks": Recipe(TWO_CHECKS, TO_NIGHT, QUIET),
    "night_encounter": Recipe({}, TO_NIGHT, ENCOUNTER),
    "encounter": Recipe({}, (*TO_NIGHT, camp.MeetEncounter()), ENCOUNTER),
    "encounter_actions": Recipe(
        {},
        (*TO_NIGHT, camp.MeetEncounter(), enc.CheckSurprise(), enc.DetermineDistance(value=30), enc.RollInitiative()),
        (*ENCOUNTER, 6, 6, 4, 2),
    ),
    "broken": Recipe({}, (*TO_NIGHT, camp.BreakCamp()), QUIET),
}
#: the party of four flees the one monster it met: the encounter's evasion roll (50 %) is due
FLEEING = (*TO_NIGHT, camp.MeetEncounter(), enc.CheckSurprise(), enc.DetermineDistance(value=30), enc.RollInitiative())
RECIPES["encounter_fled"] = Recipe({}, (*FLEEING, enc.Evade()), (*ENCOUNTER, 6, 6, 4, 2))
#: the evasion failed (100): the encounter ends in pursuit and the camp hands the pursuit off
RECIPES["pursuit"] = Recipe({}, (*FLEEING, enc.Evade(), enc.RollEvasion()), (*ENCOUNTER, 6, 6, 4, 2, 100))
#: the party fled a hex (4: south); the pursuers are not faster, so it rests next
RECIPES["pursuit_fled"] = Recipe(
    {}, (*FLEEING, enc.Evade(), enc.RollEvasion(), pu.Flee()), (*ENCOUNTER, 6, 6, 4, 2, 100, 4)
)

#: faster monsters (240): the party flees a hex (4), is not caught (3), fails its evasion again (100), flees a
#: second hex and gets away (4, 3, 1): a day of rest is due next, two half days, each with its encounter roll
FLEEING_FAST = (
    *TO_NIGHT,
    camp.MeetEncounter(monster_speed=240),
    enc.CheckSurprise(),
    enc.DetermineDistance(value=30),
    enc.RollInitiative(),
)
PURSUED_TWO_HEXES = (enc.Evade(), enc.RollEvasion(), pu.Flee(), pu.Catch(), pu.RollEvasion())
RECIPES["pursuit_fled_two"] = Recipe(
    {},
    (*FLEEING_FAST, *PURSUED_TWO_HEXES, pu.Flee(), pu.Catch(), pu.RollEvasion()),
    (*ENCOUNTER, 6, 6, 4, 2, 100, 4, 3, 100, 4, 3, 1),
)
#: both half days met an encounter (6, 6); the first is under way, nobody surprised (6, 6), the initiative (3, 2)
RECIPES["resting_met_two"] = Recipe(
    {},
    (
        *RECIPES["pursuit_fled_two"].commands,
        pu.Rest(),
        enc.CheckSurprise(),
        enc.DetermineDistance(value=30),
        enc.RollInitiative(),
    ),
    (*RECIPES["pursuit_fled_two"].faces, 6, 6, 6, 6, 3, 2),
)

#: (trigger, source, dest) -> (recipe, command, faces the command rolls)
CASES: dict[tuple[str, str, str], tuple[str, c.Command, tuple[int, ...]]] = {
    ("make", "IDLE", "PITCHED"): ("idle", MAKE, ()),
    ("make", "BROKEN", "PITCHED"): ("broken", MAKE, ()),
    ("firewood", "PITCHED", "FUELLED"): ("pitched", camp.GatherFirewood(gatherers=("Brom", "Cara")), (3, 5)),
    ("watches", "PITCHED", "WATCHED"): ("pitched", WATCHES, ()),
    ("watches", "FUELLED", "WATCHED"): ("fuelled", WATCHES, ()),
    ("check", "WATCHED", "NIGHT"): ("watched", camp.CheckNight(), QUIET),
    ("check", "NIGHT", "NIGHT"): ("night_two_checks", camp.CheckNight(), QUIET),
    ("meet", "NIGHT", "ENCOUNTER"): ("night_encounter", camp.MeetEncounter(monster_count=2), ()),
    ("encounter_over", "ENCOUNTER", "PURSUIT"): ("encounter_fled", enc.RollEvasion(), (100,)),
    ("encounter_over", "ENCOUNTER", "NIGHT"): ("encounter_actions", enc.ConcludeEncounter(), ()),
    # the rest after one hex fled: half a day, its wilderness encounter roll (1: none in the woods)
    ("encounter_over", "PURSUIT", "NIGHT"): ("pursuit_fled", pu.Rest(), (1,)),
    # the same rest, whose roll (6) meets wandering monsters: that encounter is handed off
    ("encounter_over", "PURSUIT", "ENCOUNTER"): ("pursuit_fled", pu.Rest(), (6,)),
    # the rest met two encounters: when the first concludes, the second is handed off
    ("encounter_over", "ENCOUNTER", "ENCOUNTER"): ("resting_met_two", enc.ConcludeEncounter(), ()),
    ("break", "WATCHED", "BROKEN"): ("watched_no_check", camp.BreakCamp(), ()),
    ("break", "NIGHT", "BROKEN"): ("night", camp.BreakCamp(), ()),
}

PHASE_RECIPES = {
    Phase.IDLE: "idle",
    Phase.PITCHED: "pitched",
    Phase.FUELLED: "fuelled",
    Phase.WATCHED: "watched",
    Phase.NIGHT: "night",
    Phase.ENCOUNTER: "encounter",
    Phase.PURSUIT: "pursuit",
    Phase.BROKEN: "broken",
}

#: a command for every trigger a referee gives
COMMAND_FOR: dict[str, c.Command] = {
    "make": MAKE,
    "firewood": camp.GatherFirewood(gatherers=("Aldric",)),
    "watches": WATCHES,
    "check": camp.CheckNight(),
    "meet": camp.MeetEncounter(),
    "break": camp.BreakCamp(),
}


def _rows() -> list[tuple[str, str, str]]:
    """Every (trigger, source, dest) the table allows, one per source of a row."""
    return camp.CAMP.edges()


def reach(name: str, extra_faces: tuple[int, ...] = ()) -> tuple[Handler, list[int]]:
    """A handler whose campaign (explore, four members) has run the recipe; the script then holds ``extra_faces``."""
    recipe = RECIPES[name]
    script = [*recipe.faces]
    handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
    handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore", overrides=recipe.overrides))
    handler.execute(CAMPAIGN, c.OpenSession(secret_hex="ab" * 32))
    for member in MEMBERS:
        handler.execute(CAMPAIGN, c.AddMember(name=member))
    for command in recipe.commands:
        handler.execute(CAMPAIGN, command)
    assert script == [], f"recipe {name} left faces {script}"
    script.extend(extra_faces)
    return handler, script


def _camp(handler: Handler) -> Any:
    return handler.load(CAMPAIGN).procedures.get("camp")


def version(handler: Handler) -> int:
    return handler.store.stream_version(STREAM)


ROW_IDS = [f"{t}:{s}->{d}" for t, s, d in _rows()]


class TestTransitions:
    @pytest.mark.parametrize(("trigger", "source", "dest"), _rows(), ids=ROW_IDS)
    def test_every_row_is_taken_through_the_handler(self, trigger: str, source: str, dest: str) -> None:
        """Each row of TRANSITIONS is reachable, uses exactly its faces and records its PhaseChanged."""
        recipe, command, faces = CASES[(trigger, source, dest)]
        handler, script = reach(recipe, faces)
        assert camp.CAMP.phase_of(_camp(handler)).name == source
        out = handler.execute(CAMPAIGN, command)
        change = PhaseChanged(procedure="camp", trigger=trigger, source=source, dest=dest)
        assert change in out.events
        assert script == []
        assert out.table.procedures["camp"].phase.name == dest

    @pytest.mark.parametrize(("trigger", "source", "dest"), _rows(), ids=ROW_IDS)
    def test_replay_folds_to_the_live_state(self, trigger: str, source: str, dest: str) -> None:
        """Folding the stored events gives the camp state the command returned, and the stored table agrees."""
        recipe, command, faces = CASES[(trigger, source, dest)]
        handler, _ = reach(recipe, faces)
        live = handler.execute(CAMPAIGN, command).table.procedures["camp"]
        replayed = None
        for record in handler.store.read_stream(STREAM):
            replayed = camp.CAMP.fold(replayed, decode(record.envelope))  # type: ignore[misc]
        assert replayed == live
        assert handler.load(CAMPAIGN).procedures["camp"] == live

    def test_every_row_has_a_case(self) -> None:
        """The cases above cover the table exactly."""
        assert set(CASES) == set(_rows())

    def test_every_trigger_but_the_resume_has_a_command(self) -> None:
        """The commands' triggers are the table's triggers, except the one the kit fires on a resume."""
        assert set(camp.TRIGGERS.values()) == {row["trigger"] for row in camp.TRANSITIONS} - {"encounter_over"}
        assert camp.CAMP.resume is not None
        assert camp.CAMP.resume.trigger == "encounter_over"

    def test_recorded_transitions_are_checked_against_the_table(self) -> None:
        """Audit accepts each row and rejects a pair that is not in the table."""
        assert all(RUNNER.recorded_ok(*row) for row in _rows())
        assert not RUNNER.recorded_ok("break", "PITCHED", "BROKEN")
        assert not RUNNER.recorded_ok("check", "FUELLED", "NIGHT")

    def test_a_night_with_an_encounter_on_committed_dice_replays_and_audits_clean(self) -> None:
        """Real dice (the check until it finds an encounter), every decision re-derived, the rebuild equal."""
        handler = _campaign_of("5a")
        met = _nights(handler, 12, firewood=True)
        handler.execute(CAMPAIGN, c.CloseSession())
        assert met > 0
        assert replay(handler.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(handler.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
        assert report.rolls_verified == report.rolls
        assert report.decisions >= 24 + met


def _campaign_of(secret: str) -> Handler:
    """An exploration campaign with the four members, a session open on the committed dice of ``secret`` * 32."""
    handler = Handler(MemoryStore(), MemoryKeeper())
    for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex=secret * 32)):
        handler.execute(CAMPAIGN, command)
    for member in MEMBERS:
        handler.execute(CAMPAIGN, c.AddMember(name=member))
    return handler


def _to_the_fight(handler: Handler) -> None:
    """The night's encounter from its surprise to the first round: surprise, a distance of 30, a free action where
    the surprise gives one, initiative where it is owed."""
    handler.execute(CAMPAIGN, enc.CheckSurprise())
    handler.execute(CAMPAIGN, enc.DetermineDistance(value=30))
    if enc.ENCOUNTER.phase_of(handler.load(CAMPAIGN).procedures["encounter"]) is enc.Phase.FREE_ACTION:
        handler.execute(CAMPAIGN, enc.TakeFreeAction(action="move"))
    if enc.ENCOUNTER.phase_of(handler.load(CAMPAIGN).procedures["encounter"]) is enc.Phase.INITIATIVE:
        handler.execute(CAMPAIGN, enc.RollInitiative())


def _nights(handler: Handler, count: int, *, firewood: bool = False) -> int:
    """``count`` nights in a swamp camp in the rain on the session's committed dice (firewood gathered, or not), each
    encounter met and concluded; how many checks found one."""
    met = 0
    for _ in range(count):
        handler.execute(CAMPAIGN, camp.MakeCamp(weather="rain", terrain="swamp"))
        if firewood:
            handler.execute(CAMPAIGN, camp.GatherFirewood(gatherers=("Aldric", "Brom")))
        handler.execute(CAMPAIGN, WATCHES)
        handler.execute(CAMPAIGN, camp.CheckNight())
        if _camp(handler).pending is not None:
            met += 1
            handler.execute(CAMPAIGN, camp.MeetEncounter(monster_count=2))
            _to_the_fight(handler)
            handler.execute(CAMPAIGN, enc.ConcludeEncounter())
        handler.execute(CAMPAIGN, camp.BreakCamp())
    return met


class TestTheWatchDie:
    def campaign(self) -> Handler:
        return _campaign_of("3c")

    def test_every_check_rolls_the_watch_die_so_its_hidden_rolls_say_nothing(self) -> None:
        """Quiet nights and nights with an encounter show a player the same two hidden rolls."""
        handler = self.campaign()
        met = _nights(handler, 10)
        events = [decode(r.envelope) for r in handler.store.read_stream(tables.stream_for(CAMPAIGN))]
        checks = [e for e in events if isinstance(e, ev.NightChecked)]
        assert 0 < met < len(checks) == 10
        assert all(len(e.referee_rolls) == 2 for e in checks)
        version = handler.store.stream_version(tables.stream_for(CAMPAIGN))
        with pytest.raises(RuleRefusedError, match="is the audit's"):
            handler.execute(CAMPAIGN, camp.CheckNightWatchOnEncounter())
        assert handler.store.stream_version(tables.stream_for(CAMPAIGN)) == version
        handler.execute(CAMPAIGN, c.CloseSession())
        assert audit_store(handler.store, CAMPAIGN, REGISTRY).findings == ()

    def test_a_check_an_older_release_recorded_is_re_run_as_it_ran(
        self, monkeypatch: pytest.MonkeyPatch, unraised
    ) -> None:
        """Checks recorded as version 1 (the watch die rolled on an encounter alone) audit clean: the audit re-runs
        them with the command that rolls as that release did, and would find a roll missing with today's."""
        unraised("camp.night_checked")
        handler = self.campaign()
        with monkeypatch.context() as old:
            old.setattr(ev.NightChecked, "schema_version", 1)
            old.setitem(camp.CAMP.steps, camp.CheckNight, camp.steps.check_watch_on_encounter)
            met = _nights(handler, 10)
        handler.execute(CAMPAIGN, c.CloseSession())
        records = handler.store.read_stream(tables.stream_for(CAMPAIGN))
        checks = [r for r in records if r.envelope.type.endswith("camp.night_checked")]
        assert {r.envelope.schemaversion for r in checks} == {1}
        assert sorted(len(r.envelope.data["referee_rolls"]) for r in checks) == [1] * (10 - met) + [2] * met
        assert 0 < met < 10
        report = audit_store(handler.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()

    def test_a_check_relabelled_as_an_older_release_s_is_a_finding(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Checks written as version 1 in a log whose rules are today's ``explore`` and whose rolls are today's
        (``dice.rolled`` version 4): every build that shipped either writes night checks at version 2. The referee
        kept a quiet night's watch die off the secret lane, choosing which secret rolls came next. Each is a
        finding, named by the session, which names today's release (a later one than the rules show), and an export
        holding them is not imported."""
        handler = self.campaign()
        with monkeypatch.context() as old:
            old.setattr(ev.NightChecked, "schema_version", 1)
            old.setitem(camp.CAMP.steps, camp.CheckNight, camp.steps.check_watch_on_encounter)
            _nights(handler, 10)
        handler.execute(CAMPAIGN, c.CloseSession())
        records = handler.store.read_stream(tables.stream_for(CAMPAIGN))
        checks = [r.envelope.streamversion for r in records if r.envelope.type.endswith("camp.night_checked")]
        assert records[0].envelope.data["ruleset"] == "explore"
        assert records[1].envelope.type == "hexlog.session.opened"
        reason = (
            f"hexlog.camp.night_checked schema version 1 after {today(2)}: {today_writes()} "
            "hexlog.camp.night_checked at schema version 2 or later"
        )
        for campaign in (CAMPAIGN, None):
            report = audit_store(handler.store, campaign, REGISTRY)
            assert [(f.check, f.streamversion, f.reason) for f in report.findings] == [
                ("schema", at, reason) for at in checks
            ], report.text()
        envelopes = [r.envelope for r in records]
        with pytest.raises(CorruptLogError, match=re.escape(f"camp.night_checked schema version 1 after {today(2)}")):
            import_envelopes(MemoryStore(), envelopes)


def _refusals() -> list[tuple[Phase, str]]:
    return [(phase, t) for phase in Phase for t in sorted(COMMAND_FOR) if t not in RUNNER.triggers(phase)]


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
            ("night", camp.CheckNight(), "wandering check is rolled; break camp"),
            ("watched_no_check", camp.CheckNight(), "roll no wandering check at night"),
            ("night", camp.MeetEncounter(), "no wandering check of this night found an encounter"),
            ("watched", camp.BreakCamp(), "the night's wandering check is not rolled yet (0 of 1)"),
            ("night_encounter", camp.BreakCamp(), "an encounter comes in watch 3; meet it first"),
            ("night_encounter", camp.CheckNight(), "an encounter comes in watch 3; meet it first"),
        ],
        ids=["checked", "no-check", "nothing-to-meet", "check-owed", "encounter-pending", "check-pending"],
    )
    def test_a_condition_that_fails_is_refused_with_its_reason_and_writes_nothing(self, recipe, command, needle):
        """The machine's conditions say why, and the stream is unchanged."""
        handler, _ = reach(recipe)
        before = version(handler)
        with pytest.raises(RuleRefusedError, match=needle.replace("(", r"\(").replace(")", r"\)")):
            handler.execute(CAMPAIGN, command)
        assert version(handler) == before

    @pytest.mark.parametrize(
        ("recipe", "command", "needle"),
        [
            ("idle", camp.MakeCamp(terrain="woods", weather="drizzle"), "weather 'drizzle' is not one of"),
            ("watched_no_terrain", camp.CheckNight(), "camp 1 was made on no ground: name the ground the night's"),
            ("watched_no_terrain", camp.CheckNight(terrain="light"), "terrain 'light' is no ground the rules know"),
            ("idle", camp.MakeCamp(terrain="light"), "terrain 'light' is no ground the rules know: bog, boggy_forest"),
            ("pitched", camp.GatherFirewood(), "name who gathers firewood"),
            ("pitched", camp.GatherFirewood(gatherers=("Zed",)), "no member called Zed"),
            ("pitched", camp.GatherFirewood(gatherers=("Brom", "Brom")), "Brom named twice"),
            ("pitched", camp.SetWatches(watches=("1=Aldric", "2=Brom", "4=Dain")), "watch 3 has no guard"),
            ("pitched", camp.SetWatches(watches=("1=Aldric", "2=", "3=Cara", "4=Dain")), "watch 2 has no guard"),
            ("pitched", camp.SetWatches(watches=("1=Aldric",)), "watch 2, 3, 4 have no guard"),
            ("pitched", camp.SetWatches(watches=("Aldric",)), "a watch is written NUMBER=NAME,NAME"),
            ("pitched", camp.SetWatches(watches=("\uff11=Aldric",)), "a watch is written NUMBER=NAME,NAME"),
            ("pitched", camp.SetWatches(watches=("5=Aldric",)), "watch 5 is not a watch of the night"),
            ("pitched", camp.SetWatches(watches=("1=Aldric", "1=Brom")), "watch 1 is given twice"),
            ("pitched", camp.SetWatches(watches=("1=Aldric,Aldric",)), "watch 1 names Aldric twice"),
            ("pitched", camp.SetWatches(watches=("1=Zed",)), "watch 1: the party has no member called Zed"),
        ],
        ids=lambda v: v if isinstance(v, str) and " " not in v else None,
    )
    def test_a_bad_argument_is_refused_naming_it_and_writes_nothing(self, recipe, command, needle):
        """The step refuses before anything is recorded (the trigger's phase change included)."""
        handler, _ = reach(recipe)
        before = version(handler)
        with pytest.raises(UsageError, match=needle.replace("(", r"\(")):
            handler.execute(CAMPAIGN, command)
        assert version(handler) == before

    def test_rules_without_a_camp_table_have_no_camp(self) -> None:
        """ose has no tables.camp: making camp is refused naming it."""
        handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller([]))
        for command in (c.StartCampaign(ruleset="ose"), c.OpenSession(secret_hex="ab" * 32), c.AddMember(name="A")):
            handler.execute(CAMPAIGN, command)
        before = version(handler)
        with pytest.raises(RuleRefusedError, match=r"\(ose\) have no camp table"):
            handler.execute(CAMPAIGN, camp.MakeCamp())
        assert version(handler) == before

    def test_a_camp_needs_a_party(self) -> None:
        """Nobody to sleep in it: refused."""
        handler = Handler(MemoryStore(), MemoryKeeper())
        handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore"))
        with pytest.raises(RuleRefusedError, match="the party has no members"):
            handler.execute(CAMPAIGN, MAKE)
        assert version(handler) == 1

    def test_a_lone_guard_cannot_leave_the_party_while_the_watches_stand(self) -> None:
        """Cara alone guards watch 3: removing her is refused until the camp breaks (before the watches, she may go)."""
        handler, _ = reach("night")
        before = version(handler)
        with pytest.raises(RuleRefusedError, match="Cara alone guards watch 3 of camp 1; break camp first"):
            handler.execute(CAMPAIGN, c.RemoveMember(name="Cara"))
        assert version(handler) == before
        handler.execute(CAMPAIGN, camp.BreakCamp())
        handler.execute(CAMPAIGN, c.RemoveMember(name="Cara"))
        handler, _ = reach("pitched")
        handler.execute(CAMPAIGN, c.RemoveMember(name="Cara"))

    def test_the_steps_offered_follow_the_conditions(self) -> None:
        """After a quiet check the camp may break; after an encounter it must meet it; while waiting, nothing."""
        for recipe, offered in (("night", ["break"]), ("night_encounter", ["meet"]), ("encounter", [])):
            handler, _ = reach(recipe)
            table = handler.load(CAMPAIGN)
            assert [t for t, _ in RUNNER.allowed(table.procedures["camp"], table)] == offered, recipe
        handler, _ = reach("pitched")
        table = handler.load(CAMPAIGN)
        assert [t for t, _ in RUNNER.allowed(table.procedures["camp"], table)] == ["firewood", "watches"]


def test_every_camp_event_is_declared_by_the_procedure() -> None:
    """The event types the camp's steps write are the ones it declares (audit maps decisions by them)."""
    declared = set(camp.CAMP.events)
    assert {
        ev.CampMade,
        ev.FirewoodGathered,
        ev.WatchesSet,
        ev.NightChecked,
        ev.NightEncounterEnded,
        ev.CampBroken,
    } <= declared


def test_a_night_encounter_cancelled_as_a_mistake_resumes_the_camp() -> None:
    """The encounter the night's check brought, cancelled: the camp records it as cancelled and goes on."""
    handler, _ = reach("encounter")
    events = handler.execute(CAMPAIGN, enc.CancelEncounter(reason="no encounter after all")).events
    ended = [e for e in events if isinstance(e, ev.NightEncounterEnded)]
    assert len(ended) == 1
    assert ended[0].outcome == "cancelled"
    assert _camp(handler).phase.name == "NIGHT"


def _events(handler: Handler, *commands: c.Command) -> list[Any]:
    found: list[Any] = []
    for command in commands:
        found += handler.execute(CAMPAIGN, command).events
    return found


class TestAPursuitFromTheCamp:
    def test_a_night_encounter_that_ends_in_pursuit_hands_it_off_and_the_night_goes_on(self) -> None:
        """The evasion fails (100): the camp records the encounter's end and hands the pursuit off with the
        encounter's facts and the camp's terrain; it waits; the escape's rest ends it and the night goes on."""
        handler, script = reach("encounter_fled", (100,))
        out = _events(handler, enc.RollEvasion())
        assert [e.outcome for e in out if isinstance(e, ev.NightEncounterEnded)] == ["pursuit"]
        assert HandedOff(parent="camp", child="pursuit") in out
        started = next(e for e in out if isinstance(e, pev.PursuitStarted))
        facts = (started.party_size, started.pursuers, started.evasion_failed, started.encounter, started.terrain)
        assert facts == (4, 1, True, 1, "woods")
        assert _camp(handler).phase is Phase.PURSUIT
        before = version(handler)
        with pytest.raises(IllegalTransitionError, match="'break' is not allowed in state PURSUIT"):
            handler.execute(CAMPAIGN, camp.BreakCamp())
        assert version(handler) == before
        script.extend([4, 1])  # the flight south; the half day's rest rolls no encounter
        done = _events(handler, pu.Flee(), pu.Rest())
        assert next(e for e in done if isinstance(e, pev.PursuitEnded)).outcome == "escaped"
        assert PhaseChanged(procedure="camp", trigger="encounter_over", source="PURSUIT", dest="NIGHT") in done
        assert handler.load(CAMPAIGN).handoffs == ()
        handler.execute(CAMPAIGN, camp.BreakCamp())
        assert script == []

    def test_an_encounter_met_in_the_rest_after_the_escape_is_handed_off_then_the_night_goes_on(self) -> None:
        """The rest after the escape rolls a 6 (an encounter in the woods): the camp hands that encounter to the
        encounter procedure as a travel day does, and waits for it; it is no night encounter of a watch, so
        nobody's sleep is broken by it. When it concludes the night goes on; replayed and audited clean."""
        handler, script = reach("pursuit_fled", (6,))
        rested = _events(handler, pu.Rest())
        assert next(e for e in rested if isinstance(e, pev.PursuitRested)).encounters == 1
        assert PhaseChanged(procedure="camp", trigger="encounter_over", source="PURSUIT", dest="ENCOUNTER") in rested
        assert HandedOff(parent="camp", child="encounter") in rested
        started = next(e for e in rested if isinstance(e, EncounterStarted))
        assert started.name == "camp 1: wandering monsters while resting after the pursuit"
        assert _camp(handler).phase is Phase.ENCOUNTER
        with pytest.raises(IllegalTransitionError, match="'break' is not allowed in state ENCOUNTER"):
            handler.execute(CAMPAIGN, camp.BreakCamp())
        script.extend([6, 6, 3, 2])  # nobody surprised; the initiative
        done = _events(
            handler, enc.CheckSurprise(), enc.DetermineDistance(value=30), enc.RollInitiative(), enc.ConcludeEncounter()
        )
        assert not [e for e in done if isinstance(e, ev.NightEncounterEnded)]
        assert PhaseChanged(procedure="camp", trigger="encounter_over", source="ENCOUNTER", dest="NIGHT") in done
        assert [e.outcome for e in _camp(handler).encounters] == ["pursuit"]
        handler.execute(CAMPAIGN, camp.BreakCamp())
        assert script == []
        assert replay(handler.store, CAMPAIGN, REGISTRY).ok
        assert audit_store(handler.store, CAMPAIGN, REGISTRY).findings == ()

    def test_each_encounter_met_in_the_rest_after_the_escape_is_handed_off_in_turn(self) -> None:
        """Two hexes fled, a day of rest, both half days meet an encounter: the camp hands off the first and waits;
        when it concludes it hands off the second (a new encounter) and waits again; when that one concludes the
        night goes on. Neither is a night encounter of a watch; replayed and audited clean."""
        handler, script = reach("pursuit_fled_two", (6, 6))
        rested = _events(handler, pu.Rest())
        assert next(e for e in rested if isinstance(e, pev.PursuitRested)).encounters == 2
        assert PhaseChanged(procedure="camp", trigger="encounter_over", source="PURSUIT", dest="ENCOUNTER") in rested
        assert len([e for e in rested if isinstance(e, EncounterStarted)]) == 1
        meeting = (enc.CheckSurprise(), enc.DetermineDistance(value=30), enc.RollInitiative(), enc.ConcludeEncounter())
        script.extend([6, 6, 3, 2])  # nobody surprised; the initiative
        first = _events(handler, *meeting)
        assert PhaseChanged(procedure="camp", trigger="encounter_over", source="ENCOUNTER", dest="ENCOUNTER") in first
        second = [e for e in first if isinstance(e, EncounterStarted)]
        assert [e.name for e in second] == ["camp 1: wandering monsters while resting after the pursuit"]
        assert HandedOff(parent="camp", child="encounter") in first
        assert _camp(handler).phase is Phase.ENCOUNTER
        with pytest.raises(IllegalTransitionError, match="'break' is not allowed in state ENCOUNTER"):
            handler.execute(CAMPAIGN, camp.BreakCamp())
        script.extend([6, 6, 3, 2])
        done = _events(handler, *meeting)
        assert PhaseChanged(procedure="camp", trigger="encounter_over", source="ENCOUNTER", dest="NIGHT") in done
        assert not [e for e in done if isinstance(e, EncounterStarted | ev.NightEncounterEnded)]
        assert [e.outcome for e in _camp(handler).encounters] == ["pursuit"]
        handler.execute(CAMPAIGN, camp.BreakCamp())
        assert script == []
        assert replay(handler.store, CAMPAIGN, REGISTRY).ok
        assert audit_store(handler.store, CAMPAIGN, REGISTRY).findings == ()

    def test_an_encounter_the_rest_met_that_ends_in_pursuit_hands_that_pursuit_off(self) -> None:
        """The first of the two encounters the rest met ends with the party pursued again (evade, the roll fails): the
        camp hands off the new pursuit, named after that encounter within the longest name a command takes, and the
        rest's second encounter is not met (the rest was cut short)."""
        handler, script = reach("pursuit_fled_two", (6, 6))
        _events(handler, pu.Rest())
        script.extend([6, 6, 3, 2, 100])  # nobody surprised; the initiative; the evasion fails
        out = _events(
            handler,
            enc.CheckSurprise(),
            enc.DetermineDistance(value=30),
            enc.RollInitiative(),
            enc.Evade(),
            enc.RollEvasion(),
        )
        assert PhaseChanged(procedure="camp", trigger="encounter_over", source="ENCOUNTER", dest="PURSUIT") in out
        started = next(e for e in out if isinstance(e, pev.PursuitStarted))
        assert started.name == "after encounter 2 (camp 1: wandering monsters while resting af\u2026)"
        assert len(started.name) == text.LIMITS["name"]
        assert not [e for e in out if isinstance(e, EncounterStarted)]
        pursuit = handler.load(CAMPAIGN).procedures["pursuit"]
        assert (pursuit.started.number, pursuit.resting_met, pursuit.resting_owed) == (2, 0, 0)
        assert script == []
        assert replay(handler.store, CAMPAIGN, REGISTRY).ok

    def test_a_caught_party_fights_and_the_night_goes_on_when_the_pursuit_ends(self) -> None:
        """Faster monsters (240) catch the party in the woods on 1 (d4): the pursuit hands the fight to an
        encounter; when it concludes the pursuit ends caught and the camp resumes its night."""
        script: list[int] = []
        handler, script = reach("night_encounter")
        script.extend([6, 6, 4, 2, 100, 1, 1])
        _events(
            handler,
            camp.MeetEncounter(monster_speed=240),
            enc.CheckSurprise(),
            enc.DetermineDistance(value=30),
            enc.RollInitiative(),
            enc.Evade(),
            enc.RollEvasion(),
            pu.Flee(),
        )
        caught = _events(handler, pu.Catch())
        assert next(e for e in caught if isinstance(e, pev.CatchRolled)).caught
        assert HandedOff(parent="pursuit", child="encounter") in caught
        script.extend([6, 2])  # both sides aware: no surprise; the initiative
        last = _events(
            handler, enc.CheckSurprise(), enc.DetermineDistance(value=30), enc.RollInitiative(), enc.ConcludeEncounter()
        )
        assert next(e for e in last if isinstance(e, pev.PursuitEnded)).outcome == "caught"
        assert _camp(handler).phase is Phase.NIGHT
        # the fight that ended the pursuit is the pursuit's, not another night encounter of the camp
        assert [e.outcome for e in _camp(handler).encounters] == ["pursuit"]
        assert script == []

    def test_on_a_journey_the_flight_moves_the_party_from_the_camps_hex(self) -> None:
        """A camp made on a journey in the tangled forest at 2,0: the flight south (4) takes the party to 2,1."""
        script: list[int] = []
        handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
        for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex="ab" * 32)):
            handler.execute(CAMPAIGN, command)
        for member in MEMBERS:
            handler.execute(CAMPAIGN, c.AddMember(name=member))
        for name, terrain in (("2,0", "tangled_forest"), ("2,1", "meadow")):
            handler.execute(CAMPAIGN, SetHex(hex=name, terrain=terrain))
        handler.execute(CAMPAIGN, t.StartJourney(hex="2,0"))
        script.extend([3, 3, 3])  # the day is done before the party camps: its lost check's two dice, its check: none
        for command in (t.RollWeather(weather="clear"), t.DeclareRoute(headings=()), t.CheckWandering()):
            handler.execute(CAMPAIGN, command)
        script.extend([*ENCOUNTER, 6, 6, 4, 2, 100, 4])
        out = _events(
            handler, camp.MakeCamp(), WATCHES, camp.CheckNight(), *FLEEING[3:], enc.Evade(), enc.RollEvasion()
        )
        assert next(e for e in out if isinstance(e, pev.PursuitStarted)).terrain == "woods"
        moved = next(e for e in _events(handler, pu.Flee()) if isinstance(e, tev.TruePosition))
        assert moved.hex == "2,1"
        assert handler.load(CAMPAIGN).procedures["travel"].hex == "2,1"
        assert script == []

    def test_on_a_journey_the_rests_encounter_is_handed_off_and_the_player_sees_no_true_hex(self) -> None:
        """A camp made on a journey at 2,0: the flight south (4, the referee's) takes the party to the meadow at
        2,1; the half day's rest there reads the forest it believes it is in (the woods row: the meadow's would tell
        the players where it is) and rolls a 6 (an encounter), handed off by the camp. The player's log hides the
        heading and the hex it led to, and shows the hand-off; the audit finds nothing."""
        script: list[int] = []
        handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
        for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex="ab" * 32)):
            handler.execute(CAMPAIGN, command)
        for member in MEMBERS:
            handler.execute(CAMPAIGN, c.AddMember(name=member))
        for name, terrain in (("2,0", "tangled_forest"), ("2,1", "meadow")):
            handler.execute(CAMPAIGN, SetHex(hex=name, terrain=terrain))
        handler.execute(CAMPAIGN, t.StartJourney(hex="2,0"))
        script.extend([3, 3, 3])  # the day is done before the party camps: its lost check's two dice, its check: none
        for command in (t.RollWeather(weather="clear"), t.DeclareRoute(headings=()), t.CheckWandering()):
            handler.execute(CAMPAIGN, command)
        script.extend([*ENCOUNTER, 6, 6, 4, 2, 100, 4, 6])
        _events(handler, camp.MakeCamp(), WATCHES, camp.CheckNight(), *FLEEING[3:], enc.Evade(), enc.RollEvasion())
        fled_at = version(handler)
        rested = _events(handler, pu.Flee(), pu.Rest())
        assert next(e for e in rested if isinstance(e, pev.PursuitRested)).terrain == "woods"
        assert HandedOff(parent="camp", child="encounter") in rested
        assert _camp(handler).phase is Phase.ENCOUNTER
        assert script == []
        seen = render.timeline(handler.store.read_stream(tables.stream_for(CAMPAIGN)), player=True)
        hidden = [line.kind for line in seen if line.hidden]
        assert {"pursuit.heading_rolled", "travel.true_position"} <= set(hidden)
        shown = [line.text for line in seen if not line.hidden and line.version > fled_at]
        assert "camp hands off to encounter" in shown
        assert not [text for text in shown if "2,1" in text or " S " in text], shown
        assert audit_store(handler.store, CAMPAIGN, REGISTRY).findings == ()

    def test_night_pursuits_on_committed_dice_replay_and_audit_clean(self) -> None:
        """Real dice: nights in the swamp; each encounter is fled, each pursuit played to its end."""
        handler = Handler(MemoryStore(), MemoryKeeper())
        for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex="7e" * 32)):
            handler.execute(CAMPAIGN, command)
        for member in MEMBERS:
            handler.execute(CAMPAIGN, c.AddMember(name=member))
        pursuits = 0
        for _ in range(16):
            handler.execute(CAMPAIGN, camp.MakeCamp(terrain="swamp"))
            handler.execute(CAMPAIGN, WATCHES)
            handler.execute(CAMPAIGN, camp.CheckNight())
            if _camp(handler).pending is not None:
                handler.execute(CAMPAIGN, camp.MeetEncounter(monster_speed=240))
                _to_the_fight(handler)
                try:
                    handler.execute(CAMPAIGN, enc.Evade())
                except RuleRefusedError:  # a surprised party cannot flee in the first round
                    handler.execute(CAMPAIGN, enc.ConcludeEncounter())
                else:
                    handler.execute(CAMPAIGN, enc.RollEvasion())
                pursuits += _camp(handler).phase is Phase.PURSUIT
                while _camp(handler).phase in {Phase.PURSUIT, Phase.ENCOUNTER}:  # the rest may meet monsters
                    _pursue(handler)
            handler.execute(CAMPAIGN, camp.BreakCamp())
        handler.execute(CAMPAIGN, c.CloseSession())
        assert pursuits > 0
        assert replay(handler.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(handler.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
        assert report.rolls_verified == report.rolls


#: the pursuit step for each trigger the pursuit allows
PURSUIT_STEPS: dict[str, c.Command] = {
    "roll_evasion": pu.RollEvasion(),
    "flee": pu.Flee(),
    "catch": pu.Catch(),
    "rest": pu.Rest(),
    "continue_check": pu.ContinueCheck(),
}


def _pursue(handler: Handler) -> None:
    """One step of a pursuit the camp waits for: a caught party's encounter played to its end, else the
    first step the pursuit allows."""
    table = handler.load(CAMPAIGN)
    if table.handoffs and table.handoffs[-1][1] == "encounter":
        for command in (enc.CheckSurprise(), enc.DetermineDistance(value=30), enc.RollInitiative()):
            handler.execute(CAMPAIGN, command)
        handler.execute(CAMPAIGN, enc.ConcludeEncounter(outcome="fought"))
        return
    allowed = [a for a, _ in REGISTRY.runner("pursuit").allowed(table.procedures["pursuit"], table)]
    handler.execute(CAMPAIGN, PURSUIT_STEPS[allowed[0]])


class TestTheNightsClock:
    def test_the_night_encounter_comes_in_its_watch_on_the_clock(self) -> None:
        """The check's watch die shows 3: the night runs on to the start of watch 3 (4 hours after the camp was
        made) before the encounter is handed off, so the encounter, its turn and what follows it are in that watch;
        the morning's break then passes only what is left of the eight hours."""
        handler, _ = reach("night_encounter")
        assert handler.load(CAMPAIGN).clock.seconds == 0
        out = _events(handler, camp.MeetEncounter())
        advanced = next(e for e in out if isinstance(e, ClockAdvanced))
        assert out.index(advanced) < next(i for i, e in enumerate(out) if isinstance(e, HandedOff))
        assert advanced.reason == "camp 1: the night passes to watch 3"
        assert handler.load(CAMPAIGN).clock.seconds == 4 * 3600
        handler.execute(CAMPAIGN, enc.CancelEncounter(reason="a false alarm"))
        handler.execute(CAMPAIGN, camp.BreakCamp())
        assert handler.load(CAMPAIGN).clock.seconds == 8 * 3600

    def test_a_clock_already_past_the_watch_stays_where_it_is(self) -> None:
        """A night whose clock has already run past the watch's start (a second check's earlier watch, or time the
        referee let pass) hands the encounter off without moving the clock back or on."""
        handler, _ = reach("night_encounter")
        handler.execute(CAMPAIGN, AdvanceClock(duration="5h", reason="a long vigil"))
        out = _events(handler, camp.MeetEncounter())
        assert not [e for e in out if isinstance(e, ClockAdvanced)]
        assert handler.load(CAMPAIGN).clock.seconds == 5 * 3600
