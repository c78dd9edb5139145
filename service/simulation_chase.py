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
from hexlog.machine.chase import CHASE
from hexlog.machine.chase.commands import Drop, Evade, RepeatSteps, Run, StartChase
from hexlog.machine.chase.rules import ChaseTables
from hexlog.machine.commands import arg
from hexlog.service.simulation_kit import EVASION_PARTS, Scenario

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


def _chase_unheeded(pursued: Pursued, rules: Ruleset) -> dict[str, str]:
    """``--drop`` on water, where nothing is dropped (the vessels' evasion and the gap decide), and an item the
    pursuers care nothing for: they never stop for it (treasure unless they like it; food unless hungry or
    unintelligent)."""
    if not pursued.drop:
        return {}
    if pursued.setting == ev.ChaseSetting.WATERBORNE:
        return {"drop": "a chase on water drops nothing: the vessels' evasion and the gap decide it"}
    tempted = {
        ev.Dropped.TREASURE.value: pursued.likes_treasure,
        ev.Dropped.FOOD.value: pursued.hungry or pursued.intelligent is False,
    }
    tables = rules.part(ChaseTables).dungeon_pursuit
    ignored = [item for item in dict.fromkeys(pursued.drop) if item in tempted and not tempted[item]]
    if tables is None or not ignored:
        return {}
    return {
        "drop": f"the pursuers care nothing for {' or '.join(ignored)} (--likes-treasure; --hungry or "
        "--unintelligent for food): they never stop for it"
    }


def _chase_notes(pursued: Pursued, rules: Ruleset) -> tuple[str, ...]:
    """A chase in the dungeon with nothing dropped that its pursuers may stop for rolls no die: its facts decide it,
    the same in every trial, which is told rather than shown as a rate of 0 or 100 %."""
    if pursued.setting == ev.ChaseSetting.WATERBORNE or (pursued.drop and not _chase_unheeded(pursued, rules)):
        return ()
    return ("no die is rolled in this chase: its facts decide it, and every trial ends alike",)


CHASE_SCENARIO = Scenario(
    name="chase",
    unreached=EVASION_PARTS,
    unreached_why="an encounter's pursuers give chase, which no trial of simulate {name} plays: each chase is started "
    "by hand",
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
    # a trial's chase follows no encounter (one named would be refused); its name and note change nothing
    unread=("from_encounter", "name", "note"),
)
