"""The camp's steps: where the night's rules roll the dice and decide, one per command.

The kit fires each command's trigger before its step runs (a refusal writes nothing) and records the
phase change after it. The pure rules are in ``night``; here they meet the table, the dice and the
clock. The night check is the referee's secret roll (its decision names it in ``referee_rolls``);
an encounter it finds is handed to the encounter procedure when the referee describes it (``meet``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events import camp as ev
from hexlog.events.dice import RollModifier, Visibility
from hexlog.events.errors import UsageError
from hexlog.events.vocabulary import Setting, Side
from hexlog.machine.camp import night
from hexlog.machine.camp.rules import CampTable, CampTables
from hexlog.machine.camp.state import PROCEDURE, CampState, Phase, under_way
from hexlog.machine.encounter import StartEncounter, surprise
from hexlog.machine.encounter.rules import EncounterOptions
from hexlog.machine.encounter.state import PROCEDURE as ENCOUNTER
from hexlog.machine.encounter.state import EncounterState
from hexlog.machine.evasion import EvasionOptions
from hexlog.machine.hexmap.rules import MapTables
from hexlog.machine.hexmap.state import PROCEDURE as MAP
from hexlog.machine.hexmap.state import MapState
from hexlog.machine.kit.clock import ClockOptions, Span
from hexlog.machine.pursuit import handover
from hexlog.machine.travel.rules import ChanceSource, TerrainChances, TravelTables, WildernessTables
from hexlog.machine.travel.state import PROCEDURE as TRAVEL
from hexlog.machine.travel.state import TravelState
from hexlog.machine.travel.terrain import row, seen, terrain_row

if TYPE_CHECKING:
    from hexlog.machine.camp.commands import (
        BreakCamp,
        CheckNight,
        CheckNightByRow,
        CheckNightWatchOnEncounter,
        GatherFirewood,
        MakeCamp,
        MeetEncounter,
        SetWatches,
    )
    from hexlog.machine.kit.context import ChildConcluded, StepContext
    from hexlog.machine.ruleset import Ruleset
    from hexlog.machine.table import Table

FIREWOOD = "camp.firewood"
NIGHT_CHECK = "camp.night_check"
WATCH = "camp.watch"
PURPOSES = (FIREWOOD, NIGHT_CHECK, WATCH)
#: the roll the sleepers' surprise modifies: the party's side of the encounter's surprise check
PARTY_SURPRISE = f"{surprise.PURPOSE}.{Side.PARTY}"


def camp_table(rules: Ruleset) -> CampTable:
    """The camp table in force (the machine refuses a camp under rules without one)."""
    table = rules.part(CampTables).camp
    assert table is not None  # noqa: S101 - ``make`` needs a camp table
    return table


def ground(rules: Ruleset, given: str) -> str:
    """The ground ``given`` names: a terrain a hex may have under the rules (``MapTables.terrains``), read as a hex's
    is (``Tangled_Forest`` is tangled_forest); ``UsageError`` naming the grounds the rules know for any other, a row of
    the chances such as Dolmenwood's moderate included: the night's check reads the row from the ground, and a pursuit
    from the camp needs ground."""
    name = given.strip().lower()
    known = rules.part(MapTables).terrains()
    if name in known:
        return name
    source = rules.part(ChanceSource).lost_encounter_source
    grounds = ", ".join(sorted(known))
    if name in (rules.part(TerrainChances).lost_encounter or {}).get(str(source), {}):
        msg = (
            f"terrain {given!r} is a row of the {source} chances, not ground: the night's wandering check reads the "
            f"row from the ground, and a pursuit from the camp needs ground; name one the rules know: {grounds} "
            "(--terrain)"
        )
    else:
        msg = (
            f"terrain {given!r} is no ground the rules know: {grounds} (--terrain; the night's wandering check reads "
            f"its row of the {source} chances)"
        )
    raise UsageError(msg)


def night_row(rules: Ruleset, place: str) -> tuple[str, tuple[int, ...]]:
    """The row of the chances in force ground of ``place`` reads (``travel.terrain.terrain_row``, off a road or track:
    a camp is pitched on the ground), and its faces that mean an encounter; ``UsageError`` when the rules' table has
    no such row."""
    name, _ = terrain_row(rules, place)
    source = rules.part(ChanceSource).lost_encounter_source
    rows = (rules.part(TerrainChances).lost_encounter or {}).get(str(source), {})
    if name not in rows:
        msg = f"{place} reads the row {name!r}, which the {source} chances do not have (tables.lost_encounter.{source})"
        raise UsageError(msg)
    return name, rows[name].encounter


def _encounter_on(rules: Ruleset, terrain: str) -> tuple[int, ...]:
    """The faces that mean an encounter in the row ``terrain`` names, as releases before ``camp.night_checked``
    version 3 read them (the audit re-runs such a check so); ``UsageError`` naming the rows known."""
    source = rules.part(ChanceSource).lost_encounter_source
    rows = (rules.part(TerrainChances).lost_encounter or {}).get(str(source), {})
    if terrain not in rows:
        known = ", ".join(rows) or "(none)"
        given = f"terrain {terrain!r} is not one" if terrain else "no terrain is given; name one"
        msg = f"{given} of the {source} terrains the night's wandering check reads: {known} (--terrain)"
        raise UsageError(msg)
    return rows[terrain].encounter


def from_the_journey(ctx: StepContext, command: MakeCamp, *, by_row: bool = False) -> MakeCamp:
    """What the referee left out, taken from a journey under way: its weather, season and the ground of the hex the
    party believes it is in (the camp is made in public: a lost party's true hex would tell the players its terrain);
    with ``by_row``, that hex's row of the chances, as releases before ``camp.made`` version 2 took it."""
    trip = ctx.state(TRAVEL)
    if not isinstance(trip, TravelState) or not trip.hex:
        return command
    weather = command.weather or trip.weather
    winter = command.winter or trip.season == "winter"
    terrain = command.terrain
    found = ctx.state(MAP)
    place = seen(found, trip) if isinstance(found, MapState) else None
    if not terrain and place is not None:
        terrain = row(ctx.rules, place)[0] if by_row else place.terrain
    return attrs.evolve(command, weather=weather, winter=winter, terrain=terrain)


def make(ctx: StepContext, command: MakeCamp) -> None:
    """Set up camp: the day's weather (wet or not), winter, and the ground whose row of the chances the night's check
    reads (and a pursuit from the camp is handed).

    On a journey, what the referee does not give is the journey's: today's weather, the season, and
    the ground of the hex the party believes it is in (its true hex unless it is lost).
    """
    before = ctx.state(PROCEDURE)
    rules = ctx.rules
    command = from_the_journey(ctx, command)
    flags = rules.part(WildernessTables).weather_flags or {}
    if command.weather and command.weather not in flags:
        msg = f"weather {command.weather!r} is not one of the {rules.name} weathers: {', '.join(flags) or '(none)'}"
        raise UsageError(msg)
    terrain = ground(rules, command.terrain) if command.terrain else ""
    if terrain:
        night_row(rules, terrain)
    ctx.emit(
        ev.CampMade(
            number=before.number + 1 if isinstance(before, CampState) else 1,
            weather=command.weather,
            wet="wet" in flags.get(command.weather, ()),
            winter=command.winter,
            terrain=terrain,
            started_at=ctx.table.clock.seconds,
        )
    )


def _members(ctx: StepContext) -> list[str]:
    return [m.name for m in ctx.table.party.members]


def firewood(ctx: StepContext, command: GatherFirewood) -> None:
    """Each gatherer rolls the firewood dice; wet weather and winter divide each one's hours."""
    state, table, members = under_way(ctx), camp_table(ctx.rules), _members(ctx)
    if not command.gatherers:
        msg = f"name who gathers firewood (--by NAME, repeat for each): {', '.join(members)}"
        raise UsageError(msg)
    for name in command.gatherers:
        ctx.table.party.named(name)
    twice = sorted({n for n in command.gatherers if command.gatherers.count(n) > 1})
    if twice:
        msg = f"{', '.join(twice)} named twice: each gatherer brings back one load"
        raise UsageError(msg)
    made = state.made
    assert made is not None  # noqa: S101 - a camp under way was made
    by = night.divisor(table, wet=made.wet, winter=made.winter)
    gathered, rolls = [], []
    for name in command.gatherers:
        rolled = ctx.roll(table.firewood_dice, FIREWOOD, made_for=name)
        rolls.append(rolled.nonce)
        gathered.append(ev.Gathered(name=name, rolled=rolled.total, hours=night.fuel(rolled.total, by)))
    hours = sum(g.hours for g in gathered)
    why = []
    if made.wet:
        why.append(f"wet weather ({made.weather}): / {table.firewood_wet_divisor}")
    if made.winter:
        why.append(f"winter: / {table.firewood_winter_divisor}")
    ctx.emit(
        ev.FirewoodGathered(
            gathered=tuple(gathered),
            divisor=by,
            hours=hours,
            fire=hours > 0,
            fire_hours=min(hours, table.night_hours),
            reason="; ".join(why) + (", rounded down" if why else ""),
            rolls=tuple(rolls),
        )
    )


def watches(ctx: StepContext, command: SetWatches) -> None:
    """Record the watches the referee assigned; each needs at least one guard."""
    table = camp_table(ctx.rules)
    found = night.parse_watches(command.watches, table, _members(ctx))
    ctx.emit(ev.WatchesSet(watches=found, watch_hours=table.watch_hours))


def check(ctx: StepContext, command: CheckNight) -> None:
    """The secret d6 on the encounter range of the ground's row (the ground given, else the camp's), then the watch
    die, which says who is awake on an encounter: rolled every check, so that its secret roll does not tell the
    players an encounter comes."""
    _check(ctx, command.terrain, watch_always=True, by_row=False)


def check_by_row(ctx: StepContext, command: CheckNightByRow) -> None:
    """A night's check as releases of ``camp.night_checked`` version 2 made it: on the row of the chances its terrain
    names (the audit re-runs such a check with this)."""
    _check(ctx, command.terrain, watch_always=True, by_row=True)


def check_watch_on_encounter(ctx: StepContext, command: CheckNightWatchOnEncounter) -> None:
    """A night's check as releases before ``camp.night_checked`` version 2 recorded it: the watch die rolled only on
    an encounter, on the row its terrain names (the audit re-runs such a check with this)."""
    _check(ctx, command.terrain, watch_always=False, by_row=True)


def _night_ground(rules: Ruleset, given: str, made: ev.CampMade) -> str:
    """The ground a night's check is made on: the one given, else the camp's (a camp made before ``camp.made`` version
    2 named a row, read as ground where it is one: an OD&D row); ``UsageError`` when there is none."""
    if given:
        return ground(rules, given)
    if made.terrain:
        return made.terrain if made.terrain_is_ground else ground(rules, made.terrain)
    known = ", ".join(sorted(rules.part(MapTables).terrains()))
    msg = f"camp {made.number} was made on no ground: name the ground the night's check is made on: {known} (--terrain)"
    raise UsageError(msg)


def _check(ctx: StepContext, given: str, *, watch_always: bool, by_row: bool) -> None:
    state, rules = under_way(ctx), ctx.rules
    table, made = camp_table(rules), state.made
    assert made is not None  # noqa: S101 - a camp under way was made
    if by_row:
        terrain = given or made.terrain
        faces = _encounter_on(rules, terrain)
    else:
        terrain = _night_ground(rules, given, made)
        faces = night_row(rules, terrain)[1]
    rolled = ctx.roll("1d6", NIGHT_CHECK, visibility=Visibility.REFEREE)
    secret = [rolled.nonce]
    hit = rolled.total in faces
    number, fire = 0, False
    awake: tuple[str, ...] = ()
    asleep: tuple[str, ...] = ()
    watch = ctx.roll(table.watch_dice, WATCH, visibility=Visibility.REFEREE) if hit or watch_always else None
    if watch is not None:
        secret.append(watch.nonce)
    if hit and watch is not None:
        number = watch.total
        members = _members(ctx)
        awake = tuple(n for n in state.guards_of(number) if n in members)
        asleep = tuple(n for n in members if n not in awake)
        fire = night.fire_in_watch(state.firewood, number, table.watch_hours)
    ctx.emit(
        ev.NightChecked(
            check=len(state.checks) + 1,
            terrain=terrain,
            face=rolled.total,
            encounter_on=faces,
            encounter=hit,
            watch=number,
            awake=awake,
            asleep=asleep,
            fire=fire,
            referee_rolls=tuple(secret),
        )
    )


def meet(ctx: StepContext, command: MeetEncounter) -> None:
    """Hand the night's encounter to the encounter procedure: the wilderness, in the dark, the fire its light, once
    the clock has run on to the start of the watch it comes in (a clock already past it stays where it is)."""
    state = under_way(ctx)
    found, made = state.pending, state.made
    assert found is not None  # noqa: S101 - the machine allows ``meet`` only with an encounter pending
    if made is not None:  # the night passes on the clock to the watch the die picked: the encounter comes in it
        begins = night.watch_begins(made.started_at, found.watch, ctx.part(ClockOptions).watch_seconds)
        if begins > ctx.table.clock.seconds:
            ctx.advance(
                Span(seconds=begins - ctx.table.clock.seconds),
                reason=f"camp {made.number}: the night passes to watch {found.watch}",
            )
    ctx.hand_off(
        StartEncounter(
            setting=Setting.WILDERNESS,
            name=command.name or f"camp {state.number}, watch {found.watch}",
            party_light=found.fire,
            monster_count=command.monster_count,
            intelligent=command.intelligent,
            monster_speed=command.monster_speed,
            monsters_light=command.monsters_light,
            monsters_noisy=command.monsters_noisy,
            distance_divisor=_visibility(ctx, made.weather if made is not None else ""),
        )
    )


def _visibility(ctx: StepContext, weather: str) -> int:
    """What the night's weather divides the encounter distance by: the poor-visibility divisor in fog or a
    blizzard (REFERENCE §4.10), else 1."""
    flags = (ctx.part(WildernessTables).weather_flags or {}).get(weather, ())
    effects = ctx.part(TravelTables).weather_effects
    return effects.poor_visibility_distance_divisor if effects is not None and "poor_visibility" in flags else 1


def encounter_over(ctx: StepContext, command: ChildConcluded) -> None:
    """The encounter concluded: record whom it surprised and whose sleep it broke; the night goes on, or
    the party is pursued (the pursuit is handed off with the camp's ground, or the ground of the night's check that
    met the encounter: ``CampState.pursuit_ground``; on a journey it reads the hex the party believes it is in). A
    pursuit that concluded (caught or escaped) lets the night go on, once each encounter the rest after the escape met
    is handed off and concluded in turn (they came by day, in no watch of the night)."""
    state = under_way(ctx)
    change = ctx.change
    if command.child != ENCOUNTER:
        if change is not None and change.dest == Phase.ENCOUNTER.name:
            _met_while_resting(ctx, state)
        return
    found = state.pending
    encounter = ctx.state("encounter")
    assert isinstance(encounter, EncounterState)  # noqa: S101 - the child that concluded
    if found is not None:
        _night_encounter_ended(ctx, found, encounter)
    if change is not None and change.dest == Phase.ENCOUNTER.name:
        _met_while_resting(ctx, state)  # the next encounter the rest after the escape met
        return
    if change is not None and change.dest == Phase.PURSUIT.name:
        pursuit = handover.from_encounter(encounter, ctx.part(EvasionOptions).evasion_rules, state.pursuit_ground)
        assert pursuit is not None  # noqa: S101 - the resume row's condition read it
        ctx.hand_off(pursuit)


def _met_while_resting(ctx: StepContext, state: CampState) -> None:
    """Hand off the encounter the rest after the escape met: the wilderness, by day, no fire."""
    made = state.made
    ctx.hand_off(
        StartEncounter(
            setting=Setting.WILDERNESS,
            name=f"camp {state.number}: wandering monsters while resting after the pursuit",
            distance_divisor=_visibility(ctx, made.weather if made is not None else ""),
        )
    )


def _night_encounter_ended(ctx: StepContext, found: ev.NightChecked, encounter: EncounterState) -> None:
    """Record how the night's encounter ended: whom it surprised, whose sleep it broke."""
    caught: tuple[str, ...] = ()
    sur = encounter.surprise
    if sur is not None and sur.party_rolled:
        on = ctx.part(EncounterOptions).surprise_on
        shift = night.surprise_shift(camp_table(ctx.rules), on) if found.asleep else 0
        caught = night.surprised(sur.party_face, shift, on, found.awake, found.asleep)
    concluded = encounter.concluded
    ctx.emit(
        ev.NightEncounterEnded(
            encounter=encounter.started.number,
            outcome=concluded.outcome if concluded is not None else ("cancelled" if encounter.cancelled else ""),
            watch=found.watch,
            surprised=caught,
            woken=found.asleep,
            reason=f"the sleepers woken in watch {found.watch} lose its sleep" if found.asleep else "",
        )
    )


def break_camp(ctx: StepContext, command: BreakCamp) -> None:  # noqa: ARG001 - the step signature
    """The rest of the night passes on the clock (a watch at a time), then each member's sleep is judged."""
    state, table = under_way(ctx), camp_table(ctx.rules)
    made = state.made
    assert made is not None  # noqa: S101 - a camp under way was made
    watch = ctx.part(ClockOptions).watch_seconds
    left = max(0, table.watches * watch - (ctx.table.clock.seconds - made.started_at))
    if left // watch:
        ctx.advance(Span(seconds=watch), reason=f"camp {made.number}: a watch of the night", times=left // watch)
    if left % watch:
        ctx.advance(Span(seconds=left % watch), reason=f"camp {made.number}: the rest of the night")
    ctx.emit(
        ev.CampBroken(
            number=made.number,
            rests=night.rests(table, _members(ctx), state.watches, state.encounters),
            min_sleep_hours=table.min_sleep_hours,
        )
    )


def sleepers(table: Table, made_for: str, purpose: str) -> list[RollModifier]:
    """While the camp waits on its night encounter, the party's surprise roll is made on the sleepers' range."""
    state = table.procedures.get(PROCEDURE)
    if purpose != PARTY_SURPRISE or made_for != Side.PARTY or not isinstance(state, CampState):
        return []
    found = state.pending
    if state.phase is not Phase.ENCOUNTER or found is None or not found.asleep or table.rules is None:
        return []
    camp = table.rules.part(CampTables).camp
    if camp is None:
        return []
    shift = night.surprise_shift(camp, table.rules.part(EncounterOptions).surprise_on)
    if not shift:
        return []
    why = f"asleep in watch {found.watch} ({', '.join(found.asleep)}): surprised on 1-{camp.sleepers_surprised_on}"
    return [RollModifier(source=why, value=shift)]
