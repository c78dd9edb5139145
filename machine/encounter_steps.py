"""The encounter's steps: where the rules roll the dice and decide.

Each step fires its trigger first (a refusal writes nothing), then rolls with ``step.roll`` and emits
the decision events, each naming the nonces of the rolls it used, and last the ``PhaseChanged``.
Surprise and distance are the pure rules of ``surprise`` and ``positions``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events import encounter as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.errors import NotFoundError, UsageError
from hexlog.machine import positions, surprise
from hexlog.machine.commands import Command
from hexlog.machine.encounter import (
    PROCEDURE,
    EncounterState,
    Phase,
    avoid_verdict,
    fire,
    option,
    other,
    situation_of,
)
from hexlog.machine.encounter_commands import (
    TRIGGERS,
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
from hexlog.machine.handler import register
from hexlog.machine.ruleset import Ruleset

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.procedure import PhaseChanged
    from hexlog.machine.handler import Context
    from hexlog.machine.step import Step


MAX_SPEED = 480
#: past ±6 the 2d6 reaction roll no longer matters; ±10 leaves room for a referee's stacking
MAX_REACTION_MODIFIER = 10
UNDERGROUND = frozenset({"dungeon", "indoors"})
#: the open country where a surprised party may be surrounded (``outdoors`` is the AD&D name)
OPEN_COUNTRY = frozenset({"wilderness", "outdoors"})


def _fire_any(step: Step, command: Command) -> tuple[EncounterState | None, PhaseChanged]:
    """Fire the command's trigger on the folded encounter (a refusal raises, writing nothing)."""
    encounter: EncounterState | None = step.table.procedures.get(PROCEDURE)
    return encounter, fire(TRIGGERS[type(command)], encounter, step.rules, step.table.party, command)


def _fire(step: Step, command: Command) -> tuple[EncounterState, PhaseChanged]:
    """As ``_fire_any``, for the triggers that only a running encounter allows."""
    encounter, change = _fire_any(step, command)
    assert encounter is not None  # noqa: S101 - only ``start`` is allowed without an encounter
    return encounter, change


def _roll(step: Step) -> positions.Roll:
    return step.roll


def _side(value: str) -> str:
    if value not in ev.SIDES:
        msg = f"side must be one of {', '.join(ev.SIDES)}, not {value!r}"
        raise UsageError(msg)
    return value


def start(step: Step, command: StartEncounter) -> None:
    """Open an encounter and rate each side's encounter movement."""
    before, change = _fire_any(step, command)
    rules = step.rules
    setting = _check_situation(rules, command)
    party = step.table.party
    slowest = min(party.members, key=lambda m: m.speed)
    divisor = int(option(rules, "encounter_move_divisor"))
    step.emit(
        ev.EncounterStarted(
            number=before.started.number + 1 if before else 1, name=command.name, ruleset=rules.name,
            setting=setting, party=tuple(m.name for m in party.members),
            party_aware=command.party_aware, monsters_aware=command.monsters_aware,
            party_light=command.party_light, monsters_light=command.monsters_light,
            party_noisy=command.party_noisy, monsters_noisy=command.monsters_noisy,
            monster_count=command.monster_count, intelligent=command.intelligent,
            monster_speed=command.monster_speed, terrains=tuple(command.terrains),
            line_of_sight_ft=command.line_of_sight_ft or 0, area_ft=command.area_ft or 0,
            light_radius_ft=command.light_radius_ft or 0, vision_ft=command.vision_ft or 0,
            hiding=command.hiding,
        ),
        ev.MovementRated(
            slowest_member=slowest.name, party_base=slowest.speed, party_per_round=slowest.speed // divisor,
            monsters_base=command.monster_speed, monsters_per_round=command.monster_speed // divisor,
            unit="ft" if setting in UNDERGROUND else "yd", divisor=divisor,
            max_rounds=int(option(rules, "encounter_move_max_rounds")),
        ),
        change,
    )


