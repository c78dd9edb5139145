"""The travel machine: every row of TRANSITIONS through the handler, every other trigger refused with
nothing written, failing conditions that say why, the fold replayed, and a journey on committed dice."""

from __future__ import annotations

import contextlib
from typing import Any

import attrs
import pytest

from hexlog.events import travel as ev
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import IllegalTransitionError, RuleRefusedError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import PhaseChanged, Resumed
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import table as tables
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import TRANSITIONS, TRAVEL, Phase
from hexlog.machine.travel import commands as t
from hexlog.machine.travel.moves import MISSED_LANDMARK
from hexlog.replay.audit import audit_store
from hexlog.replay.decisions import check_decision_events

CAMPAIGN = "tm"
STREAM = tables.stream_for(CAMPAIGN)
RUNNER = REGISTRY.runner("travel")
CLEAR = t.RollWeather(weather="clear")


def fresh(script: list[int], *, ruleset: str = "explore", party: bool = True) -> Handler:
    """A campaign with a 6x6 map of meadows (a forest at 2,0 with a landmark at 2,1), a session and a party."""
    h = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
    h.execute(CAMPAIGN, c.StartCampaign(ruleset=ruleset))
    h.execute(CAMPAIGN, c.OpenSession(secret_hex="4d" * 32))
    if party:
        h.execute(CAMPAIGN, c.AddMember(name="Ann"))
        h.execute(CAMPAIGN, c.AddMember(name="Bo", speed=90))
    for col in range(6):
        for row in range(6):
            terrain = "tangled_forest" if (col, row) == (2, 0) else "meadow"
            if ruleset != "explore":
                terrain = "clear"  # rules without Dolmenwood terrains know the OD&D rows only
            marks = ("the old mill",) if (col, row) == (2, 1) else ()
            h.execute(CAMPAIGN, SetHex(hex=f"{col},{row}", terrain=terrain, landmarks=marks))
    return h


#: how to reach each phase: commands, each with the faces it uses
RECIPES: dict[str, tuple[tuple[c.Command, tuple[int, ...]], ...]] = {
    "idle": (),
    "dawn": ((t.StartJourney(hex="2,3"), ()),),
    "ended": ((t.StartJourney(hex="2,3"), ()), (t.EndJourney(), ())),
    "route": ((t.StartJourney(hex="2,3"), ()), (CLEAR, ())),
    "travel": ((t.StartJourney(hex="2,3"), ()), (CLEAR, ()), (t.DeclareRoute(headings=("S",)), (6, 1))),
    "dusk": (
        (t.StartJourney(hex="2,3"), ()),
        (CLEAR, ()),
        (t.DeclareRoute(headings=("S",)), (6, 1)),
        (t.CheckWandering(), (1,)),
    ),
    # lost on a 1, truly heading SE (face 3) while the party believes it goes S
    "astray": (
        (t.StartJourney(hex="2,3"), ()),
        (CLEAR, ()),
        (t.DeclareRoute(headings=("S",)), (1, 3)),
        (t.Move(), ()),
    ),
}
RECIPES["astray_route"] = (*RECIPES["astray"], (t.CheckWandering(), (1,)), (t.EndDay(), ()), (CLEAR, ()))
RECIPES["astray_dusk"] = (*RECIPES["astray"], (t.CheckWandering(), (1,)))
RECIPES["astray_dawn"] = (*RECIPES["astray_dusk"], (t.EndDay(), ()))
RECIPES["resting"] = (*RECIPES["dawn"], (t.RestDay(), (3, 4)))
RECIPES["astray_resting"] = (*RECIPES["astray_dawn"], (t.RestDay(weather="clear"), ()))


def reach(name: str, extra: tuple[int, ...] = (), **kwargs: Any) -> tuple[Handler, list[int]]:
    """A handler that has run the recipe; the script then holds ``extra``."""
    script: list[int] = []
    h = fresh(script, **kwargs)
    for command, faces in RECIPES[name]:
        script.extend(faces)
        h.execute(CAMPAIGN, command)
        assert script == [], (name, command, script)
    script.extend(extra)
    return h, script


