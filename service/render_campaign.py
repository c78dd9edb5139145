"""Readable text for the events every campaign has: rules, sessions, the party, rolls, the clock, phases."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.campaign import CampaignStarted, RulesChanged
from hexlog.events.clock import ClockAdvanced
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.party import MemberAdded, MemberEdited, MemberRemoved
from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed
from hexlog.events.session import ClientSeedSet, SessionAbandoned, SessionClosed, SessionOpened
from hexlog.machine import dice as hexdice
from hexlog.machine.ruleset import display_name, from_recorded

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event


def released(release: int) -> str:
    """``, release N`` beside a session that names the release of hexlog that opened it, so that players who note its
    commitment note whose rules they play under too ("" for a session opened before sessions named it)."""
    return f", release {release}" if release else ""


def roll_text(roll: DiceRolled) -> str:
    """``2d6+1 -> 3+4+1 = 8``; ``4d6kh3 -> 5+5+2 = 12 (dropped 1)``."""
    faces = "+".join(str(f) for k, f in enumerate(roll.faces) if k not in roll.dropped)
    mod = f"{roll.modifier:+d}" if roll.modifier else ""
    dropped = ", ".join(str(roll.faces[k]) for k in roll.dropped)
    return f"{roll.expression} -> {faces}{mod} = {roll.total}" + (f" (dropped {dropped})" if dropped else "")


def roll_name(roll: DiceRolled) -> str:
    """A roll's name across the campaign: its session and nonce, ``s2#4``, a secret roll's ``s2#r4``
    (``hexlog audit --roll s2#r4``)."""
    return hexdice.roll_name(roll.session, roll.nonce, secret=roll.visibility is Visibility.REFEREE)


def rolls_named(rolls: tuple[int, ...] = (), referee: tuple[int, ...] = ()) -> str:
    """The rolls a decision names, as its line ends: `` [rolls #3, #r1]`` (the referee's marked), or ""."""
    named = [hexdice.nonce_name(n, secret=False) for n in rolls]
    named += [hexdice.nonce_name(n, secret=True) for n in referee]
    return f" [rolls {', '.join(named)}]" if named else ""


def _rolled(e: DiceRolled) -> str:
    secret = " [secret]" if e.visibility is Visibility.REFEREE else ""
    made = f" (for {e.made_for})" if e.made_for else ""
    mods = "".join(f" [{m.value:+d} {m.source}]" for m in e.modifiers)
    if mods and e.low_is_good:
        mods += " (low is good: counted against it)"
    return f"roll {roll_name(e)} {roll_text(e)} for {e.purpose}{made}{mods}{secret}"


def _rules(e: CampaignStarted | RulesChanged) -> str:
    """The recorded ruleset's name, saying so when house rules were laid over a built-in."""
    return display_name(from_recorded(e.ruleset, e.rules))


def _clock(e: ClockAdvanced) -> str:
    parts = []
    if e.turns:
        parts.append(f"{e.turns} turn{'s' if e.turns != 1 else ''}")
    if e.rounds:
        parts.append(f"{e.rounds} round{'s' if e.rounds != 1 else ''}")
    span = " / ".join(parts) or f"{e.seconds} s"
    return f"clock advances {span} ({e.seconds} s){': ' + e.reason if e.reason else ''}"


def _member(e: MemberAdded) -> str:
    return (
        f"{e.name} joins the party (CHA {e.cha}, WIS {e.wis}, DEX {e.dex}, STR {e.strength}, "
        f"speed {e.speed}, armor {e.armor}{f', infravision {e.infravision_ft} ft' if e.infravision_ft else ''})"
    )


def _edited(e: MemberEdited) -> str:
    was, now = attrs.asdict(e.was), attrs.asdict(e.now)
    changed = ", ".join(f"{k} {was[k]} -> {now[k]}" for k in was if was[k] != now[k])
    return f"{e.was.name} corrected: {changed}" + (f" ({e.reason})" if e.reason else "")


TEXTS: dict[type[Event], Callable[[Any], str]] = {
    DiceRolled: _rolled,
    SessionOpened: lambda e: f"session {e.session} opened; commitment {e.commitment} ({e.scheme}{released(e.release)})",
    ClientSeedSet: lambda e: f"session {e.session}: players' client seed {e.client_seed!r}",
    SessionClosed: lambda e: f"session {e.session} closed; secret revealed: {e.secret}",
    SessionAbandoned: lambda e: (
        f"session {e.session} abandoned: its secret was never revealed, a withheld reveal ({e.reason})"
    ),
    CampaignStarted: lambda e: f"campaign {e.campaign} started under {_rules(e)} (rules {e.rules_hash[:12]})",
    RulesChanged: lambda e: (
        f"rules changed to {_rules(e)} (rules {e.rules_hash[:12]}){': ' + e.reason if e.reason else ''}"
    ),
    MemberAdded: _member,
    MemberRemoved: lambda e: f"{e.name} leaves the party" + (f": {e.reason}" if e.reason else ""),
    MemberEdited: _edited,
    ClockAdvanced: _clock,
    PhaseChanged: lambda e: f"{e.procedure}: {e.trigger.replace('_', '-')} ({e.source} -> {e.dest})",
    HandedOff: lambda e: f"{e.parent} hands off to {e.child}",
    Resumed: lambda e: f"{e.child} has concluded: {e.parent} resumes",
}
