"""The encounter's opening steps: the situation, surprise, distance and the surprisers' free action."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import encounter as ev
from hexlog.events.errors import UsageError
from hexlog.events.vocabulary import FEET_PER_YARD, Setting, Side, Unit
from hexlog.machine.commands import SPEED
from hexlog.machine.encounter import positions, surprise
from hexlog.machine.encounter.commands import DISTANCE_DIVISOR, MONSTERS, SURPRISE_MODIFIER, SURPRISE_ON
from hexlog.machine.encounter.machine import encircles, situation_of
from hexlog.machine.encounter.rules import (
    CaughtDistance,
    DistanceRules,
    Encirclement,
    EncounterOptions,
    EncounterTables,
)
from hexlog.machine.encounter.state import PROCEDURE, Phase, enters, under_way

if TYPE_CHECKING:
    from hexlog.machine.encounter.commands import (
        CheckSurprise,
        DetermineDistance,
        Encircle,
        StartEncounter,
        TakeFreeAction,
    )
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.ruleset import Ruleset

#: the fastest monsters and the most of them (``commands.SPEED``, ``MONSTERS``), for the steps that follow suit
MAX_SPEED = SPEED.most
MAX_MONSTERS = MONSTERS.most
MAX_LENGTH_FT = 100_000


def start(ctx: StepContext, command: StartEncounter) -> None:
    """Open an encounter and rate each side's encounter movement."""
    before = ctx.state(PROCEDURE)
    rules = ctx.rules
    setting = _check_situation(ctx, command)
    party = ctx.table.party
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
            distance_divisor=command.distance_divisor,
            party_surprise_on=-1 if command.party_surprise_on is None else command.party_surprise_on,
            monsters_surprise_on=-1 if command.monsters_surprise_on is None else command.monsters_surprise_on,
            monsters_unsurprisable=command.monsters_unsurprisable,
            party_surprise_modifier=command.party_surprise_modifier,
            monsters_surprise_modifier=command.monsters_surprise_modifier,
            party_vision_ft=max((m.infravision_ft for m in party.members), default=0),
        ),
        movement_rated(ctx, setting, command.monster_speed),
    )


def movement_rated(ctx: StepContext, setting: Setting, monster_speed: int) -> ev.MovementRated:
    """Each side's encounter movement as an encounter in ``setting`` starts: the party at its slowest member's rate,
    the monsters at ``monster_speed``, each divided by the rules' divisor (the audit holds the record to it)."""
    options = ctx.part(EncounterOptions)
    slowest = min(ctx.table.party.members, key=lambda m: m.speed)
    divisor = options.encounter_move_divisor
    unit, times = _movement_unit(ctx, setting)
    return ev.MovementRated(
        slowest_member=slowest.name,
        party_base=slowest.speed,
        party_per_round=slowest.speed // divisor * times,
        monsters_base=monster_speed,
        monsters_per_round=monster_speed // divisor * times,
        unit=unit,
        divisor=divisor,
        max_rounds=options.encounter_move_max_rounds,
    )


def _movement_unit(ctx: StepContext, setting: Setting) -> tuple[Unit, int]:
    """The unit encounter movement is shown in, the distance's own, and what a rate is multiplied by for it.

    A rate is feet underground and yards in the open (OSE §2.7); where the rules measure the open in
    feet too (AD&D outdoors), the yards are shown as feet (x3), so one encounter never mixes the two.
    """
    natural = Unit.FT if setting.underground else Unit.YD
    row = ctx.part(EncounterTables).distance.get(setting)
    if row is not None and row.unit is Unit.FT and natural is Unit.YD:
        return Unit.FT, FEET_PER_YARD
    return natural, 1


def setting_named(rules: Ruleset, name: str) -> Setting:
    """The setting an encounter ``start`` names under ``rules``: the ruleset's first (of ``tables.distance``) when it
    names none; ``UsageError`` naming the settings when it names one the rules do not have."""
    settings = list(rules.part(EncounterTables).distance)
    name = name or settings[0]
    if name not in settings:
        msg = f"setting {name!r} is not one of the {rules.name} settings: {', '.join(settings)}"
        raise UsageError(msg)
    return Setting(name)


