"""Rest and exhaustion (seed 004, REFERENCE §4.12, §4.16, A29): -1 to all rolls per level, cumulative.

At the start of each travel day a member grows one level more exhausted when already exhausted, when
a forced march yesterday owed a rest day, or when this day is past the six travel days a rest day
allows. One full rest day clears it all: ``travel rest``, on a journey or once it has ended, or a full
day of game time with no journey under way in which the party neither delved, fled nor chased (the due check
``rest_on_the_clock``: a party that is not travelling, delving or running is resting). The levels impose a
modifier on every roll made for the member (``made_for`` its name) and, at the party's worst member's level, on
rolls made for the party side; each is recorded on the roll with its source, and counts against them (the kit adds
it to a roll where low is good).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import travel as ev
from hexlog.events.dice import RollModifier
from hexlog.events.vocabulary import Side
from hexlog.machine.kit.clock import DAY_SECONDS
from hexlog.machine.travel.rules import TravelTables
from hexlog.machine.travel.state import PROCEDURE, Phase, TravelState

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.table import Table


def level_for(table: Table, made_for: str) -> int:
    """The exhaustion level that applies to a roll made for a member or for the party side (0: none): the
    journey's, or the last one's until its members have rested."""
    trip = table.procedures.get(PROCEDURE)
    if not isinstance(trip, TravelState) or not made_for:
        return 0
    if made_for.lower() == Side.PARTY.value:
        return max((trip.exhaustion(m.name) for m in table.party.members), default=0)
    return trip.exhaustion(made_for)


def modifiers(table: Table, made_for: str, purpose: str) -> Sequence[RollModifier]:  # noqa: ARG001 - every roll
    """The modifier source: exhaustion on every roll made for an exhausted member or the party."""
    level = level_for(table, made_for)
    if not level or table.rules is None:
        return ()
    rest = table.rules.part(TravelTables).rest
    if rest is None or not rest.exhaustion_per_day:
        return ()
    days = "day" if level == 1 else "days"
    return (
        RollModifier(
            source=f"exhaustion ({level} {days} of travel without the rest owed)", value=level * rest.exhaustion_per_day
        ),
    )


def at_day_start(ctx: StepContext, trip: TravelState, travellers: tuple[str, ...]) -> None:
    """Before a travel day: each member owed a rest, or past the days allowed, grows more exhausted."""
    rest = ctx.part(TravelTables).rest
    if rest is None:
        return
    for name in travellers:
        member = trip.members.get(name)
        if member is None:
            continue
        day = member.travel_days + 1
        owed = member.owed and rest.forced_march_rest_days > 0
        if member.exhaustion or owed or day > rest.rest_every_travel_days:
            if member.exhaustion:
                why = "another day of travel without rest"
            elif owed:
                why = "no rest day after a forced march"
            else:
                why = f"travel day {day} without a full rest day (one is needed per {rest.rest_every_travel_days})"
            ctx.emit(ev.ExhaustionChanged(member=name, level=member.exhaustion + 1, reason=why))


def rest_day(
    ctx: StepContext, trip: TravelState, *, day: int | None = None, reason: str = "a full day of rest"
) -> None:
    """A full rest day: every exhausted member recovers (``day``: the day it is counted on, the next by default)."""
    members = tuple(m.name for m in ctx.table.party.members)
    for name in members:
        if trip.exhaustion(name):
            ctx.emit(ev.ExhaustionChanged(member=name, level=0, reason=reason))
    ctx.emit(ev.Rested(day=trip.day + 1 if day is None else day, members=members))


def rest_on_the_clock(ctx: StepContext, start: int, end: int) -> None:  # noqa: ARG001 - the due check's signature
    """The due check: once a full day has passed since the journey ended, with none under way since and no delve,
    pursuit or chase under way in it (a day in a dungeon, fleeing or chasing is no rest), the party has had its
    rest day, and the rest it owed is cleared: after an exertion the day is counted afresh from its end.

    A journey ended by a release that counted any full day as rest (``travel.ended`` version 2) is let be as that
    release ran it: a day after it rests the party whatever filled it. One ended by a release that kept no time of
    its end (before version 2) too: its members rest on a ``travel rest``.
    """
    trip = ctx.state(PROCEDURE)
    if not isinstance(trip, TravelState) or trip.phase is not Phase.ENDED or trip.ended_at < 0 or not trip.owes_rest:
        return
    if not trip.exertion_breaks_rest:
        if end - trip.ended_at >= DAY_SECONDS:
            rest_day(ctx, trip, reason="a full day without travel since the journey ended")
        return
    if trip.quiet >= DAY_SECONDS:
        rest_day(ctx, trip, reason="a full day without travel, a delve, a pursuit or a chase since the journey ended")