def _check_situation(rules: Ruleset, command: StartEncounter) -> str:
    """The setting (the ruleset's first by default); refuse facts the rules in force would ignore.

    At most 10,000 monsters; lengths (line of sight, area, light radius, vision) 0 to 100,000 ft.
    """
    max_monsters, max_length_ft = 10_000, 100_000
    settings = list(rules.table("distance"))
    setting = command.setting or settings[0]
    if setting not in settings:
        msg = f"setting {setting!r} is not one of the {rules.name} settings: {', '.join(settings)}"
        raise UsageError(msg)
    if not 1 <= command.monster_count <= max_monsters:
        msg = f"monster count must be 1 to {max_monsters}, not {command.monster_count}"
        raise UsageError(msg)
    if not 0 < command.monster_speed <= MAX_SPEED:
        msg = f"monster speed must be 1 to {MAX_SPEED} feet per turn, not {command.monster_speed}"
        raise UsageError(msg)
    lengths = {
        "line of sight": command.line_of_sight_ft, "area": command.area_ft,
        "light radius": command.light_radius_ft, "vision": command.vision_ft,
    }
    for field, length in lengths.items():
        if length is not None and not 0 <= length <= max_length_ft:
            msg = f"{field} must be 0 to {max_length_ft} ft, not {length}"
            raise UsageError(msg)
    terrains = rules.content.get("tables", {}).get("outdoor_terrain")
    if command.terrains and (terrains is None or setting != "outdoors"):
        msg = f"terrain changes the distance only under adnd outdoors, not {rules.name} {setting}"
        raise UsageError(msg)
    unknown = [t for t in command.terrains if terrains is not None and t not in terrains]
    if unknown:
        msg = f"unknown terrain {', '.join(unknown)}; known: {', '.join(terrains)}"
        raise UsageError(msg)
    indoor_only = {
        "area": command.area_ft, "light radius": command.light_radius_ft, "vision": command.vision_ft,
        "hiding": command.hiding or None,
    }
    given = [name for name, value in indoor_only.items() if value is not None]
    if given and not (rules.name == "adnd" and setting == "indoors"):
        msg = f"{', '.join(given)}: used only by the adnd indoors distance, not {rules.name} {setting}"
        raise UsageError(msg)
    return setting


def check_surprise(step: Step, command: CheckSurprise) -> None:
    """Roll surprise by the rules in force; a party surprised by many monsters outdoors is surrounded."""
    state, change = _fire(step, command)
    s, rules, members = state.started, step.rules, step.table.party.members
    reach = int(rules.content.get("options", {}).get("surprise_on", 2))
    party = surprise.Side(
        name=ev.PARTY, aware=s.party_aware, light_in_darkness=s.party_light, noisy=s.party_noisy,
        surprise_range=reach, wis_scores=tuple(m.wis for m in members),
        armor=tuple(m.armor for m in members if m.armor not in {"", "none"}),
    )
    monsters = surprise.Side(
        name=ev.MONSTERS, aware=s.monsters_aware, light_in_darkness=s.monsters_light, noisy=s.monsters_noisy,
        surprise_range=reach,
    )
    found = surprise.check_surprise(
        _roll(step), rules, party, monsters, setting=s.setting, member_names=tuple(m.name for m in members),
    )
    p, m = found.party, found.monsters
    step.emit(ev.SurpriseChecked(
        party_rolled=p.rolled, party_face=p.face or 0, party_surprised=p.surprised, party_segments=p.segments,
        party_characters_surprised=p.characters_surprised, party_reason=p.reason,
        monsters_rolled=m.rolled, monsters_face=m.face or 0, monsters_surprised=m.surprised,
        monsters_segments=m.segments, monsters_reason=m.reason,
        advantage=found.advantage, advantage_kind=found.advantage_kind, rolls=found.rolls,
    ))
    at_least = int(option(rules, "surrounded_at_monsters"))
    if at_least and s.setting in OPEN_COUNTRY and p.surprised and s.monster_count >= at_least:
        step.emit(ev.PartySurrounded(
            monster_count=s.monster_count, at_least=at_least,
            reason=f"surprised in the wilderness by {s.monster_count} monsters (at least {at_least}): encircled",
        ))
    step.emit(change)


