"""Readable text for the encounter's events, and the line ``hexlog state`` shows of one waiting for a chase."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from hexlog.events import encounter as ev
from hexlog.events.vocabulary import Setting, Side
from hexlog.machine.chase.rules import ChaseTables
from hexlog.machine.chase.state import ChaseState
from hexlog.machine.encounter import EncounterState, Phase
from hexlog.machine.encounter.resolution import CONFUSED
from hexlog.machine.encounter.state import PROCEDURE
from hexlog.machine.pursuit import handover
from hexlog.machine.pursuit.state import PursuitState
from hexlog.machine.registry import REGISTRY
from hexlog.machine.text import counted
from hexlog.service.render_campaign import rolls_named

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event
    from hexlog.machine.table import Table
    from hexlog.service.render_context import Context


def _started(e: ev.EncounterStarted) -> str:
    name = f" '{e.name}'" if e.name else ""
    facts = [e.setting, f"{e.monster_count} monster{'s' if e.monster_count != 1 else ''}"]
    facts.append("intelligent" if e.intelligent else "not intelligent")
    for flag, text in (
        (e.party_aware, "party aware"),
        (e.monsters_aware, "monsters aware"),
        (e.party_light, "party carries light"),
        (e.monsters_light, "monsters carry light"),
        (e.party_noisy, "party noisy"),
        (e.monsters_noisy, "monsters noisy"),
        (e.hiding, "other side hiding"),
    ):
        if flag:
            facts.append(text)
    if e.terrains:
        facts.append("terrain " + "+".join(e.terrains))
    for value, text in (
        (e.line_of_sight_ft, "line of sight"),
        (e.area_ft, "area"),
        (e.light_radius_ft, "light radius"),
        (e.vision_ft, "vision"),
    ):
        if value:
            facts.append(f"{text} {value} ft")
    if e.distance_divisor > 1:
        facts.append(f"poor visibility (distance / {e.distance_divisor})")
    facts.extend(_surprise_facts(e))
    return f"encounter {e.number}{name} begins ({e.ruleset}): " + ", ".join(facts)


def _surprise_facts(e: ev.EncounterStarted) -> list[str]:
    """The start's facts about surprise: each side's chance and adjustment, unsurprisable monsters, infravision."""
    facts = []
    for side, on, modifier in (
        ("party", e.party_surprise_on, e.party_surprise_modifier),
        ("monsters", e.monsters_surprise_on, e.monsters_surprise_modifier),
    ):
        if on >= 0:
            facts.append(f"{side} surprised on 1-{on}" if on else f"{side} never surprised on the die")
        if modifier:
            facts.append(f"{side} surprise die {modifier:+d}")
    if e.monsters_unsurprisable:
        facts.append("monsters cannot be surprised")
    if e.party_vision_ft:
        facts.append(f"party infravision {e.party_vision_ft} ft")
    return facts


def _movement(e: ev.MovementRated) -> str:
    return (
        f"encounter movement: party {e.party_per_round} {e.unit}/round (slowest: {e.slowest_member}, "
        f"{e.party_base}), monsters {e.monsters_per_round} {e.unit}/round; at most {counted(e.max_rounds, 'round')}"
    )


def _side(name: str, rolled: bool, face: int, surprised: bool, segments: int, reason: str) -> str:  # noqa: FBT001, PLR0913, PLR0917 - the fields of one side
    if not rolled:
        return f"{name} not rolled ({reason})" if reason else f"{name} not rolled"
    state = "SURPRISED" if surprised else "not surprised"
    lost = f", loses {segments} segment{'s' if segments != 1 else ''}" if segments else ""
    return f"{name} d6={face} {state}{lost}"


def _surprise(e: ev.SurpriseChecked, context: Context | None = None) -> str:
    """Who was surprised and what it gives; ``context`` holds the encounter's start, whose setting says whether seed
    004's single action is granted (underground only: in the open surprise gives none)."""
    party = _side("party", e.party_rolled, e.party_face, e.party_surprised, e.party_segments, e.party_reason)
    if e.party_rolled and "WIS" in e.party_reason:  # each character's own verdict, never one word for all
        party = f"party {e.party_reason}"
    monsters = _side(
        "monsters", e.monsters_rolled, e.monsters_face, e.monsters_surprised, e.monsters_segments, e.monsters_reason
    )
    started = context.last(ev.EncounterStarted) if context is not None else None
    if e.advantage is ev.Advantage.NONE:
        gain = "no advantage"
    elif e.advantage_kind is ev.AdvantageKind.SINGLE_ACTION and started is not None and not started.setting.underground:
        gain = f"{e.advantage} gain the advantage (in the open no free action: the closer distance and evasion only)"
    else:
        gain = f"{e.advantage} gain the advantage ({e.advantage_kind.replace('_', ' ')})"
    return f"surprise: {party}; {monsters}; {gain}{rolls_named(e.rolls)}"


