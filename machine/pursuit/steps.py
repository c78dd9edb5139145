"""The pursuit's steps: where the rules roll the dice and decide, one per command.

A flight moves the party's true hex (``travel.true_position``) when a journey is under way (and, when the players
are told which way it ran, the hex it believes it is in: ``pursuit.fled``'s ``believed``) and lets the flight's time
pass on the clock. A catch hands an encounter off (the pursuit resumes, caught,
when it concludes). The rest after an escape is half a day per hex fled on the clock, with a
wilderness encounter roll per half day (seed 004 §4.14 step 5). The evasion roll is the pursued party's, made for
it (a low total is good, so its exhaustion raises the total, counted against it: seed 004 §4.16 "-1 to all
rolls"); the others are made for nobody in particular: the flight's heading is the dice's, the catch and a castle
force's keeping up the pursuit the pursuers', the rest's encounter checks the wilderness's.

Everything a pursuit during a journey records in public reads the terrain of the hex the party
believes it is in (``terrain_here``): its true hex's, unless it is lost and does not know it, when
the true terrain (the woods of the evasion, the catch's woods or swamp, the rest's encounter chances)
would tell the players where they truly are. Releases before version 2 of those events read the true
hex; the audit re-runs their decisions so (``true_hex``).
"""

from __future__ import annotations

import enum
import math
from typing import TYPE_CHECKING

import attrs

from hexlog.events import pursuit as ev
from hexlog.events import travel as travel_ev
from hexlog.events.dice import Visibility
from hexlog.events.errors import RuleRefusedError, UsageError
from hexlog.events.vocabulary import Side
from hexlog.machine import dice, evasion
from hexlog.machine.commands import SPEED
from hexlog.machine.encounter.commands import StartEncounter
from hexlog.machine.evasion import EvasionOptions, EvasionRules, EvasionTables, WildernessPursuit
from hexlog.machine.hexmap import grid
from hexlog.machine.hexmap.rules import MapTables
from hexlog.machine.hexmap.state import PROCEDURE as MAP
from hexlog.machine.hexmap.state import MapState
from hexlog.machine.kit.clock import DAY_SECONDS, Span
from hexlog.machine.pursuit import handover
from hexlog.machine.pursuit.commands import REFEREE_PCT, SIZE
from hexlog.machine.pursuit.state import PROCEDURE, Phase, PursuitState, under_way
from hexlog.machine.travel import exhaustion
from hexlog.machine.travel import terrain as travel_terrain
from hexlog.machine.travel.rules import ChanceSource, TerrainChances
from hexlog.machine.travel.state import PROCEDURE as TRAVEL
from hexlog.machine.travel.state import Phase as TravelPhase
from hexlog.machine.travel.state import TravelState

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.machine.hexmap.state import Hex
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.pursuit import commands as c
    from hexlog.machine.ruleset import Ruleset

#: the pursuers a pursuit started without an encounter has, and their rate, unless the referee says
PURSUERS = 1
PURSUERS_SPEED = 120


def _journey(ctx: StepContext) -> TravelState | None:
    """The journey under way, if any: a flight then moves the party's true hex."""
    trip = ctx.state(TRAVEL)
    if isinstance(trip, TravelState) and trip.phase not in {TravelPhase.IDLE, TravelPhase.ENDED}:
        return trip
    return None


def _map(ctx: StepContext) -> MapState:
    found = ctx.state(MAP)
    return found if isinstance(found, MapState) else MapState()


def _place(ctx: StepContext, *, true_hex: bool = False) -> Hex | None:
    """The hex of a journey under way whose terrain the pursuit reads: the one the party believes it is in (its true
    one unless it is lost and does not know it; ``travel.terrain.seen``), or with ``true_hex`` its true one."""
    trip = _journey(ctx)
    if trip is None:
        return None
    the_map = _map(ctx)
    return the_map.hex(trip.hex) if true_hex else travel_terrain.seen(the_map, trip)


