"""The pure arithmetic of a chase: the facts it starts from, and one round's outcome.

Both the machine's conditions (which row a round takes) and the steps (what it records) read these,
so the phase a round enters and the round recorded cannot disagree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events import chase as ev
from hexlog.events.errors import RuleRefusedError, UsageError
from hexlog.events.vocabulary import SIDES, Side
from hexlog.machine.chase.commands import DISTANCE_FT, RATE_FT
from hexlog.machine.chase.rules import ChaseTables
from hexlog.machine.encounter.state import PROCEDURE as ENCOUNTER
from hexlog.machine.encounter.state import EncounterState
from hexlog.machine.encounter.state import Phase as EncounterPhase

if TYPE_CHECKING:
    from collections.abc import Iterable

    from hexlog.machine.chase.commands import Run, StartChase
    from hexlog.machine.chase.state import ChaseState
    from hexlog.machine.commands import Bounds
    from hexlog.machine.table import Table


@attrs.frozen(kw_only=True)
class Facts:
    """What a chase starts from: the command's facts, or the encounter's where the command leaves them out."""

    setting: ev.ChaseSetting
    fleeing: Side
    gap_ft: int
    fleeing_ft: int
    pursuers_ft: int
    intelligent: bool
    encounter: EncounterState | None
    #: the encounter found the fleeing side, or the pursuers, surprised
    fleeing_surprised: bool = False
    pursuers_surprised: bool = False


def encounter_of(table: Table, number: int) -> EncounterState | None:
    """The encounter a chase follows (None for none): concluded, or waiting for the chase it hands off (on
    water, or in a delve); a refusal when it is not the latest or still under way."""
    if not number:
        return None
    state = table.procedures.get(ENCOUNTER)
    if not isinstance(state, EncounterState) or state.started.number != number:
        latest = state.started.number if isinstance(state, EncounterState) else "none"
        msg = f"a chase follows the latest encounter ({latest}), not encounter {number}"
        raise RuleRefusedError(msg)
    if state.phase not in {EncounterPhase.CONCLUDED, EncounterPhase.CHASE}:
        msg = f"encounter {number} is still under way ({state.phase.name}); conclude it first"
        raise RuleRefusedError(msg)
    return state


def fled(e: EncounterState | None) -> Side | None:
    """The side that fled the encounter a chase follows, its pursuers giving chase (None: none did)."""
    return e.pursuit.fleeing if e is not None and e.pursuit is not None and e.pursuit.pursue else None


def untold_fleeing(e: EncounterState | None) -> Side:
    """Who flees a chase where the referee does not say: who fled the encounter it follows, else the party."""
    return fled(e) or Side.PARTY


def check_lengths(given: Iterable[tuple[str, int | None, Bounds, str]]) -> None:
    """Refuse a length the referee gave (None: not given) outside its range, in its unit (``UsageError``)."""
    for what, value, bounds, unit in given:
        if value is not None and value not in bounds:
            msg = f"{what} must be {bounds.least} to {bounds.most} {unit}, not {value}"
            raise UsageError(msg)


def facts_of(table: Table, command: StartChase) -> Facts:
    """The facts a chase starts from; ``UsageError`` naming what is missing, ``RuleRefusedError`` when the side said
    to flee is not the one that fled the encounter it follows."""
    try:
        setting = ev.ChaseSetting(command.setting)
    except ValueError:
        msg = f"a chase runs in the dungeon or on water (dungeon, waterborne), not {command.setting!r}"
        raise UsageError(msg) from None
    if command.fleeing and command.fleeing not in SIDES:
        msg = f"the fleeing side is party or monsters, not {command.fleeing!r}"
        raise UsageError(msg)
    check_lengths(
        (
            ("the gap", command.gap_ft, DISTANCE_FT, "ft"),
            ("the fleeing side's rate", command.fleeing_ft, RATE_FT, "ft a round"),
            ("the pursuers' rate", command.pursuers_ft, RATE_FT, "ft a round"),
            ("the line of sight", command.line_of_sight_ft, DISTANCE_FT, "ft"),
        )
    )
    e = encounter_of(table, command.from_encounter)
    fleeing = Side(command.fleeing) if command.fleeing else untold_fleeing(e)
    ran = fled(e)
    if e is not None and ran is not None and ran is not fleeing:
        msg = (
            f"in encounter {e.started.number} the {ran} fled and the {ran.other} gave chase, not the other way "
            f"round: give --fleeing {ran}"
        )
        raise RuleRefusedError(msg)
    members = table.party.members
    party_ft = min((m.speed for m in members), default=0)
    if e is not None and e.movement is not None:
        party_ft = e.movement.party_base
    monsters_ft = e.started.monster_speed if e is not None else None
    given = {Side.PARTY: party_ft, Side.MONSTERS: monsters_ft}
    fleeing_ft = command.fleeing_ft if command.fleeing_ft is not None else given[fleeing]
    pursuers_ft = command.pursuers_ft if command.pursuers_ft is not None else given[fleeing.other]
    gap = command.gap_ft
    if gap is None and e is not None and e.distance is not None:
        gap = e.distance_ft
    missing = [
        flag
        for flag, value in (("--gap-ft", gap), ("--fleeing-ft", fleeing_ft), ("--pursuers-ft", pursuers_ft))
        if value is None
    ]
    if missing:
        msg = f"without an encounter to follow, give {', '.join(missing)}"
        raise UsageError(msg)
    assert gap is not None  # noqa: S101 - checked just above
    assert fleeing_ft is not None  # noqa: S101 - checked just above
    assert pursuers_ft is not None  # noqa: S101 - checked just above
    intelligent = command.intelligent
    if intelligent is None:
        intelligent = e.started.intelligent if e is not None else True
    surprised = dict(zip(SIDES, e.surprised, strict=True)) if e is not None else {}
    return Facts(
        setting=setting,
        fleeing=fleeing,
        gap_ft=gap,
        fleeing_ft=fleeing_ft,
        pursuers_ft=pursuers_ft,
        intelligent=intelligent,
        encounter=e,
        fleeing_surprised=surprised.get(fleeing, False),
        pursuers_surprised=surprised.get(fleeing.other, False),
    )


@attrs.frozen(kw_only=True)
class Round:
    """One round's outcome."""

    round: int
    fleeing_ft: int
    pursuers_ft: int
    gap_before: int
    gap_after: int
    minimum_close_ft: int = 0
    slowed_ft: int = 0
    stopped: bool = False
    out_of_sight: bool = False
    caught: bool = False
    escaped: bool = False
    reason: str = ""


