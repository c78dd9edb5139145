"""The delve's steps outside the doors: entering and leaving, light, movement, searching, rest, meeting monsters.

The kit fires each command's trigger before its step runs (a refusal writes nothing) and records the
phase change after it. A step that takes time advances the clock through ``ctx.advance``, which runs
the due checks (lights burning down, wandering checks); a step that rolls records its decision first,
then lets its time pass, so the audit re-runs the decision alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import dungeon as ev
from hexlog.events.dice import Visibility
from hexlog.events.errors import Advice, RuleRefusedError, UsageError
from hexlog.events.vocabulary import Setting, Side
from hexlog.machine.chase import handover
from hexlog.machine.dungeon.commands import FACE, TURN_FT, SearchRoll
from hexlog.machine.dungeon.rules import DungeonTable, DungeonTables, LightTable, SecretDoorRoll, on_faces
from hexlog.machine.dungeon.state import PROCEDURE, DelveState, Phase, under_way
from hexlog.machine.encounter import StartEncounter
from hexlog.machine.encounter.rules import EncounterTables
from hexlog.machine.encounter.state import PROCEDURE as ENCOUNTER
from hexlog.machine.encounter.state import EncounterState
from hexlog.machine.kit.clock import ClockOptions, turns
from hexlog.machine.kit.context import read_low

if TYPE_CHECKING:
    from hexlog.machine.dungeon.commands import (
        EnterDungeon,
        LeaveDungeon,
        LightSource,
        Meet,
        Move,
        RefillLantern,
        Rest,
        Search,
    )
    from hexlog.machine.kit.context import StepContext

SEARCH = "dungeon.search"
#: how a step that needs the party's members says there are none (a log of a release that let the last one go)
#: what a step with no members to act says: add one (the doors name the command)
NO_MEMBERS = "add one with '"
ADD_MEMBER = Advice("AddMember")
HOUR_SECONDS = 3600


def _table(ctx: StepContext) -> DungeonTable:
    table = ctx.part(DungeonTables).dungeon
    assert table is not None  # noqa: S101 - a delve begins only under rules that have it
    return table


def _light_table(ctx: StepContext) -> LightTable:
    table = ctx.part(DungeonTables).light
    assert table is not None  # noqa: S101 - a delve begins only under rules that have it
    return table


def _turn_seconds(ctx: StepContext) -> int:
    return ctx.part(ClockOptions).turn_seconds


def _one_turn(ctx: StepContext, reason: str) -> None:
    ctx.advance(turns(ctx.part(ClockOptions), 1), reason=reason)


def enter(ctx: StepContext, command: EnterDungeon) -> None:
    """Begin a delve: its wandering checks come at the rules' values, or the danger values, or the referee's."""
    before = ctx.state(PROCEDURE)
    table = _table(ctx)
    every = table.danger_every_turns if command.danger else table.wandering_every_turns
    faces = table.danger_wandering_on if command.danger else table.wandering_on
    if command.every_turns is not None:
        every = command.every_turns
    if command.wandering_on:
        wrong = [f for f in command.wandering_on if f not in FACE]
        if wrong:
            msg = f"a wandering face must be {FACE.least} to {FACE.most}, not {', '.join(map(str, wrong))}"
            raise UsageError(msg)
        faces = tuple(sorted(set(command.wandering_on)))
    if every < 1:
        msg = f"wandering checks come every 1 or more turns, not {every}"
        raise UsageError(msg)
    ctx.emit(
        ev.DelveEntered(
            number=before.entered.number + 1 if isinstance(before, DelveState) else 1,
            name=command.name,
            ruleset=ctx.rules.name,
            party=tuple(m.name for m in ctx.table.party.members),
            at_seconds=ctx.table.clock.seconds,
            check_every_turns=every,
            wandering_on=faces,
            danger=command.danger,
        )
    )


def leave(ctx: StepContext, command: LeaveDungeon) -> None:
    """Conclude the delve."""
    state = under_way(ctx)
    ctx.emit(ev.DelveLeft(turns=state.turn_at(ctx.table.clock.seconds, _turn_seconds(ctx)), note=command.note))


def light(ctx: StepContext, command: LightSource) -> None:
    """A member lights a torch or a lantern; it burns the rules' turns from now."""
    try:
        kind = ev.LightKind(command.kind)
    except ValueError:
        msg = f"light a torch or a lantern, not {command.kind!r}"
        raise UsageError(msg) from None
    table = _light_table(ctx)
    count = table.torch_turns if kind is ev.LightKind.TORCH else table.lantern_turns_per_flask
    now = ctx.table.clock.seconds
    out = now + count * _turn_seconds(ctx)
    ctx.emit(
        ev.LightLit(
            carrier=command.by, kind=kind, turns=count, radius_ft=table.radius_ft, at_seconds=now, out_at_seconds=out
        )
    )