def terrain_here(ctx: StepContext, fallback: str, *, true_hex: bool = False) -> str:
    """The OD&D terrain row of the hex the party believes it is in during a journey (with ``true_hex``, as releases
    before version 2 of the pursuit's events read it: its true hex), else the pursuit's own."""
    place = _place(ctx, true_hex=true_hex)
    if place is None:
        return fallback
    return ctx.part(MapTables).odd_row(place.terrain)


def _table(ctx: StepContext) -> WildernessPursuit:
    return _table_for(ctx.rules)


def _table_for(rules: Ruleset) -> WildernessPursuit:
    found = rules.part(EvasionTables).wilderness_pursuit
    assert found is not None  # noqa: S101 - the start condition checks it
    return found


def terrain_row(rules: Ruleset, given: str) -> str:
    """The OD&D row of the terrain a pursuit is given (clear when none): a terrain a hex may have under the rules in
    force, read as a hex of it is (tangled forest as woods); ``UsageError`` naming them for any other."""
    return rules.part(MapTables).odd_row(_terrain_given(rules, given))


def ground_given(rules: Ruleset, given: str) -> str:
    """The ground a pursuit off the map keeps beside its OD&D row (``pursuit.started``'s ``ground``): the terrain it
    is given where its row names it otherwise (tangled forest, read as woods), else "" (the row is the terrain)."""
    name = _terrain_given(rules, given)
    return "" if rules.part(MapTables).odd_row(name) == name else name


def _terrain_given(rules: Ruleset, given: str) -> str:
    tables = rules.part(MapTables)
    name = given.strip().lower() or "clear"
    if name not in tables.terrains():
        msg = f"unknown terrain {given!r}; the rules know {', '.join(sorted(tables.terrains()))}"
        raise UsageError(msg)
    return name


def start(ctx: StepContext, command: c.StartPursuit) -> None:
    """Record the facts the pursuit is decided by (``started``), after the encounter it follows, if any; during a
    journey its terrain is the hex's the party believes it is in."""
    before = ctx.state(PROCEDURE)
    reading = ctx.part(EvasionOptions).evasion_rules
    assert reading is not None  # noqa: S101 - the start condition checks it
    command = handover.following(ctx.table.procedures, command, reading)
    facts = started(
        ctx.rules,
        command,
        [m.speed for m in ctx.table.party.members],
        number=before.started.number + 1 if isinstance(before, PursuitState) else 1,
        terrain=terrain_here(ctx, terrain_row(ctx.rules, command.terrain)),
    )
    ctx.emit(attrs.evolve(facts, ground=ground_here(ctx, command.terrain)))


def ground_here(ctx: StepContext, given: str) -> str:
    """The ground a pursuit keeps beside its OD&D row (``ground_given``): none during a journey, whose hex gives it."""
    return "" if _place(ctx) is not None else ground_given(ctx.rules, given)


