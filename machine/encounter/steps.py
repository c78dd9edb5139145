"""The encounter's steps: where the rules roll the dice and decide.

The kit fires each command's trigger before its step runs (a refusal writes nothing) and records the
phase change after it. A step rolls with ``ctx.roll`` and emits the decision events, each naming the
nonces of the rolls it used. Surprise and distance are the pure rules of ``surprise`` and ``positions``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events import encounter as ev
from hexlog.events.errors import NotFoundError, UsageError
from hexlog.events.vocabulary import SIDES, Setting, Side, Unit
from hexlog.machine.encounter import positions, surprise
from hexlog.machine.encounter.commands import (
    Avoid,
    CheckSurprise,
    ConcludeEncounter,
    DecidePursuit,
    DetermineDistance,
    Evade,
    Fight,
    Parley,
    PlayRound,
    RerollReaction,
    RollInitiative,
    RollReaction,
    StartEncounter,
    TakeFreeAction,
    Wait,
)
from hexlog.machine.encounter.machine import avoid_verdict, side_of, situation_of
from hexlog.machine.encounter.rules import DistanceRules, EncounterOptions, EncounterTables, TieRule
from hexlog.machine.encounter.state import PROCEDURE, EncounterState, Phase
from hexlog.machine.kit.clock import ClockOptions, turns

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.machine.commands import Command
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.kit.procedure import Step

MAX_SPEED = 480
MAX_MONSTERS = 10_000
MAX_LENGTH_FT = 100_000
#: past ±6 the 2d6 reaction roll no longer matters; ±10 leaves room for a referee's stacking
MAX_REACTION_MODIFIER = 10
#: the open country where a surprised party may be surrounded (``outdoors`` is the AD&D name)
OPEN_COUNTRY = frozenset({Setting.WILDERNESS, Setting.OUTDOORS})


def _state(ctx: StepContext) -> EncounterState:
    """The encounter under way (the kit has fired a trigger only a running encounter allows)."""
    state = ctx.state(PROCEDURE)
    assert isinstance(state, EncounterState)  # noqa: S101 - only ``start`` is allowed without an encounter
    return state


def _dest(ctx: StepContext) -> str:
    change = ctx.change
    return "" if change is None else change.dest


def start(ctx: StepContext, command: StartEncounter) -> None:
    """Open an encounter and rate each side's encounter movement."""
    before = ctx.state(PROCEDURE)
    rules = ctx.rules
    options = ctx.part(EncounterOptions)
    setting = _check_situation(ctx, command)
    party = ctx.table.party
    slowest = min(party.members, key=lambda m: m.speed)
    divisor = options.encounter_move_divisor
    ctx.emit(
        ev.EncounterStarted(
            number=before.started.number + 1 if before else 1,
            name=command.name,
            ruleset=rules.name,
            setting=setting,
            party=tuple(m.name for m in party.members),
            party_aware=command.party_aware,
            monsters_aware=command.monsters_aware,
            party_light=command.party_light,
            monsters_light=command.monsters_light,
            party_noisy=command.party_noisy,
            monsters_noisy=command.monsters_noisy,
            monster_count=command.monster_count,
            intelligent=command.intelligent,
            monster_speed=command.monster_speed,
            terrains=tuple(command.terrains),
            line_of_sight_ft=command.line_of_sight_ft or 0,
            area_ft=command.area_ft or 0,
            light_radius_ft=command.light_radius_ft or 0,
            vision_ft=command.vision_ft or 0,
            hiding=command.hiding,
        ),
        ev.MovementRated(
            slowest_member=slowest.name,
            party_base=slowest.speed,
            party_per_round=slowest.speed // divisor,
            monsters_base=command.monster_speed,
            monsters_per_round=command.monster_speed // divisor,
            unit=Unit.FT if setting.underground else Unit.YD,
            divisor=divisor,
            max_rounds=options.encounter_move_max_rounds,
        ),
    )


