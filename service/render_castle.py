"""Readable text for the castles' events, and the castles' lines in the campaign's state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events import castle as ev
from hexlog.machine.castle import CastleState
from hexlog.machine.castle.reach import away, due, in_reach
from hexlog.machine.text import counted, shown
from hexlog.service.render_campaign import rolls_named

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event
    from hexlog.machine.table import Table


def _words(name: str) -> str:
    return name.replace("_", " ")


def _placed(e: ev.CastlePlaced) -> str:
    what = " ".join(_words(x) for x in (e.disposition, e.castle_type) if x) or "of a type and disposition to be rolled"
    named = f" ({shown(e.name)})" if e.name else ""
    return f"a castle{named} stands at {e.hex}: {what}"


def _one(p: ev.Passed) -> str:
    if not p.ride_out_on:
        return f"{p.hex} ({away(p.distance)}): d6={p.face}, for show (out of reach, or checked already today)"
    on = ", ".join(str(f) for f in p.ride_out_on)
    result = "the garrison RIDES OUT" if p.rides_out else "it stays in"
    return f"{p.hex} ({away(p.distance)}, rides out on {on}): d6={p.face}, {result}"


def _passed(e: ev.CastlesPassed) -> str:
    return (
        f"day {e.day}, castles passed: " + "; ".join(_one(p) for p in e.passed) + rolls_named(e.rolls, e.referee_rolls)
    )


def _hailed(e: ev.CastleHailed) -> str:
    if e.rides_out:
        return f"the party hails the castle at {e.hex}: its garrison rides out to meet it"
    return f"the party hails the castle at {e.hex}: {e.reason}"


def _met(e: ev.GarrisonMet) -> str:
    rolled = []
    if e.type_face:
        rolled.append(f"type die={e.type_face}")
    if e.disposition_face:
        rolled.append(f"disposition d6={e.disposition_face}")
    faces = f" ({', '.join(rolled)})" if rolled else ""
    return (
        f"meeting {e.number}: {counted(e.riders, 'rider')} (speed {e.speed}) of the castle at {e.hex} ({e.how}), "
        f"{_words(e.disposition)} {_words(e.castle_type)}{faces}: it {e.demand}{rolls_named(e.rolls)}"
    )


def _joust(e: ev.JoustFought) -> str:
    face = f" (d6={e.face})" if e.rolls else " (the referee's)"
    if e.winner == "castle":
        defeats = f"the castle's champion defeats {e.fighter}{face}"
        if e.armor == "none":
            return f"{defeats}; {e.fighter} wears no armor to take{rolls_named(e.rolls)}"
        taken = f" ({e.armor})" if e.armor else ""
        return f"{defeats}, and takes the loser's armor{taken}{rolls_named(e.rolls)}"
    horses = ", warhorses" if e.warhorses else ""
    return (
        f"{e.fighter} defeats the castle's champion{face}: hospitality up to {e.hospitality_days} days, "
        f"{e.rations_days} days of rations{horses}{rolls_named(e.rolls)}"
    )


def _toll(e: ev.TollDemanded) -> str:
    item = " or a magic item" if e.item_instead else ""
    return f"the castle demands {e.gold} gp{item} ({e.reason}){rolls_named(e.rolls)}"


def _paid(e: ev.TollPaid) -> str:
    return f"the party gives {shown(e.item)}" if e.item else f"the party pays {e.gold} gp"


def _quest(e: ev.QuestAccepted) -> str:
    geas = f" by geas (the castle keeps {e.keeps_fraction:.0%} of the treasure)" if e.geas else ""
    what = f": {shown(e.quest)}" if e.quest else ""
    return f"the party accepts the castle's quest{geas}{what}"


def _refused(e: ev.DemandRefused) -> str:
    why = f" ({shown(e.reason)})" if e.reason else ""
    return f"the party refuses the castle's demand{why}"


def _fled(e: ev.GarrisonFled) -> str:
    if not e.pursue_on:
        return f"the party flees the {e.disposition} garrison: it never pursues"
    on = ", ".join(str(f) for f in e.pursue_on)
    result = f"{counted(e.riders, 'rider')} (speed {e.speed}) PURSUE" if e.pursued else "they let it go"
    return (
        f"the party flees the {e.disposition} garrison (pursues on {on}): d6={e.face}, {result}{rolls_named(e.rolls)}"
    )


def _ended(e: ev.MeetingEnded) -> str:
    why = f" ({shown(e.reason)})" if e.reason else ""
    return f"meeting {e.number} at the castle at {e.hex} ends: {_words(e.outcome)}{why}"


TEXTS: dict[type[Event], Callable[[Any], str]] = {
    ev.CastlePlaced: _placed,
    ev.CastlesPassed: _passed,
    ev.CastleHailed: _hailed,
    ev.GarrisonMet: _met,
    ev.JoustFought: _joust,
    ev.TollDemanded: _toll,
    ev.TollPaid: _paid,
    ev.QuestAccepted: _quest,
    ev.DemandRefused: _refused,
    ev.GarrisonFled: _fled,
    ev.MeetingEnded: _ended,
}


def state_lines(state: Any, table: Table, *, player: bool = False) -> list[str]:
    """The castles known, the garrisons riding out and the meeting under way; the checks owed (the referee's)."""
    if not isinstance(state, CastleState):
        return []
    lines = []
    for hex_name, castle in state.castles.items():
        what = " ".join(_words(x) for x in (castle.disposition, castle.castle_type) if x) or "not met yet"
        named = f" ({shown(castle.name)})" if castle.name else ""
        lines.append(f"castle at {hex_name}{named}: {what}")
    # a garrison riding out as the party passed is the referee's secret check's outcome, until it meets the party
    lines.extend(
        f"the garrison of the castle at {c.hex} rides out ({c.how}): meet it"
        for c in state.coming
        if not player or c.how != "passing"
    )
    if state.met is not None and (state.ended is None or state.ended.number != state.met.number):
        lines.append(_met(state.met))
        if state.toll is not None:
            lines.append(_toll(state.toll))
    if not player:
        lines.extend(f"ride-out check owed: the castle at {h} ({away(d)})" for h, d in in_reach(table))
        if due(table) and not in_reach(table):
            lines.append("ride-out check owed before the day closes: no castle in reach, every die for show")
    return [f"  {line}" for line in lines]


#: the lines a procedure adds to the campaign's state, by procedure name
STATES: dict[str, Callable[..., list[str]]] = {"castle": state_lines}
