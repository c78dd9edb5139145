"""``hexlog simulate chase``: a chase round by round, in the dungeon or on water (OSE §2.9, seed 004 §4.4), asked
many times.

A trial starts a chase from its facts, as ``hexlog chase start`` does, and runs it to its end as a fleeing side
would: on water the vessel tries its evasion first; in the dungeon the fleeing side drops what ``--drop`` names, one
item a round from the first, and otherwise runs. What the chase comes to is read from the events it recorded: how
often the fleeing side escaped or was caught, after how many rounds, whether a dropped item stopped the pursuers,
and on water whether the evasion roll passed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events import chase as ev
from hexlog.events.errors import UsageError
from hexlog.machine import commands as c
from hexlog.machine.chase import CHASE
from hexlog.machine.chase.commands import DISTANCE_FT, RATE_FT, Drop, Evade, RepeatSteps, Run, StartChase
from hexlog.machine.chase.rules import ChaseOptions, ChaseTables
from hexlog.machine.commands import arg
from hexlog.service.simulation_kit import EVASION_PARTS, PARTY, Scenario

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.base import Event
    from hexlog.machine.ruleset import Ruleset
    from hexlog.service.simulation_kit import Outcome, Play

#: a trial whose chase has run this many rounds is refused (facts under which nothing ends it: sides at one rate and
#: no line of sight)
MAX_ROUNDS = 1000
#: what a fleeing side may drop (``chase drop``)
ITEMS = tuple(item.value for item in ev.Dropped)


@attrs.frozen(kw_only=True)
class Pursued(StartChase):
    """A chase's situation: the facts it starts with (every option of ``hexlog chase start``), and what the fleeing
    side drops."""

    # the facts whose help names an encounter to take them from, told as a trial's chase takes them: it follows none
    gap_ft: int | None = arg(
        None,
        help="the gap between the sides, in feet (needed: a trial's chase follows no encounter)",
        least=0,
        within=DISTANCE_FT,
    )
    fleeing_ft: int | None = arg(
        None, help="the fleeing side's rate, feet per round (default: the party's slowest)", least=0, within=RATE_FT
    )
    pursuers_ft: int | None = arg(
        None,
        help="the pursuers' rate, feet per round (needed: a trial's chase follows no encounter)",
        least=0,
        within=RATE_FT,
    )
    intelligent: bool | None = arg(
        None, help="the pursuers are intelligent or not (default: intelligent)", flag="--intelligent/--unintelligent"
    )
    drop: tuple[str, ...] = arg(
        (), help="an item the fleeing side drops, treasure or food, one a round from the first (repeat for each)"
    )

    @property
    def start(self) -> StartChase:
        """The command that starts the chase."""
        return StartChase(**{f.name: getattr(self, f.name) for f in attrs.fields(StartChase)})


#: the chase's steps a trial takes, by trigger, in order of preference (a drop is taken while items are left)
STEPS = {"evade": Evade(), "repeat": RepeatSteps(), "run": Run()}


def _chase_trial(play: Play, pursued: Pursued) -> None:
    """Start the chase and run it to its end: the vessel's evasion first, the items dropped one a round, the rounds."""
    wrong = [item for item in pursued.drop if item not in ITEMS]
    if wrong:
        msg = f"--drop takes {' or '.join(ITEMS)}, not {', '.join(map(repr, wrong))}"
        raise UsageError(msg)
    play.run(pursued.start)
    left, dropped_in = list(pursued.drop), -1
    while play.state(CHASE.name).phase not in CHASE.final:
        rounds = play.state(CHASE.name).rounds
        if rounds >= MAX_ROUNDS:
            msg = f"the chase has not ended after {MAX_ROUNDS} rounds: nothing in its facts ends it"
            raise UsageError(msg)
        allowed = play.allowed(CHASE.name)
        if left and "drop" in allowed and dropped_in < rounds:
            play.run(Drop(item=left.pop(0)))
            dropped_in = rounds
            continue
        play.run(next(step for trigger, step in STEPS.items() if trigger in allowed))


def _chase_measure(events: Sequence[Event], pursued: Pursued, _: Ruleset) -> Outcome:
    """The chase's end, its rounds, whether a dropped item stopped the pursuers (where one was dropped) and, on water,
    whether the evasion roll passed."""
    ended = next(e for e in events if isinstance(e, ev.ChaseEnded))
    out: Outcome = {
        "escaped": ended.outcome is ev.Outcome.ESCAPED,
        "caught": ended.outcome is ev.Outcome.CAUGHT,
        "rounds": ended.rounds,
    }
    if pursued.drop:
        out["stopped by a dropped item"] = any(isinstance(e, ev.ItemDropped) and e.stopped for e in events)
    evasion = next((e for e in events if isinstance(e, ev.WaterEvasionRolled)), None)
    if evasion is not None:
        out["evaded on water"] = evasion.evaded
    return out


def _rates(pursued: Pursued) -> tuple[int, int] | None:
    """The fleeing side's and the pursuers' rates as the chase takes them (the party's slowest where the fleeing
    side's is not given; None where the pursuers' is not given, which the chase refuses, naming it)."""
    if pursued.pursuers_ft is None:
        return None
    speeds = [member.speed for member in PARTY if isinstance(member, c.AddMember)]
    return (pursued.fleeing_ft if pursued.fleeing_ft is not None else min(speeds)), pursued.pursuers_ft