def _check_situation(ctx: StepContext, command: StartEncounter) -> Setting:
    """The setting (the ruleset's first by default); refuse facts the rules in force would ignore.

    At most 10,000 monsters; lengths (line of sight, area, light radius, vision) 0 to 100,000 ft.
    """
    rules, tables = ctx.rules, ctx.part(EncounterTables)
    chosen = ctx.part(EncounterOptions).distance_rules
    settings = list(tables.distance)
    name = command.setting or settings[0]
    if name not in settings:
        msg = f"setting {name!r} is not one of the {rules.name} settings: {', '.join(settings)}"
        raise UsageError(msg)
    setting = Setting(name)
    if not 1 <= command.monster_count <= MAX_MONSTERS:
        msg = f"monster count must be 1 to {MAX_MONSTERS}, not {command.monster_count}"
        raise UsageError(msg)
    if not 0 < command.monster_speed <= MAX_SPEED:
        msg = f"monster speed must be 1 to {MAX_SPEED} feet per turn, not {command.monster_speed}"
        raise UsageError(msg)
    lengths = {
        "line of sight": command.line_of_sight_ft,
        "area": command.area_ft,
        "light radius": command.light_radius_ft,
        "vision": command.vision_ft,
    }
    for field, length in lengths.items():
        if length is not None and not 0 <= length <= MAX_LENGTH_FT:
            msg = f"{field} must be 0 to {MAX_LENGTH_FT} ft, not {length}"
            raise UsageError(msg)
    terrains = tables.outdoor_terrain
    if command.terrains and (terrains is None or setting is not Setting.OUTDOORS):
        msg = f"terrain changes the distance only under adnd outdoors, not {rules.name} {setting}"
        raise UsageError(msg)
    unknown = [t for t in command.terrains if terrains is not None and t not in terrains]
    if unknown:
        msg = f"unknown terrain {', '.join(unknown)}; known: {', '.join(terrains or ())}"
        raise UsageError(msg)
    indoor_only = {
        "area": command.area_ft,
        "light radius": command.light_radius_ft,
        "vision": command.vision_ft,
        "hiding": command.hiding or None,
    }
    given = [field for field, value in indoor_only.items() if value is not None]
    if given and not (chosen is DistanceRules.ADND and setting is Setting.INDOORS):
        msg = f"{', '.join(given)}: used only by the adnd indoors distance, not {rules.name} {setting}"
        raise UsageError(msg)
    return setting


def check_surprise(ctx: StepContext, command: CheckSurprise) -> None:  # noqa: ARG001 - the step signature
    """Roll surprise by the rules in force; a party surprised by many monsters outdoors is surrounded."""
    state = _state(ctx)
    s, rules, members = state.started, ctx.rules, ctx.table.party.members
    options = ctx.part(EncounterOptions)
    reach = options.surprise_on
    party = surprise.Side(
        name=Side.PARTY,
        aware=s.party_aware,
        light_in_darkness=s.party_light,
        noisy=s.party_noisy,
        surprise_range=reach,
        wis_scores=tuple(m.wis for m in members),
        armor=tuple(m.armor for m in members if m.armor not in {"", "none"}),
    )
    monsters = surprise.Side(
        name=Side.MONSTERS,
        aware=s.monsters_aware,
        light_in_darkness=s.monsters_light,
        noisy=s.monsters_noisy,
        surprise_range=reach,
    )
    found = surprise.check_surprise(
        ctx.roll,
        rules,
        party,
        monsters,
        setting=s.setting,
        member_names=tuple(m.name for m in members),
    )
    p, m = found.party, found.monsters
    ctx.emit(
        ev.SurpriseChecked(
            party_rolled=p.rolled,
            party_face=p.face or 0,
            party_surprised=p.surprised,
            party_segments=p.segments,
            party_characters_surprised=p.characters_surprised,
            party_reason=p.reason,
            monsters_rolled=m.rolled,
            monsters_face=m.face or 0,
            monsters_surprised=m.surprised,
            monsters_segments=m.segments,
            monsters_reason=m.reason,
            advantage=found.advantage,
            advantage_kind=found.advantage_kind,
            rolls=found.rolls,
        )
    )
    at_least = options.surrounded_at_monsters
    if at_least and s.setting in OPEN_COUNTRY and p.surprised and s.monster_count >= at_least:
        ctx.emit(
            ev.PartySurrounded(
                monster_count=s.monster_count,
                at_least=at_least,
                reason=f"surprised in the wilderness by {s.monster_count} monsters (at least {at_least}): encircled",
            )
        )


