"""The procedure kit: registry, firing and refusals, rolls made for someone, the clock, hand-off.

A small test procedure, ``patrol``, is declared here on the kit beside the real ones: it walks (rolling
for a member), waits while game time passes (a due check rolls a wandering die every two turns), and
meets an encounter by hand-off, resuming when the encounter concludes. It uses only the kit's own
events, so nothing is added to the event registry.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, ClassVar

import attrs
import pytest

from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode, to_data
from hexlog.events.dice import DiceRolled, RollModifier
from hexlog.events.errors import IllegalTransitionError, RuleRefusedError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import table as tables
from hexlog.machine.campaign import CAMPAIGN
from hexlog.machine.encounter import ENCOUNTER
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.clock import ClockOptions, turns
from hexlog.machine.kit.context import StepContext
from hexlog.machine.kit.model import Model
from hexlog.machine.kit.procedure import DueCheck, Procedure, Resume
from hexlog.machine.kit.registry import Registry
from hexlog.machine.kit.runner import Runner
from hexlog.machine.rolls import ScriptedRoller
from hexlog.replay.audit import audit_store
from hexlog.replay.rebuild import replay

if TYPE_CHECKING:
    from hexlog.events.base import Event


class Phase(enum.Enum):
    IDLE = "idle"
    WALKING = "walking"
    MEETING = "meeting"
    DONE = "done"


TRANSITIONS: list[Any] = [
    {"trigger": "set_out", "source": [Phase.IDLE, Phase.DONE], "dest": Phase.WALKING},
    {"trigger": "step", "source": Phase.WALKING, "dest": Phase.WALKING, "conditions": "not_too_far"},
    {"trigger": "rest", "source": Phase.WALKING, "dest": Phase.WALKING},
    {"trigger": "meet", "source": Phase.WALKING, "dest": Phase.MEETING},
    {"trigger": "met", "source": Phase.MEETING, "dest": Phase.WALKING},
    {"trigger": "halt", "source": Phase.WALKING, "dest": Phase.DONE},
]


@attrs.frozen(kw_only=True)
class PatrolState:
    phase: Phase = Phase.IDLE
    steps: int = 0


def fold(state: PatrolState | None, event: Event) -> PatrolState | None:
    if isinstance(event, PhaseChanged) and event.procedure == "patrol":
        before = state or PatrolState()
        return PatrolState(phase=Phase[event.dest], steps=before.steps + (event.trigger == "step"))
    return state


@attrs.define(slots=False)
class PatrolModel(Model):
    def not_too_far(self) -> bool:
        steps = self.proc.steps if self.proc is not None else 0
        return steps < 2 or self.refuse(f"the patrol has taken {steps} steps already")


@attrs.frozen(kw_only=True)
class SetOut(c.Command):
    pass


@attrs.frozen(kw_only=True)
class Step(c.Command):
    walker: str = "Ann"
    side: str = "party"


@attrs.frozen(kw_only=True)
class Rest(c.Command):
    turns: int = 1


@attrs.frozen(kw_only=True)
class Meet(c.Command):
    monsters: int = 2


@attrs.frozen(kw_only=True)
class Halt(c.Command):
    pass


def step(ctx: Any, command: Step) -> None:
    ctx.roll("1d6", "patrol.step", made_for=command.walker)


def rest(ctx: Any, command: Rest) -> None:
    ctx.advance(turns(ctx.part(ClockOptions), 1), reason="the patrol rests", times=command.turns)


def meet(ctx: Any, command: Meet) -> None:
    ctx.hand_off(enc.StartEncounter(monster_count=command.monsters, party_aware=True, monsters_aware=True))


def wandering(ctx: Any, start: int, end: int) -> None:
    """A wandering die every two turns of patrol time (1200 s), at each boundary passed."""
    state = ctx.state("patrol")
    if state is None or state.phase is not Phase.WALKING:
        return
    for boundary in range(start // 1200 + 1, end // 1200 + 1):
        ctx.roll("1d6", f"patrol.wandering.{boundary}", visibility="referee")


def exhaustion(table: Any, made_for: str, purpose: str) -> list[RollModifier]:  # noqa: ARG001 - the source signature
    return [RollModifier(source="exhaustion (a test)", value=-1)] if made_for == "Ann" else []


def nothing(ctx: Any, command: Any) -> None:
    """A step that records nothing but its phase change."""


PATROL = Procedure(
    name="patrol",
    title="A test procedure.",
    steps={SetOut: nothing, Step: step, Rest: rest, Meet: meet, Halt: nothing},
    triggers={SetOut: "set_out", Step: "step", Rest: "rest", Meet: "meet", Halt: "halt"},
    phases=Phase,
    transitions=TRANSITIONS,
    initial=Phase.IDLE,
    final=frozenset({Phase.DONE}),
    model=PatrolModel,
    fold=fold,
    state_type=PatrolState,
    purposes=("patrol.step", "patrol.wandering"),
    due_checks=(DueCheck(name="wandering", run=wandering),),
    modifiers=(exhaustion,),
    resume=Resume(trigger="met", step=nothing),
)
REGISTRY = Registry((CAMPAIGN, ENCOUNTER, PATROL))
CAMPAIGN_ID = "k"


def handler(faces: list[int] | None = None, *, committed: bool = False, registry: Registry | None = None) -> Handler:
    """A handler on a fresh store with the test registry (or ``registry``), a session and a party of two.

    Its dice are a script (every face 3 unless given), or the session's committed dice.
    """
    script = faces if faces is not None else [3] * 200
    roller = None if committed else (lambda _table: ScriptedRoller(script))
    h = Handler(MemoryStore(), MemoryKeeper(), registry=registry or REGISTRY, roller=roller)
    for command in (
        c.StartCampaign(ruleset="ose"),
        c.OpenSession(secret_hex="7" * 64),
        c.AddMember(name="Ann"),
        c.AddMember(name="Bo"),
    ):
        h.execute(CAMPAIGN_ID, command)
    return h


def data(events: tuple[Event, ...] | list[Event]) -> list[tuple[str, dict[str, Any]]]:
    return [(e.type_name, to_data(e)) for e in events]


class TestRegistry:
    def test_two_procedures_with_one_name_are_refused(self):
        """A registry cannot hold two procedures of the same name."""
        with pytest.raises(TypeError, match="two procedures are named patrol"):
            Registry((CAMPAIGN, PATROL, attrs.evolve(PATROL, steps={})))

    def test_a_command_of_two_procedures_is_refused(self):
        """Each command class routes to one procedure."""
        twin = attrs.evolve(PATROL, name="twin", purposes=())
        with pytest.raises(TypeError, match="is a command of two procedures"):
            Registry((CAMPAIGN, PATROL, twin))

    def test_two_procedures_cannot_reserve_one_purpose(self):
        """A roll purpose belongs to one procedure."""
        twin = attrs.evolve(
            PATROL, name="twin", steps={}, triggers={}, phases=None, model=None, initial=None, resume=None
        )
        with pytest.raises(TypeError, match="same roll purpose"):
            Registry((CAMPAIGN, PATROL, twin))

    def test_an_unknown_command_is_refused_before_anything_is_read(self):
        """A command no procedure declares is a usage error naming it."""

        @attrs.frozen(kw_only=True)
        class Dance(c.Command):
            pass

        h = handler()
        before = h.store.stream_version(stream_for(CAMPAIGN_ID))
        with pytest.raises(UsageError, match="unknown command 'dance'"):
            h.execute(CAMPAIGN_ID, Dance())
        assert h.store.stream_version(stream_for(CAMPAIGN_ID)) == before

    def test_the_used_keys_are_those_the_typed_parts_read(self):
        """A key is used when a registered procedure's typed part declares it, and unused otherwise."""
        used = REGISTRY.used_keys()
        assert ("options", "round_seconds") in used
        assert ("options", "initiative_tie") in used
        assert ("tables", "distance") in used
        assert ("options", "segment_seconds") not in used
        assert REGISTRY.readers("options", "initiative_tie") == ["encounter"]

    def test_a_reserved_purpose_and_its_extensions_are_known(self):
        """``patrol.wandering.3`` extends a reserved purpose; ``patrolling`` does not."""
        assert REGISTRY.reserved("patrol.wandering.3") == "patrol.wandering"
        assert REGISTRY.reserved("patrol.step") == "patrol.step"
        assert REGISTRY.reserved("patrolling") is None