def _chase_unheeded(pursued: Pursued, rules: Ruleset) -> dict[str, str]:
    """The facts of a chase no trial reads: on water all but the gap and the rates (the vessels' evasion and the gap
    decide it); in the dungeon, all of them for a faster fleeing side that escapes at once (unless forced to stop,
    which a slower one never reads); the pursuers' temper for an item no one drops, and an item dropped they care
    nothing for (treasure unless they like it; food unless hungry or unintelligent; either at 0 in 6); giving up out
    of sight where nothing goes out of sight (no line of sight, or a gap that never grows beyond it), and the line of
    sight where relentless pursuers keep on beyond it."""
    given = {
        name: getattr(pursued, name) != getattr(attrs.fields(Pursued), name).default
        for name in (
            "drop",
            "relentless",
            "line_of_sight_ft",
            "forced_to_stop",
            "likes_treasure",
            "hungry",
            "intelligent",
        )
    }
    if pursued.setting == ev.ChaseSetting.WATERBORNE:
        why = "a chase on water reads only the gap and the rates: the vessels' evasion and the gap decide it"
        afloat = dict.fromkeys((name for name, on in given.items() if on), why)
        if given["drop"]:
            afloat["drop"] = "a chase on water drops nothing: the vessels' evasion and the gap decide it"
        return afloat
    rates = _rates(pursued)
    if rates is None or pursued.setting != ev.ChaseSetting.DUNGEON:
        return {}  # the chase refuses what it lacks, naming it
    fleeing_ft, pursuers_ft = rates
    out: dict[str, str] = {}
    if fleeing_ft > pursuers_ft and not pursued.forced_to_stop:
        why = f"the fleeing side is faster ({fleeing_ft} against {pursuers_ft} ft a round) and escapes at once"
        return dict.fromkeys((name for name, on in given.items() if on), why)
    if pursued.forced_to_stop and fleeing_ft <= pursuers_ft:
        out["forced_to_stop"] = "only a faster fleeing side escapes at once unless forced to stop, and this one is not"
    out |= _temper_unheeded(pursued, rules, given)
    los, gap = pursued.line_of_sight_ft, pursued.gap_ft
    beyond = los > 0 and (fleeing_ft > pursuers_ft or (gap is not None and gap + fleeing_ft - pursuers_ft > los))
    if pursued.relentless and not beyond:
        out["relentless"] = (
            "the fleeing side never goes out of the pursuers' sight (no --line-of-sight-ft, or a gap that never grows "
            "beyond it): whether they give up then is never asked"
        )
    if los and pursued.relentless:
        out["line_of_sight_ft"] = "relentless pursuers keep on out of sight: how far they see changes nothing"
    elif los and not beyond:
        out["line_of_sight_ft"] = f"the gap never grows beyond {los} ft: the fleeing side never goes out of sight"
    return out


def _temper_unheeded(pursued: Pursued, rules: Ruleset, given: dict[str, bool]) -> dict[str, str]:
    """The pursuers' temper where no item it reads is dropped, and an item dropped they never stop for."""
    out: dict[str, str] = {}
    dropped = set(pursued.drop)
    for name, item in (("likes_treasure", "treasure"), ("hungry", "food"), ("intelligent", "food")):
        if given[name] and item not in dropped:
            out[name] = f"only {item} dropped reads it (--drop {item}), and none is"
    tables = rules.part(ChaseTables).dungeon_pursuit
    if tables is None or not dropped:
        return out
    # the chase's own reading of each item: whether its pursuers are tempted at all, and the chance in 6
    reading = {
        item: tables.stop_for(
            item,
            likes_treasure=pursued.likes_treasure,
            hungry=pursued.hungry,
            intelligent=pursued.intelligent is not False,
        )
        for item in ITEMS
    }
    careless = [item for item in dict.fromkeys(pursued.drop) if item in reading and not reading[item][0]]
    never = [item for item in dict.fromkeys(pursued.drop) if reading.get(item) == (True, 0)]
    if careless:
        out["drop"] = (
            f"the pursuers care nothing for {' or '.join(careless)} (--likes-treasure; --hungry or --unintelligent "
            "for food): they never stop for it"
        )
    elif never:
        out["drop"] = f"the rules stop pursuers for {' or '.join(never)} on 0 in 6: they never stop for it"
    return out


def _chase_notes(pursued: Pursued, rules: Ruleset) -> tuple[str, ...]:
    """A chase in the dungeon with nothing dropped that its pursuers may stop for rolls no die: its facts decide it,
    the same in every trial, which is told rather than shown as a rate of 0 or 100 %."""
    if pursued.setting == ev.ChaseSetting.WATERBORNE or (
        pursued.drop and "drop" not in _chase_unheeded(pursued, rules)
    ):
        return ()
    return ("no die is rolled in this chase: its facts decide it, and every trial ends alike",)


CHASE_SCENARIO = Scenario(
    name="chase",
    # the evasion of a flight from a meeting, and A18's surprise and distance rolled again for a chase from an
    # encounter in progress: both only where a chase follows an encounter
    unreached=(*EVASION_PARTS, ChaseOptions),
    unreached_why=(
        "a chase follows an encounter, which no trial of simulate {name} plays: each chase is started by hand"
    ),
    procedures=("campaign", "chase"),
    title=(
        "Run a chase round by round, in the dungeon or on water: escaped or caught, rounds, a dropped item that "
        "stops the pursuers, the vessels' evasion."
    ),
    ruleset="ose",
    situation=Pursued,
    trial=_chase_trial,
    measure=_chase_measure,
    unheeded=_chase_unheeded,
    notes=_chase_notes,
    # a trial's chase follows no encounter (one named would be refused); its name and note change nothing, and nor
    # does who flees: the rates and facts given decide the chase alike for either side
    unread=("from_encounter", "name", "note", "fleeing"),
)