def _check_situation(ctx: StepContext, command: StartEncounter) -> Setting:
    """The setting (the ruleset's first by default); refuse facts the rules in force would ignore.

    At most 10,000 monsters; lengths (line of sight, area, light radius, vision) 0 to 100,000 ft.
    """
    rules, tables = ctx.rules, ctx.part(EncounterTables)
    chosen = ctx.part(EncounterOptions).distance_rules
    setting = setting_named(rules, command.setting)
    check_monster_count(command.monster_count)
    if command.distance_divisor not in DISTANCE_DIVISOR:
        low, high = DISTANCE_DIVISOR.least, DISTANCE_DIVISOR.most
        msg = f"the distance divisor must be {low} to {high}, not {command.distance_divisor}"
        raise UsageError(msg)
    if command.monster_speed not in SPEED:
        msg = f"monster speed must be {SPEED.least} to {SPEED.most} feet per turn, not {command.monster_speed}"
        raise UsageError(msg)
    lengths = {
        "line of sight": command.line_of_sight_ft,
        "area": command.area_ft,
        "light radius": command.light_radius_ft,
        "vision": command.vision_ft,
    }
    _check_surprise_facts(command)
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


def check_monster_count(count: int) -> None:
    """Refuse a monster count out of its range (``commands.MONSTERS``), at the start or in a correction."""
    if count not in MONSTERS:
        msg = f"monster count must be {MONSTERS.least} to {MONSTERS.most}, not {count}"
        raise UsageError(msg)


def _check_surprise_facts(command: StartEncounter) -> None:
    """A side's surprise chance is 0 to 6 and its adjustment within ±6."""
    chances = {
        "party surprise chance": command.party_surprise_on,
        "monsters' surprise chance": command.monsters_surprise_on,
    }
    for field, chance in chances.items():
        if chance is not None and chance not in SURPRISE_ON:
            low, high = SURPRISE_ON.least, SURPRISE_ON.most
            msg = f"{field} must be {low} to {high} (surprised on a d6 of 1 to it), not {chance}"
            raise UsageError(msg)
    for field, modifier in (
        ("party", command.party_surprise_modifier),
        ("monsters'", command.monsters_surprise_modifier),
    ):
        if modifier not in SURPRISE_MODIFIER:
            msg = f"the {field} surprise modifier must be within ±{SURPRISE_MODIFIER.most}, not {modifier:+d}"
            raise UsageError(msg)


