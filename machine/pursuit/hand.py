"""What the referee typed into a pursuit that steers its rolls, in the audit's words (its account of the referee's
hand): the facts of a pursuit the referee started (``pursuit start``), where they are not those the encounter it
follows, the party and the hex it believes it is in give. A pursuit another procedure hands off (a camp's, a
journey's, a castle's) takes every fact from it, and is not named here. A pursuit started before ``pursuit.started``
version 2 is held to the terrain its release gave where none was typed: a lost party's true hex's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events import pursuit as ev
from hexlog.events.errors import RuleRefusedError, UsageError
from hexlog.machine.evasion import EvasionOptions
from hexlog.machine.pursuit import handover
from hexlog.machine.pursuit.commands import StartPursuit
from hexlog.machine.pursuit.state import PROCEDURE
from hexlog.machine.pursuit.steps import started, terrain_here, terrain_row

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event
    from hexlog.machine.kit.context import StepContext

#: the facts of a pursuit's start the referee may give, each with its words
FACTS: tuple[tuple[str, Callable[[Any], str]], ...] = (
    ("party_size", lambda n: f"a party of {n}"),
    ("party_speed", lambda n: f"the party at {n} ft a turn"),
    ("pursuers", lambda n: f"{n} pursuer{'s' if n != 1 else ''}"),
    ("pursuers_speed", lambda n: f"the pursuers at {n} ft a turn"),
    ("disposition", lambda d: f"a {d} castle's force"),
    ("intelligent", lambda _: "the pursuers not intelligent"),
    ("terrain", lambda t: f"terrain {t}"),
    ("ground", lambda g: f"ground {g}"),
    ("party_surprised", lambda _: "the party surprised"),
    ("pursuers_surprised", lambda _: "the pursuers surprised by the party"),
    ("magic", lambda _: "magic to get away"),
    ("referee_pct", lambda n: f"a chance of {n} % allowed a surprised party"),
    ("evasion_failed", lambda _: "the evasion roll already made and failed"),
)


#: the first version of ``pursuit.started`` whose terrain, where the referee gives none during a journey, is the hex
#: the party believes it is in (before, a lost party's true hex's)
TERRAIN_BELIEVED_SINCE = 2


def by_hand_before(event: Event, ctx: StepContext, version: int) -> str | None:
    """The facts of a pursuit started before ``pursuit.started`` version 2, whose release gave the terrain of the
    party's true hex where the referee gave none."""
    return by_hand(event, ctx, true_hex=isinstance(event, ev.PursuitStarted) and version < TERRAIN_BELIEVED_SINCE)


def by_hand(event: Event, ctx: StepContext, *, true_hex: bool = False) -> str | None:
    """The facts of a pursuit the referee started that differ from those its encounter, the party and the hex give
    (None: nothing, or a pursuit another procedure handed off); with ``true_hex``, the hex is the party's true one."""
    if not isinstance(event, ev.PursuitStarted):
        return None
    handoffs = ctx.table.handoffs
    if handoffs and handoffs[-1][1] == PROCEDURE:
        return None
    try:
        given = handover.following(
            ctx.table.procedures,
            StartPursuit(encounter=event.encounter),
            ctx.part(EvasionOptions).evasion_rules,
        )
        speeds = [m.speed for m in ctx.table.party.members]
        terrain = terrain_here(ctx, terrain_row(ctx.rules, ""), true_hex=true_hex)
        untyped = started(ctx.rules, given, speeds, number=event.number, terrain=terrain)
    except (RuleRefusedError, UsageError, ValueError):  # a start no release wrote: the audit's other checks name it
        return None
    said = [words(getattr(event, name)) for name, words in FACTS if getattr(event, name) != getattr(untyped, name)]
    if not said:
        return None
    facts = ", ".join(said)
    return f"pursuit {event.number} started by the referee with {facts} (its evasion and catch rolls read them)"