#: the words the step encircle records (option encirclement = "referee"), before the referee's note
REFEREES_CALL = "encircled at the referee's call"


def _surrounded(e: ev.PartySurrounded) -> str:
    monsters = counted(e.monster_count, "monster")
    _, called, note = e.reason.partition(REFEREES_CALL)
    if called:
        return f"the party is surrounded at the referee's call: {monsters} surprised it in the open{note}"
    return f"the party is surrounded: {monsters} surprised it in the open (at least {e.at_least} encircle)"


def _distance(e: ev.DistanceDetermined) -> str:
    flags = [f for f, on in (("melee range", e.melee),) if on]
    if e.unit is ev.Unit.YD and e.missiles_possible and e.value <= 10:  # noqa: PLR2004 - 004: 1" = 10 yd
        flags.append("melee and missiles possible")
    extra = f" ({', '.join(flags)})" if flags else ""
    steps = "; ".join(e.steps)
    return f"distance {e.value} {e.unit}{extra} by {e.rule}: {steps}{rolls_named(e.rolls)}"


def _free(e: ev.FreeActionTaken) -> str:
    span = f"{e.segments} free segments" if e.kind is ev.AdvantageKind.SEGMENTS else "a free single action"
    return f"{e.side} use {span}: {e.action}{' - ' + e.note if e.note else ''}"


def _initiative(e: ev.InitiativeRolled) -> str:
    faces = ", ".join(
        f"{side} d6={face}" for side, face in (("party", e.party_face), ("monsters", e.monsters_face)) if face
    )
    tie = (
        f", tie -> {e.tie}" + (f" after {counted(e.rerolls, 'reroll')}" if e.rerolls else "")
        if e.tie is not ev.Tie.NONE
        else ""
    )
    free = f"; {e.free_round} gain a free round" if e.free_round else ""
    first = "both act at once" if e.first is ev.First.SIMULTANEOUS else f"{e.first} act first"
    if not faces and CONFUSED in e.reason:  # both surprised, a momentary confusion: nobody acts yet
        first = "neither side acts in the first round"
    reason = f" ({e.reason})" if e.reason and not faces else ""
    return f"initiative: {faces or 'no roll'}{tie}: {first}{free}{reason}{rolls_named(e.rolls)}"


def reaction_result(result: str, text: str) -> str:
    """A reaction's band said once: the rules' words where they name the band (``Attacks (hostile)`` for
    ``attacks``), else the band with the words after it (a house band ``wary (keeps its distance)``), or the band
    alone when the rules give no words (a log of hexlog 0.1.0)."""
    if not text:
        return result
    named = re.search(rf"\b{re.escape(result)}\b", text, re.IGNORECASE)
    return text if named else f"{result} ({text})"