def determine_distance(ctx: StepContext, command: DetermineDistance) -> None:
    """Roll the distance by the rules in force, or record the referee's; 004 may go straight to combat."""
    state = _state(ctx)
    if command.value is not None:
        if command.value < 0:
            msg = f"a distance must not be negative, not {command.value}"
            raise UsageError(msg)
        row = ctx.part(EncounterTables).distance[state.setting]
        at_most = row.missiles_at_most
        ctx.emit(
            ev.DistanceDetermined(
                value=command.value,
                unit=row.unit,
                melee=command.value == 0,
                missiles_possible=at_most is not None and command.value <= at_most,
                rule="referee",
                steps=(f"the referee set {command.value} {row.unit}",),
            )
        )
    else:
        sur = state.surprise
        segments = 0
        if sur is not None and state.advantage_kind is ev.AdvantageKind.SEGMENTS:
            # A9: the outdoor distance loses the largest raw face among the surprised sides
            faces = ((sur.party_face, sur.party_surprised), (sur.monsters_face, sur.monsters_surprised))
            segments = max((f for f, hit in faces if hit), default=0)
        d = positions.determine_distance(
            ctx.roll,
            ctx.rules,
            situation_of(state),
            surprised=state.surprised,
            segments=segments,
        )
        ctx.emit(
            ev.DistanceDetermined(
                value=d.value,
                unit=d.unit,
                melee=d.melee,
                missiles_possible=d.missiles_possible,
                rule=d.rule,
                steps=d.steps,
                rolls=d.rolls,
            )
        )
    if _dest(ctx) == Phase.COMBAT.name:
        why = "both sides surprised: straight to combat, no free actions"
        ctx.emit(ev.ActionChosen(side=Side.BOTH, action=ev.Action.COMBAT, note=why))


def take_free_action(ctx: StepContext, command: TakeFreeAction) -> None:
    """Record the surprising side's free action; non-intelligent monsters then close to melee (004)."""
    state = _state(ctx)
    if not command.action.strip():
        msg = "name the free action (move, attack, cast, flee, parley, ...)"
        raise UsageError(msg)
    side, sur, kind = Side(state.advantage), state.surprise, state.advantage_kind
    assert kind is not None  # noqa: S101 - the free action follows surprise
    segments = 0
    if sur is not None and kind is ev.AdvantageKind.SEGMENTS:
        segments = sur.monsters_segments if side is Side.PARTY else sur.party_segments
    ctx.emit(ev.FreeActionTaken(side=side, kind=kind, segments=segments, action=command.action, note=command.note))
    if _dest(ctx) == Phase.COMBAT.name:
        why = "non-intelligent monsters move directly to melee"
        ctx.emit(ev.ActionChosen(side=Side.MONSTERS, action=ev.Action.COMBAT, note=why))


def roll_initiative(ctx: StepContext, command: RollInitiative) -> None:  # noqa: ARG001 - the step signature
    """1d6 per side that is not surprised; a lone unsurprised side gains the free round (OSE)."""
    state = _state(ctx)
    if state.advantage_kind is ev.AdvantageKind.ROUND and state.advantage is not ev.Advantage.NONE:
        ahead = Side(state.advantage)
        ctx.emit(
            ev.InitiativeRolled(
                first=ev.First(ahead),
                order=(ahead, ahead.other),
                free_round=ahead.value,
                reason=f"only the {ahead} are not surprised: they act first and alone in the first round",
            )
        )
        return
    notes = ["both sides surprised: momentary confusion, no advantage"] if all(state.surprised) else []
    options = ctx.part(EncounterOptions)
    rolls: list[int] = []
    rerolls = 0
    while True:
        faces = []
        for side in SIDES:
            rolled = ctx.roll("1d6", f"encounter.initiative.{side}", made_for=side)
            rolls.append(rolled.nonce)
            faces.append(rolled.total)
        if faces[0] != faces[1] or options.initiative_tie is not TieRule.REROLL or rerolls >= options.reroll_limit:
            break
        rerolls += 1
    tie = ev.Tie.REROLL if rerolls else (ev.Tie.SIMULTANEOUS if faces[0] == faces[1] else ev.Tie.NONE)
    if faces[0] == faces[1]:
        first, order = ev.First.SIMULTANEOUS, SIDES
        limit_note = f" after {rerolls} re-rolls (the limit)" if rerolls else ""
        notes.append(f"tie on {faces[0]}{limit_note}: both act at once")
    else:
        ahead = Side.PARTY if faces[0] > faces[1] else Side.MONSTERS
        first, order = ev.First(ahead), (ahead, ahead.other)
        if rerolls:
            notes.append(f"tied {rerolls} times, then re-rolled")
    ctx.emit(
        ev.InitiativeRolled(
            party_face=faces[0],
            monsters_face=faces[1],
            first=first,
            order=order,
            tie=tie,
            rerolls=rerolls,
            reason="; ".join(notes),
            rolls=tuple(rolls),
        )
    )