def started(
    rules: Ruleset, command: c.StartPursuit, speeds: Sequence[int], *, number: int, terrain: str
) -> ev.PursuitStarted:
    """The facts a pursuit starts with (pure): the party's size and rate default to its members' (``speeds``, one
    each: the slowest sets the rate), the pursuers to one at 120.

    Surprise is recorded as the advantage it gives: the party surprised by the pursuers alone, or the pursuers by
    the party alone. When both sides were surprised, neither has the advantage (OSE §2.2 "no advantage to anyone",
    seed 004 1a "unless both sides are surprised"), and the evasion reads the table as if neither was.
    """
    reading = rules.part(EvasionOptions).evasion_rules
    assert reading is not None  # noqa: S101 - the start condition checks it
    size = command.party_size if command.party_size is not None else len(speeds)
    speed = command.party_speed if command.party_speed is not None else min(speeds)
    pursuers = command.pursuers if command.pursuers is not None else PURSUERS
    pursuers_speed = command.pursuers_speed if command.pursuers_speed is not None else PURSUERS_SPEED
    for what, value in (("party size", size), ("pursuers", pursuers)):
        if value not in SIZE:
            msg = f"{what} must be {SIZE.least} to {SIZE.most}, not {value}"
            raise UsageError(msg)
    for what, value in (("party speed", speed), ("pursuers' speed", pursuers_speed)):
        if value not in SPEED:
            msg = f"{what} must be {SPEED.least} to {SPEED.most} feet per turn, not {value}"
            raise UsageError(msg)
    if command.referee_pct not in REFEREE_PCT:
        low, high = REFEREE_PCT.least, REFEREE_PCT.most
        msg = f"the referee's chance must be {low} to {high} %, not {command.referee_pct}"
        raise UsageError(msg)
    disposition = ev.Disposition.NONE
    if command.castle:
        if command.castle not in {ev.Disposition.HOSTILE, ev.Disposition.NEUTRAL}:
            msg = f"a castle force is hostile or neutral, not {command.castle!r}"
            raise UsageError(msg)
        if reading is not EvasionRules.ODD:
            msg = f"castle forces pursue under seed 004's rules, not {reading}"
            raise UsageError(msg)
        disposition = ev.Disposition(command.castle)
    return ev.PursuitStarted(
        number=number,
        name=command.name,
        ruleset=rules.name,
        rules=reading.value,
        pursuers_kind=ev.Pursuers.CASTLE if command.castle else ev.Pursuers.MONSTERS,
        disposition=disposition,
        party_size=size,
        pursuers=pursuers,
        party_speed=speed,
        pursuers_speed=pursuers_speed,
        intelligent=command.intelligent,
        terrain=terrain,
        # both sides surprised: neither has the advantage (OSE §2.2, seed 004 1a), so neither surprised the other
        party_surprised=command.party_surprised and not command.pursuers_surprised,
        pursuers_surprised=command.pursuers_surprised and not command.party_surprised,
        magic=command.magic,
        referee_pct=command.referee_pct,
        evasion_failed=command.evasion_failed,
        encounter=command.encounter,
    )


def situation(state: PursuitState, terrain: str) -> evasion.Situation:
    """What the evasion chance reads, from the pursuit's facts and the terrain the party is in.

    Surprise (either way) and magic belong to the meeting: they count for the pursuit's first evasion
    roll only (DEFAULT); a roll while the party already flees (§4.14 4b) reads the sides, woods and speed.
    """
    s = state.started
    first = state.evasion is None and not s.evasion_failed
    return evasion.Situation(
        fleeing=s.party_size,
        pursuers=s.pursuers,
        fleeing_speed=s.party_speed,
        pursuers_speed=s.pursuers_speed,
        woods=terrain == "woods",
        surprised=first and s.party_surprised,
        surprised_enemy=first and s.pursuers_surprised,
        magic=first and s.magic,
        referee_pct=s.referee_pct or None,
    )


def roll_evasion(ctx: StepContext, command: c.RollEvasion) -> None:  # noqa: ARG001 - the step signature
    """d100 against the evasion chance in the terrain the party believes it is in now, made for the party."""
    _roll_evasion(ctx, true_hex=False, for_party=True)


def roll_evasion_true_hex(ctx: StepContext, command: c.RollEvasionTrueHex) -> None:  # noqa: ARG001 - the step signature
    """An evasion roll as releases before ``pursuit.evasion_rolled`` version 2 made it: in the terrain of the party's
    true hex, for nobody (the audit re-runs such a roll with this)."""
    _roll_evasion(ctx, true_hex=True, for_party=False)


def roll_evasion_for_nobody(ctx: StepContext, command: c.RollEvasionForNobody) -> None:  # noqa: ARG001 - the step signature
    """An evasion roll as releases of ``pursuit.evasion_rolled`` version 2 made it: for nobody, so exhaustion did not
    reach it (the audit re-runs such a roll with this)."""
    _roll_evasion(ctx, true_hex=False, for_party=False)


def _roll_evasion(ctx: StepContext, *, true_hex: bool, for_party: bool) -> None:
    state = under_way(ctx)
    terrain = terrain_here(ctx, state.started.terrain, true_hex=true_hex)
    found = evasion.chance(ctx.rules, situation(state, terrain))
    made_for = Side.PARTY.value if for_party else ""
    total, rolls, evaded = evasion.roll_against(ctx, found, "pursuit.evasion", made_for=made_for)
    ctx.emit(
        ev.PursuitEvasionRolled(
            chance=found.pct,
            base=found.base,
            steps=found.steps,
            total=total,
            evaded=evaded,
            terrain=terrain,
            rolls=rolls,
        )
    )