def refill(ctx: StepContext, command: RefillLantern) -> None:
    """A fresh flask: the lantern burns a flask's turns from now."""
    count = _light_table(ctx).lantern_turns_per_flask
    now = ctx.table.clock.seconds
    out = now + count * _turn_seconds(ctx)
    ctx.emit(ev.LanternRefilled(carrier=command.by, turns=count, at_seconds=now, out_at_seconds=out))


def move(ctx: StepContext, command: Move) -> None:
    """One turn of exploration at the slowest member's rate; mapping unless dark or fleeing (§4.2)."""
    state = under_way(ctx)
    if not ctx.table.party.members:
        msg = f"the party has no members to move; {NO_MEMBERS}"
        raise RuleRefusedError(msg).advising(ADD_MEMBER, "'")
    slowest = min(ctx.table.party.members, key=lambda m: m.speed)
    rate = slowest.speed
    feet = rate if command.feet is None else command.feet
    if feet not in TURN_FT or feet > rate:
        msg = f"the party moves at most {rate} ft a turn (its slowest member, {slowest.name}), not {feet}"
        raise UsageError(msg)
    why = "fleeing" if command.fleeing else ("" if state.lit else "dark")
    mapping = not why if command.mapping is None else command.mapping
    ctx.emit(
        ev.PartyMoved(
            turn=state.turn_at(ctx.table.clock.seconds, _turn_seconds(ctx)) + 1,
            feet=feet,
            rate=rate,
            slowest_member=slowest.name,
            mapping=mapping,
            fleeing=command.fleeing,
            lit=state.lit,
            why_not_mapping="" if mapping else (why or "the party chose not to"),
        )
    )
    _one_turn(ctx, "the party explores")


def search(ctx: StepContext, command: Search) -> None:
    """A turn of searching: the secret die of the turn (the party's, or each searcher's: the decision), then the
    turn passes."""
    searchers = command.searchers or tuple(m.name for m in ctx.table.party.members)
    if not searchers:
        msg = f"the party has no members to search; {NO_MEMBERS}"
        raise RuleRefusedError(msg).advising(ADD_MEMBER, "'")
    twice = sorted({n for n in searchers if searchers.count(n) > 1})
    if twice:
        msg = f"{', '.join(twice)} named twice: each searcher searches once a turn"
        raise UsageError(msg)
    search_roll(ctx, SearchRoll(searchers=tuple(searchers), present=not command.nothing_there))
    _one_turn(ctx, "the party searches")


def search_roll(ctx: StepContext, command: SearchRoll) -> None:
    """1d6 in secret, a door found when it hits and one is there (§4.2): under the rules' ``party`` roll, one die for
    the party's turn of searching, made for the party side (so it carries the modifiers the kit gives a roll made for
    the party, not a searcher's own), found by every searcher; under ``each_searcher``, one die for each searcher,
    made for them, found by those whose die hits."""
    table = _table(ctx)
    finds_on = table.secret_door_on
    for name in command.searchers:
        ctx.table.party.named(name)
    party_die = table.secret_door_roll is SecretDoorRoll.PARTY
    rolled_for = (Side.PARTY.value,) if party_die else command.searchers
    rolled = [
        ctx.roll("1d6", SEARCH, made_for=name, visibility=Visibility.REFEREE, low_is_good=True) for name in rolled_for
    ]
    if party_die:
        hits = command.searchers if on_faces(read_low(rolled[0]), finds_on) else ()
    else:
        hits = tuple(name for name, r in zip(command.searchers, rolled, strict=True) if on_faces(read_low(r), finds_on))
    ctx.emit(
        ev.SecretDoorSearched(
            searchers=tuple(command.searchers),
            faces=tuple(r.faces[0] for r in rolled),
            modifiers=tuple(r.modifier for r in rolled),
            finds_on=finds_on,
            present=command.present,
            found_by=hits if command.present else (),
            found=bool(hits) and command.present,
            party_die=party_die,
            referee_rolls=tuple(r.nonce for r in rolled),
        )
    )


