"""The encounter's later steps: initiative, reaction, the sides' actions, rounds, pursuit and the conclusion."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events import encounter as ev
from hexlog.events.errors import RuleRefusedError, UsageError
from hexlog.events.vocabulary import SIDES, Side
from hexlog.machine import evasion
from hexlog.machine.encounter import afloat, surprise
from hexlog.machine.encounter.commands import (
    REACTION_MODIFIER,
    TRIGGERS,
    DecidePursuit,
    DecidePursuitBeforeHandOff,
    RollEvasionBothAsPartySurprised,
    RollEvasionForNobody,
    RollReaction,
)
from hexlog.machine.encounter.conclusion import conclude_encounter
from hexlog.machine.encounter.machine import avoid_verdict, confused, side_of
from hexlog.machine.encounter.opening import check_monster_count
from hexlog.machine.encounter.rules import EncounterOptions, EncounterTables, TieRule
from hexlog.machine.encounter.state import NO_REACTION, PROCEDURE, EncounterState, Phase, enters, under_way
from hexlog.machine.text import counted

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.machine.encounter.commands import (
        Avoid,
        CancelEncounter,
        ConcludeEncounter,
        CorrectEncounter,
        PlayRound,
        RerollReaction,
        RollEvasion,
        RollInitiative,
        RollReactionSpokenWhileSurprised,
    )
    from hexlog.machine.kit.context import StepContext

#: the largest situational reaction modifier either way (``commands.REACTION_MODIFIER``)
MAX_REACTION_MODIFIER = REACTION_MODIFIER.most
#: the trigger a pursuit decision fires
DECIDE_PURSUIT = TRIGGERS[DecidePursuit]
#: the initiative's note after mutual surprise under ``mutually_surprised_sides_act = false``
CONFUSED = "neither side rolls: neither acts in the first round"


def roll_initiative(ctx: StepContext, command: RollInitiative) -> None:  # noqa: ARG001 - the step signature
    """1d6 per side that rolls; a lone unsurprised side gains the free round (OSE).

    Where surprise costs a round (OSE), in the first round a surprised side rolls only when option
    ``surprised_sides_roll_initiative`` says so (seed 000: "any sides that are not surprised roll
    initiative"): after mutual surprise nobody rolls and both act at once. A later round's initiative (option
    ``initiative_each_round``) is rolled by both sides: surprise lasts one round.
    """
    state = under_way(ctx)
    first_round = state.rounds == 0 and not state.chased  # after a chase the surprise is long past
    kind = state.advantage_kind
    round_ahead = kind is ev.AdvantageKind.ROUND and state.advantage is not ev.Advantage.NONE
    if first_round and round_ahead:
        ahead = Side(state.advantage)
        ctx.emit(
            ev.InitiativeRolled(
                first=ev.First(ahead),
                order=(ahead, ahead.other),
                free_round=ahead.value,
                reason=f"only the {ahead} are not surprised: they act first and alone in the first round",
            )
        )
        return
    notes = ["both sides surprised: momentary confusion, no advantage"] if first_round and all(state.surprised) else []
    options = ctx.part(EncounterOptions)
    if not first_round:
        notes.append(f"initiative for round {state.rounds + 1}")
    rollers: tuple[Side, ...] = SIDES
    if first_round and kind is ev.AdvantageKind.ROUND and not options.surprised_sides_roll_initiative:
        rollers = tuple(side for side, hit in zip(SIDES, state.surprised, strict=True) if not hit)
    if len(rollers) < len(SIDES):
        ctx.emit(_unrolled(rollers, notes, confused=first_round and confused(state, options)))
        return
    rolls: list[int] = []
    rerolls = 0
    while True:
        faces = []
        for side in SIDES:
            rolled = ctx.roll("1d6", f"encounter.initiative.{side}", made_for=side)
            rolls.append(rolled.nonce)
            faces.append(rolled.total)
        if faces[0] != faces[1] or options.initiative_tie is not TieRule.REROLL or rerolls >= options.reroll_limit:
            break
        rerolls += 1
    tie = ev.Tie.REROLL if rerolls else (ev.Tie.SIMULTANEOUS if faces[0] == faces[1] else ev.Tie.NONE)
    if faces[0] == faces[1]:
        first, order = ev.First.SIMULTANEOUS, SIDES
        limit_note = f" after {rerolls} re-rolls (the limit)" if rerolls else ""
        notes.append(f"tie on {faces[0]}{limit_note}: both act at once")
    else:
        ahead = Side.PARTY if faces[0] > faces[1] else Side.MONSTERS
        first, order = ev.First(ahead), (ahead, ahead.other)
        if rerolls:
            notes.append(f"tied {rerolls} times, then re-rolled")
    ctx.emit(
        ev.InitiativeRolled(
            party_face=faces[0],
            monsters_face=faces[1],
            first=first,
            order=order,
            tie=tie,
            rerolls=rerolls,
            reason="; ".join(notes),
            rolls=tuple(rolls),
        )
    )


def _unrolled(rollers: tuple[Side, ...], notes: list[str], *, confused: bool) -> ev.InitiativeRolled:
    """Initiative when a surprised side does not roll: the side that alone may roll acts first, or both at once (after
    mutual surprise under ``mutually_surprised_sides_act = false``, from the second round)."""
    if not rollers and confused:
        notes.append(CONFUSED)
        return ev.InitiativeRolled(first=ev.First.SIMULTANEOUS, order=SIDES, reason="; ".join(notes))
    if not rollers:
        notes.append("neither side rolls: both act at once")
        return ev.InitiativeRolled(first=ev.First.SIMULTANEOUS, order=SIDES, reason="; ".join(notes))
    ahead = rollers[0]
    notes.append(f"the {ahead.other} are surprised and do not roll: the {ahead} act first")
    return ev.InitiativeRolled(first=ev.First(ahead), order=(ahead, ahead.other), reason="; ".join(notes))


def _reaction(
    ctx: StepContext, state: EncounterState, speaker: str, modifier: int, *, reroll: bool
) -> ev.ReactionRolled:
    if modifier not in REACTION_MODIFIER:
        msg = f"a situational reaction modifier must be within ±{MAX_REACTION_MODIFIER}, not {modifier:+d}"
        raise UsageError(msg)
    options, tables = ctx.part(EncounterOptions), ctx.part(EncounterTables)
    cha, cha_mod = 0, 0
    if speaker:
        member = ctx.table.party.named(speaker)
        cha = member.cha
        for least, value in tables.cha_reaction[options.cha_reaction_scale]:
            if cha >= least:
                cha_mod = value
    rolled = ctx.roll("2d6", "encounter.reaction" + (".reroll" if reroll else ""), made_for=Side.MONSTERS)
    total = rolled.total + cha_mod + modifier
    band = max((b for b in tables.reaction if total >= b.at_least), key=lambda b: b.at_least)
    return ev.ReactionRolled(
        speaker=speaker,
        cha=cha,
        cha_modifier=cha_mod,
        modifier=modifier,
        dice=rolled.total,
        total=total,
        result=band.result,
        text=band.text,
        round=state.rounds,
        reroll=reroll,
        rolls=(rolled.nonce,),
    )


def react(ctx: StepContext, command: RollReaction | RollReactionSpokenWhileSurprised) -> None:
    """Roll the monsters' reaction: 2d6 + the speaker's CHA modifier, read on the reaction table (a party surprised in
    the first round has no speaker: the machine's ``speaker_may_speak``)."""
    state = under_way(ctx)
    ctx.emit(_reaction(ctx, state, command.speaker, command.modifier, reroll=False))


def react_as_spoken(ctx: StepContext, command: RollReactionSpokenWhileSurprised) -> None:
    """The audit's re-run of a reaction an older release recorded with a speaker (``encounter.reaction_rolled`` before
    version 2): ``react`` behind the trigger a referee's ``react`` fires, as the kit fires it (its phase change
    recorded after the reaction), every condition held but ``speaker_may_speak``, which lets this command's speaker
    speak as those releases did, even for a party surprised in the first round."""
    change = ctx.registry.runner(PROCEDURE).fire(TRIGGERS[RollReaction], ctx.state(PROCEDURE), ctx.table, command)
    react(ctx, command)
    ctx.emit(change)


def reroll_reaction(ctx: StepContext, command: RerollReaction) -> None:
    """Roll an uncertain reaction once more, a round or more after it."""
    state = under_way(ctx)
    last = state.reaction
    speaker = command.speaker if command.speaker is not None else (last.speaker if last else "")
    ctx.emit(_reaction(ctx, state, speaker, command.modifier, reroll=True))


def choose(action: ev.Action) -> Callable[[StepContext, Any], None]:
    """The step of a command that records one side's chosen action."""

    def run(ctx: StepContext, command: Any) -> None:
        ctx.emit(ev.ActionChosen(side=side_of(command), action=action, note=command.note))

    run.__doc__ = f"Record a side's choice of {action}."
    return run


def play_round(ctx: StepContext, command: PlayRound) -> None:
    """One round passes; in the first, a side surprised under the one-round advantage cannot act."""
    state = under_way(ctx)
    number = state.rounds + 1
    acting: tuple[Side, ...] = SIDES
    reason = ""
    ahead, sur = state.advantage, state.surprise
    first = number == 1 and not state.chased  # after a chase the surprise is long past
    if first and ahead is not ev.Advantage.NONE and sur is not None:
        leader = Side(ahead)
        if state.advantage_kind is ev.AdvantageKind.ROUND:
            acting, reason = (leader,), f"the {leader.other} are surprised and cannot act in the first round"
        elif state.advantage_kind is ev.AdvantageKind.SEGMENTS:
            lost = state.free_segments(leader)
            reason = f"the {leader.other} lose the first {lost} segment{'s' if lost != 1 else ''} of this round"
    elif first and confused(state, ctx.part(EncounterOptions)):
        acting, reason = (), "both sides are surprised and neither acts in the first round"
    caught = sur.party_characters_surprised if sur is not None and not sur.party_surprised else ()
    if first and caught:
        # seed 004: each character's own surprise; the surprised sit the first round out, the others act
        who = f"{', '.join(caught)} {'is' if len(caught) == 1 else 'are'} surprised and cannot act in the first round"
        reason = f"{reason}; {who}" if reason else who
    ctx.emit(
        ev.RoundPlayed(
            round=number,
            combat=state.phase is Phase.COMBAT,
            acting=acting,
            reason=reason,
            note=command.note,
        )
    )


def decide_pursuit(ctx: StepContext, command: DecidePursuit | DecidePursuitBeforeHandOff) -> None:
    """The side fled from decides; for monsters a reaction total at most the threshold suggests pursuit.

    On water (and in the dungeon, since ``encounter.pursuit_decided`` version 2 in a delve, since version 3 in an
    encounter the referee started there) the chase takes the pursuit over (``afloat``); else the encounter
    concludes, in pursuit or evaded.
    """
    state = under_way(ctx)
    fleeing = state.fleeing or Side.PARTY
    pursuer = fleeing.other
    at_most = ctx.part(EncounterOptions).pursue_if_reaction_at_most
    likes_treasure, hungry = _tastes(ctx, command)
    if pursuer is Side.PARTY:
        if command.pursue is None:
            msg = "the players decide freely whether the party pursues: say pursue or not"
            raise UsageError(msg)
        decision = ev.PursuitDecided(
            pursuer=pursuer,
            fleeing=fleeing,
            pursue=command.pursue,
            decided_by=ev.DecidedBy.PLAYERS,
            likes_treasure=likes_treasure,
            hungry=hungry,
            note=command.note,
        )
    else:
        options = ctx.part(EncounterOptions)
        if command.pursue is None and not state.started.intelligent and options.unintelligent_monsters_attack:
            msg = "non-intelligent monsters roll no reaction: say whether they pursue (--pursue or --let-go)"
            raise UsageError(msg)
        last = state.reaction
        rolls: tuple[int, ...] = ()
        if last is None and command.pursue is None:
            last = _reaction(ctx, state, "", 0, reroll=False)
            rolls = last.rolls
        total = last.total if last is not None else 0
        suggested = last is not None and total <= at_most
        basis = NO_REACTION
        if last is not None:
            basis = f"reaction {total} {'<=' if suggested else '>'} {at_most}"
        pursue = suggested if command.pursue is None else command.pursue
        decision = ev.PursuitDecided(
            pursuer=pursuer,
            fleeing=fleeing,
            pursue=pursue,
            suggested=suggested,
            reaction_total=total,
            at_most=at_most,
            decided_by=ev.DecidedBy.REACTION if command.pursue is None else ev.DecidedBy.REFEREE,
            likes_treasure=likes_treasure,
            hungry=hungry,
            note="; ".join(filter(None, (basis, command.note))),
            rolls=rolls,
        )
    ctx.emit(decision)
    if isinstance(command, DecidePursuitBeforeHandOff):
        _as_before_hand_off(ctx, state, decision, command)
        return
    if enters(ctx, Phase.EVASION):  # the chase takes the pursuit over (``afloat``)
        afloat.settle(ctx, decision)
        return
    _conclude_pursuit(ctx, state, decision)


def _tastes(ctx: StepContext, command: DecidePursuit | DecidePursuitBeforeHandOff) -> tuple[bool, bool]:
    """What the referee says of pursuers who give chase in the chase the encounter hands off (they like treasure,
    they are hungry), refused where they do not give chase or the decision hands no chase off (it concludes the
    encounter in pursuit, and the chase started by hand takes its own ``--likes-treasure`` and ``--hungry``)."""
    said = [name for name in ("likes_treasure", "hungry") if getattr(command, name)]
    if not said:
        return False, False
    flags = " and ".join("--" + name.replace("_", "-") for name in said)
    if command.pursue is not True:
        msg = f"{flags} say{'s' if len(said) == 1 else ''} what pursuers who give chase are like: say --pursue too"
        raise UsageError(msg)
    hands = _hands_off_before(ctx, command) if isinstance(command, DecidePursuitBeforeHandOff) else None
    if not (enters(ctx, Phase.EVASION) if hands is None else hands):
        msg = (
            f"this encounter hands no chase off (it concludes in pursuit): leave out {flags} and say it when the"
            " chase is started by hand (chase start, which takes --likes-treasure and --hungry)"
        )
        raise UsageError(msg)
    return command.likes_treasure, command.hungry


def _conclude_pursuit(ctx: StepContext, state: EncounterState, decision: ev.PursuitDecided) -> None:
    verb = "pursue" if decision.pursue else f"let the {decision.fleeing} go"
    conclude_encounter(ctx, state, "pursuit" if decision.pursue else "evaded", f"the {decision.pursuer} {verb}")


def _hands_off_before(ctx: StepContext, command: DecidePursuitBeforeHandOff) -> bool:
    """Whether the release that decided the pursuit (``DecidePursuitBeforeHandOff``) handed the chase off: on water
    as now, and (at version 2) where a delve waited for the encounter."""
    state = under_way(ctx)
    delve = command.delve_hands_off and afloat.underground(ctx.rules, ctx.table, state, delve_only=True)
    return delve or afloat.hands_off(ctx.rules, state)


def _as_before_hand_off(
    ctx: StepContext, state: EncounterState, decision: ev.PursuitDecided, command: DecidePursuitBeforeHandOff
) -> None:
    """The rest of a pursuit decided before ``encounter.pursuit_decided`` version 3, as its releases recorded it (the
    audit's re-run; its command fires no trigger, so the step fires it where they recorded the phase change): on
    water the chase took it over as it does now, and a delve's encounter's too at version 2; anywhere else (before
    version 2 a delve's encounter too) the encounter concluded and changed its phase after its turn had passed."""
    if _hands_off_before(ctx, command):
        ctx.follow(DECIDE_PURSUIT)
        afloat.settle(ctx, decision)
        return
    _conclude_pursuit(ctx, state, decision)
    ctx.follow(DECIDE_PURSUIT)


def advantage_before_v2(state: EncounterState) -> ev.Advantage:
    """The advantage releases before ``encounter.evasion_rolled`` version 2 read: the party surprised whenever it was,
    both sides surprised too; the party's alone when only the monsters were."""
    party, monsters = state.surprised
    if party:
        return ev.Advantage.MONSTERS
    return ev.Advantage.PARTY if monsters else ev.Advantage.NONE


def roll_evasion(
    ctx: StepContext, command: RollEvasion | RollEvasionBothAsPartySurprised | RollEvasionForNobody
) -> None:
    """Seed 004 (§4.5 6a, §4.13): the fleeing party rolls d100 against its evasion chance; failing, it is pursued.

    The chance reads the advantage of surprise the encounter recorded: the side's that alone surprised the other.
    When both sides were surprised neither has it (seed 004 1a "unless both sides are surprised", OSE §2.2 "no
    advantage to anyone"), and the chance is the table's as if neither was. The audit re-runs an evasion recorded
    before version 2 (``RollEvasionBothAsPartySurprised``) with the advantage its release read
    (``advantage_before_v2``).

    The d100 is made for the party (a low total is good): its exhaustion counts against it (seed 004 §4.16, "-1 to
    all rolls"). The audit re-runs an evasion recorded before version 4 as its release rolled it, for nobody
    (``RollEvasionForNobody``, and ``RollEvasionBothAsPartySurprised`` before version 2)."""
    state = under_way(ctx)
    started, movement = state.started, state.movement
    woods = command.woods
    if woods is None:
        # the hex the party believes it is in: a lost party's true hex would tell the players its terrain
        from hexlog.machine.pursuit.steps import terrain_here  # noqa: PLC0415 - the pursuit reads the journey's hex

        woods = terrain_here(ctx, "") == "woods"
    before = isinstance(command, RollEvasionBothAsPartySurprised)
    advantage = advantage_before_v2(state) if before else state.advantage
    situation = evasion.Situation(
        fleeing=len(started.party),
        pursuers=started.monster_count,
        fleeing_speed=movement.party_base if movement is not None else 0,
        pursuers_speed=started.monster_speed,
        woods=woods,
        surprised=advantage is ev.Advantage.MONSTERS,
        surprised_enemy=advantage is ev.Advantage.PARTY,
        magic=command.magic,
    )
    found = evasion.chance(ctx.rules, situation)
    for_party = not isinstance(command, RollEvasionBothAsPartySurprised | RollEvasionForNobody)
    made_for = Side.PARTY.value if for_party else ""
    total, rolls, evaded = evasion.roll_against(ctx, found, "encounter.evasion", made_for=made_for)
    ctx.emit(
        ev.EvasionRolled(
            fleeing=Side.PARTY,
            fleeing_count=situation.fleeing,
            pursuers_count=situation.pursuers,
            woods=woods,
            magic=command.magic,
            advantage=advantage,
            chance=found.pct,
            base=found.base,
            steps=found.steps,
            total=total,
            evaded=evaded,
            rolls=rolls,
        )
    )
    said = f"rolled {total} against {found.pct} %" if rolls else f"{found.pct} %, no roll"
    reason = f"evasion {said}: " + ("the party gets away" if evaded else "the monsters pursue")
    conclude_encounter(ctx, state, "evaded" if evaded else "pursuit", reason)


def avoid(ctx: StepContext, command: Avoid) -> None:
    """AD&D: a side slips away unnoticed and the encounter is avoided."""
    state = under_way(ctx)
    side = side_of(command)
    _, why = avoid_verdict(ctx.rules, state, side, command, party_armor=surprise.worn(ctx.table.party.members))
    ctx.emit(
        ev.ActionChosen(
            side=side,
            action=ev.Action.AVOID,
            note=why,
            rate_inches=command.rate_inches,
            detection_range_ft=command.detection_range_ft,
        )
    )
    conclude_encounter(ctx, state, "avoided", why)


def conclude(ctx: StepContext, command: ConcludeEncounter) -> None:
    """End the encounter."""
    state = under_way(ctx)
    if not command.outcome.strip():
        msg = "name the outcome (resolved, fled, slain, ...)"
        raise UsageError(msg)
    conclude_encounter(ctx, state, command.outcome, command.note)


def cancel(ctx: StepContext, command: CancelEncounter) -> None:
    """End an encounter started by mistake: recorded as cancelled, no game time passes, nothing removed."""
    state = under_way(ctx)
    reason = command.reason.strip()
    if not reason:
        msg = "say why the encounter is cancelled (--reason)"
        raise UsageError(msg)
    ctx.emit(ev.EncounterCancelled(number=state.started.number, phase=state.phase.value, reason=reason))


def correct(ctx: StepContext, command: CorrectEncounter) -> None:
    """Correct the monster count recorded at the start; the event names the earlier value."""
    state = under_way(ctx)
    was = state.started.monster_count
    if command.monster_count is None:
        msg = "give the right number of monsters (--monsters N)"
        raise UsageError(msg)
    check_monster_count(command.monster_count)
    if command.monster_count == was:
        msg = f"the encounter already has {counted(was, 'monster')}: nothing to correct"
        raise RuleRefusedError(msg)
    ctx.emit(
        ev.EncounterCorrected(
            number=state.started.number,
            field="monster_count",
            was=was,
            now=command.monster_count,
            reason=command.reason,
        )
    )