def flee(ctx: StepContext, command: c.Flee) -> None:
    """1d6 for the heading; a journey's true hex moves that way; the flight's time passes.

    During a journey the party's true hex is the referee's, and so is the heading that leads it there:
    the d6 is a secret roll, and ``HeadingRolled`` (the referee's until the session ends) records it
    with the hex it leads to, before the public ``PursuitFled``, which names no heading. A hex on the
    grid that the map does not have yet is refused (the referee draws it, and the same roll decides
    again); where the grid itself ends, the party keeps to its hex, and ``travel.true_position`` records it there
    all the same: the players see as many events held back wherever the party truly runs.

    Told which way it ran (``told``), the players see the d6, and the hex the party believes it is in moves
    that way as a believed route does: where the map ends that way from it, the belief keeps to its hex
    (``PursuitFled.believed``, ``held``); the true hex moves as it would in secret.
    """
    journey = _journey(ctx) is not None
    if command.told and not journey:
        msg = (
            "no journey is under way: the flight's heading is rolled in public and no belief is moved, so there is "
            "nothing to tell the players (--told); leave it out"
        )
        raise RuleRefusedError(msg)
    _flee(ctx, secret=journey and not command.told, told=command.told)


def flee_in_public(ctx: StepContext, command: c.FleeInPublic) -> None:  # noqa: ARG001 - the step signature
    """A flight as releases before ``pursuit.fled`` version 2 recorded it: the heading rolled in public, even
    during a journey, and no true hex where the grid ends (the audit re-runs such a flight with this)."""
    _flee(ctx, secret=False, held_recorded=False)


def flee_held_unrecorded(ctx: StepContext, command: c.FleeHeldUnrecorded) -> None:
    """A flight as releases before ``pursuit.heading_rolled`` version 2 (``pursuit.fled`` version 4 for a told one)
    recorded it: no true hex where the grid ends (the audit re-runs such a flight with this)."""
    journey = _journey(ctx) is not None
    _flee(ctx, secret=journey and not command.told, told=journey and command.told, held_recorded=False)


def _believed_after(ctx: StepContext, trip: TravelState, heading: str) -> tuple[str, bool]:
    """Where a party told which way it ran believes it fled to, and whether the map ends that way (it keeps to the
    hex it believes it is in, as a believed route stops where the map ends)."""
    ahead = grid.neighbour(trip.believed, heading)
    if ahead is None or _map(ctx).hex(ahead) is None:
        return trip.believed, True
    return ahead, False


def _flee(ctx: StepContext, *, secret: bool, told: bool = False, held_recorded: bool = True) -> None:
    state = under_way(ctx)
    visibility = Visibility.REFEREE if secret else Visibility.PUBLIC
    rolled = ctx.roll("1d6", "pursuit.flight", visibility=visibility)
    face = rolled.faces[0]
    heading = grid.HEADINGS[face - 1]
    trip = _journey(ctx)
    target = grid.neighbour(trip.hex, heading) if trip is not None else None
    place = _map(ctx).hex(target) if target is not None else None
    if trip is not None and target is not None and place is None:
        msg = f"the party would flee {heading} from {trip.hex} into {target}, which is not on the map; draw it first"
        raise RuleRefusedError(msg)
    held = trip is not None and target is None
    fled, faster = state.hexes_fled + 1, state.pursuers_faster
    believed = ""
    if secret and trip is not None:
        where = target if target is not None else trip.hex
        ctx.emit(ev.HeadingRolled(heading=heading, face=face, hex=where, held=held, referee_rolls=(rolled.nonce,)))
        ctx.emit(ev.PursuitFled(hexes_fled=fled, pursuers_faster=faster))
    else:
        belief_held = held
        if told and trip is not None:
            believed, belief_held = _believed_after(ctx, trip, heading)
        ctx.emit(
            ev.PursuitFled(
                heading=heading,
                face=face,
                hexes_fled=fled,
                pursuers_faster=faster,
                held=belief_held,
                rolls=(rolled.nonce,),
                believed=believed,
            )
        )
    if trip is not None and (target is not None or held_recorded):
        # where the grid ends too, so that the players see as many events held back wherever the party truly runs
        where, here = (target, place) if target is not None else (trip.hex, _map(ctx).hex(trip.hex))
        terrain = here.terrain if here is not None else ""
        ctx.emit(travel_ev.TruePosition(hex=where, terrain=terrain, lost=where != (believed or trip.believed)))
    seconds = _table(ctx).flight_seconds
    flees = "the party flees" if secret else f"the party flees {heading}"
    ctx.advance(Span(seconds=seconds), reason=f"pursuit {state.started.number}: {flees}")