class TestFiring:
    def test_a_trigger_the_phase_does_not_allow_names_the_allowed_steps_and_writes_nothing(self):
        """Before setting out, a step is illegal; the error names the phase and what is allowed."""
        h = handler()
        before = h.store.stream_version(stream_for(CAMPAIGN_ID))
        with pytest.raises(IllegalTransitionError) as caught:
            h.execute(CAMPAIGN_ID, Step())
        assert caught.value.state == "IDLE"
        assert caught.value.allowed == ["set_out"]
        assert h.store.stream_version(stream_for(CAMPAIGN_ID)) == before

    def test_a_condition_that_fails_is_refused_with_its_reason(self):
        """The third step is refused by the condition, which says why."""
        h = handler()
        h.execute(CAMPAIGN_ID, SetOut())
        h.execute(CAMPAIGN_ID, Step())
        h.execute(CAMPAIGN_ID, Step())
        with pytest.raises(RuleRefusedError, match="the patrol has taken 2 steps already"):
            h.execute(CAMPAIGN_ID, Step())

    def test_allowed_steps_hold_their_conditions_and_name_the_sides(self):
        """The runner offers each step whose conditions hold, with the sides a command with a side may take."""
        h = handler()
        h.execute(CAMPAIGN_ID, SetOut())
        table = h.load(CAMPAIGN_ID)
        allowed = dict(REGISTRY.runner("patrol").allowed(table.procedures["patrol"], table))
        assert allowed == {"step": ("party", "monsters"), "rest": (), "meet": (), "halt": ()}
        h.execute(CAMPAIGN_ID, Step())
        h.execute(CAMPAIGN_ID, Step())
        table = h.load(CAMPAIGN_ID)
        assert "step" not in dict(REGISTRY.runner("patrol").allowed(table.procedures["patrol"], table))

    def test_allows_judges_one_step_as_allowed_lists_it(self):
        """``allows`` says of each trigger (and of one the machine lacks) what ``allowed`` says, step by step."""
        h = handler()
        runner = REGISTRY.runner("patrol")
        every = ["set_out", "step", "rest", "meet", "halt", "met", "no_such_step"]
        for command in (SetOut(), Step(), Step(), Rest()):
            h.execute(CAMPAIGN_ID, command)
            table = h.load(CAMPAIGN_ID)
            proc = table.procedures["patrol"]
            listed = {trigger for trigger, _ in runner.allowed(proc, table)}
            assert listed, "a step is offered at each point"
            assert {t for t in every if runner.allows(t, proc, table)} == listed

    def test_the_resume_trigger_is_never_offered_as_a_step(self):
        """``met`` is the kit's to fire when the encounter concludes, not the referee's."""
        assert REGISTRY.runner("patrol").triggers(Phase.MEETING) == ["met"]
        assert "met" not in REGISTRY.runner("patrol").commands

    def test_the_triggers_from_a_phase_are_those_transitions_finds_even_after_the_table_changes(self):
        """The runner's machine looks the triggers from a state up; they stay what ``Machine`` would search for."""
        from transitions import Machine  # noqa: PLC0415 - the library's own answer, for comparison

        for procedure in (PATROL, ENCOUNTER):
            machine, phases = Runner(procedure).machine, list(procedure.phases or ())
            for phase in phases:
                for state in (phase, phase.name, machine.get_state(phase.name)):
                    assert machine.get_triggers(state) == Machine.get_triggers(machine, state)
            assert machine.get_triggers(*phases) == Machine.get_triggers(machine, *phases)
        machine = Runner(PATROL).machine
        assert machine.get_triggers(Phase.MEETING) == ["met"]
        machine.add_transition("fly", Phase.MEETING.name, Phase.DONE.name)
        assert machine.get_triggers(Phase.MEETING) == ["met", "fly"]
        machine.remove_transition("met", Phase.MEETING.name)
        assert machine.get_triggers(Phase.MEETING) == ["fly"]

    def test_a_phase_change_is_the_same_value_each_time_it_is_fired(self):
        """The runner builds one ``PhaseChanged`` per edge; each fire gives an equal one, named by the phases."""
        runner, table = Runner(PATROL), tables.Table()
        first = runner.fire("set_out", None, table, SetOut())
        again = runner.fire("set_out", PatrolState(phase=Phase.DONE), table, SetOut())
        assert first == PhaseChanged(procedure="patrol", trigger="set_out", source="IDLE", dest="WALKING")
        assert again == PhaseChanged(procedure="patrol", trigger="set_out", source="DONE", dest="WALKING")

    def test_the_recorded_transition_check_follows_the_table(self):
        """Every row of the table is a recorded transition the audit accepts, and nothing else."""
        runner = REGISTRY.runner("patrol")
        assert runner.recorded_ok("set_out", "DONE", "WALKING")
        assert runner.recorded_ok("met", "MEETING", "WALKING")
        assert not runner.recorded_ok("set_out", "WALKING", "WALKING")
        assert not runner.recorded_ok("fly", "WALKING", "DONE")

    def test_only_a_step_can_follow_its_roll_with_another_trigger(self):
        """``follow`` fires a trigger of the running procedure: outside a step there is none."""
        ctx = StepContext(table=tables.Table(), registry=REGISTRY)
        with pytest.raises(RuleRefusedError, match="only a step of a procedure can follow on"):
            ctx.follow("met")


