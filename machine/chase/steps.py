"""The chase's steps: its start, the repeated encounter steps (A18), rounds, dropped items, a vessel's evasion.

The kit fires each command's trigger before its step runs (a refusal writes nothing) and records
the phase change after it. A round records itself, the exhaustion it brings, its conclusion, then
lets the round pass on the clock (lights burn, due checks run). A step that rolls records its
decision first; where the roll decides the way on, it fires ``settle`` (``ctx.follow``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import chase as ev
from hexlog.events.errors import UsageError
from hexlog.events.vocabulary import FEET_PER_YARD, Side, Unit
from hexlog.machine.chase import rounds
from hexlog.machine.chase.commands import RATE_FT, SETTLE
from hexlog.machine.chase.rules import PERCENT, ChaseTables, DungeonPursuitTable, evades, in_6, water_chance
from hexlog.machine.chase.state import PROCEDURE, ChaseState, Phase, under_way
from hexlog.machine.encounter import positions
from hexlog.machine.encounter.machine import situation_of
from hexlog.machine.encounter.rules import EncounterOptions
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.kit.clock import rounds as round_span

if TYPE_CHECKING:
    from hexlog.events.dice import DiceRolled
    from hexlog.machine.chase.commands import Drop, Evade, RepeatSteps, Run, StartChase
    from hexlog.machine.kit.context import StepContext

SURPRISE = "chase.surprise"
DISTANCE = "chase.distance"
DROP = "chase.drop"
EVASION = "chase.evasion"
#: the encounter's distance purposes, as the chase rolls them
_ENCOUNTER_DISTANCE = "encounter.distance"


def _pursuit(ctx: StepContext) -> DungeonPursuitTable:
    table = ctx.part(ChaseTables).dungeon_pursuit
    assert table is not None  # noqa: S101 - a dungeon chase starts only under rules that have it
    return table


def _enters(ctx: StepContext, phase: Phase) -> bool:
    change = ctx.change
    return change is not None and change.dest == phase.name


def _label(state: ChaseState) -> str:
    s = state.started
    return f"chase {s.number}" + (f" ({s.name})" if s.name else "")


def _end(ctx: StepContext, outcome: ev.Outcome, reason: str, *, melee: bool = False, retry: bool = False) -> None:
    state = under_way(ctx)
    ctx.emit(
        ev.ChaseEnded(
            number=state.started.number,
            outcome=outcome,
            rounds=state.rounds,
            gap_ft=state.gap_ft,
            melee_next_round=melee,
            retry_next_day=retry,
            reason=reason,
        )
    )


def start(ctx: StepContext, command: StartChase) -> None:
    """Record the chase's facts; a faster fleeing side escapes at once (unless forced to stop)."""
    facts = rounds.facts_of(ctx.table, command)
    before = ctx.state(PROCEDURE)
    s = facts.encounter.started if facts.encounter is not None else None
    ctx.emit(
        ev.ChaseStarted(
            number=before.started.number + 1 if isinstance(before, ChaseState) else 1,
            name=command.name or (s.name if s is not None else ""),
            setting=facts.setting,
            fleeing=facts.fleeing,
            from_encounter=command.from_encounter,
            gap_ft=facts.gap_ft,
            fleeing_ft=facts.fleeing_ft,
            pursuers_ft=facts.pursuers_ft,
            runners=tuple(m.name for m in ctx.table.party.members),
            likes_treasure=command.likes_treasure,
            hungry=command.hungry,
            intelligent=facts.intelligent,
            gives_up_out_of_sight=not command.relentless,
            line_of_sight_ft=command.line_of_sight_ft,
            forced_to_stop=command.forced_to_stop,
            note=command.note,
            fleeing_surprised=facts.fleeing_surprised,
            pursuers_surprised=facts.pursuers_surprised,
        )
    )
    if _enters(ctx, Phase.ESCAPED):
        why = f"the {facts.fleeing} are faster ({facts.fleeing_ft} against {facts.pursuers_ft} ft a round): they escape"
        _end(ctx, ev.Outcome.ESCAPED, why)


def repeat(ctx: StepContext, command: RepeatSteps) -> None:  # noqa: ARG001 - the step signature
    """A18: surprise (1d6 each side, surprised at most the rules' face) and the distance, rolled again."""
    state = under_way(ctx)
    encounter = rounds.encounter_of(ctx.table, state.started.from_encounter)
    assert encounter is not None  # noqa: S101 - only a chase from an encounter repeats its steps
    on = ctx.part(EncounterOptions).surprise_on
    party = ctx.roll("1d6", SURPRISE, made_for=Side.PARTY)
    monsters = ctx.roll("1d6", SURPRISE, made_for=Side.MONSTERS)
    surprised = (party.total <= on, monsters.total <= on)

    def roll(expression: str, purpose: str, /, *, made_for: str = "") -> DiceRolled:
        return ctx.roll(expression, DISTANCE + purpose.removeprefix(_ENCOUNTER_DISTANCE), made_for=made_for)

    found = positions.determine_distance(roll, ctx.rules, situation_of(encounter), surprised=surprised)
    gap = found.value * (FEET_PER_YARD if found.unit == Unit.YD else 1)
    ctx.emit(
        ev.StepsRepeated(
            party_face=party.faces[0],
            monsters_face=monsters.faces[0],
            surprised_on=on,
            party_surprised=surprised[0],
            monsters_surprised=surprised[1],
            gap_ft=gap,
            rule=found.rule,
            steps=found.steps,
            rolls=(party.nonce, monsters.nonce, *found.rolls),
        )
    )