def trip(h: Handler) -> Any:
    return h.load(CAMPAIGN).procedures.get("travel")


#: (trigger, source, dest) -> (recipe, command, faces)
CASES: dict[tuple[str, str, str], tuple[str, c.Command, tuple[int, ...]]] = {
    ("start", "IDLE", "DAWN"): ("idle", t.StartJourney(hex="2,3"), ()),
    ("start", "ENDED", "DAWN"): ("ended", t.StartJourney(hex="2,3"), ()),
    ("weather", "DAWN", "ROUTE"): ("dawn", t.RollWeather(), (3, 4)),
    ("rest", "DAWN", "RESTING"): ("dawn", t.RestDay(), (3, 4)),
    ("rest", "ENDED", "ENDED"): ("ended", t.RestDay(), (3, 4)),
    ("finish", "DAWN", "ENDED"): ("dawn", t.EndJourney(), ()),
    ("route", "ROUTE", "TRAVEL"): ("route", t.DeclareRoute(headings=("N", "N")), (6, 1)),
    ("move", "TRAVEL", "TRAVEL"): ("travel", t.Move(), ()),
    ("search", "TRAVEL", "TRAVEL"): ("travel", t.SearchHex(), (4,)),
    ("forced_march", "TRAVEL", "TRAVEL"): ("travel", t.ForceMarch(), ()),
    ("check", "TRAVEL", "DUSK"): ("travel", t.CheckWandering(), (1,)),
    ("check", "RESTING", "DUSK"): ("resting", t.CheckWandering(), (1,)),
    ("end_day", "DUSK", "DAWN"): ("dusk", t.EndDay(), ()),
    ("reveal_lost", "DAWN", "DAWN"): ("astray_dawn", t.RevealLost(), ()),
    ("reveal_lost", "ROUTE", "ROUTE"): ("astray_route", t.RevealLost(), ()),
    ("reveal_lost", "TRAVEL", "TRAVEL"): ("astray", t.RevealLost(), ()),
    ("reveal_lost", "RESTING", "RESTING"): ("astray_resting", t.RevealLost(), ()),
    ("reveal_lost", "DUSK", "DUSK"): ("astray_dusk", t.RevealLost(), ()),
}


def _rows() -> list[tuple[str, str, str]]:
    """Every (trigger, source, dest) the table allows, one per source of a row."""
    return TRAVEL.edges()


#: the rows only the audit's re-run of an older release's step takes: a rest day before ``travel.day_started`` version 5
#: ran on to the next day at once (``tests/test_rest_day_check.py`` takes it)
AUDITS_ONLY = {("rest", "DAWN", "DAWN")}
COMMANDED = [r for r in _rows() if r[0] != "resume" and r not in AUDITS_ONLY]
IDS = [f"{tr}:{s}->{d}" for tr, s, d in COMMANDED]