def next_round(table: Table, state: ChaseState, command: Run) -> Round:
    """The outcome of the next round, from the state and what the referee declares for it."""
    s = state.started
    if s.setting is ev.ChaseSetting.WATERBORNE:
        return _afloat(table, state, command)
    pursuit = table.rules.part(ChaseTables).dungeon_pursuit if table.rules is not None else None
    assert pursuit is not None  # noqa: S101 - a dungeon chase starts only under rules that have it
    number = state.rounds + 1
    gap = state.gap_ft
    lost_fleeing, lost_pursuers = state.lost_first_round
    fleeing_ft = 0 if lost_fleeing else s.fleeing_ft
    pursuers_ft = 0 if lost_pursuers else s.pursuers_ft
    slowed = min(command.slows_ft, pursuers_ft)
    if command.stops:
        slowed = pursuers_ft
    running = pursuers_ft - slowed
    after = max(0, gap + fleeing_ft - running)
    stopped = command.stops
    caught = not stopped and after <= pursuit.melee_at_gap_ft
    sight = command.out_of_sight or (s.line_of_sight_ft > 0 and after > s.line_of_sight_ft)
    escaped = not caught and (stopped or (sight and s.gives_up_out_of_sight))
    lost = [side for side, hit in (("fleeing side", lost_fleeing), ("pursuers", lost_pursuers)) if hit]
    reasons = [f"the {' and the '.join(lost)} lose the round to surprise"] if lost else []
    if command.obstacle:
        effect = "stops the pursuit" if stopped else f"costs the pursuers {slowed} ft"
        reasons.append(f"{command.obstacle} {effect}")
    if caught:
        reasons.append(f"the gap is closed ({after} ft)")
    elif stopped:
        reasons.append(f"the {s.fleeing} get away")
    elif sight:
        seen = "out of sight" if command.out_of_sight else f"beyond the {s.line_of_sight_ft} ft line of sight"
        gives = "the pursuers give up" if s.gives_up_out_of_sight else "the pursuers keep on"
        reasons.append(f"{seen}: {gives}")
    return Round(
        round=number,
        fleeing_ft=fleeing_ft,
        pursuers_ft=pursuers_ft,
        gap_before=gap,
        gap_after=after,
        slowed_ft=slowed,
        stopped=stopped,
        out_of_sight=sight,
        caught=caught,
        escaped=escaped,
        reason="; ".join(reasons),
    )


def _afloat(table: Table, state: ChaseState, command: Run) -> Round:
    """On water the gap closes by the difference of the rates, at least the rules' least, until caught."""
    if command.obstacle or command.slows_ft or command.stops or command.out_of_sight:
        msg = "on water the pursuers close until they catch the vessel: no obstacles or sight to declare"
        raise UsageError(msg)
    table_rules = table.rules.part(ChaseTables).evasion_waterborne if table.rules is not None else None
    assert table_rules is not None  # noqa: S101 - a waterborne chase starts only under rules that have it
    s = state.started
    least = table_rules.min_close_ft_per_round
    close = max(s.pursuers_ft - s.fleeing_ft, least)
    after = max(0, state.gap_ft - close)
    caught = after == 0
    why = f"the gap closes by {close} ft (at least {least} ft a round)"
    if caught:
        why += ": the pursuers catch the vessel"
    return Round(
        round=state.rounds + 1,
        fleeing_ft=s.fleeing_ft,
        pursuers_ft=s.pursuers_ft,
        gap_before=state.gap_ft,
        gap_after=after,
        minimum_close_ft=least,
        caught=caught,
        reason=why,
    )
