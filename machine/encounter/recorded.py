"""What an encounter records of the state before it, held to that state by the audit (``Inverse.derived``).

No dice decide these facts, and a command the referee types does not give them: the start of an encounter names the
party, the ruleset and the party's longest infravision, and rates each side's movement (the party at its slowest
member's rate, the monsters at the speed the referee gave, each divided by the rules' divisor); each round played is
the one after the last. Whatever step records them (a command typed, a delve's or a camp's meeting handed off, a
decision's step), a record that differs lets the steps after it read a forged party: a party forged faster
outruns pursuers in the chase that reads its rate, a round forged as the second lets a side surprised in the first
act. The audit runs these checks on the table just before the event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events import encounter as ev
from hexlog.events.vocabulary import FEET_PER_YARD, Unit
from hexlog.machine.encounter.opening import movement_rated
from hexlog.machine.encounter.state import PROCEDURE, EncounterState, Phase
from hexlog.machine.kit.rules import RulesError

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.kit.context import StepContext

#: the first version of ``encounter.started`` that records the party's infravision (earlier ones read none)
VISION_SINCE = 3


def _shown(value: object) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(value)


def _unlike(recorded: Event, expected: Event, fields: tuple[str, ...]) -> list[str]:
    return [
        f"{name} {_shown(getattr(recorded, name))} recorded, but the rules give {_shown(getattr(expected, name))}"
        for name in fields
        if getattr(recorded, name) != getattr(expected, name)
    ]


def held(ctx: StepContext, event: ev.EncounterStarted | ev.MovementRated | ev.RoundPlayed, version: int) -> str | None:
    """How the record differs from what the state before it gives, in words (None: it does not)."""
    if isinstance(event, ev.EncounterStarted):
        return started(ctx, event, version)
    if isinstance(event, ev.MovementRated):
        return movement(ctx, event)
    return round_played(ctx, event)


def started(ctx: StepContext, event: ev.EncounterStarted, version: int) -> str | None:
    """The party, the ruleset and (since version 3) the party's longest infravision an encounter's start records."""
    members = ctx.table.party.members
    said = []
    if event.party != tuple(m.name for m in members):
        said.append(f"party {_shown(event.party)} recorded, but the party is {_shown(tuple(m.name for m in members))}")
    if event.ruleset != ctx.rules.name:
        said.append(f"ruleset {_shown(event.ruleset)} recorded, but the rules in force are {_shown(ctx.rules.name)}")
    vision = max((m.infravision_ft for m in members), default=0)
    if version >= VISION_SINCE and event.party_vision_ft != vision:
        said.append(
            f"party_vision_ft {event.party_vision_ft} recorded, but the party's longest infravision is {vision}"
        )
    return "; ".join(said) or None


def movement(ctx: StepContext, event: ev.MovementRated) -> str | None:
    """Each side's movement as the encounter just started rates it. A rate in the open shown in yards although the
    distance is in feet (AD&D outdoors) is what the releases before ``encounter.started`` version 3 recorded: the same
    rates in another unit."""
    e = ctx.state(PROCEDURE)
    if not isinstance(e, EncounterState) or e.movement is not None:
        return None  # not right after a start: the procedure audit names an event out of its place
    if not ctx.table.party.members:
        return "the encounter's movement is rated for a party that has no members"
    try:
        want = movement_rated(ctx, e.started.setting, e.started.monster_speed)
    except RulesError:  # rules an earlier build accepted and this one refuses: what no rule decides is still held
        return _movement_without_rules(ctx, e, event)
    natural = Unit.FT if e.started.setting.underground else Unit.YD
    older = attrs.evolve(
        want,
        unit=natural,
        party_per_round=want.party_base // want.divisor,
        monsters_per_round=want.monsters_base // want.divisor,
    )
    if event in (want, older):
        return None
    return "; ".join(_unlike(event, want, tuple(f.name for f in attrs.fields(ev.MovementRated))))


def _movement_without_rules(ctx: StepContext, e: EncounterState, event: ev.MovementRated) -> str | None:
    """The rates where this build cannot read the rules in force: the party's slowest member and the monsters' speed,
    each rate per round its base divided by the recorded divisor (in feet for yards as well)."""
    slowest = min(ctx.table.party.members, key=lambda m: m.speed)
    want = attrs.evolve(event, slowest_member=slowest.name, party_base=slowest.speed)
    want = attrs.evolve(want, monsters_base=e.started.monster_speed)
    said = _unlike(event, want, ("slowest_member", "party_base", "monsters_base"))
    for side, base, rate in (
        ("party", want.party_base, event.party_per_round),
        ("monsters", want.monsters_base, event.monsters_per_round),
    ):
        if event.divisor < 1 or rate not in {base // event.divisor * times for times in (1, FEET_PER_YARD)}:
            said.append(f"{side}_per_round {rate} recorded, but {base} divided by {event.divisor} is not it")
    return "; ".join(said) or None


def round_played(ctx: StepContext, event: ev.RoundPlayed) -> str | None:
    """A round is the one after the encounter's last, and a combat round where the encounter is in combat."""
    e = ctx.state(PROCEDURE)
    if not isinstance(e, EncounterState):
        return None
    said = []
    if event.round != e.rounds + 1:
        said.append(f"round {event.round} recorded, but the encounter's last round was {e.rounds}")
    if event.combat != (e.phase is Phase.COMBAT):
        said.append(f"combat {str(event.combat).lower()} recorded, but the encounter is in its {e.phase.value} phase")
    return "; ".join(said) or None