class TestTransitions:
    @pytest.mark.parametrize(("trigger", "source", "dest"), COMMANDED, ids=IDS)
    def test_every_row_is_taken_through_the_handler(self, trigger: str, source: str, dest: str) -> None:
        """Each commanded row is reachable and records its PhaseChanged last."""
        recipe, command, faces = CASES[(trigger, source, dest)]
        h, script = reach(recipe, faces)
        assert TRAVEL.phase_of(trip(h)).name == source
        out = h.execute(CAMPAIGN, command)
        assert out.events[-1] == PhaseChanged(procedure="travel", trigger=trigger, source=source, dest=dest)
        assert script == []
        assert out.table.procedures["travel"].phase.name == dest

    @pytest.mark.parametrize(("trigger", "source", "dest"), COMMANDED, ids=IDS)
    def test_replay_folds_to_the_live_state(self, trigger: str, source: str, dest: str) -> None:
        """Folding the stored events gives the state the command returned, and the saved one."""
        recipe, command, faces = CASES[(trigger, source, dest)]
        h, _ = reach(recipe, faces)
        live = h.execute(CAMPAIGN, command).table.procedures["travel"]
        replayed = None
        for record in h.store.read_stream(STREAM):
            replayed = TRAVEL.fold(replayed, decode(record.envelope))  # type: ignore[misc]
        assert replayed == live
        assert h.load(CAMPAIGN).procedures["travel"] == live

    def test_every_row_has_a_case(self) -> None:
        assert set(CASES) == set(COMMANDED)
        assert {r for r in _rows() if r[0] == "resume"} == {("resume", "DUSK", "DUSK")}

    def test_every_trigger_has_a_command_but_resume(self) -> None:
        assert set(t.TRIGGERS.values()) == {row["trigger"] for row in TRANSITIONS} - {"resume"}

    def test_an_encounter_at_the_days_end_is_handed_off_and_the_day_resumes(self) -> None:
        """A 6 on a meadow's wandering die hands a wilderness encounter off; its conclusion resumes the day."""
        h, script = reach("travel", (6,))
        out = h.execute(CAMPAIGN, t.CheckWandering())
        assert out.table.handoffs == (("travel", "encounter"),)
        started = out.table.procedures["encounter"].started
        assert started.setting == "wilderness"
        with pytest.raises(RuleRefusedError, match="waits for encounter"):
            h.execute(CAMPAIGN, t.EndDay())
        script.extend([3, 4, 2, 2, 5, 2, 4, 3])
        for command in (enc.CheckSurprise(), enc.DetermineDistance(), enc.RollInitiative()):
            h.execute(CAMPAIGN, command)
        out = h.execute(CAMPAIGN, enc.ConcludeEncounter())
        assert Resumed(parent="travel", child="encounter") in out.events
        assert out.events[-1] == PhaseChanged(procedure="travel", trigger="resume", source="DUSK", dest="DUSK")
        assert out.table.handoffs == ()
        h.execute(CAMPAIGN, t.EndDay())
        assert trip(h).phase is Phase.DAWN

    def test_recorded_transitions_are_checked_against_the_table(self) -> None:
        assert all(RUNNER.recorded_ok(*row) for row in _rows())
        assert not RUNNER.recorded_ok("move", "ROUTE", "TRAVEL")

    def test_a_journey_on_committed_dice_passes_the_audit(self) -> None:
        """Real dice over a week of travel and a rest: every roll re-derived, every transition allowed."""
        h = Handler(MemoryStore(), MemoryKeeper())
        h.execute(CAMPAIGN, c.StartCampaign(ruleset="explore"))
        h.execute(CAMPAIGN, c.OpenSession(secret_hex="6e" * 32))
        h.execute(CAMPAIGN, c.AddMember(name="Ann"))
        for col in range(12):
            for row in range(12):
                h.execute(CAMPAIGN, SetHex(hex=f"{col},{row}", terrain="hills" if col % 2 else "meadow"))
        h.execute(CAMPAIGN, t.StartJourney(hex="6,6"))

        def day_s_end() -> None:
            h.execute(CAMPAIGN, t.CheckWandering())
            if h.load(CAMPAIGN).handoffs:
                for command in (enc.CheckSurprise(), enc.DetermineDistance()):
                    h.execute(CAMPAIGN, command)
                if h.load(CAMPAIGN).procedures["encounter"].phase is enc.Phase.FREE_ACTION:
                    h.execute(CAMPAIGN, enc.TakeFreeAction())
                if h.load(CAMPAIGN).procedures["encounter"].phase is enc.Phase.INITIATIVE:
                    h.execute(CAMPAIGN, enc.RollInitiative())
                h.execute(CAMPAIGN, enc.ConcludeEncounter())
            h.execute(CAMPAIGN, t.EndDay())

        for day in range(8):
            if day == 4:
                h.execute(CAMPAIGN, t.RestDay())
                day_s_end()
            h.execute(CAMPAIGN, t.RollWeather())
            h.execute(CAMPAIGN, t.DeclareRoute(headings=("N",) if day % 2 else ("S",)))
            with contextlib.suppress(RuleRefusedError):  # impeded weather may leave too few points
                h.execute(CAMPAIGN, t.Move())
            day_s_end()
        h.execute(CAMPAIGN, c.CloseSession())
        report = audit_store(h.store, CAMPAIGN)
        assert report.ok, [f.reason for f in report.findings]
        assert h.load(CAMPAIGN).clock.seconds == 9 * 86400