def check_surprise(ctx: StepContext, command: CheckSurprise) -> None:  # noqa: ARG001 - the step signature
    """Roll surprise by the rules in force; a party surprised by many monsters outdoors is surrounded."""
    state = under_way(ctx)
    s, rules, members = state.started, ctx.rules, ctx.table.party.members
    options = ctx.part(EncounterOptions)
    reach = options.surprise_on
    party = surprise.Side(
        name=Side.PARTY,
        aware=s.party_aware,
        light_in_darkness=s.party_light,
        noisy=s.party_noisy,
        surprise_range=reach if s.party_surprise_on < 0 else s.party_surprise_on,
        modifier=s.party_surprise_modifier,
        wis_scores=tuple(m.wis for m in members),
        armor=surprise.worn(members),
    )
    monsters = surprise.Side(
        name=Side.MONSTERS,
        aware=s.monsters_aware,
        light_in_darkness=s.monsters_light,
        noisy=s.monsters_noisy,
        surprise_range=reach if s.monsters_surprise_on < 0 else s.monsters_surprise_on,
        modifier=s.monsters_surprise_modifier,
        unsurprisable=s.monsters_unsurprisable,
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
    if options.encirclement is not Encirclement.ALWAYS:
        return  # the referee's call: the step encircle
    if p.surprised and encircles(options, s.setting, s.monster_count):
        ctx.emit(
            ev.PartySurrounded(
                monster_count=s.monster_count,
                at_least=at_least,
                reason=f"surprised in the wilderness by {s.monster_count} monsters (at least {at_least}): encircled",
            )
        )


def encircle(ctx: StepContext, command: Encircle) -> None:
    """The referee encircles the party the monsters surprised in the open (option ``encirclement = "referee"``)."""
    state = under_way(ctx)
    s, at_least = state.started, ctx.part(EncounterOptions).surrounded_at_monsters
    said = f": {command.note.strip()}" if command.note.strip() else ""
    ctx.emit(
        ev.PartySurrounded(
            monster_count=s.monster_count,
            at_least=at_least,
            reason=f"surprised in the open by {s.monster_count} monsters (at least {at_least}): encircled at the "
            f"referee's call{said}",
        )
    )


def determine_distance(ctx: StepContext, command: DetermineDistance) -> None:
    """Roll the distance by the rules in force, or record the referee's; 004 may go straight to combat."""
    state = under_way(ctx)
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
                missiles_possible=positions.missiles_possible(ctx.rules, command.value, at_most),
                rule="referee",
                steps=(f"the referee set {command.value} {row.unit}",),
            )
        )
    elif _caught(ctx):
        row = ctx.part(EncounterTables).distance[state.setting]
        ctx.emit(
            ev.DistanceDetermined(
                value=0,
                unit=row.unit,
                melee=True,
                missiles_possible=positions.missiles_possible(ctx.rules, 0, row.missiles_at_most),
                rule=f"{ctx.part(EncounterOptions).distance_rules}.{state.setting} {CAUGHT_RULE}",
                steps=(CAUGHT_STEP,),
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
        ctx.emit(d.recorded())
    if enters(ctx, Phase.COMBAT):
        why = "both sides surprised: straight to combat, no free actions"
        ctx.emit(ev.ActionChosen(side=Side.BOTH, action=ev.Action.COMBAT, note=why))


#: the rule a caught party's distance records after the distance rules and setting (``explore.wilderness caught``,
#: under ``options.caught_distance = melee``), and its words
CAUGHT_RULE = "caught"
CAUGHT_STEP = "the pursuit caught the party: the pursuers have closed to melee, no roll (options.caught_distance)"


def _caught(ctx: StepContext) -> bool:
    """Whether this encounter is the one a wilderness pursuit handed off on catching the party (or the party stopping,
    OSE), and the rules start it at melee range (``options.caught_distance``)."""
    if ctx.part(EncounterOptions).caught_distance is not CaughtDistance.MELEE:
        return False
    from hexlog.machine.pursuit.state import PROCEDURE as PURSUIT  # noqa: PLC0415 - the pursuit imports the encounter
    from hexlog.machine.pursuit.state import Phase as PursuitPhase  # noqa: PLC0415 - likewise
    from hexlog.machine.pursuit.state import PursuitState  # noqa: PLC0415 - likewise

    pursuit = ctx.table.procedures.get(PURSUIT)
    if (PURSUIT, PROCEDURE) not in ctx.table.handoffs or not isinstance(pursuit, PursuitState):
        return False
    return (pursuit.phase is PursuitPhase.CATCH_ROLLED and pursuit.caught) or pursuit.phase is PursuitPhase.HALTED


def take_free_action(ctx: StepContext, command: TakeFreeAction) -> None:
    """Record the surprising side's free action; non-intelligent monsters then close to melee (004)."""
    state = under_way(ctx)
    if not command.action.strip():
        msg = "name the free action (move, attack, cast, flee, parley, ...)"
        raise UsageError(msg)
    side, kind = Side(state.advantage), state.advantage_kind
    assert kind is not None  # noqa: S101 - the free action follows surprise
    segments = state.free_segments(side)
    ctx.emit(ev.FreeActionTaken(side=side, kind=kind, segments=segments, action=command.action, note=command.note))
    if enters(ctx, Phase.COMBAT):
        why = "non-intelligent monsters move directly to melee"
        ctx.emit(ev.ActionChosen(side=Side.MONSTERS, action=ev.Action.COMBAT, note=why))