def _reaction(e: ev.ReactionRolled) -> str:
    who = f"{e.speaker} speaks (CHA {e.cha}, {e.cha_modifier:+d})" if e.speaker else "nobody speaks"
    mod = f" {e.modifier:+d} situational" if e.modifier else ""
    again = "re-rolled " if e.reroll else ""
    said = reaction_result(str(e.result), e.text)
    return f"reaction {again}2d6={e.dice}, {who}{mod}: total {e.total} -> {said}{rolls_named(e.rolls)}"


def _action(e: ev.ActionChosen) -> str:
    return f"{e.side} choose {e.action}{' - ' + e.note if e.note else ''}"


def _evasion(e: ev.EvasionRolled) -> str:
    where = "".join(f", {w}" for w, on in (("in woods", e.woods), ("with magic", e.magic)) if on)
    roll = f"d100={e.total}" if e.rolls else "no roll"
    verdict = "they get away" if e.evaded else "they are pursued"
    steps = "; ".join(e.steps)
    who = f"the {e.fleeing} ({e.fleeing_count}) flee {e.pursuers_count}{where}"
    return f"{who}: evasion {e.chance} % ({steps}): {roll}, {verdict}{rolls_named(e.rolls)}"


def _pursuit(e: ev.PursuitDecided) -> str:
    verdict = "pursue" if e.pursue else "let them go"
    basis = ""
    if e.decided_by is ev.DecidedBy.REACTION or e.suggested:
        sign = "<=" if e.suggested else ">"
        basis = (
            f" (reaction {e.reaction_total} {sign} {e.at_most}: {'pursuit' if e.suggested else 'no pursuit'} suggested)"
        )
    return f"{e.pursuer} {verdict} as the {e.fleeing} flee, decided by {e.decided_by}{basis}{rolls_named(e.rolls)}"


def _round(e: ev.RoundPlayed) -> str:
    acting = ", ".join(e.acting) if e.acting else "nobody"
    kind = "combat round" if e.combat else "round"
    reason = f" ({e.reason})" if e.reason else ""
    note = f" - {e.note}" if e.note else ""
    return f"{kind} {e.round}: {acting} may act{reason}{note}"


def _concluded(e: ev.EncounterConcluded) -> str:
    reason = f": {e.reason}" if e.reason else ""
    passes = f"{counted(e.turns, 'turn')} pass{'es' if e.turns == 1 else ''}"
    return f"encounter {e.number} ends: {e.outcome} after {counted(e.rounds, 'round')}; {passes}{reason}"


TEXTS: dict[type[Event], Callable[[Any], str]] = {
    ev.EncounterStarted: _started,
    ev.MovementRated: _movement,
    ev.PartySurrounded: _surrounded,
    ev.DistanceDetermined: _distance,
    ev.FreeActionTaken: _free,
    ev.InitiativeRolled: _initiative,
    ev.ReactionRolled: _reaction,
    ev.ActionChosen: _action,
    ev.PursuitDecided: _pursuit,
    ev.EvasionRolled: _evasion,
    ev.RoundPlayed: _round,
    ev.EncounterConcluded: _concluded,
    ev.EncounterCancelled: lambda e: (
        f"encounter {e.number} cancelled in phase {e.phase}: {e.reason} (no game time passes; its events stay)"
    ),
    ev.EncounterCorrected: lambda e: (
        f"encounter {e.number}: {e.field.replace('_', ' ')} corrected from {e.was} to {e.now}"
        + (f": {e.reason}" if e.reason else "")
    ),
}


#: the lines that read back to the encounter's start: surprise tells what it gives by the setting
TOLD: dict[type[Event], Callable[[Any, Context], str]] = {ev.SurpriseChecked: _surprise}


def read_back(table: Table) -> tuple[Event, ...]:
    """What the lines of the events of a command read back to in the table it left: the latest encounter's start."""
    state = table.procedures.get(PROCEDURE)
    return (state.started,) if isinstance(state, EncounterState) else ()