def _refusals() -> list[tuple[Phase, str]]:
    recipe_of = {Phase.IDLE: "idle", Phase.DAWN: "dawn", Phase.ROUTE: "route", Phase.TRAVEL: "travel"}
    recipe_of |= {Phase.RESTING: "resting", Phase.DUSK: "dusk", Phase.ENDED: "ended"}
    triggers = sorted(t.TRIGGERS.values())
    return [(phase, tr) for phase in recipe_of for tr in triggers if tr not in RUNNER.triggers(phase)]


COMMAND_FOR: dict[str, c.Command] = {
    tr: (cls(hex="2,3") if cls is t.StartJourney else cls()) for cls, tr in t.TRIGGERS.items()
}
PHASE_RECIPE = {
    Phase.IDLE: "idle",
    Phase.DAWN: "dawn",
    Phase.ROUTE: "route",
    Phase.TRAVEL: "travel",
    Phase.RESTING: "resting",
    Phase.DUSK: "dusk",
    Phase.ENDED: "ended",
}


class TestRefusals:
    @pytest.mark.parametrize(("phase", "trigger"), _refusals(), ids=lambda v: getattr(v, "name", v))
    def test_a_trigger_the_phase_does_not_allow_is_refused_and_nothing_is_written(self, phase, trigger) -> None:
        """IllegalTransitionError names the phase and the steps allowed now; the stream is unchanged."""
        h, _ = reach(PHASE_RECIPE[phase])
        version = h.store.stream_version(STREAM)
        with pytest.raises(IllegalTransitionError) as caught:
            h.execute(CAMPAIGN, COMMAND_FOR[trigger])
        assert caught.value.state == phase.name
        assert set(caught.value.allowed) <= set(RUNNER.triggers(phase))
        assert h.store.stream_version(STREAM) == version

    @pytest.mark.parametrize(
        ("recipe", "command", "extra", "why"),
        [
            ("idle", t.StartJourney(hex="9,9"), {}, "not on the map"),
            ("idle", t.StartJourney(hex="2,3"), {"party": False}, "no members"),
            ("travel", t.RevealLost(), {}, "not lost"),
        ],
    )
    def test_a_failing_condition_says_why_and_writes_nothing(self, recipe, command, extra, why) -> None:
        h, script = reach(recipe, **extra)
        version = h.store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match=why):
            h.execute(CAMPAIGN, command)
        assert h.store.stream_version(STREAM) == version
        assert script == []

    def test_moves_and_searches_stop_when_the_points_run_out(self) -> None:
        """6 points: two meadows to the map's edge (a third is refused there), one search, then no more."""
        h, script = reach("route", (6, 1))
        h.execute(CAMPAIGN, t.DeclareRoute(headings=("S", "S", "S", "S")))
        out = h.execute(CAMPAIGN, t.Move())
        assert [e.believed for e in out.events if isinstance(e, ev.Moved)] == ["2,4", "2,5"]
        version = h.store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="the map ends there"):
            h.execute(CAMPAIGN, t.Move())
        assert h.store.stream_version(STREAM) == version
        script.append(4)
        h.execute(CAMPAIGN, t.SearchHex())
        with pytest.raises(RuleRefusedError, match="costs 2 travel points; 0 left"):
            h.execute(CAMPAIGN, t.SearchHex())

    def test_a_second_forced_march_is_refused(self) -> None:
        h, _ = reach("travel")
        h.execute(CAMPAIGN, t.ForceMarch())
        version = h.store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="already on a forced march"):
            h.execute(CAMPAIGN, t.ForceMarch())
        assert h.store.stream_version(STREAM) == version

    def test_rules_without_travel_tables_refuse_a_journey(self) -> None:
        h, _ = reach("idle", ruleset="ose")
        with pytest.raises(RuleRefusedError, match="no travel tables"):
            h.execute(CAMPAIGN, t.StartJourney(hex="2,3"))

    @pytest.mark.parametrize(
        ("recipe", "command", "why"),
        [
            ("idle", t.StartJourney(hex="2,3", season="monsoon"), "season"),
            ("route", t.DeclareRoute(headings=("UP",)), "heading"),
            ("dawn", t.RollWeather(weather="sleet"), "weather 'sleet'"),
        ],
    )
    def test_a_bad_argument_is_a_usage_error_and_writes_nothing(self, recipe, command, why) -> None:
        h, _ = reach(recipe)
        version = h.store.stream_version(STREAM)
        with pytest.raises(UsageError, match=why):
            h.execute(CAMPAIGN, command)
        assert h.store.stream_version(STREAM) == version

    def test_the_rules_cannot_change_mid_journey(self) -> None:
        h, _ = reach("travel")
        with pytest.raises(RuleRefusedError, match="travel"):
            h.execute(CAMPAIGN, c.ChangeRules(ruleset="explore", overrides={"options": {"carry_partial_hex": True}}))


