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
from hexlog.machine.campaign import CAMPAIGN
from hexlog.machine.encounter import ENCOUNTER
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.clock import ClockOptions, turns
from hexlog.machine.kit.model import Model
from hexlog.machine.kit.procedure import DueCheck, Procedure, Resume
from hexlog.machine.kit.registry import Registry
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


def handler(faces: list[int] | None = None, *, committed: bool = False) -> Handler:
    """A handler on a fresh store with the test registry, a session and a party of two.

    Its dice are a script (every face 3 unless given), or the session's committed dice.
    """
    script = faces if faces is not None else [3] * 200
    roller = None if committed else (lambda _table: ScriptedRoller(script))
    h = Handler(MemoryStore(), MemoryKeeper(), registry=REGISTRY, roller=roller)
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
        twin = attrs.evolve(PATROL, name="twin", steps={}, triggers={}, phases=None, model=None, initial=None)
        with pytest.raises(TypeError, match="same roll purpose"):
            Registry((CAMPAIGN, PATROL, twin))

    def test_an_unknown_command_is_refused_before_anything_is_read(self):
        """A command no procedure declares is a usage error naming it."""

        @attrs.frozen(kw_only=True)
        class Dance(c.Command):
            pass

        h = handler()
        before = h.store.stream_version(stream_for(CAMPAIGN_ID))
        with pytest.raises(UsageError, match="unknown command Dance"):
            h.execute(CAMPAIGN_ID, Dance())
        assert h.store.stream_version(stream_for(CAMPAIGN_ID)) == before

    def test_the_used_keys_are_those_the_typed_parts_read(self):
        """A key is used when a registered procedure's typed part declares it, and unused otherwise."""
        used = REGISTRY.used_keys()
        assert ("options", "round_seconds") in used
        assert ("options", "initiative_tie") in used
        assert ("tables", "distance") in used
        assert ("options", "evasion_table") not in used
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

    def test_the_resume_trigger_is_never_offered_as_a_step(self):
        """``met`` is the kit's to fire when the encounter concludes, not the referee's."""
        assert REGISTRY.runner("patrol").triggers(Phase.MEETING) == ["met"]
        assert "met" not in REGISTRY.runner("patrol").commands

    def test_the_recorded_transition_check_follows_the_table(self):
        """Every row of the table is a recorded transition the audit accepts, and nothing else."""
        runner = REGISTRY.runner("patrol")
        assert runner.recorded_ok("set_out", "DONE", "WALKING")
        assert runner.recorded_ok("met", "MEETING", "WALKING")
        assert not runner.recorded_ok("set_out", "WALKING", "WALKING")
        assert not runner.recorded_ok("fly", "WALKING", "DONE")


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
        with pytest.raises(IllegalTransitionError, match="allowed now: none"):
            h.execute(CAMPAIGN_ID, Halt())

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