def determine_distance(step: Step, command: DetermineDistance) -> None:
    """Roll the distance by the rules in force, or record the referee's; 004 may go straight to combat."""
    state, change = _fire(step, command)
    rules = step.rules
    if command.value is not None:
        if command.value < 0:
            msg = f"a distance must not be negative, not {command.value}"
            raise UsageError(msg)
        row = rules.table("distance")[state.setting]
        unit = str(row.get("unit", "ft"))
        at_most = row.get("missiles_at_most")
        step.emit(ev.DistanceDetermined(
            value=command.value, unit=unit, melee=command.value == 0,
            missiles_possible=at_most is not None and command.value <= at_most,
            rule="referee", steps=(f"the referee set {command.value} {unit}",),
        ))
    else:
        sur = state.surprise
        segments = 0
        if sur is not None and state.advantage_kind == "segments":
            # A9: the outdoor distance loses the largest raw face among the surprised sides
            faces = ((sur.party_face, sur.party_surprised), (sur.monsters_face, sur.monsters_surprised))
            segments = max((f for f, hit in faces if hit), default=0)
        d = positions.determine_distance(
            _roll(step), rules, situation_of(state), surprised=state.surprised, segments=segments,
        )
        step.emit(ev.DistanceDetermined(
            value=d.value, unit=d.unit, melee=d.melee, missiles_possible=d.missiles_possible,
            rule=d.rule, steps=d.steps, rolls=d.rolls,
        ))
    if change.dest == Phase.COMBAT.name:
        why = "both sides surprised: straight to combat, no free actions"
        step.emit(ev.ActionChosen(side="both", action="combat", note=why))
    step.emit(change)


def take_free_action(step: Step, command: TakeFreeAction) -> None:
    """Record the surprising side's free action; non-intelligent monsters then close to melee (004)."""
    state, change = _fire(step, command)
    if not command.action.strip():
        msg = "name the free action (move, attack, cast, flee, parley, ...)"
        raise UsageError(msg)
    side, sur = state.advantage, state.surprise
    segments = 0
    if sur is not None and state.advantage_kind == "segments":
        segments = sur.monsters_segments if side == ev.PARTY else sur.party_segments
    step.emit(ev.FreeActionTaken(
        side=side, kind=state.advantage_kind, segments=segments, action=command.action, note=command.note,
    ))
    if change.dest == Phase.COMBAT.name:
        why = "non-intelligent monsters move directly to melee"
        step.emit(ev.ActionChosen(side=ev.MONSTERS, action="combat", note=why))
    step.emit(change)


def roll_initiative(step: Step, command: RollInitiative) -> None:
    """1d6 per side that is not surprised; a lone unsurprised side gains the free round (OSE)."""
    state, change = _fire(step, command)
    if state.advantage_kind == "round" and state.advantage != "none":
        ahead = state.advantage
        step.emit(ev.InitiativeRolled(
            first=ahead, order=(ahead, other(ahead)), free_round=ahead,
            reason=f"only the {ahead} are not surprised: they act first and alone in the first round",
        ), change)
        return
    notes = ["both sides surprised: momentary confusion, no advantage"] if all(state.surprised) else []
    tie_rule, limit = str(option(step.rules, "initiative_tie")), int(option(step.rules, "reroll_limit"))
    rolls: list[int] = []
    rerolls = 0
    while True:
        faces = []
        for side in ev.SIDES:
            rolled = step.roll("1d6", f"encounter.initiative.{side}")
            rolls.append(rolled.nonce)
            faces.append(rolled.total)
        if faces[0] != faces[1] or tie_rule != "reroll" or rerolls >= limit:
            break
        rerolls += 1
    tie = "reroll" if rerolls else ("simultaneous" if faces[0] == faces[1] else "none")
    if faces[0] == faces[1]:
        first, order = "simultaneous", ev.SIDES
        limit_note = f" after {rerolls} re-rolls (the limit)" if rerolls else ""
        notes.append(f"tie on {faces[0]}{limit_note}: both act at once")
    else:
        first = ev.PARTY if faces[0] > faces[1] else ev.MONSTERS
        order = (first, other(first))
        if rerolls:
            notes.append(f"tied {rerolls} times, then re-rolled")
    step.emit(ev.InitiativeRolled(
        party_face=faces[0], monsters_face=faces[1], first=first, order=order, tie=tie, rerolls=rerolls,
        reason="; ".join(notes), rolls=tuple(rolls),
    ), change)