class TestRollsForSomeone:
    def test_the_state_modifies_a_roll_made_for_a_character_and_records_the_source(self):
        """Ann's roll takes -1 from the test's exhaustion source; the event records it and the total."""
        h = handler([4, 4])
        h.execute(CAMPAIGN_ID, SetOut())
        (roll,) = [e for e in h.execute(CAMPAIGN_ID, Step(walker="Ann")).events if isinstance(e, DiceRolled)]
        assert roll.made_for == "Ann"
        assert roll.modifiers == (RollModifier(source="exhaustion (a test)", value=-1),)
        assert (roll.faces, roll.modifier, roll.total) == ((4,), -1, 3)
        (other,) = [e for e in h.execute(CAMPAIGN_ID, Step(walker="Bo")).events if isinstance(e, DiceRolled)]
        assert (other.made_for, other.modifiers, other.total) == ("Bo", (), 4)

    def test_the_modified_roll_survives_the_log_and_audits_clean(self):
        """The v2 roll round-trips through the store; replay matches; no decision names it, and none need to."""
        h = handler()
        h.execute(CAMPAIGN_ID, SetOut())
        h.execute(CAMPAIGN_ID, Step(walker="Ann"))
        stored = [decode(r.envelope) for r in h.store.read_stream(stream_for(CAMPAIGN_ID))]
        rolls = [e for e in stored if isinstance(e, DiceRolled)]
        assert rolls[-1].modifiers == (RollModifier(source="exhaustion (a test)", value=-1),)
        assert replay(h.store, CAMPAIGN_ID, REGISTRY).ok