def catch_rule(table: WildernessPursuit, reading: str, terrain: str) -> tuple[str, tuple[int, ...], int]:
    """The catch roll in a terrain: (dice, faces that catch, d100 at most that catches); pure.

    Seed 004: 3-in-6, 1-in-4 in woods or swamp (A25); OSE: faster pursuers catch on 50 %.
    """
    if reading == EvasionRules.OSE:
        return "1d100", (), table.faster_pursuers_catch_pct
    rough = terrain in table.rough_terrains
    return (table.rough_catch_dice, table.rough_catch_on, 0) if rough else (table.catch_dice, table.catch_on, 0)


def is_caught(rule: tuple[str, tuple[int, ...], int], total: int) -> bool:
    """Whether a catch roll's total catches the party under ``rule``."""
    _, on, at_most = rule
    return total <= at_most if at_most else total in on


def catch(ctx: StepContext, command: c.Catch) -> None:  # noqa: ARG001 - the step signature
    """Faster pursuers try to catch the party (in the terrain it believes it is in); caught, an encounter is handed
    off."""
    _catch(ctx, true_hex=False)


def catch_true_hex(ctx: StepContext, command: c.CatchTrueHex) -> None:  # noqa: ARG001 - the step signature
    """A catch roll as releases before ``pursuit.catch_rolled`` version 2 made it: in the terrain of the party's true
    hex (the audit re-runs such a roll with this; it takes the pursuit on as ``catch`` does)."""
    _catch(ctx, true_hex=True, follow=True)


def _catch(ctx: StepContext, *, true_hex: bool, follow: bool = False) -> None:
    state = under_way(ctx)
    terrain = terrain_here(ctx, state.started.terrain, true_hex=true_hex)
    rule = catch_rule(_table(ctx), state.started.rules, terrain)
    rolled = ctx.roll(dice.parse(rule[0]), "pursuit.catch")
    caught = is_caught(rule, rolled.total)
    ctx.emit(
        ev.CatchRolled(
            dice=rule[0],
            catch_on=rule[1],
            at_most=rule[2],
            total=rolled.total,
            caught=caught,
            terrain=terrain,
            rolls=(rolled.nonce,),
        )
    )
    if follow:
        ctx.follow("catch")
    if caught:
        _caught(ctx, state)


def _caught(ctx: StepContext, state: PursuitState) -> None:
    s = state.started
    ctx.hand_off(
        StartEncounter(
            setting="wilderness",
            name=f"pursuit {s.number}: the party is caught",
            party_aware=True,
            monsters_aware=True,
            monster_count=s.pursuers,
            intelligent=s.intelligent,
            monster_speed=s.pursuers_speed,
        )
    )


def continue_check(ctx: StepContext, command: c.ContinueCheck) -> None:  # noqa: ARG001 - the step signature
    """A castle force keeps up the pursuit on d6: hostile 1-3, neutral 1."""
    state = under_way(ctx)
    table = _table(ctx)
    disposition = state.started.disposition
    on = table.castle_continue_hostile if disposition is ev.Disposition.HOSTILE else table.castle_continue_neutral
    rolled = ctx.roll("1d6", "pursuit.continue")
    ctx.emit(
        ev.ContinueChecked(
            disposition=disposition,
            continue_on=on,
            total=rolled.total,
            continues=rolled.total in on,
            rolls=(rolled.nonce,),
        )
    )