def rest(ctx: StepContext, command: Rest) -> None:  # noqa: ARG001 - the step signature
    """Rest the rules' turns, one at a time; a wandering monster that comes cuts the rest short."""
    wanted = _table(ctx).rest_turns_per_hour
    rested = 0
    for _ in range(wanted):
        _one_turn(ctx, "the party rests")
        rested += 1
        if under_way(ctx).monster_due:
            break
    ctx.emit(ev.PartyRested(turns=rested, at_seconds=ctx.table.clock.seconds))


def meet(ctx: StepContext, command: Meet) -> None:
    """Hand off to a dungeon encounter; the party carries light if any of its lights burns."""
    state = under_way(ctx)
    settings = list(ctx.part(EncounterTables).distance)
    setting = Setting.DUNGEON if Setting.DUNGEON in settings else Setting(settings[0])
    name = command.name or ("wandering monster" if state.monster_due else "monsters")
    ctx.hand_off(
        StartEncounter(
            setting=str(setting),
            name=name,
            party_light=state.lit,
            monsters_light=command.monsters_light,
            party_noisy=command.party_noisy,
            monsters_noisy=command.monsters_noisy,
            monster_count=command.monster_count,
            intelligent=command.intelligent,
            monster_speed=command.monster_speed,
        )
    )


def resume(ctx: StepContext, command: object) -> None:  # noqa: ARG001 - the resume signature
    """The encounter (or chase) is over: the delve goes on, or hands on to the chase of an encounter concluded in
    pursuit (one whose pursuit was decided before ``encounter.pursuit_decided`` version 2; since, the encounter
    hands its chase off itself and concludes only after it).

    The chase takes the encounter's facts: its distance, each side's rate, who flees, the monsters. When that chase
    ends with the fleeing side caught (a campaign an earlier release left in it), the sides meet again: the delve
    hands off an encounter with the same monsters, both sides aware, and waits for it, as the encounter that hands
    its chase off itself fights a side caught.
    """
    if _enters(ctx, Phase.ENCOUNTER):
        ctx.hand_off(_met_again(ctx))
        return
    if not _enters(ctx, Phase.CHASE):
        return
    chase = handover.from_encounter(ctx.state(ENCOUNTER), Setting.DUNGEON)
    assert chase is not None  # noqa: S101 - the condition of the row read it
    ctx.hand_off(chase)


def _met_again(ctx: StepContext) -> StartEncounter:
    """The encounter with the pursuers that caught the fleeing side of the chase the delve handed on."""
    fled = ctx.state(ENCOUNTER)
    assert isinstance(fled, EncounterState)  # noqa: S101 - the delve's chase followed its encounter
    s = fled.started
    return StartEncounter(
        setting=str(s.setting),
        name=s.name,
        party_aware=True,
        monsters_aware=True,
        party_light=under_way(ctx).lit,
        monsters_light=s.monsters_light,
        monster_count=s.monster_count,
        intelligent=s.intelligent,
        monster_speed=s.monster_speed,
    )


def _enters(ctx: StepContext, phase: Phase) -> bool:
    change = ctx.change
    return change is not None and change.dest == phase.name


def rest_due(state: DelveState, now: int, turn_seconds: int, rest_turns: int) -> bool:
    """Whether the party has delved an hour, less its rest, since it last rested (OSE: one turn each hour)."""
    return rest_turns > 0 and now - state.rested_at >= HOUR_SECONDS - rest_turns * turn_seconds