class TestClock:
    @pytest.mark.parametrize("n", [1, 2, 3, 5])
    def test_advancing_n_turns_at_once_records_what_n_single_turns_record(self, n: int):
        """The clock events and every due check (a wandering die at each two-turn boundary) come out the same."""
        at_once, one_by_one = handler(), handler()
        for h in (at_once, one_by_one):
            h.execute(CAMPAIGN_ID, SetOut())
        together = at_once.execute(CAMPAIGN_ID, Rest(turns=n)).events
        apart: list[Event] = []
        for _ in range(n):
            apart.extend(one_by_one.execute(CAMPAIGN_ID, Rest(turns=1)).events)
        strip = [e for e in apart if not isinstance(e, PhaseChanged)]
        assert data([e for e in together if not isinstance(e, PhaseChanged)]) == data(strip)
        assert at_once.load(CAMPAIGN_ID).clock == one_by_one.load(CAMPAIGN_ID).clock

    def test_due_checks_run_after_each_clock_event_in_order(self):
        """Five turns pass: a clock event each, and a wandering die after the second and the fourth."""
        h = handler()
        h.execute(CAMPAIGN_ID, SetOut())
        kinds = [
            e.purpose if isinstance(e, DiceRolled) else e.type_name
            for e in h.execute(CAMPAIGN_ID, Rest(turns=5)).events
            if not isinstance(e, PhaseChanged)
        ]
        clock = ClockAdvanced.type_name
        assert kinds == [
            clock,
            clock,
            "patrol.wandering.1",
            clock,
            clock,
            "patrol.wandering.2",
            clock,
        ]
        assert h.load(CAMPAIGN_ID).clock.seconds == 5 * 600

    def test_an_encounter_conclusion_advances_the_clock_through_the_kit(self):
        """An encounter of 0 rounds still takes one turn: one clock event of 600 s under OSE."""
        h = handler()
        h.execute(CAMPAIGN_ID, enc.StartEncounter(party_aware=True, monsters_aware=True))
        for command in (enc.CheckSurprise(), enc.DetermineDistance(), enc.RollInitiative()):
            h.execute(CAMPAIGN_ID, command)
        events = h.execute(CAMPAIGN_ID, enc.ConcludeEncounter()).events
        (clock,) = [e for e in events if isinstance(e, ClockAdvanced)]
        assert (clock.seconds, clock.turns, clock.rounds) == (600, 1, 60)