def obstacle_named(command: Run) -> None:
    """What slows or stops the pursuers is an obstacle the referee names (``--obstacle``): the round's line and the
    audit's account of the referee's hand say what it was; a cost or a stop given without one is refused."""
    if (command.slows_ft or command.stops) and not command.obstacle.strip():
        given = "--stops" if command.stops else f"--slows-ft {command.slows_ft}"
        msg = f"{given} says what an obstacle does to the pursuers: name the obstacle (--obstacle, e.g. 'burning oil')"
        raise UsageError(msg)


def run(ctx: StepContext, command: Run) -> None:
    """One round: both sides run, the gap changes; exhaustion at the rules' round; the round passes."""
    state = under_way(ctx)
    rounds.check_lengths((("what the obstacle costs", command.slows_ft, RATE_FT, "ft"),))
    r = rounds.next_round(ctx.table, state, command)
    if not ctx.as_recorded:  # an earlier release recorded one unnamed; the audit names it the referee's hand
        obstacle_named(command)
    ctx.emit(
        ev.RoundRun(
            round=r.round,
            fleeing_ft=r.fleeing_ft,
            pursuers_ft=r.pursuers_ft,
            gap_before=r.gap_before,
            gap_after=r.gap_after,
            minimum_close_ft=r.minimum_close_ft,
            obstacle=command.obstacle,
            slowed_ft=r.slowed_ft,
            stopped=r.stopped,
            out_of_sight=r.out_of_sight,
            reason="; ".join(filter(None, (r.reason, command.note))),
        )
    )
    s = state.started
    if s.setting is ev.ChaseSetting.DUNGEON and s.runners:
        pursuit = _pursuit(ctx)
        if r.round == pursuit.exhaustion_rounds:
            ctx.emit(
                ev.ChaseExhausted(
                    round=r.round,
                    members=s.runners,
                    penalty=pursuit.exhaustion_penalty,
                    recover_after_turns=pursuit.recovery_turns,
                )
            )
    if _enters(ctx, Phase.CAUGHT):
        _end(ctx, ev.Outcome.CAUGHT, r.reason, melee=True)
    elif _enters(ctx, Phase.ESCAPED):
        _end(ctx, ev.Outcome.ESCAPED, r.reason)
    ctx.advance(round_span(ctx.part(ClockOptions), 1), reason=f"{_label(state)}: round {r.round}")


def drop(ctx: StepContext, command: Drop) -> None:
    """Treasure stops pursuers who like it, food hungry or unintelligent ones, on the rules' chance in 6."""
    state = under_way(ctx)
    try:
        item = ev.Dropped(command.item)
    except ValueError:
        msg = f"drop treasure or food, not {command.item!r}"
        raise UsageError(msg) from None
    s, pursuit = state.started, _pursuit(ctx)
    tempted, chance = pursuit.stop_for(
        item, likes_treasure=s.likes_treasure, hungry=s.hungry, intelligent=s.intelligent
    )
    if item is ev.Dropped.TREASURE:
        why = "they like treasure" if tempted else "they care nothing for treasure"
    else:
        why = (
            "they are " + ("hungry" if s.hungry else "unintelligent")
            if tempted
            else "they are neither hungry nor unintelligent"
        )
    face, stopped, rolls = 0, False, tuple[int, ...]()
    if tempted and chance > 0:
        rolled = ctx.roll("1d6", DROP, made_for=s.fleeing.other)
        face, rolls = rolled.faces[0], (rolled.nonce,)
        stopped = in_6(rolled.total, chance)
        why += f": {face} {'<=' if stopped else '>'} {chance} in 6"
    ctx.emit(
        ev.ItemDropped(
            item=item, tempted=tempted, stop_in_6=chance, face=face, stopped=stopped, reason=why, rolls=rolls
        )
    )
    if stopped:
        ctx.follow(SETTLE)
        _end(ctx, ev.Outcome.ESCAPED, f"the pursuers stop for the {item}")


def evade(ctx: StepContext, command: Evade) -> None:  # noqa: ARG001 - the step signature
    """The vessel's evasion: the chance by how much slower it is, 1d100 at most the chance."""
    state = under_way(ctx)
    table = ctx.part(ChaseTables).evasion_waterborne
    assert table is not None  # noqa: S101 - a waterborne chase starts only under rules that have it
    s = state.started
    slower_by, row, chance = water_chance(table, s.fleeing_ft, s.pursuers_ft)
    rolled = ctx.roll(f"1d{PERCENT}", EVASION, made_for=s.fleeing, low_is_good=True)
    evaded = evades(rolled.total, chance)
    ctx.emit(
        ev.WaterEvasionRolled(
            fleeing_ft=s.fleeing_ft,
            pursuers_ft=s.pursuers_ft,
            slower_by=slower_by,
            row=row,
            chance=chance,
            roll=rolled.total,
            evaded=evaded,
            retry_next_day=evaded,
            rolls=(rolled.nonce,),
        )
    )
    ctx.follow(SETTLE)
    if evaded:
        why = (
            f"{rolled.total} <= {chance} %: the pursuers may try again only tomorrow, "
            "if that day's encounter check comes up"
        )
        _end(ctx, ev.Outcome.ESCAPED, why, retry=True)