def _reaction(step: Step, state: EncounterState, speaker: str, modifier: int, *, reroll: bool) -> ev.ReactionRolled:
    if abs(modifier) > MAX_REACTION_MODIFIER:
        msg = f"a situational reaction modifier must be within ±{MAX_REACTION_MODIFIER}, not {modifier:+d}"
        raise UsageError(msg)
    rules, cha, cha_mod = step.rules, 0, 0
    if speaker:
        member = step.table.party.member(speaker)
        if member is None:
            msg = f"the party has no member called {speaker}"
            raise NotFoundError(msg)
        cha = member.cha
        for least, value in rules.table("cha_reaction")[rules.option("cha_reaction_scale")]:
            if cha >= least:
                cha_mod = int(value)
    rolled = step.roll("2d6", "encounter.reaction" + (".reroll" if reroll else ""))
    total = rolled.total + cha_mod + modifier
    band = max((b for b in rules.table("reaction") if total >= b["at_least"]), key=lambda b: b["at_least"])
    return ev.ReactionRolled(
        speaker=speaker, cha=cha, cha_modifier=cha_mod, modifier=modifier, dice=rolled.total, total=total,
        result=band["result"], text=band.get("text", ""), round=state.rounds, reroll=reroll, rolls=(rolled.nonce,),
    )


def react(step: Step, command: RollReaction) -> None:
    """Roll the monsters' reaction: 2d6 + the speaker's CHA modifier, read on the reaction table."""
    state, change = _fire(step, command)
    step.emit(_reaction(step, state, command.speaker, command.modifier, reroll=False), change)


def reroll_reaction(step: Step, command: RerollReaction) -> None:
    """Roll an uncertain reaction once more, a round or more after it."""
    state, change = _fire(step, command)
    last = state.reaction
    speaker = command.speaker if command.speaker is not None else (last.speaker if last else "")
    step.emit(_reaction(step, state, speaker, command.modifier, reroll=True), change)


def choose(action: str) -> Callable[[Step, Any], None]:
    """The step of a command that records one side's chosen action."""

    def run(step: Step, command: Any) -> None:
        _, change = _fire(step, command)
        side = _side(command.side)
        step.emit(ev.ActionChosen(side=side, action=action, note=command.note), change)

    run.__doc__ = f"Record a side's choice of {action}."
    return run


def play_round(step: Step, command: PlayRound) -> None:
    """One round passes; in the first, a side surprised under the one-round advantage cannot act."""
    state, change = _fire(step, command)
    number = state.rounds + 1
    acting: tuple[str, ...] = ev.SIDES
    reason = ""
    ahead, sur = state.advantage, state.surprise
    if number == 1 and ahead != "none" and sur is not None:
        if state.advantage_kind == "round":
            acting, reason = (ahead,), f"the {other(ahead)} are surprised and cannot act in the first round"
        elif state.advantage_kind == "segments":
            lost = sur.party_segments if ahead == ev.MONSTERS else sur.monsters_segments
            reason = f"the {other(ahead)} lose the first {lost} segments of this round"
    step.emit(ev.RoundPlayed(
        round=number, combat=state.phase == Phase.COMBAT, acting=acting, reason=reason, note=command.note,
    ), change)