class TestHandOff:
    def test_a_step_starts_another_procedure_in_the_same_append(self):
        """Meeting records the patrol's phase change, the hand-off, then the encounter's start, in one append."""
        h = handler()
        h.execute(CAMPAIGN_ID, SetOut())
        outcome = h.execute(CAMPAIGN_ID, Meet(monsters=3))
        kinds = [type(e) for e in outcome.events]
        assert kinds[:2] == [PhaseChanged, HandedOff]
        assert outcome.events[0].dest == "MEETING"
        assert outcome.events[1] == HandedOff(parent="patrol", child="encounter")
        started = [e for e in outcome.events if e.type_name == "encounter.started"]
        assert started
        assert started[0].monster_count == 3
        assert outcome.table.handoffs == (("patrol", "encounter"),)
        assert outcome.result.first_version == outcome.result.last_version - len(outcome.events) + 1

    def test_the_parent_waits_while_its_child_runs(self):
        """While the encounter runs, the patrol allows no step of the referee's."""
        h = handler()
        h.execute(CAMPAIGN_ID, SetOut())
        h.execute(CAMPAIGN_ID, Meet())
        with pytest.raises(IllegalTransitionError, match="allowed now: none") as refused:
            h.execute(CAMPAIGN_ID, Halt())
        assert str(refused.value).endswith("(patrol waits for encounter to conclude: the encounter's steps come first)")

    def test_the_parent_resumes_when_the_child_concludes(self):
        """Concluding the encounter records, in the same append, the resume and the patrol's phase change."""
        h = handler()
        h.execute(CAMPAIGN_ID, SetOut())
        h.execute(CAMPAIGN_ID, Meet())
        for command in (enc.CheckSurprise(), enc.DetermineDistance(), enc.RollInitiative()):
            h.execute(CAMPAIGN_ID, command)
        events = h.execute(CAMPAIGN_ID, enc.ConcludeEncounter(outcome="parted")).events
        tail = events[-2:]
        assert tail[0] == Resumed(parent="patrol", child="encounter")
        assert isinstance(tail[1], PhaseChanged)
        assert (tail[1].procedure, tail[1].trigger, tail[1].dest) == ("patrol", "met", "WALKING")
        table = h.load(CAMPAIGN_ID)
        assert table.handoffs == ()
        assert table.procedures["patrol"].phase is Phase.WALKING
        h.execute(CAMPAIGN_ID, Halt())

    def test_a_campaign_with_hand_offs_replays_and_audits_clean(self):
        """The patrol, its encounter and the resume replay equal and audit with no finding, on committed dice."""
        h = handler(committed=True)
        for command in (
            SetOut(),
            Rest(turns=1),
            Meet(),
            enc.CheckSurprise(),
            enc.DetermineDistance(),
            enc.RollInitiative(),
            enc.RollReaction(),
            enc.ConcludeEncounter(),
            Halt(),
        ):
            h.execute(CAMPAIGN_ID, command)
        h.execute(CAMPAIGN_ID, c.CloseSession())
        assert replay(h.store, CAMPAIGN_ID, REGISTRY).ok
        report = audit_store(h.store, CAMPAIGN_ID, REGISTRY)
        assert report.findings == (), report.text()
        assert report.decisions == 4
        assert report.rolls_verified == report.rolls

    def test_a_roll_of_a_reserved_purpose_that_no_decision_names_is_an_audit_finding(self):
        """The patrol's own step roll names no decision: the audit calls it rolled and then ignored."""
        h = handler(committed=True)
        for command in (SetOut(), Step(walker="Bo"), c.CloseSession()):
            h.execute(CAMPAIGN_ID, command)
        reasons = [f.reason for f in audit_store(h.store, CAMPAIGN_ID, REGISTRY).findings]
        assert reasons == ["roll #0 for patrol.step is named by no decision: rolled and then ignored"]

    def test_rules_cannot_change_while_a_procedure_is_under_way(self):
        """The patrol is under way: a change of rules is refused naming it; once halted, it is accepted."""
        h = handler()
        h.execute(CAMPAIGN_ID, SetOut())
        with pytest.raises(RuleRefusedError, match="patrol"):
            h.execute(CAMPAIGN_ID, c.ChangeRules(ruleset="adnd"))
        h.execute(CAMPAIGN_ID, Halt())
        h.execute(CAMPAIGN_ID, c.ChangeRules(ruleset="adnd"))
        assert h.load(CAMPAIGN_ID).rules.name == "adnd"


