"""``hexlog simulate castle``: a castle hailed and its garrison met (seed 004, U&WA p.15), asked many times.

Each trial places a castle of its own on the next hex of a map of clear land (its type and disposition given, or
left to the dice), hails it, and meets the garrison that rides out. The party answers as ``--answer`` says:
``yield`` gives the castle what it demands as the demo's referee does (Ann jousts with a fighter's champion; any
other castle names its toll, and it is paid), ``flee`` flees at once (the forces pursue on their disposition's
chance, and a pursuit is fled to its end, a caught party's encounter played through). What the meeting comes to is
read from the events the castle recorded: the castle's type and disposition, the toll, the joust, the
flight and how the meeting ended.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from hexlog.events import castle as ev
from hexlog.events.errors import UsageError
from hexlog.machine.castle import commands as castle
from hexlog.machine.castle.machine import hex_by_hex
from hexlog.machine.castle.rules import FACES, CastleDemands, CastleTable, CastleTables, Disposition, Kind
from hexlog.machine.castle.state import PROCEDURE as CASTLE
from hexlog.machine.castle.state import Phase
from hexlog.machine.commands import arg
from hexlog.machine.encounter.state import PROCEDURE as ENCOUNTER
from hexlog.machine.evasion import EvasionOptions
from hexlog.machine.hexmap import LoadMap, grid
from hexlog.machine.pursuit.state import PROCEDURE as PURSUIT
from hexlog.service.simulation_kit import MAX_FLIGHTS, PARTY, PURSUIT_STEPS, Scenario

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.base import Event
    from hexlog.machine.ruleset import Ruleset
    from hexlog.service.simulation_kit import Outcome, Play

#: the map's side: one castle a trial on a hex of its own, more hexes than the trials one campaign plays (at most 200)
SIZE = 16
#: how the party answers the garrison
ANSWERS = ("yield", "flee")
#: the dispositions a castle may be given
DISPOSITIONS = tuple(d.value for d in Disposition)
#: the member who jousts with a fighter's champion
JOUSTER = next(member.name for member in PARTY if hasattr(member, "name"))


@attrs.frozen(kw_only=True)
class Visit:
    """A castle's situation: what is known of it, the garrison that rides out, the party's purse and its answer."""

    castle_type: str = arg(
        "",
        help="lord, superhero, wizard, necromancer, patriarch, evil_high_priest (default: rolled when met)",
        flag="--type",
    )
    disposition: str = arg("", help="hostile, neutral or friendly (default: rolled when met)")
    riders: int = arg(8, help="how many riders come out", least=1)
    speed: int = arg(240, help="their base rate, feet per turn", least=1)
    worth: int = arg(800, help="the worth in gp of the party's coin and jewels (a cleric's tithe)", least=0)
    answer: str = arg("yield", help="yield (joust, or pay the toll) or flee")


def _map_text() -> str:
    return "".join(f'[hex."{col},{row}"]\nterrain = "clear"\n' for col in range(SIZE) for row in range(SIZE))


def _castle_prepare(play: Play, _: Visit) -> None:
    """The map of clear land the castles stand on."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "castles.toml"
        path.write_text(_map_text(), encoding="utf-8")
        play.run(LoadMap(file=str(path)))