def stop(ctx: StepContext, command: c.Stop) -> None:
    """OSE: the party stops fleeing and is caught; an encounter is handed off."""
    state = under_way(ctx)
    ctx.emit(ev.PursuitStopped(note=command.note))
    _caught(ctx, state)


def _rest_chances(ctx: StepContext, terrain: str, *, true_hex: bool, off_map: Reading) -> tuple[str, tuple[int, ...]]:
    """The row of a wilderness encounter's chances in the terrain (tables.lost_encounter) and its faces, none without
    them: during a journey, those of the hex the party believes it is in (with ``true_hex``, its true one); off the
    map, as ``off_map`` reads them: the ground the pursuit was given (``GROUND``), its OD&D row's reading (``ROW``,
    as releases before ``pursuit.rested`` version 4 read them) or the row its OD&D terrain names (``NAME``, before
    version 3)."""
    place = _place(ctx, true_hex=true_hex)
    if place is not None:
        name, chances = travel_terrain.row(ctx.rules, place)
        return name, chances.encounter
    if off_map is Reading.NAME:
        return terrain, rest_chances_by_name(ctx.rules, terrain)
    ground = under_way(ctx).started.ground if off_map is Reading.GROUND else ""
    name, chances = travel_terrain.terrain_row(ctx.rules, ground or terrain)
    return name, chances.encounter


def rest_owed(rules: Ruleset) -> bool:
    """Whether the rules owe a party that escaped a rest (``tables.wilderness_pursuit.rest_days_per_hex``, A28): the
    only part of the pursuit that reads the lost and encounter chances (``options.lost_encounter_source``)."""
    table = rules.part(EvasionTables).wilderness_pursuit
    return table is not None and table.rest_days_per_hex > 0


def rest_chances(rules: Ruleset, terrain: str) -> tuple[int, ...]:
    """The faces of a wilderness encounter in a terrain off the map (tables.lost_encounter), none without them: the
    row ground of that terrain reads under the source in force, as a hex of it does on the map (Dolmenwood's rows are
    difficulties: tangled forest is moderate ground there, an OD&D row such as woods light, a swamp difficult)."""
    return travel_terrain.terrain_row(rules, terrain)[1].encounter


def rest_chances_by_name(rules: Ruleset, terrain: str) -> tuple[int, ...]:
    """The faces as a rest off the map read them before ``pursuit.rested`` version 3: the row named as the OD&D row
    in the table of the source in force, so none under dolmenwood, whose rows are difficulties (the audit re-runs such
    a rest with this)."""
    chances = rules.part(TerrainChances).lost_encounter or {}
    row = chances.get(rules.part(ChanceSource).lost_encounter_source.value, {}).get(terrain)
    return row.encounter if row is not None else ()


def terrain_reads(rules: Ruleset, facts: ev.PursuitStarted) -> tuple[object, ...]:
    """What a pursuit started with ``facts`` off the map reads of its terrain under the rules: its evasion chance at
    the first roll and at a later one (seed 004's reads woods, OSE's no terrain), the catch roll's rule where the
    pursuers are faster (only they roll it), the rest's encounter chances where the rules owe a rest (none is
    checked in a rest of no days). Two terrains whose reads are the same play the same pursuit."""
    state = PursuitState(started=facts)
    again = PursuitState(started=attrs.evolve(facts, evasion_failed=True))  # a roll while the party already flees
    table = _table_for(rules)
    return (
        evasion.chance(rules, situation(state, facts.terrain)),
        evasion.chance(rules, situation(again, facts.terrain)),
        catch_rule(table, facts.rules, facts.terrain) if state.pursuers_faster else None,
        rest_chances(rules, facts.ground or facts.terrain) if table.rest_days_per_hex else None,
    )


class Reading(enum.Enum):
    """How a rest off the map reads its chances: the ground the pursuit was given (today), its OD&D row's reading
    under the source in force (releases before ``pursuit.rested`` version 4), the row its OD&D terrain names in the
    source's table (before version 3)."""

    GROUND = "ground"
    ROW = "row"
    NAME = "name"