@attrs.frozen(kw_only=True)
class March(c.Command):
    """A step whose walker the referee must name (no default)."""

    walker: str
    side: str = "party"


@attrs.define(slots=False)
class MarchModel(PatrolModel):
    def walker_in_party(self) -> bool:
        assert self.table is not None
        walker = self.command.walker  # type: ignore[union-attr]
        return self.table.party.member(walker) is not None or self.refuse(f"{walker} is not in the party")


def patrol(**changes: Any) -> Procedure:
    """The test patrol with some of its declaration changed."""
    return attrs.evolve(PATROL, **changes)


def rows(*extra: dict[str, Any], drop: str = "") -> list[Any]:
    """The patrol's transition table without the rows of trigger ``drop``, with ``extra`` rows."""
    return [row for row in TRANSITIONS if row["trigger"] != drop] + list(extra)


def marching(*, condition: str = "not_too_far") -> Procedure:
    """The patrol, walking by ``March`` (whose walker has no default) instead of ``Step``."""
    steps = {cls: run for cls, run in PATROL.steps.items() if cls is not Step}
    triggers = {cls: name for cls, name in PATROL.triggers.items() if cls is not Step}
    table = rows(
        {"trigger": "step", "source": Phase.WALKING, "dest": Phase.WALKING, "conditions": condition}, drop="step"
    )
    return patrol(
        steps={**steps, March: step},
        triggers={**triggers, March: "step"},
        transitions=table,
        model=MarchModel,
    )


def meeting_with(command: c.Command) -> Any:
    """A meeting step that hands off ``command``."""

    def meet_by(ctx: Any, _command: Meet) -> None:
        ctx.hand_off(command)

    return meet_by


def version(h: Handler) -> int:
    return h.store.stream_version(stream_for(CAMPAIGN_ID))


class TestAllowedWithoutArguments:
    def test_a_step_whose_command_needs_an_argument_is_offered_and_listed_in_a_refusal(self):
        """``March`` has no default walker: the steps allowed now are still judged, and an illegal step names them."""
        registry = Registry((CAMPAIGN, ENCOUNTER, marching()))
        h = handler(registry=registry)
        h.execute(CAMPAIGN_ID, SetOut())
        table = h.load(CAMPAIGN_ID)
        allowed = dict(registry.runner("patrol").allowed(table.procedures["patrol"], table))
        assert allowed == {"step": ("party", "monsters"), "rest": (), "meet": (), "halt": ()}
        with pytest.raises(IllegalTransitionError) as caught:
            h.execute(CAMPAIGN_ID, SetOut())
        assert caught.value.allowed == ["halt", "meet", "rest", "step"]

    def test_a_condition_that_reads_an_argument_not_given_offers_the_step_and_judges_the_command(self):
        """Whether a walker is in the party cannot be judged without one: offered; the command itself is judged."""
        registry = Registry((CAMPAIGN, ENCOUNTER, marching(condition="walker_in_party")))
        h = handler(registry=registry)
        h.execute(CAMPAIGN_ID, SetOut())
        table = h.load(CAMPAIGN_ID)
        assert "step" in dict(registry.runner("patrol").allowed(table.procedures["patrol"], table))
        with pytest.raises(RuleRefusedError, match="Zed is not in the party"):
            h.execute(CAMPAIGN_ID, March(walker="Zed"))
        h.execute(CAMPAIGN_ID, March(walker="Bo"))


def no_hordes(table: Any, command: c.Command) -> None:  # noqa: ARG001 - the guard signature
    """A test guard: no encounter with more than six monsters."""
    if isinstance(command, enc.StartEncounter) and command.monster_count > 6:
        msg = f"a horde of {command.monster_count} is too many for this test"
        raise RuleRefusedError(msg)


