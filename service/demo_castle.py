"""The demo's castle: Ravensgate on the moor road, passed by, hailed, and answered as a referee would.

The castle stands on the demo map with its type and disposition left to the dice. Before each travel
day closes, the referee makes the ride-out check the day owes (a secret d6, for show when the party
did not truly pass within two hexes of it, so that the players cannot tell where it went); on the
first day, if the garrison stays in, the party hails it.
The castle's demand follows from what the dice made it: a fighter's castle challenges to a joust
(Aldric rides, the joust rolled); a castle that is not hostile names its toll and is paid; a hostile
one is refused, and its riders fight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.machine.castle import commands as castle
from hexlog.machine.castle.machine import CLOSING
from hexlog.machine.castle.rules import Disposition, Kind
from hexlog.machine.castle.state import PROCEDURE as CASTLE
from hexlog.machine.castle.state import CastleState

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.commands import Command
    from hexlog.service.demo import Referee

CASTLE_HEX = "3,4"
NAME = "Ravensgate"
#: the garrison that rides out: mounted men at a horse's pace
RIDERS, RIDERS_SPEED = 8, 240
JOUSTER = "Aldric"
#: the coin and jewels the party carries (a cleric's tithe is a share of them)
PURSE_GP = 800


def _state(ref: Referee) -> CastleState | None:
    found = ref.state(CASTLE)
    return found if isinstance(found, CastleState) else None


def road(ref: Referee, command: Command) -> list[Event]:
    """A travel command, after the ride-out check the day owes when it closes the day."""
    if isinstance(command, CLOSING):
        watch(ref)
    return ref.do(command)


def watch(ref: Referee) -> None:
    """The day's ride-out check, and the meeting when a garrison rides out."""
    if "pass" in ref.allowed(CASTLE):
        ref.say(f"the day closes: the referee checks in secret whether the garrison of {NAME} rides out")
        ref.do(castle.PassCastles())
    state = _state(ref)
    if state is not None and state.coming:
        meet(ref)


def morning(ref: Referee, *, first: bool) -> None:
    """After the weather, on the first day: the castle is hailed."""
    if first:
        hail(ref)


def hail(ref: Referee) -> None:
    """On the first day: a castle that stayed in is hailed (the party wants news of the moor)."""
    state = _state(ref)
    if state is None or state.meetings or state.coming or "hail" not in ref.allowed(CASTLE):
        return
    ref.say(f"the party rides to the gate of {NAME} and hails it, asking news of the barrow on the moor")
    ref.do(castle.HailCastle(hex=CASTLE_HEX))
    state = _state(ref)
    if state is not None and state.coming:
        meet(ref)


def meet(ref: Referee) -> None:
    """The garrison meets the party (type and disposition rolled if unknown); the party answers its demand."""
    ref.do(castle.MeetGarrison(riders=RIDERS, speed=RIDERS_SPEED))
    state = _state(ref)
    met = state.met if state is not None else None
    if met is None:
        return
    kind, hostile = Kind(met.kind), met.disposition == Disposition.HOSTILE
    if met.number > 1:
        ref.say("the riders know the party from its last meeting with them")
        ref.do(castle.PartWays(reason="the party has answered this castle's demand already"))
    elif kind is Kind.FIGHTER:
        ref.say(f"{JOUSTER} takes up the challenge; the referee rolls the joust")
        ref.do(castle.Joust(fighter=JOUSTER))
    elif not hostile:
        if kind is Kind.MAGIC_USER:
            ref.say("the party has its own errand and will not be sent on another; it asks the toll instead")
        ref.do(castle.DemandToll(worth=PURSE_GP if kind is Kind.CLERIC else 0))  # only a tithe reads the purse
        ref.say("the party counts out what the castle asks")
        ref.do(castle.PayToll())
    else:
        ref.say("the garrison's manner is hostile: the party will not bow to it")
        ref.do(castle.RefuseDemand(reason="the party owes this castle nothing"))
        ref.do(castle.FightGarrison())
        ref.fight_out(
            "the riders lower their lances and charge", rounds=2, outcome="the riders ride back to their walls"
        )