def _castle_trial(play: Play, visit: Visit) -> None:
    """Place the trial's castle, hail it, meet the garrison and answer it; play whatever the answer hands off."""
    if visit.answer not in ANSWERS:
        msg = f"--answer is {' or '.join(ANSWERS)}, not {visit.answer!r}"
        raise UsageError(msg)
    placed = len(play.state(CASTLE).castles) if play.state(CASTLE) is not None else 0
    if placed >= SIZE * SIZE:
        msg = f"one campaign places at most {SIZE * SIZE} castles"
        raise UsageError(msg)
    where = grid.name(placed // SIZE, placed % SIZE)
    play.run(castle.PlaceCastle(hex=where, castle_type=visit.castle_type, disposition=visit.disposition))
    play.run(castle.HailCastle(hex=where))
    play.run(castle.MeetGarrison(riders=visit.riders, speed=visit.speed))
    met = play.state(CASTLE).met
    if visit.answer == "flee":
        play.run(castle.FleeGarrison())
    elif Kind(met.kind) is Kind.FIGHTER:
        play.run(castle.Joust(fighter=JOUSTER))
    else:
        play.run(castle.DemandToll(worth=visit.worth if Kind(met.kind) is Kind.CLERIC else 0))
        play.run(castle.PayToll())
    _play_out(play)


def _play_out(play: Play) -> None:
    """Play what the meeting handed off (a pursuit fled to its end, each encounter played through) until it ends."""
    flights = 0
    while play.state(CASTLE).phase not in {Phase.DONE, Phase.IDLE}:
        handoffs = play.handler.load(play.campaign).handoffs
        child = handoffs[-1][1] if handoffs else ""
        if child == ENCOUNTER:
            play.finish_encounter()
        elif child == PURSUIT:
            flights += 1
            if flights > MAX_FLIGHTS:
                msg = f"the pursuit has not ended after {MAX_FLIGHTS} steps: the rules in force never end it"
                raise UsageError(msg)
            allowed = play.allowed(PURSUIT)
            play.run(next(step for trigger, step in PURSUIT_STEPS.items() if trigger in allowed))
        else:  # pragma: no cover - a meeting under way waits on its child
            msg = f"the meeting waits in {play.state(CASTLE).phase.name} with nothing handed off"
            raise UsageError(msg)


def _castle_measure(events: Sequence[Event], visit: Visit, rules: Ruleset) -> Outcome:
    """What the meeting came to: the castle's type and disposition (those the dice decided), the toll named,
    the joust, whether the forces pursued a fleeing party, and how the meeting ended; an outcome the situation decides
    alone (``_fixed``) is left out, and a note tells it."""
    met = next(e for e in events if isinstance(e, ev.GarrisonMet))
    toll = next((e for e in events if isinstance(e, ev.TollDemanded)), None)
    joust = next((e for e in events if isinstance(e, ev.JoustFought)), None)
    fled = next((e for e in events if isinstance(e, ev.GarrisonFled)), None)
    ended = next(e for e in events if isinstance(e, ev.MeetingEnded))
    out: Outcome = {}
    if not visit.castle_type:
        out["castle type"] = met.castle_type
    if met.type_face or met.disposition_face:
        out["disposition"] = met.disposition
    out[TOLL] = toll.gold if toll is not None else None
    out["joust won"] = joust.winner == "party" if joust is not None else None
    if fled is not None:
        out[PURSUED] = fled.pursued
    out[ENDED] = ended.outcome
    fixed = _fixed(visit, rules)
    return {name: value for name, value in out.items() if name not in fixed}


#: the procedures a trial may play (``_castle_plays``: which of them it does, by its situation and rules)
CASTLE_PROCEDURES = ("campaign", "castle", "map", "pursuit", "encounter")
#: the measures the situation alone may decide (``_fixed``)
TOLL, PURSUED, ENDED = "toll (gp)", "pursued", "meeting ended"


def _types(visit: Visit, table: CastleTable) -> list[str] | None:
    """The types a trial's castle may be: the one given, else every type of the die (None: a type or disposition the
    rules do not know, which placing the castle refuses, naming it)."""
    types = [visit.castle_type] if visit.castle_type else list(table.types)
    known = all(t in table.kind for t in types) and (not visit.disposition or visit.disposition in DISPOSITIONS)
    return types if known else None


def _dispositions(visit: Visit, table: CastleTable, types: list[str]) -> set[Disposition]:
    """The dispositions a trial's castle may have: a type's that is always one, else the one given, else the die's."""
    out: set[Disposition] = set()
    for castle_type in types:
        if castle_type in table.always:
            out.add(table.always[castle_type])
        elif visit.disposition:
            out.add(Disposition(visit.disposition))
        else:
            out |= {table.disposition_of(castle_type, face) for face in range(1, FACES + 1)}
    return out


def _fixed(visit: Visit, rules: Ruleset) -> dict[str, str]:
    """The measures no die decides in the situation, each with why (for its note): a flight from forces that never
    pursue (or always do, under rules that leave their chase to the referee), a meeting with a castle that names a
    toll the party pays (every castle but a fighter's), a cleric's tithe of the worth given."""
    table = rules.part(CastleTables).castle
    types = _types(visit, table) if table is not None else None
    if table is None or types is None:
        return {}
    out: dict[str, str] = {}
    if visit.answer == "flee":
        dispositions = _dispositions(visit, table, types)
        chances = {table.pursue_in_6.get(d, 0) for d in dispositions}
        forces = f"the forces of a {' or '.join(sorted(dispositions))} castle"
        if chances == {0}:
            out[PURSUED] = out[ENDED] = f"{forces} never pursue a party that flees: every meeting ends escaped"
        elif chances == {FACES} and hex_by_hex(rules):
            out[PURSUED] = f"{forces} always pursue a party that flees"
        elif chances == {FACES}:
            out[PURSUED] = out[ENDED] = (
                f"{forces} always pursue a party that flees, and {rules.name}'s pursuit leaves their chase to the "
                "referee: every meeting ends pursued"
            )
    elif visit.answer == "yield":
        kinds = {table.kind[t] for t in types}
        if Kind.FIGHTER not in kinds:
            out[ENDED] = (
                "a castle that is not a fighter's names its toll and the party pays it: every meeting ends paid"
            )
        demand = (rules.part(CastleTables).castle_demands or CastleDemands()).cleric
        if kinds == {Kind.CLERIC} and demand is not None:
            tithe = visit.worth * demand.tithe_pct // 100
            out[TOLL] = f"a cleric's toll is a tithe of {demand.tithe_pct}% of the party's {visit.worth} gp: {tithe} gp"
    return out


def _castle_notes(visit: Visit, rules: Ruleset) -> tuple[str, ...]:
    """What the situation decides alone, told rather than shown as a rate of 0 or 100 % (``_fixed``)."""
    return tuple(dict.fromkeys(_fixed(visit, rules).values()))


def _castle_plays(visit: Visit, rules: Ruleset) -> tuple[str, ...]:
    """The procedures a trial plays: a party that yields jousts or pays (the castle alone, on its map); one that flees
    forces that may pursue plays the pursuit and a caught party's encounter (the castle reads whose pursuit the rules'
    is, ``options.evasion_rules``, which those two declare, to hand it off or leave it to the referee)."""
    if visit.answer != "flee" or "never pursue" in _fixed(visit, rules).get(PURSUED, ""):
        return ("campaign", "castle", "map")
    return CASTLE_PROCEDURES


def _castle_unheeded(visit: Visit, rules: Ruleset) -> dict[str, str]:
    """``--worth`` where no cleric's castle can be met (only a cleric's tithe reads it), or the party flees (no toll
    is named); ``--riders`` and ``--speed`` where the party yields (only a fight or a pursuit reads them), or flees
    forces that never pursue, or whose pursuit the rules leave to the referee (OSE's: no trial plays it)."""
    out: dict[str, str] = {}
    table = rules.part(CastleTables).castle
    types = _types(visit, table) if table is not None else None
    if table is None or types is None:
        return out  # placing the castle refuses what the rules do not know, naming it
    kinds = {table.kind[t] for t in types}
    default = attrs.fields(Visit)
    if visit.worth != default.worth.default and (visit.answer == "flee" or Kind.CLERIC not in kinds):
        out["worth"] = "only a cleric's tithe reads it, and no trial pays one"
    why = ""
    if visit.answer == "yield":
        why = "only a fight or a pursuit reads it, and a party that yields has neither"
    elif visit.answer == "flee" and not hex_by_hex(rules):
        reading = rules.part(EvasionOptions).evasion_rules
        why = (
            f"only seed 004's pursuit reads it, which {rules.name}'s ({reading}) is not: the referee runs the "
            "chase of forces that pursue, and no trial plays it"
        )
    elif visit.answer == "flee" and "never pursue" in _fixed(visit, rules).get(PURSUED, ""):
        why = f"only a pursuit reads it, and {_fixed(visit, rules)[PURSUED]}"
    for name in ("riders", "speed") if why else ():
        if getattr(visit, name) != getattr(default, name).default:
            out[name] = why
    return out


CASTLE_SCENARIO = Scenario(
    name="castle",
    procedures=CASTLE_PROCEDURES,
    plays=_castle_plays,
    title=(
        "Hail a castle and meet its garrison: its type and disposition, the toll, the joust, whether its forces "
        "pursue a party that flees, and how the meeting ends."
    ),
    ruleset="explore",
    situation=Visit,
    trial=_castle_trial,
    measure=_castle_measure,
    prepare=_castle_prepare,
    unheeded=_castle_unheeded,
    notes=_castle_notes,
)