class TestHandedOffCommandsAreChecked:
    def test_the_guards_judge_a_handed_off_command_as_they_judge_a_direct_one(self):
        """Eight monsters are refused by the guard whether the referee starts them or the patrol meets them."""
        h = handler(registry=Registry((CAMPAIGN, ENCOUNTER, patrol(guards=(no_hordes,)))))
        h.execute(CAMPAIGN_ID, SetOut())
        before = version(h)
        with pytest.raises(RuleRefusedError, match="a horde of 8"):
            h.execute(CAMPAIGN_ID, enc.StartEncounter(monster_count=8))
        with pytest.raises(RuleRefusedError, match="a horde of 8"):
            h.execute(CAMPAIGN_ID, Meet(monsters=8))
        assert version(h) == before
        table = h.load(CAMPAIGN_ID)
        assert (table.procedures["patrol"].phase, table.handoffs) == (Phase.WALKING, ())
        h.execute(CAMPAIGN_ID, Meet(monsters=6))
        assert h.load(CAMPAIGN_ID).handoffs == (("patrol", "encounter"),)

    def test_the_text_of_a_handed_off_command_is_checked_as_a_direct_ones(self):
        """A name holding an escape sequence is refused in a handed-off command too, and nothing is written."""
        named = enc.StartEncounter(monster_count=2, name="goblins\x1b[2J")
        h = handler(registry=Registry((CAMPAIGN, ENCOUNTER, patrol(steps={**PATROL.steps, Meet: meeting_with(named)}))))
        h.execute(CAMPAIGN_ID, SetOut())
        before = version(h)
        with pytest.raises(UsageError, match=r"U\+001B"):
            h.execute(CAMPAIGN_ID, named)
        with pytest.raises(UsageError, match=r"U\+001B"):
            h.execute(CAMPAIGN_ID, Meet())
        assert version(h) == before


class WatchPhase(enum.Enum):
    IDLE = "idle"
    ON = "on"
    DONE = "done"


@attrs.frozen(kw_only=True)
class Look(c.Command):
    """A command of the watch that fires no trigger."""


WATCH = Procedure(
    name="watch",
    title="A test procedure that a command does not start.",
    steps={Look: nothing},
    phases=WatchPhase,
    transitions=[{"trigger": "begin", "source": WatchPhase.IDLE, "dest": WatchPhase.ON}],
    initial=WatchPhase.IDLE,
    final=frozenset({WatchPhase.DONE}),
    model=Model,
)