def follow_up(state: Any, table: Table) -> str | None:
    """The pursuit an encounter concluded in pursuit leaves to the referee, as the command that starts it: nothing
    handed it off to carry it on (a travel day, a camp, a castle hands its pursuit on itself), and it has not been
    started yet. The wilderness pursuit of a fleeing party, or the chase (underground, on water) under rules that have
    one; None when there is none to start."""
    if not isinstance(state, EncounterState) or state.concluded is None or state.concluded.outcome != handover.PURSUIT:
        return None
    if table.rules is None or table.concluded_into(PROCEDURE):
        return None
    if handover.from_encounter(state, handover.pursuit_reading(table.rules)) is not None:
        found = _pursuit_start(state, table)
    else:
        found = _chase_start(state, table)
    return f"the {(state.fleeing or Side.PARTY).other} give chase: {found}" if found else None


def _pursuit_start(state: EncounterState, table: Table) -> str | None:
    """``hexlog pursuit start --encounter N`` while that pursuit may start and has not."""
    number = state.started.number
    pursuit = table.procedures.get("pursuit")
    if isinstance(pursuit, PursuitState) and pursuit.started.encounter == number:
        return None
    if not REGISTRY.runner("pursuit").allows("start", pursuit, table):
        return None
    return f"hexlog pursuit start --encounter {number}"


def _chase_start(state: EncounterState, table: Table) -> str | None:
    """``hexlog chase start --from-encounter N`` underground or on water, under rules with that chase's table, while
    it may start and has not."""
    assert table.rules is not None  # noqa: S101 - checked by the caller
    tables = table.rules.part(ChaseTables)
    where = {Setting.DUNGEON: tables.dungeon_pursuit, Setting.WATERBORNE: tables.evasion_waterborne}
    if where.get(state.setting) is None:
        return None
    number = state.started.number
    chase = table.procedures.get("chase")
    if isinstance(chase, ChaseState) and chase.started.from_encounter == number:
        return None
    if not REGISTRY.runner("chase").allows("start", chase, table):
        return None
    setting = " --setting waterborne" if state.setting is Setting.WATERBORNE else ""
    fleeing = " --fleeing monsters" if state.fleeing is Side.MONSTERS else ""
    return f"hexlog chase start{setting}{fleeing} --from-encounter {number}"


def after(state: Any, table: Table, events: tuple[Event, ...]) -> list[str]:
    """An encounter a command concluded in pursuit, which nothing carries on: the pursuit to start next."""
    if not any(isinstance(e, ev.EncounterConcluded) for e in events):
        return []
    found = follow_up(state, table)
    return [found] if found else []


def state_lines(state: Any, table: Table, *, player: bool = False) -> list[str]:  # noqa: ARG001 - nothing secret
    """An encounter (on water, or a delve's) that handed its pursuit to the chase, as ``hexlog state`` shows it (the
    chase's own lines follow); once the chase caught the fleeing side, the fight it came back to; one concluded in
    pursuit that nothing carries on, the pursuit to start."""
    found = follow_up(state, table)
    if found:
        return [f"  {found}"]
    if not isinstance(state, EncounterState) or not (state.phase is Phase.CHASE or state.chased):
        return []
    s = state.started
    name = f" '{s.name}'" if s.name else ""
    fleeing = state.fleeing or Side.PARTY
    if state.phase is Phase.CHASE:
        line = (
            f"encounter {s.number}{name} ({s.setting}): the {fleeing} flee and the {fleeing.other} give chase: "
            "it waits for the chase (caught, the sides fight; got away, it ends)"
        )
    elif state.phase is Phase.COMBAT:
        line = f"encounter {s.number}{name} ({s.setting}): the chase caught the {fleeing}: the sides fight"
    else:
        return []
    return [f"  {line}"]


STATES: dict[str, Callable[..., list[str]]] = {"encounter": state_lines}

AFTER: dict[str, Callable[[Any, Table, tuple[Event, ...]], list[str]]] = {"encounter": after}
