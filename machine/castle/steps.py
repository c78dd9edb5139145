"""The castle's steps: where the castle's rules roll the dice and decide, one per command.

The kit fires each command's trigger before its step runs (a refusal writes nothing) and records the
phase change after it. The ride-out check of a castle passed by is the referee's secret roll; the
type, disposition, joust, toll and pursuit rolls are public. A champion who wins a joust takes the
loser's armor: the same command records the change to the party's member (``party.member_edited``).
A fight is handed to the encounter procedure (the garrison as its monsters, both sides aware of each
other); the castle resumes when it concludes. A flight records the pursuit roll; forces that pursue
under seed 004's pursuit are handed to the wilderness pursuit (``pursuit_start``) and the meeting ends
with its outcome, escaped or caught; otherwise it ends "escaped" (or "pursued", for the referee to
run, under rules without that pursuit). An encounter the rest after an escape meets is handed off in
turn, and the castle waits for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import castle as ev
from hexlog.events.dice import Visibility
from hexlog.events.errors import Advice, RuleRefusedError, UsageError
from hexlog.events.party import MemberEdited, MemberSheet
from hexlog.events.vocabulary import Setting
from hexlog.machine.castle import reach
from hexlog.machine.castle.commands import WORTH_GP
from hexlog.machine.castle.machine import hex_by_hex
from hexlog.machine.castle.rules import (
    CastleDemands,
    CastleTable,
    CastleTables,
    Disposition,
    Kind,
    placement_problem,
)
from hexlog.machine.castle.state import CastleState, Phase, castles
from hexlog.machine.encounter import StartEncounter
from hexlog.machine.encounter.guards import NO_ARMOR
from hexlog.machine.encounter.state import EncounterState
from hexlog.machine.hexmap import grid
from hexlog.machine.hexmap.rules import MapTables
from hexlog.machine.hexmap.state import PROCEDURE as MAP
from hexlog.machine.hexmap.state import MapState
from hexlog.machine.pursuit import handover
from hexlog.machine.pursuit.commands import StartPursuit
from hexlog.machine.pursuit.state import PROCEDURE as PURSUIT_PROCEDURE
from hexlog.machine.pursuit.state import PursuitState
from hexlog.machine.travel.state import PROCEDURE as TRAVEL
from hexlog.machine.travel.state import TravelState

if TYPE_CHECKING:
    from hexlog.machine.castle.commands import (
        AcceptQuest,
        DemandToll,
        FightGarrison,
        FleeGarrison,
        HailCastle,
        Joust,
        JoustKeepingArmor,
        JoustReadingTheTotal,
        MeetGarrison,
        PartWays,
        PassCastles,
        PayToll,
        PlaceCastle,
        RefuseDemand,
    )
    from hexlog.machine.kit.context import ChildConcluded, StepContext

RIDE_OUT = "castle.ride_out"
TYPE = "castle.type"
DISPOSITION = "castle.disposition"
JOUST = "castle.joust"
TOLL = "castle.toll"
PURSUIT = "castle.pursuit"
PURPOSES = (RIDE_OUT, TYPE, DISPOSITION, JOUST, TOLL, PURSUIT)
#: the joust rolled at the referee's request: the castle's champion wins on 1-3, the party's fighter on 4-6
JOUST_DICE = "1d6"
CHAMPION_WINS_ON = (1, 2, 3)
WINNERS = ("castle", "party")
#: what a member wears who wears no armor
NONE = "none"


def table_of(ctx: StepContext) -> CastleTable:
    """The castle table in force; a refusal under rules without one."""
    table = ctx.part(CastleTables).castle
    if table is None:
        msg = f"the rules in force ({ctx.rules.name}) have no castle table (tables.castle)"
        raise RuleRefusedError(msg)
    return table


def demands_of(ctx: StepContext) -> CastleDemands:
    """The demands by kind (the rules' check makes sure every kind a type has is there)."""
    return ctx.part(CastleTables).castle_demands or CastleDemands()


def place(ctx: StepContext, command: PlaceCastle) -> None:
    """Record a castle on a hex of the map, with its type and disposition if the referee knows them."""
    table = table_of(ctx)
    name = grid.normal(command.hex)
    found = ctx.state(MAP)
    if not isinstance(found, MapState) or found.hex(name) is None:
        msg = f"hex {name} is not on the map; draw it first ("
        raise UsageError(msg).advising(Advice("SetHex", (("hex", name), ("terrain", "..."))), ")")
    if castles(ctx).castle(name) is not None:
        msg = f"a castle stands at {name} already"
        raise UsageError(msg)
    problem = placement_problem(table, command.castle_type, command.disposition)
    if problem:
        raise UsageError(problem)
    ctx.emit(
        ev.CastlePlaced(hex=name, castle_type=command.castle_type, disposition=command.disposition, name=command.name)
    )


def pass_by(ctx: StepContext, command: PassCastles) -> None:  # noqa: ARG001 - the step signature
    """The secret d6 for each castle passed within range today: the garrison rides out on the distance's chance.
    Each castle checked every day and not among them is rolled too, for show, so that the players see as many
    secret dice wherever the party truly is."""
    table = table_of(ctx)
    trip = ctx.state(TRAVEL)
    passed, nonces = [], []
    owed = reach.in_reach(ctx.table)
    checking, path = {h for h, _ in owed}, reach.path_today(ctx.table)
    for hex_name, distance in owed:
        chance = table.ride_out_in_6.chance(distance)
        rolled = ctx.roll("1d6", RIDE_OUT, visibility=Visibility.REFEREE)
        nonces.append(rolled.nonce)
        on = tuple(range(1, chance + 1))
        rides_out = table.rides_out(distance, rolled.total)
        passed.append(
            ev.Passed(hex=hex_name, distance=distance, ride_out_on=on, face=rolled.total, rides_out=rides_out)
        )
    for hex_name in reach.daily(ctx.table):
        if hex_name in checking:
            continue
        rolled = ctx.roll("1d6", RIDE_OUT, visibility=Visibility.REFEREE)
        nonces.append(rolled.nonce)
        distance = reach.nearest(hex_name, path)
        passed.append(ev.Passed(hex=hex_name, distance=distance, ride_out_on=(), face=rolled.total, rides_out=False))
    day = trip.day if isinstance(trip, TravelState) else 0
    ctx.emit(ev.CastlesPassed(day=day, passed=tuple(passed), referee_rolls=tuple(nonces)))


def _hailed_castle(ctx: StepContext, given: str) -> str:
    state = castles(ctx)
    if given:
        name = grid.normal(given)
        if state.castle(name) is None:
            msg = f"no castle stands at {name}; place one first ("
            raise UsageError(msg).advising(Advice("PlaceCastle", (("hex", name),)), ")")
        return name
    path = reach.path_today(ctx.table)
    trip = ctx.state(TRAVEL)
    here = path[-1:] or ((trip.hex,) if isinstance(trip, TravelState) and trip.hex else ())
    near = sorted(
        (reach.nearest(h, here), grid.parse(h), h)
        for h in state.castles
        if here and reach.nearest(h, here) <= reach.REACH
    )
    if not near:
        msg = "no castle is within two hexes of the party; name the castle's hex (--hex)"
        raise UsageError(msg)
    return near[0][2]


def hail(ctx: StepContext, command: HailCastle) -> None:
    """The garrison rides out to meet a party that hails it, unless the party looks quarrelsome or forceful."""
    name = _hailed_castle(ctx, command.hex)
    reason = "the party looks quarrelsome or forceful: the garrison stays in" if command.quarrelsome else ""
    ctx.emit(
        ev.CastleHailed(hex=name, quarrelsome=command.quarrelsome, rides_out=not command.quarrelsome, reason=reason)
    )


def demand(kind: Kind, demands: CastleDemands, disposition: str) -> str:
    """The castle's demand by its kind, in words."""
    if kind is Kind.FIGHTER and demands.fighter is not None:
        f = demands.fighter
        return (
            f"challenges a party fighter to a joust; declined, a toll of {f.toll_dice} x {f.toll_gp_per_point} gp; "
            f"won, hospitality up to {f.hospitality_days} days, {f.rations_days} days of rations, warhorses"
        )
    if kind is Kind.MAGIC_USER and demands.magic_user is not None:
        m = demands.magic_user
        return (
            f"sends the party on a quest by geas, keeping {m.quest_keeps_fraction:.0%} of the treasure; "
            f"otherwise a toll of {m.toll_dice} x {m.toll_gp_per_point} gp or a magic item"
        )
    if kind is Kind.CLERIC and demands.cleric is not None:
        hostile = "; hostile, it may simply attack" if disposition == Disposition.HOSTILE else ""
        return f"demands a tithe of {demands.cleric.tithe_pct}% of coin and jewels; otherwise a quest{hostile}"
    return ""


def meet(ctx: StepContext, command: MeetGarrison) -> None:
    """The garrison meets the party: the castle's type (a die, one face per type) and disposition (d6) if unknown."""
    table, state = table_of(ctx), castles(ctx)
    coming = state.coming[0]
    castle = state.castle(coming.hex)
    assert castle is not None  # noqa: S101 - only a castle's garrison rides out
    nonces = []
    castle_type, type_face = castle.castle_type, 0
    if not castle_type:
        rolled = ctx.roll(f"1d{len(table.types)}", TYPE)
        nonces.append(rolled.nonce)
        type_face = rolled.total
        castle_type = table.type_of(type_face)
    disposition, disposition_face = castle.disposition, 0
    if castle_type in table.always:
        disposition = table.disposition_of(castle_type, 0).value
    elif not disposition:
        rolled = ctx.roll("1d6", DISPOSITION)
        nonces.append(rolled.nonce)
        disposition_face = rolled.total
        disposition = table.disposition_of(castle_type, disposition_face).value
    kind = table.kind[castle_type]
    ctx.emit(
        ev.GarrisonMet(
            number=state.meetings + 1,
            hex=coming.hex,
            how=coming.how,
            castle_type=castle_type,
            kind=kind.value,
            disposition=disposition,
            type_face=type_face,
            disposition_face=disposition_face,
            riders=command.riders,
            speed=command.speed,
            demand=demand(kind, demands_of(ctx), disposition),
            rolls=tuple(nonces),
        )
    )


def _met(ctx: StepContext) -> ev.GarrisonMet:
    met = castles(ctx).met
    assert met is not None  # noqa: S101 - the machine allows these steps only in a meeting
    return met


def _end(ctx: StepContext, outcome: str, reason: str = "") -> None:
    met = _met(ctx)
    ctx.emit(ev.MeetingEnded(number=met.number, hex=met.hex, outcome=outcome, reason=reason))


def joust(ctx: StepContext, command: Joust) -> None:
    """A party fighter jousts with the castle's champion: the loser's armor, or the castle's hospitality.

    The roll is made for the fighter, so a penalty on them (exhaustion) lowers it: a total below the die's
    lowest face reads as that face, one of the champion's. The champion who wins takes the loser's armor: the
    party's record of the loser changes from what it was to no armor (``party.member_edited``, in the same
    append, before the meeting ends).
    """
    _joust(ctx, command.fighter, command.winner, warhorses=command.warhorses, takes_armor=True, as_face=True)


def joust_keeping_armor(ctx: StepContext, command: JoustKeepingArmor) -> None:
    """A joust as releases before ``castle.joust_fought`` version 2 recorded it: a lost one changed no member's
    armor, and the total was read as it was (the audit re-runs such a joust with this)."""
    _joust(ctx, command.fighter, "", warhorses=command.warhorses, takes_armor=False, as_face=False)


def joust_reading_the_total(ctx: StepContext, command: JoustReadingTheTotal) -> None:
    """A joust as releases before ``castle.joust_fought`` version 3 recorded it: the champion's faces were read
    against the total as it was, so a penalty that took it below 1 lost the champion the joust (the audit re-runs
    such a joust with this)."""
    _joust(ctx, command.fighter, "", warhorses=command.warhorses, takes_armor=True, as_face=False)


def _joust(  # noqa: PLR0913 - the joust's facts, spelled out
    ctx: StepContext, fighter_name: str, given: str, *, warhorses: bool, takes_armor: bool, as_face: bool
) -> None:
    met = _met(ctx)
    fighter = demands_of(ctx).fighter
    assert fighter is not None  # noqa: S101 - the rules' check: a fighter castle has its demands
    party = ctx.table.party
    member = party.named(fighter_name)
    if given and given not in WINNERS:
        msg = f"the winner is castle or party, not {given!r} (or leave it out to roll)"
        raise UsageError(msg)
    winner, face = given, 0
    nonces: tuple[int, ...] = ()
    if not winner:
        rolled = ctx.roll(JOUST_DICE, JOUST, made_for=fighter_name)
        face, nonces = rolled.total, (rolled.nonce,)
        read = min(max(face, 1), rolled.sides[0]) if as_face else face
        winner = "castle" if read in CHAMPION_WINS_ON else "party"
    won = winner == "party"
    worn = member.armor if member.armor not in NO_ARMOR else NONE
    ctx.emit(
        ev.JoustFought(
            hex=met.hex,
            fighter=fighter_name,
            winner=winner,
            face=face,
            armor_lost_by="" if won else fighter_name,
            armor="" if won or not takes_armor else worn,
            hospitality_days=fighter.hospitality_days if won else 0,
            rations_days=fighter.rations_days if won else 0,
            warhorses=won and warhorses,
            rolls=nonces,
        )
    )
    if not won and takes_armor and worn != NONE:
        was = MemberSheet(**attrs.asdict(member))
        ctx.emit(
            MemberEdited(
                was=was,
                now=attrs.evolve(was, armor=NONE),
                reason=f"taken by the champion of the castle at {met.hex}, who won the joust",
            )
        )
    _end(ctx, "jousted_won" if won else "jousted_lost")


def toll(ctx: StepContext, command: DemandToll) -> None:
    """The toll by kind: the fighter's and the magic-user's rolled in gold, the cleric's tithe of the worth given."""
    if command.worth not in WORTH_GP and not (ctx.as_recorded and command.worth >= 0):  # as earlier builds took it
        msg = f"the worth the party carries must be {WORTH_GP.least} to {WORTH_GP.most} gp, not {command.worth}"
        raise UsageError(msg)
    met, demands = _met(ctx), demands_of(ctx)
    kind = Kind(met.kind)
    if kind is Kind.CLERIC:
        assert demands.cleric is not None  # noqa: S101 - the rules' check
        pct = demands.cleric.tithe_pct
        gold = command.worth * pct // 100
        reason = f"a tithe of {pct}% of {command.worth} gp of coin and jewels"
        ctx.emit(
            ev.TollDemanded(hex=met.hex, kind=kind.value, gold=gold, tithe_pct=pct, worth=command.worth, reason=reason)
        )
        return
    if command.worth:
        lord = "a fighter's" if kind is Kind.FIGHTER else "a magic-user's"
        msg = (
            f"the castle at {met.hex} is {lord}: its toll is rolled in gold, and the worth the party carries "
            "(--worth, a cleric's tithe) is not used there; leave it out"
        )
        raise RuleRefusedError(msg)
    part: Any = demands.fighter if kind is Kind.FIGHTER else demands.magic_user
    assert part is not None  # noqa: S101 - the rules' check
    rolled = ctx.roll(part.toll_dice, TOLL)
    gold = rolled.total * part.toll_gp_per_point
    why = "the joust declined" if kind is Kind.FIGHTER else "the quest refused"
    ctx.emit(
        ev.TollDemanded(
            hex=met.hex,
            kind=kind.value,
            gold=gold,
            item_instead=kind is Kind.MAGIC_USER,
            reason=f"{why}: {part.toll_dice} = {rolled.total} x {part.toll_gp_per_point} gp",
            rolls=(rolled.nonce,),
        )
    )


def pay(ctx: StepContext, command: PayToll) -> None:
    """The party pays the toll named, or gives a magic-user's castle a magic item instead."""
    state = castles(ctx)
    named = state.toll
    assert named is not None  # noqa: S101 - the machine allows ``pay`` only once a toll is named
    if command.item and not named.item_instead:
        msg = f"a {named.kind} castle takes no magic item in place of its toll; pay the {named.gold} gp"
        raise UsageError(msg)
    gold = 0 if command.item else named.gold
    ctx.emit(ev.TollPaid(hex=named.hex, gold=gold, item=command.item))
    _end(ctx, "paid")


def quest(ctx: StepContext, command: AcceptQuest) -> None:
    """The party accepts the quest: a magic-user's by geas, keeping its share of the treasure."""
    met, demands = _met(ctx), demands_of(ctx)
    kind = Kind(met.kind)
    geas = kind is Kind.MAGIC_USER
    keeps = demands.magic_user.quest_keeps_fraction if geas and demands.magic_user is not None else 0.0
    ctx.emit(ev.QuestAccepted(hex=met.hex, kind=kind.value, geas=geas, keeps_fraction=keeps, quest=command.quest))
    _end(ctx, "quest")


def refuse(ctx: StepContext, command: RefuseDemand) -> None:
    """The party refuses the demand: the garrison fights, lets it go, or the party flees."""
    ctx.emit(ev.DemandRefused(hex=_met(ctx).hex, reason=command.reason))


def fight(ctx: StepContext, command: FightGarrison) -> None:  # noqa: ARG001 - the step signature
    """The encounter takes over: the garrison as monsters, both sides aware of each other (they have met)."""
    met = _met(ctx)
    ctx.hand_off(
        StartEncounter(
            setting=Setting.WILDERNESS,
            name=f"the garrison of the castle at {met.hex}",
            party_aware=True,
            monsters_aware=True,
            monster_count=met.riders,
            monster_speed=met.speed,
        )
    )


def fight_over(ctx: StepContext, command: ChildConcluded) -> None:
    """The fight (or the pursuit) concluded: the meeting ends with its outcome.

    A pursuit ends it escaped or caught (a caught party has fought the encounter the pursuit handed off);
    each encounter the rest after the escape met is then handed off in turn, and when the last concludes the castle
    is done.
    """
    change = ctx.change
    if command.child == PURSUIT_PROCEDURE:
        chased = ctx.state(PURSUIT_PROCEDURE)
        assert isinstance(chased, PursuitState)  # noqa: S101 - the child that concluded
        ended = chased.ended
        outcome = ended.outcome if ended is not None else ""
        reason = f"pursuit {chased.started.number}: {ended.reason if ended is not None else outcome}"
        if not _ended(ctx):  # else the pursuit came of an encounter the rest met: the meeting ended before it
            _end(ctx, outcome, reason)
        if change is not None and change.dest == Phase.RESTING.name:
            _met_while_resting(ctx, chased)
        return
    if change is not None and change.source == Phase.RESTING.name:
        if change.dest == Phase.PURSUED.name:  # the encounter the rest met ended with the party pursued again
            _pursued_again(ctx)
        elif change.dest == Phase.RESTING.name:  # the rest met another encounter: it is handed off in turn
            chased = ctx.state(PURSUIT_PROCEDURE)
            assert isinstance(chased, PursuitState)  # noqa: S101 - the condition read it
            _met_while_resting(ctx, chased)
        return  # the encounter the rest met concluded: the meeting ended with the pursuit
    encounter = ctx.state("encounter")
    assert isinstance(encounter, EncounterState)  # noqa: S101 - the child that concluded
    concluded = encounter.concluded
    outcome = concluded.outcome if concluded is not None else ""
    _end(ctx, "fought", f"encounter {encounter.started.number}: {outcome}")


def _ended(ctx: StepContext) -> bool:
    """Whether the meeting under way has ended (a pursuit of an encounter the rest after its escape met comes
    after)."""
    state, met = castles(ctx), _met(ctx)
    return state.ended is not None and state.ended.number == met.number


def _pursued_again(ctx: StepContext) -> None:
    """Hand off the pursuit of the party an encounter the rest after the escape met ended in, with that encounter's
    facts, on the castle's hex's terrain outside a journey (as the garrison's pursuit)."""
    pursuit = handover.from_encounter(
        ctx.state("encounter"), handover.pursuit_reading(ctx.rules), _terrain(ctx, _met(ctx).hex)
    )
    assert pursuit is not None  # noqa: S101 - the row's condition read it
    ctx.hand_off(pursuit)


def _met_while_resting(ctx: StepContext, chased: PursuitState) -> None:
    """Hand off the encounter the rest after the escape met (seed 004 §4.14 step 5): the wilderness, no
    side aware of the other, as a travel day hands off its own."""
    name = f"pursuit {chased.started.number}: wandering monsters while resting"
    ctx.hand_off(StartEncounter(setting=Setting.WILDERNESS, name=name))


def flee(ctx: StepContext, command: FleeGarrison) -> None:  # noqa: ARG001 - the step signature
    """The forces pursue on their disposition's chance in 6 (a friendly castle's never: nothing is rolled).

    Pursued under seed 004's pursuit, the wilderness pursuit takes over (``pursuit_start``) and the
    meeting ends when it concludes; otherwise the meeting ends now, "escaped" or "pursued" (the referee
    runs the chase under rules without one).
    """
    met, table = _met(ctx), table_of(ctx)
    on = table.pursue_on(met.disposition)
    face, nonces = 0, tuple[int, ...]()
    if on:
        rolled = ctx.roll("1d6", PURSUIT)
        face, nonces = rolled.total, (rolled.nonce,)
    pursued = face in on
    fled = ev.GarrisonFled(
        hex=met.hex,
        disposition=met.disposition,
        pursue_on=on,
        face=face,
        pursued=pursued,
        riders=met.riders,
        speed=met.speed,
        rolls=nonces,
    )
    ctx.emit(fled)
    if pursued and hex_by_hex(ctx.rules):
        ctx.follow("pursue")
        ctx.hand_off(pursuit_start(fled, _terrain(ctx, met.hex)))
        return
    ctx.follow("settle")
    _end(ctx, "pursued" if pursued else "escaped")


def _terrain(ctx: StepContext, hex_name: str) -> str:
    """The OD&D terrain row of the castle's hex (the pursuit's terrain outside a journey)."""
    found = ctx.state(MAP)
    place = found.hex(hex_name) if isinstance(found, MapState) else None
    return ctx.part(MapTables).odd_row(place.terrain) if place is not None else ""


def part(ctx: StepContext, command: PartWays) -> None:
    """The garrison and the party part in peace."""
    _end(ctx, "parted", command.reason)


def pursuit_start(fled: ev.GarrisonFled, terrain: str = "") -> StartPursuit:
    """The wilderness pursuit the castle's forces start when they pursue: the riders as pursuers at their
    speed, the castle's disposition deciding its continue check (seed 004), ``terrain`` outside a journey
    (a journey's true hex gives its own). The party rolls its evasion first; pure."""
    return StartPursuit(
        name=f"the garrison of the castle at {fled.hex}",
        pursuers=fled.riders,
        pursuers_speed=fled.speed,
        castle=fled.disposition,
        terrain=terrain,
    )


__all__ = ["PURPOSES", "CastleState", "pursuit_start"]