def rest(ctx: StepContext, command: c.Rest) -> None:  # noqa: ARG001 - the step signature
    """The party escaped: rest half a day per hex fled (A28), one wilderness encounter roll per half day, on the
    chances of the hex it believes it is in (off the map, of the ground the pursuit was given under the source in
    force)."""
    _rest(ctx, true_hex=False, off_map=Reading.GROUND)


def rest_by_row(ctx: StepContext, command: c.RestByRow) -> None:  # noqa: ARG001 - the step signature
    """A rest as releases of ``pursuit.rested`` version 3 made it: off the map, on its OD&D row's reading under the
    source in force, whatever ground the pursuit was given, and no row recorded (the audit re-runs such a rest with
    this)."""
    _rest(ctx, true_hex=False, off_map=Reading.ROW)


def rest_by_name(ctx: StepContext, command: c.RestByName) -> None:  # noqa: ARG001 - the step signature
    """A rest as releases before ``pursuit.rested`` version 3 made it: off the map, on the row the OD&D terrain names
    in the source's table (the audit re-runs such a rest with this)."""
    _rest(ctx, true_hex=False, off_map=Reading.NAME)


def rest_true_hex(ctx: StepContext, command: c.RestTrueHex) -> None:  # noqa: ARG001 - the step signature
    """A rest as releases before ``pursuit.rested`` version 2 made it: on the encounter chances of the party's true
    hex (the audit re-runs such a rest with this), off the map as ``rest_by_name``."""
    _rest(ctx, true_hex=True, off_map=Reading.NAME)


def _rest(ctx: StepContext, *, true_hex: bool, off_map: Reading) -> None:
    state = under_way(ctx)
    table = _table(ctx)
    days = state.hexes_fled * table.rest_days_per_hex
    checks = math.ceil(round(days / table.rest_encounter_check_every_days, 6)) if days else 0
    terrain = terrain_here(ctx, state.started.terrain, true_hex=true_hex)
    row, on = _rest_chances(ctx, terrain, true_hex=true_hex, off_map=off_map) if checks else ("", ())
    if off_map is not Reading.GROUND:
        row = ""  # releases before version 4 recorded no row
    faces: list[int] = []
    rolls: list[int] = []
    for _ in range(checks if on else 0):
        rolled = ctx.roll("1d6", "pursuit.rest")
        faces.append(rolled.total)
        rolls.append(rolled.nonce)
    encounters = sum(1 for f in faces if f in on)
    ctx.emit(
        ev.PursuitRested(
            hexes_fled=state.hexes_fled,
            days=days,
            terrain=terrain,
            row=row if on else "",
            encounter_on=on,
            faces=tuple(faces),
            encounters=encounters,
            rolls=tuple(rolls),
        ),
        ev.PursuitEnded(
            number=state.started.number,
            outcome="escaped",
            hexes_fled=state.hexes_fled,
            reason=f"rest {days:g} day(s) after {state.hexes_fled} hex(es) fled; {encounters} encounter(s) then",
        ),
    )
    trip = _journey(ctx)
    if trip is not None and trip.rest_credit >= 1:
        exhaustion.rest_day(ctx, trip, day=trip.day, reason="a full day of rest after a pursuit (A28)")
    if days:
        ctx.advance(
            Span(seconds=round(days * DAY_SECONDS)), reason=f"pursuit {state.started.number}: rest after the escape"
        )


def resumed(ctx: StepContext, command: object) -> None:  # noqa: ARG001 - the resume signature
    """The encounter of a caught party concluded: the pursuit is over."""
    state = under_way(ctx)
    ctx.emit(
        ev.PursuitEnded(number=state.started.number, outcome="caught", hexes_fled=state.hexes_fled, reason="caught")
    )


__all__ = [
    "Phase",
    "catch",
    "catch_true_hex",
    "continue_check",
    "flee",
    "flee_in_public",
    "ground_given",
    "rest",
    "rest_by_name",
    "rest_by_row",
    "rest_chances",
    "rest_true_hex",
    "resumed",
    "roll_evasion",
    "roll_evasion_true_hex",
    "start",
    "started",
    "stop",
    "terrain_here",
    "terrain_reads",
    "terrain_row",
]