def _reaction(
    ctx: StepContext, state: EncounterState, speaker: str, modifier: int, *, reroll: bool
) -> ev.ReactionRolled:
    if abs(modifier) > MAX_REACTION_MODIFIER:
        msg = f"a situational reaction modifier must be within ±{MAX_REACTION_MODIFIER}, not {modifier:+d}"
        raise UsageError(msg)
    options, tables = ctx.part(EncounterOptions), ctx.part(EncounterTables)
    cha, cha_mod = 0, 0
    if speaker:
        member = ctx.table.party.member(speaker)
        if member is None:
            msg = f"the party has no member called {speaker}"
            raise NotFoundError(msg)
        cha = member.cha
        for least, value in tables.cha_reaction[options.cha_reaction_scale]:
            if cha >= least:
                cha_mod = value
    rolled = ctx.roll("2d6", "encounter.reaction" + (".reroll" if reroll else ""), made_for=Side.MONSTERS)
    total = rolled.total + cha_mod + modifier
    band = max((b for b in tables.reaction if total >= b.at_least), key=lambda b: b.at_least)
    return ev.ReactionRolled(
        speaker=speaker,
        cha=cha,
        cha_modifier=cha_mod,
        modifier=modifier,
        dice=rolled.total,
        total=total,
        result=band.result,
        text=band.text,
        round=state.rounds,
        reroll=reroll,
        rolls=(rolled.nonce,),
    )


def react(ctx: StepContext, command: RollReaction) -> None:
    """Roll the monsters' reaction: 2d6 + the speaker's CHA modifier, read on the reaction table."""
    state = _state(ctx)
    ctx.emit(_reaction(ctx, state, command.speaker, command.modifier, reroll=False))


def reroll_reaction(ctx: StepContext, command: RerollReaction) -> None:
    """Roll an uncertain reaction once more, a round or more after it."""
    state = _state(ctx)
    last = state.reaction
    speaker = command.speaker if command.speaker is not None else (last.speaker if last else "")
    ctx.emit(_reaction(ctx, state, speaker, command.modifier, reroll=True))


def choose(action: ev.Action) -> Callable[[StepContext, Any], None]:
    """The step of a command that records one side's chosen action."""

    def run(ctx: StepContext, command: Any) -> None:
        ctx.emit(ev.ActionChosen(side=side_of(command), action=action, note=command.note))

    run.__doc__ = f"Record a side's choice of {action}."
    return run


def play_round(ctx: StepContext, command: PlayRound) -> None:
    """One round passes; in the first, a side surprised under the one-round advantage cannot act."""
    state = _state(ctx)
    number = state.rounds + 1
    acting: tuple[Side, ...] = SIDES
    reason = ""
    ahead, sur = state.advantage, state.surprise
    if number == 1 and ahead is not ev.Advantage.NONE and sur is not None:
        leader = Side(ahead)
        if state.advantage_kind is ev.AdvantageKind.ROUND:
            acting, reason = (leader,), f"the {leader.other} are surprised and cannot act in the first round"
        elif state.advantage_kind is ev.AdvantageKind.SEGMENTS:
            lost = sur.party_segments if leader is Side.MONSTERS else sur.monsters_segments
            reason = f"the {leader.other} lose the first {lost} segments of this round"
    ctx.emit(
        ev.RoundPlayed(
            round=number,
            combat=state.phase is Phase.COMBAT,
            acting=acting,
            reason=reason,
            note=command.note,
        )
    )