class TestHandOffAlwaysResumes:
    @pytest.mark.parametrize(
        ("command", "why"),
        [
            (c.AddMember(name="Zed"), "campaign has no machine, so it never concludes"),
            (Halt(), "patrol cannot hand off to itself"),
            (Look(), "patrol handed off to watch with Look, which did not start it"),
        ],
    )
    def test_a_hand_off_whose_child_would_never_conclude_is_refused_and_nothing_written(self, command, why):
        """A child without a machine, the parent itself, or a child the command does not start: refused."""
        meeting = patrol(steps={**PATROL.steps, Meet: meeting_with(command)})
        h = handler(registry=Registry((CAMPAIGN, ENCOUNTER, meeting, WATCH)))
        h.execute(CAMPAIGN_ID, SetOut())
        before = version(h)
        with pytest.raises(RuleRefusedError, match=why):
            h.execute(CAMPAIGN_ID, Meet())
        assert version(h) == before
        table = h.load(CAMPAIGN_ID)
        assert (table.procedures["patrol"].phase, table.handoffs, len(table.party.members)) == (Phase.WALKING, (), 2)

    @pytest.mark.parametrize(
        ("changes", "why"),
        [
            (
                {"transitions": rows({**TRANSITIONS[4], "conditions": "not_too_far"}, drop="met")},
                "its resume trigger 'met' has no row without conditions last",
            ),
            (
                {"transitions": rows({**TRANSITIONS[4], "unless": "not_too_far"}, drop="met")},
                "its resume trigger 'met' has no row without conditions last",
            ),
            ({"transitions": rows(drop="met")}, "resumes with 'met', which its transition table does not have"),
            ({"triggers": {**PATROL.triggers, Halt: "met"}}, "no command may fire it"),
            (
                {"steps": {}, "triggers": {}, "phases": None, "model": None, "initial": None, "purposes": ()},
                "declares a resume but no machine",
            ),
        ],
    )
    def test_a_resume_that_could_be_refused_is_refused_when_declared(self, changes, why):
        """A resume trigger with conditions, missing, fired by a command, or without a machine: a registry error."""
        with pytest.raises(TypeError, match=why):
            Registry((CAMPAIGN, ENCOUNTER, patrol(**changes)))

    def test_a_resume_row_with_conditions_is_declared_when_one_without_follows_it(self):
        """A conditioned resume row may choose another way on, if a row without conditions comes last."""
        conditioned = {**TRANSITIONS[4], "conditions": "not_too_far"}
        registry = Registry((CAMPAIGN, ENCOUNTER, patrol(transitions=rows(conditioned, TRANSITIONS[4], drop="met"))))
        assert registry.runner("patrol").resumes_from(TRANSITIONS[4]["source"].name)
        with pytest.raises(TypeError, match="no row without conditions last"):
            Registry((CAMPAIGN, ENCOUNTER, patrol(transitions=rows(TRANSITIONS[4], conditioned, drop="met"))))

    def test_a_hand_off_from_a_phase_the_parent_cannot_resume_in_is_refused(self):
        """Meeting leads to DONE, which has no 'met': the hand-off is refused and nothing is written."""
        table = rows({"trigger": "meet", "source": Phase.WALKING, "dest": Phase.DONE}, drop="meet")
        h = handler(registry=Registry((CAMPAIGN, ENCOUNTER, patrol(transitions=table))))
        h.execute(CAMPAIGN_ID, SetOut())
        before = version(h)
        with pytest.raises(RuleRefusedError, match="in phase DONE: its machine has no 'met' from DONE"):
            h.execute(CAMPAIGN_ID, Meet())
        assert version(h) == before

    def test_a_waiting_parent_takes_no_step_so_it_always_resumes(self):
        """MEETING also allows a halt; while the encounter runs the patrol refuses it and offers nothing."""
        table = rows({"trigger": "halt", "source": Phase.MEETING, "dest": Phase.DONE})
        registry = Registry((CAMPAIGN, ENCOUNTER, patrol(transitions=table)))
        h = handler(registry=registry)
        h.execute(CAMPAIGN_ID, SetOut())
        h.execute(CAMPAIGN_ID, Meet())
        before = version(h)
        with pytest.raises(RuleRefusedError, match="patrol waits for encounter to conclude: 'halt' is refused"):
            h.execute(CAMPAIGN_ID, Halt())
        assert version(h) == before
        waiting = h.load(CAMPAIGN_ID)
        assert registry.runner("patrol").allowed(waiting.procedures["patrol"], waiting) == []
        assert not registry.runner("patrol").allows("halt", waiting.procedures["patrol"], waiting)
        with pytest.raises(IllegalTransitionError, match="allowed now: none"):
            h.execute(CAMPAIGN_ID, Rest())
        for command in (enc.CheckSurprise(), enc.DetermineDistance(), enc.RollInitiative()):
            h.execute(CAMPAIGN_ID, command)
        h.execute(CAMPAIGN_ID, enc.ConcludeEncounter(outcome="parted"))
        assert h.load(CAMPAIGN_ID).procedures["patrol"].phase is Phase.WALKING
        h.execute(CAMPAIGN_ID, Halt())
        assert replay(h.store, CAMPAIGN_ID, registry).ok


class TestTypedRulesPart:
    @attrs.frozen(kw_only=True)
    class Odd:
        section: ClassVar[str] = "options"
        round_seconds: str = "x"

    def test_a_part_reads_only_its_keys_and_refuses_a_value_of_the_wrong_type(self):
        """A part whose field disagrees with the ruleset's value is refused naming the key."""
        rules = handler().load(CAMPAIGN_ID).rules
        with pytest.raises(UsageError, match=r"options\.round_seconds: expected a string, got an integer"):
            rules.part(self.Odd)


def test_a_procedure_lists_each_edge_of_its_table_once_per_source() -> None:
    """A row with two sources is two edges; the order is the table's."""
    assert PATROL.edges() == [
        ("set_out", "IDLE", "WALKING"),
        ("set_out", "DONE", "WALKING"),
        ("step", "WALKING", "WALKING"),
        ("rest", "WALKING", "WALKING"),
        ("meet", "WALKING", "MEETING"),
        ("met", "MEETING", "WALKING"),
        ("halt", "WALKING", "DONE"),
    ]