def decide_pursuit(step: Step, command: DecidePursuit) -> None:
    """The side fled from decides; for monsters a reaction total at most the threshold suggests pursuit."""
    state, change = _fire(step, command)
    fleeing = state.fleeing
    pursuer = other(fleeing)
    at_most = int(option(step.rules, "pursue_if_reaction_at_most"))
    if pursuer == ev.PARTY:
        if command.pursue is None:
            msg = "the players decide freely whether the party pursues: say pursue or not"
            raise UsageError(msg)
        decision = ev.PursuitDecided(
            pursuer=pursuer, fleeing=fleeing, pursue=command.pursue, decided_by="players", note=command.note,
        )
    else:
        last = state.reaction
        rolls: tuple[int, ...] = ()
        if last is None and command.pursue is None:
            last = _reaction(step, state, "", 0, reroll=False)
            rolls = last.rolls
        total = last.total if last is not None else 0
        suggested = last is not None and total <= at_most
        basis = "no reaction rolled"
        if last is not None:
            basis = f"reaction {total} {'<=' if suggested else '>'} {at_most}"
        pursue = suggested if command.pursue is None else command.pursue
        decision = ev.PursuitDecided(
            pursuer=pursuer, fleeing=fleeing, pursue=pursue, suggested=suggested, reaction_total=total,
            at_most=at_most, decided_by="reaction" if command.pursue is None else "referee",
            note="; ".join(filter(None, (basis, command.note))), rolls=rolls,
        )
    step.emit(decision)
    _conclude(step, state, "pursuit" if decision.pursue else "evaded",
              f"the {pursuer} {'pursue' if decision.pursue else 'let the ' + fleeing + ' go'}")
    step.emit(change)


def avoid(step: Step, command: Avoid) -> None:
    """AD&D: a side slips away unnoticed and the encounter is avoided."""
    state, change = _fire(step, command)
    side = _side(command.side)
    _, why = avoid_verdict(step.rules, state, side, command)
    step.emit(ev.ActionChosen(side=side, action="avoid", note=why))
    _conclude(step, state, "avoided", why)
    step.emit(change)


def conclude(step: Step, command: ConcludeEncounter) -> None:
    """End the encounter."""
    state, change = _fire(step, command)
    if not command.outcome.strip():
        msg = "name the outcome (resolved, fled, slain, ...)"
        raise UsageError(msg)
    _conclude(step, state, command.outcome, command.note)
    step.emit(change)


def _conclude(step: Step, state: EncounterState, outcome: str, reason: str) -> None:
    """The conclusion: at least one full turn passes, or the rounds used rounded up to whole turns."""
    round_s, turn_s = int(step.rules.option("round_seconds")), int(step.rules.option("turn_seconds"))
    turns = max(1, -(-state.rounds * round_s // turn_s))
    seconds = turns * turn_s
    label = f"encounter {state.started.number}" + (f" ({state.started.name})" if state.started.name else "")
    step.emit(
        ev.EncounterConcluded(
            number=state.started.number, outcome=outcome, rounds=state.rounds, turns=turns, seconds=seconds,
            reason=reason,
        ),
        ClockAdvanced(seconds=seconds, rounds=seconds // round_s, turns=turns, reason=f"{label}: {outcome}"),
    )


def _drop_context(fn: Callable[[Step, Any], None]) -> Callable[[Step, Any, Context], None]:
    return lambda step, command, _ctx: fn(step, command)


STEPS: dict[type[Command], Callable[[Step, Any], None]] = {
    StartEncounter: start, CheckSurprise: check_surprise, DetermineDistance: determine_distance,
    TakeFreeAction: take_free_action, RollInitiative: roll_initiative, RollReaction: react,
    RerollReaction: reroll_reaction, Parley: choose("parley"), Wait: choose("wait"), PlayRound: play_round,
    Fight: choose("combat"), Evade: choose("evasion"), DecidePursuit: decide_pursuit, Avoid: avoid,
    ConcludeEncounter: conclude,
}
for _command, _step in STEPS.items():
    register(_command, _drop_context(_step))
