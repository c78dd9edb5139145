"""What the referee typed into a chase started by hand (``chase start``) that decides its rounds, in the audit's
words (its account of the referee's hand): the side that flees, the gap and rates where they are not those the
encounter it follows and the party give, and the pursuers' tastes, sight and resolve. A chase another procedure hands
off (an encounter's, a delve's) takes its facts from it, and is not named here. A start the rules refuse on the state
before it (an encounter the log never met, one not the latest or still under way, the side that gave chase fleeing, a
length out of range) names nothing here: the audit runs it again there (the chase's ``typed_steps``) and finds it, in
a stream of a release that refuses it as today's (``inverse.STARTS_SINCE``); an older release's is let be."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events.errors import RuleRefusedError, UsageError
from hexlog.events.vocabulary import Side
from hexlog.machine.chase import rounds
from hexlog.machine.chase.commands import StartChase
from hexlog.machine.chase.state import PROCEDURE
from hexlog.machine.kit.hand import told

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events import chase as ev
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.kit.hand import Fact

#: the facts of a chase the encounter and the party give, each with its words where the referee gave another
GIVEN: tuple[tuple[str, Callable[[Any], str]], ...] = (
    ("gap_ft", lambda n: f"a gap of {n} ft"),
    ("fleeing_ft", lambda n: f"the fleeing side at {n} ft a round"),
    ("pursuers_ft", lambda n: f"the pursuers at {n} ft a round"),
    ("intelligent", lambda so: "the pursuers intelligent" if so else "the pursuers not intelligent"),
)
#: the facts only the referee gives, each with what it is untold and its words
TOLD: tuple[Fact, ...] = (
    ("likes_treasure", False, lambda _: "pursuers who like treasure"),
    ("hungry", False, lambda _: "hungry pursuers"),
    ("gives_up_out_of_sight", True, lambda _: "relentless pursuers"),
    ("line_of_sight_ft", 0, lambda n: f"a line of sight of {n} ft"),
    ("forced_to_stop", False, lambda _: "the fleeing side forced to stop"),
)


def started_by_hand(event: ev.ChaseStarted, ctx: StepContext) -> str | None:
    """A chase the referee started, with the facts they gave (None: nothing given, or a chase handed off)."""
    handoffs = ctx.table.handoffs
    if handoffs and handoffs[-1][1] == PROCEDURE:
        return None
    # with no encounter to follow, the gap and the monsters' rate have no default: the referee gave them
    try:
        followed, unfollowed = rounds.encounter_of(ctx.table, event.from_encounter), ""
    except RuleRefusedError as refused:  # no release let a chase follow it (the start's re-run finds it, where it
        # runs): the start gave every fact as a chase that follows none does, and says which encounter it names
        followed, unfollowed = None, f"encounter {event.from_encounter} named to follow, which it cannot ({refused})"
    alone = followed is None
    party_flees = event.fleeing is Side.PARTY
    untold = StartChase(
        setting=event.setting,
        fleeing=event.fleeing,
        from_encounter=event.from_encounter if followed is not None else 0,
        gap_ft=event.gap_ft if alone else None,
        fleeing_ft=event.fleeing_ft if alone and not party_flees else None,
        pursuers_ft=event.pursuers_ft if alone and party_flees else None,
    )
    needed = {"gap_ft", "pursuers_ft" if party_flees else "fleeing_ft"} if alone else set()
    try:
        facts = rounds.facts_of(ctx.table, untold)
    except (RuleRefusedError, UsageError):  # a start no release wrote: the start's re-run finds it
        return None
    said = [unfollowed] if unfollowed else []
    said += [f"the {event.fleeing} fleeing"] if event.fleeing is not rounds.untold_fleeing(followed) else []
    said += [
        words(getattr(event, name))
        for name, words in GIVEN
        if name in needed or getattr(event, name) != getattr(facts, name)
    ]
    said += told(event, TOLD)
    if not said:
        return None
    return f"chase {event.number} started by the referee with {', '.join(said)} (its rounds read them)"