def decide_pursuit(ctx: StepContext, command: DecidePursuit) -> None:
    """The side fled from decides; for monsters a reaction total at most the threshold suggests pursuit."""
    state = _state(ctx)
    fleeing = state.fleeing or Side.PARTY
    pursuer = fleeing.other
    at_most = ctx.part(EncounterOptions).pursue_if_reaction_at_most
    if pursuer is Side.PARTY:
        if command.pursue is None:
            msg = "the players decide freely whether the party pursues: say pursue or not"
            raise UsageError(msg)
        decision = ev.PursuitDecided(
            pursuer=pursuer,
            fleeing=fleeing,
            pursue=command.pursue,
            decided_by=ev.DecidedBy.PLAYERS,
            note=command.note,
        )
    else:
        last = state.reaction
        rolls: tuple[int, ...] = ()
        if last is None and command.pursue is None:
            last = _reaction(ctx, state, "", 0, reroll=False)
            rolls = last.rolls
        total = last.total if last is not None else 0
        suggested = last is not None and total <= at_most
        basis = "no reaction rolled"
        if last is not None:
            basis = f"reaction {total} {'<=' if suggested else '>'} {at_most}"
        pursue = suggested if command.pursue is None else command.pursue
        decision = ev.PursuitDecided(
            pursuer=pursuer,
            fleeing=fleeing,
            pursue=pursue,
            suggested=suggested,
            reaction_total=total,
            at_most=at_most,
            decided_by=ev.DecidedBy.REACTION if command.pursue is None else ev.DecidedBy.REFEREE,
            note="; ".join(filter(None, (basis, command.note))),
            rolls=rolls,
        )
    ctx.emit(decision)
    verb = "pursue" if decision.pursue else f"let the {fleeing} go"
    _conclude(ctx, state, "pursuit" if decision.pursue else "evaded", f"the {pursuer} {verb}")


def avoid(ctx: StepContext, command: Avoid) -> None:
    """AD&D: a side slips away unnoticed and the encounter is avoided."""
    state = _state(ctx)
    side = side_of(command)
    _, why = avoid_verdict(ctx.rules, state, side, command)
    ctx.emit(ev.ActionChosen(side=side, action=ev.Action.AVOID, note=why))
    _conclude(ctx, state, "avoided", why)


def conclude(ctx: StepContext, command: ConcludeEncounter) -> None:
    """End the encounter."""
    state = _state(ctx)
    if not command.outcome.strip():
        msg = "name the outcome (resolved, fled, slain, ...)"
        raise UsageError(msg)
    _conclude(ctx, state, command.outcome, command.note)


def _conclude(ctx: StepContext, state: EncounterState, outcome: str, reason: str) -> None:
    """The conclusion: at least one full turn passes, or the rounds used rounded up to whole turns."""
    clock = ctx.part(ClockOptions)
    spent = max(1, -(-state.rounds * clock.round_seconds // clock.turn_seconds))
    span = turns(clock, spent)
    label = f"encounter {state.started.number}" + (f" ({state.started.name})" if state.started.name else "")
    ctx.emit(
        ev.EncounterConcluded(
            number=state.started.number,
            outcome=outcome,
            rounds=state.rounds,
            turns=spent,
            seconds=span.seconds,
            reason=reason,
        )
    )
    ctx.advance(span, reason=f"{label}: {outcome}")


STEPS: dict[type[Command], Step] = {
    StartEncounter: start,
    CheckSurprise: check_surprise,
    DetermineDistance: determine_distance,
    TakeFreeAction: take_free_action,
    RollInitiative: roll_initiative,
    RollReaction: react,
    RerollReaction: reroll_reaction,
    Parley: choose(ev.Action.PARLEY),
    Wait: choose(ev.Action.WAIT),
    PlayRound: play_round,
    Fight: choose(ev.Action.COMBAT),
    Evade: choose(ev.Action.EVASION),
    DecidePursuit: decide_pursuit,
    Avoid: avoid,
    ConcludeEncounter: conclude,
}
