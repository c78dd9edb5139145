"""The inverse audit uses: the command that made a recorded castle decision.

Only what the referee typed is taken from the record (the riders and their speed, the fighter who
jousts, the worth a tithe is taken from); the rest is decided again from the recorded rolls: which
garrisons ride out, the castle's type and disposition, a rolled joust (and the loser's armor it takes), a
toll, the pursuit. A joust recorded before ``castle.joust_fought`` version 2 changed no member's armor, and
is re-run as it was (``JoustKeepingArmor``); one recorded before version 3 read the champion's faces against
the total as it was, below 1 too (``JoustReadingTheTotal``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import castle as ev
from hexlog.machine.castle.commands import (
    DemandToll,
    FleeGarrison,
    Joust,
    JoustKeepingArmor,
    JoustReadingTheTotal,
    MeetGarrison,
    PassCastles,
    PayToll,
)
from hexlog.machine.kit.procedure import Inverse

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.commands import Command
    from hexlog.machine.kit.context import StepContext

#: the first version of ``castle.joust_fought`` whose lost joust takes the loser's armor in the party's record
ARMOR_TAKEN_SINCE = 2
#: the first version of ``castle.joust_fought`` that reads a total below the die's lowest face as that face
TOTAL_AS_FACE_SINCE = 3
#: the fields of a decision that the referee typed, by decision type
TYPED: dict[type[Event], frozenset[str]] = {
    ev.GarrisonMet: frozenset({"riders", "speed"}),
    ev.JoustFought: frozenset({"fighter", "warhorses"}),
    ev.TollDemanded: frozenset({"worth"}),
    ev.TollPaid: frozenset({"item"}),
}


def command_for(event: Event) -> Command | None:
    """The command that made a recorded decision (None: not a dice-driven decision of a castle).

    A meeting, a toll and a flight are re-run whether they name rolls or not: the rules roll for them whenever the
    castle's placing left its type or disposition to the dice, so one recorded with no roll where the rules roll is a
    finding. Only a joust whose winner the referee named is the referee's (``by_hand``). A toll paid is re-run too,
    though no dice decide it (``Inverse.reruns``): the gold is the toll named."""
    command: Command | None = None
    match event:
        case ev.CastlesPassed():
            command = PassCastles()
        case ev.TollPaid():
            command = PayToll(item=event.item)
        case ev.GarrisonMet():
            return MeetGarrison(riders=event.riders, speed=event.speed)
        case ev.JoustFought(rolls=rolls) if rolls:
            return Joust(fighter=event.fighter, warhorses=event.warhorses)
        case ev.TollDemanded():
            return DemandToll(worth=event.worth)
        case ev.GarrisonFled():
            return FleeGarrison()
    return command


def command_before(event: Event, version: int) -> Command | None:
    """The command that made a decision recorded at an earlier schema version of its event: a joust before
    ``castle.joust_fought`` version 2 took no member's armor, and one before version 3 read its total as it was."""
    if isinstance(event, ev.JoustFought) and event.rolls and version < ARMOR_TAKEN_SINCE:
        return JoustKeepingArmor(fighter=event.fighter, warhorses=event.warhorses)
    if isinstance(event, ev.JoustFought) and event.rolls and version < TOTAL_AS_FACE_SINCE:
        return JoustReadingTheTotal(fighter=event.fighter, warhorses=event.warhorses)
    return command_for(event)


def by_hand(event: Event, ctx: StepContext) -> str | None:  # noqa: ARG001 - the inverse's signature
    """What the referee decided by hand in a castle event, in words (None: nothing)."""
    match event:
        case ev.GarrisonMet():
            riders = f"{event.riders} rider{'s' if event.riders != 1 else ''}"
            return (
                f"the garrison of the castle at {event.hex} met as {riders} at {event.speed} ft a turn, the referee's "
                "count and speed (a fight, and a pursuit on a flight, read them)"
            )
        case ev.CastleHailed(quarrelsome=True):
            return (
                f"the castle at {event.hex} hailed by a party the referee said looks quarrelsome or forceful: its "
                "garrison stays in (no meeting is rolled)"
            )
        case ev.TollDemanded(tithe_pct=pct) if pct:
            return f"the tithe of the castle at {event.hex} taken from a worth of {event.worth} the referee gave"
        case ev.JoustFought(rolls=()):
            return f"the joust at the castle at {event.hex} won by the {event.winner} (the referee's)"
        case ev.CastlePlaced() if event.castle_type or event.disposition:
            known = " ".join(x for x in (event.disposition, event.castle_type) if x)
            return f"the castle at {event.hex} placed as {known}"
    return None


INVERSE = Inverse(
    command_for=command_for,
    typed=TYPED,
    by_hand=by_hand,
    command_before=command_before,
    decides={"pass": (ev.CastlesPassed,), "meet": (ev.GarrisonMet,), "toll": (ev.TollDemanded,)},
    reruns=frozenset({ev.TollPaid}),
)