class TestAuditReRunsTheDay:
    def journey(self) -> list[Any]:
        """Weather rolled (2d6), lost (1, heading SE), a search, a wandering check: every decision named."""
        h, script = reach("dawn", (3, 4))
        h.execute(CAMPAIGN, t.RollWeather())
        for command, faces in (
            (t.DeclareRoute(headings=("S",)), (1, 3)),
            (t.Move(), ()),
            (t.SearchHex(guide=True), (4,)),
            (t.CheckWandering(), (2,)),
        ):
            script.extend(faces)
            h.execute(CAMPAIGN, command)
        return [decode(r.envelope) for r in h.store.read_stream(STREAM)]

    def test_every_decision_of_the_day_is_re_derived(self) -> None:
        events = self.journey()
        found = check_decision_events(events)
        assert found.issues == ()
        assert found.checked == 4

    @pytest.mark.parametrize(
        ("kind", "field", "forged"),
        [
            (ev.LostChecked, "lost", False),
            (ev.LostChecked, "heading", "N"),
            (ev.DayStarted, "weather", "storm"),
            (ev.SearchRolled, "found_on", (1,)),
            (ev.WanderingChecked, "encounter", True),
        ],
    )
    def test_a_forged_decision_is_caught(self, kind: type, field: str, forged: Any) -> None:
        events = self.journey()
        at = next(i for i, e in enumerate(events) if isinstance(e, kind))
        events[at] = attrs.evolve(events[at], **{field: forged})
        issues = check_decision_events(events).issues
        assert [i.at for i in issues][:1] == [at]
        assert field in issues[0].reason or kind.type_name in issues[0].reason

    def test_a_day_not_lost_rolls_the_secret_heading_die_as_a_lost_day_does(self) -> None:
        """The rolls a player sees hidden (their purposes, their number) are the same lost or not; the heading's die
        decides only when lost, and the audit re-derives both days."""
        seen = {}
        for lost, faces in ((True, (1, 3)), (False, (6, 3))):
            h, script = reach("route", faces)
            h.execute(CAMPAIGN, t.DeclareRoute(headings=("S",)))
            assert script == []
            events = [decode(r.envelope) for r in h.store.read_stream(STREAM)]
            (checked,) = [e for e in events if isinstance(e, ev.LostChecked)]
            assert checked.lost is lost
            assert checked.heading == ("SE" if lost else "S")
            seen[lost] = [(e.purpose, e.visibility) for e in events if isinstance(e, DiceRolled)]
            assert check_decision_events(events).issues == ()
        assert seen[True] == seen[False] == [("travel.lost", "referee"), ("travel.lost.heading", "referee")]

    def test_a_search_that_spends_the_last_points_is_re_derived(self) -> None:
        """The audit re-runs the search's roll alone: the points it spent are not asked for again."""
        h, script = reach("route", (6, 1))
        h.execute(CAMPAIGN, t.DeclareRoute(headings=("S", "S", "S", "S")))
        h.execute(CAMPAIGN, t.Move())
        script.append(4)
        h.execute(CAMPAIGN, t.SearchHex())
        assert trip(h).tp == 0
        events = [decode(r.envelope) for r in h.store.read_stream(STREAM)]
        found = check_decision_events(events)
        assert found.issues == ()
        assert found.checked == 2  # the lost check and the search (the weather was set)

    def test_the_search_roll_is_hexlogs_not_the_referees(self) -> None:
        h, _ = reach("travel")
        version = h.store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="made by hexlog"):
            h.execute(CAMPAIGN, t.SearchRoll())
        assert h.store.stream_version(STREAM) == version

    def test_the_referees_hand_is_accounted_for(self) -> None:
        """Weather set instead of rolled, and a party told it is lost, are the referee's hand in the audit."""
        h, _ = reach("astray")
        h.execute(CAMPAIGN, t.RevealLost(reason="a shepherd says so"))
        hand = "\n".join(audit_store(h.store, CAMPAIGN).by_hand)
        assert "the weather of day 1 set by the referee (clear)" in hand
        assert "the party told it is lost (a shepherd says so)" in hand

    def test_a_missed_landmark_tells_the_party_itself_not_the_referee(self) -> None:
        """A move astray into a hex whose landmark the party expected reveals it lost by the rules: not the referee's
        hand. The same words typed by the referee (``reveal-lost``) where no move missed a landmark are the referee's,
        listed as any other reveal: the audit judges the state, never the text."""
        script: list[int] = []
        moved = fresh(script)
        moved.execute(CAMPAIGN, SetHex(hex="2,4", landmarks=("the old oak",)))
        for command, faces in RECIPES["astray"]:
            script.extend(faces)
            moved.execute(CAMPAIGN, command)
        revealed = [e for e in moved.store.read_stream(STREAM) if e.envelope.type == "hexlog.travel.lost_revealed"]
        assert [r.envelope.data["reason"] for r in revealed] == [MISSED_LANDMARK.format(landmark="the old oak")]
        assert not [line for line in audit_store(moved.store, CAMPAIGN).by_hand if "told it is lost" in line]
        typed, _ = reach("astray")
        typed.execute(CAMPAIGN, SetHex(hex="2,3", landmarks=("the old oak",)))  # not where it believes it is
        typed.execute(CAMPAIGN, t.RevealLost(reason=MISSED_LANDMARK.format(landmark="the old oak")))
        hand = audit_store(typed.store, CAMPAIGN).by_hand
        told = [line.split(": ", 1)[1] for line in hand if "told it is lost" in line]
        assert told == ["the party told it is lost (the party expected the old oak and did not find it)"]


class TestStepsOffered:
    @pytest.mark.parametrize("name", ["idle", "ended"])
    def test_a_journey_may_start_before_the_first_and_after_the_last(self, name):
        """``start`` needs a hex the referee gives, so it is offered and the hex judged when it is given."""
        handler, _ = reach(name)
        table = handler.load(CAMPAIGN)
        offered = [trigger for trigger, _ in RUNNER.allowed(table.procedures.get("travel"), table)]
        assert "start" in offered

    def test_a_start_from_a_hex_off_the_map_is_refused_naming_it(self):
        handler, _ = reach("idle")
        version = handler.store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="hex 9,9 is not on the map"):
            handler.execute(CAMPAIGN, t.StartJourney(hex="9,9"))
        assert handler.store.stream_version(STREAM) == version
