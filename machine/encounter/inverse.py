"""The inverse audit uses: the command that made a recorded encounter decision.

Only what the referee typed is taken from the record (the speaker and modifier of a reaction, a
referee's or players' pursuit choice, a referee's distance); the rest the step decides again from
the recorded rolls. The chase an encounter hands off (on water, and in a delve) is recorded only by its pursuit
decision's step (``follows_only``): re-run, the step hands it off again, so a chase's start that does
not follow from the encounter differs from the one the rules record, and a hand-off anywhere else is
a finding. An evasion recorded before ``encounter.evasion_rolled`` version 2 (or 4), a delve's pursuit decided
before ``encounter.pursuit_decided`` version 2 and one the referee started before version 3, and a reaction
spoken before ``encounter.reaction_rolled`` version 2, are re-run as their release made them (``command_before``).
No dice decide an avoid, but the surprise and the distance rolled before it do: since ``encounter.action_chosen``
version 3, which records what the referee gave for it, its step is run again on the state before it (``reruns``), so
one the rules refuse there (a side that did not surprise the other alone, one too close to slip away, one that
parleyed) or whose verdict differs is a finding; an earlier avoid is let be.
No dice decide a round or a side's choice, but where initiative is rolled each round the machine lets neither go on in
a later round before its initiative: one recorded so since ``encounter.round_played`` and ``encounter.action_chosen``
version 2 is a finding (``derived``); an older release let it be. A conclusion the referee typed (``conclude``) is run
again on the state before it (``typed_steps``): one the rules refuse there (in pursuit, where the encounter hands its
chase off itself), or whose rounds, turns or time differ from the rules', is a finding in a stream of the release that
refuses it (``CONCLUSIONS_SINCE``). What the referee typed is named in the audit's account of their hand
(``hand``), an evasion before ``encounter.evasion_rolled`` version 3 against the woods its release read where none was
typed, the party's true hex's (``by_hand_before``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import encounter as ev
from hexlog.events import releases
from hexlog.events.base import TYPE_PREFIX
from hexlog.events.procedure import HandedOff
from hexlog.machine.encounter import hand
from hexlog.machine.encounter import recorded as facts
from hexlog.machine.encounter.afloat import CHASE
from hexlog.machine.encounter.commands import (
    Avoid,
    CheckSurprise,
    ConcludeEncounter,
    DecidePursuit,
    DecidePursuitBeforeHandOff,
    DetermineDistance,
    RerollReaction,
    RollEvasion,
    RollEvasionBothAsPartySurprised,
    RollEvasionForNobody,
    RollInitiative,
    RollReaction,
    RollReactionSpokenWhileSurprised,
)
from hexlog.machine.encounter.machine import initiative_missing, not_encirclable
from hexlog.machine.encounter.rules import Encirclement, EncounterOptions
from hexlog.machine.encounter.state import NO_REACTION, PROCEDURE, EncounterState, Phase
from hexlog.machine.kit.procedure import Inverse

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.commands import Command
    from hexlog.machine.kit.context import StepContext

#: the fields of a decision that the referee typed (the command's arguments), by decision type
TYPED: dict[type[Event], frozenset[str]] = {
    ev.ReactionRolled: frozenset({"speaker", "modifier"}),
    ev.PursuitDecided: frozenset({"note", "likes_treasure", "hungry"}),
    ev.EvasionRolled: frozenset({"woods", "magic"}),
}


def command_for(event: Event) -> Command | None:  # noqa: PLR0911 - one case per kind of decision
    """The command that made a recorded decision (None: the event is not a dice-driven decision)."""
    match event:
        case ev.SurpriseChecked():
            return CheckSurprise()
        case ev.DistanceDetermined(rule="referee"):
            return DetermineDistance(value=event.value)
        case ev.DistanceDetermined():
            return DetermineDistance()
        case ev.InitiativeRolled():
            return RollInitiative()
        case ev.ReactionRolled(reroll=True):
            return RerollReaction(speaker=event.speaker, modifier=event.modifier)
        case ev.ReactionRolled():
            return RollReaction(speaker=event.speaker, modifier=event.modifier)
        case ev.PursuitDecided():
            return DecidePursuit(
                pursue=None if event.decided_by is ev.DecidedBy.REACTION else event.pursue,
                likes_treasure=event.likes_treasure,
                hungry=event.hungry,
            )
        case ev.EvasionRolled():
            return RollEvasion(woods=event.woods, magic=event.magic)
        case ev.ActionChosen(action=ev.Action.AVOID):
            return Avoid(side=event.side, rate_inches=event.rate_inches, detection_range_ft=event.detection_range_ft)
    return None


#: the first version of ``encounter.evasion_rolled`` that reads both sides surprised as neither
NEITHER_WHEN_BOTH_SINCE = 2
#: the first version of ``encounter.evasion_rolled`` whose d100 is made for the party (exhaustion reaches it)
FOR_THE_PARTY_SINCE = 4
#: the first version of ``encounter.pursuit_decided`` after which a delve's encounter hands its chase off itself
DELVE_HANDS_OFF_SINCE = 2
#: the version of ``encounter.pursuit_decided`` since which an encounter the referee started in the dungeon setting
#: (no procedure waiting for it) hands its chase off itself too
HAND_STARTED_HANDS_OFF_SINCE = 3
#: the first version of ``encounter.reaction_rolled`` whose releases give a party surprised in the first round no
#: speaker (seed 000 §2.2: it cannot act in that round)
SURPRISED_SILENT_SINCE = 2
#: the first version of ``encounter.action_chosen`` that records what the referee gave for an avoid, which the audit
#: runs again; the releases before it recorded none of it, and closed the way out in more places one release after
#: another without raising the version (a side that spent its free segments, a noisy foe met outdoors or after a round,
#: a parley): an avoid they recorded is let be
AVOID_RECORDED_SINCE = 3


def command_before(event: Event, version: int) -> Command | None:
    """The command that made a decision recorded at an earlier schema version of its event: an evasion before
    ``encounter.evasion_rolled`` version 2 read both sides surprised as the party surprised, and one before version 4
    rolled its d100 for nobody; a pursuit decided before ``encounter.pursuit_decided`` version 2 concluded a delve's
    encounter in pursuit, and one before version 3 an encounter the referee started, wherever it was; a reaction with
    a speaker before ``encounter.reaction_rolled`` version 2 let a party surprised in the first round speak (a
    re-roll, a round or more later, never met that rule); an avoid before ``encounter.action_chosen`` version 3 is not
    run again (None): its release did not record what the referee gave for it."""
    if isinstance(event, ev.ActionChosen) and version < AVOID_RECORDED_SINCE:
        return None
    if isinstance(event, ev.EvasionRolled) and version < NEITHER_WHEN_BOTH_SINCE:
        return RollEvasionBothAsPartySurprised(woods=event.woods, magic=event.magic)
    if isinstance(event, ev.EvasionRolled) and version < FOR_THE_PARTY_SINCE:
        return RollEvasionForNobody(woods=event.woods, magic=event.magic)
    if isinstance(event, ev.ReactionRolled) and version < SURPRISED_SILENT_SINCE and event.speaker and not event.reroll:
        return RollReactionSpokenWhileSurprised(speaker=event.speaker, modifier=event.modifier)
    if isinstance(event, ev.PursuitDecided) and version < HAND_STARTED_HANDS_OFF_SINCE:
        return _pursuit_before(event, version)
    return command_for(event)


def _pursuit_before(event: ev.PursuitDecided, version: int) -> DecidePursuitBeforeHandOff:
    """A pursuit decided before ``encounter.pursuit_decided`` version 3, as its release decided it (``command_before``):
    before version 2 a delve's encounter concluded in pursuit too."""
    made = command_for(event)
    assert isinstance(made, DecidePursuit)  # noqa: S101 - a pursuit decision's command
    if version < DELVE_HANDS_OFF_SINCE:
        return DecidePursuitBeforeHandOff(pursue=made.pursue, note=made.note)
    return DecidePursuitBeforeHandOff(
        pursue=made.pursue,
        likes_treasure=made.likes_treasure,
        hungry=made.hungry,
        note=made.note,
        delve_hands_off=True,
    )


def _note_ok(recorded: str, basis: str) -> bool:
    """A pursuit's note is the rules' basis, then ``; `` and the referee's free note (if any)."""
    return not basis or recorded == basis or recorded.startswith(basis + "; ")


def compare(recorded: Event, expected: Event) -> tuple[list[str], frozenset[str]]:
    """A distance is compared as value and unit together; a pursuit's note must begin with the rules' basis."""
    if isinstance(recorded, ev.DistanceDetermined) and isinstance(expected, ev.DistanceDetermined):
        if (recorded.value, recorded.unit) != (expected.value, expected.unit):
            given = f"{expected.value} {expected.unit}"
            return [f"distance {recorded.value} {recorded.unit} recorded, but the rules give {given}"], frozenset(
                {"value", "unit"}
            )
        return [], frozenset({"value", "unit"})
    pursuits = isinstance(recorded, ev.PursuitDecided) and isinstance(expected, ev.PursuitDecided)
    if pursuits and not _note_ok(recorded.note, expected.note):  # type: ignore[attr-defined]
        return [f'note "{recorded.note}" recorded, but the rules\' basis is "{expected.note}"'], frozenset()  # type: ignore[attr-defined]
    return [], frozenset()


def by_hand(event: Event, ctx: StepContext) -> str | None:  # noqa: PLR0911 - one case per kind of decision by hand
    """What the referee decided by hand in an encounter event, in words (None: nothing)."""
    match event:
        case ev.EncounterStarted() | ev.EvasionRolled() | ev.ActionChosen():
            return hand.typed_by_hand(event, ctx)
        case ev.ReactionRolled():
            return _reaction_by_hand(event, ctx)
        case ev.DistanceDetermined(rule="referee"):
            return f"a distance of {event.value} {event.unit} set by the referee instead of rolled"
        case ev.PartySurrounded() if ctx.part(EncounterOptions).encirclement is Encirclement.REFEREE:
            return f"the party encircled by {event.monster_count} monsters at the referee's call (encircle)"
        case ev.PursuitDecided(decided_by=ev.DecidedBy.REFEREE):
            chose = "pursue" if event.pursue else "let them go"
            suggested = "pursuit" if event.suggested else "no pursuit"
            basis = f"the reaction suggested {suggested}"
            if event.note.split("; ")[0] == NO_REACTION:
                basis = "no reaction was rolled"
            said = [word for word, so in (("like treasure", event.likes_treasure), ("are hungry", event.hungry)) if so]
            tastes = f", who says they {' and '.join(said)}" if said else ""
            return f"the {event.pursuer} {chose}, decided by the referee ({basis}){tastes}"
        case ev.EncounterCancelled():
            # a cancel may undo an encounter the dice brought, or one whose first rolls went against the referee
            when = (
                "before its first roll"
                if event.phase == Phase.SURPRISE.value
                else f"in its {event.phase} phase, after its rolls"
            )
            return f"encounter {event.number} cancelled by the referee {when} ({event.reason})"
        case ev.EncounterCorrected():
            return (
                f"encounter {event.number}'s {event.field} corrected by the referee from {event.was} to "
                f"{event.now} ({event.reason})"
            )
    return None


#: the first version of ``encounter.evasion_rolled`` whose woods the referee leaves out are, on a journey, the hex the
#: party believes it is in (before, a lost party's true hex's)
WOODS_BELIEVED_SINCE = 3


def by_hand_before(event: Event, ctx: StepContext, version: int) -> str | None:
    """What the referee decided by hand in an encounter event of an earlier version: an evasion before
    ``encounter.evasion_rolled`` version 3 read the woods the referee left out in the party's true hex."""
    if isinstance(event, ev.EvasionRolled) and version < WOODS_BELIEVED_SINCE:
        return hand.evasion_by_hand(event, ctx, true_hex=True)
    return by_hand(event, ctx)


def _reaction_by_hand(event: ev.ReactionRolled, ctx: StepContext) -> str | None:
    """A reaction's modifier given by the referee, and a re-roll after the rules' one (A7: the referee's call, made
    knowing the secret, so knowing what the next dice would say)."""
    said = []
    state = ctx.table.procedures.get(PROCEDURE)
    before = state.reaction if isinstance(state, EncounterState) else None
    if event.reroll and before is not None and before.reroll:
        said.append(f"the uncertain reaction rolled again at the referee's call in round {event.round}")
    if event.modifier:
        said.append(f"a reaction modifier of {event.modifier:+d} given by the referee")
    return f"{'; '.join(said)} (reaction total {event.total})" if said else None


def follows_only(event: Event) -> bool:
    """The encounter hands the chase off only in its pursuit decision's step (on water, in a delve), right after the
    decision."""
    return isinstance(event, HandedOff) and (event.parent, event.child) == (PROCEDURE, CHASE)


#: the first version of ``encounter.round_played`` and of ``encounter.action_chosen`` whose releases roll initiative
#: before a later round where the rules roll it each round (earlier ones let the round go on on the last one's)
INITIATIVE_FIRST_SINCE = 2


def _on_old_initiative(ctx: StepContext, event: ev.RoundPlayed | ev.ActionChosen, version: int) -> str | None:
    """A later round played, or a side's choice in it, before that round's initiative where the rules roll it each
    round (``initiative_each_round``): the machine refuses both (its condition ``initiative_rolled``), so such a
    record was not written by the kit. A side that slips away (``avoid``) and one fleeing the charge in the first
    round are not asked; a version before 2 was written by a release that let it be."""
    e = ctx.state(PROCEDURE)
    if version < INITIATIVE_FIRST_SINCE or not isinstance(e, EncounterState):
        return None
    if isinstance(event, ev.ActionChosen) and (e.phase is not Phase.ACTIONS or event.action is ev.Action.AVOID):
        return None
    due = initiative_missing(e, ctx.part(EncounterOptions))
    if not due:
        return None
    what = f"round {event.round} played" if isinstance(event, ev.RoundPlayed) else f"{event.action} chosen"
    return (
        f"{what} before the initiative for round {due} was rolled, which the rules in force ({ctx.rules.name}) "
        "roll at the start of every round"
    )


def _held(
    ctx: StepContext, event: ev.EncounterStarted | ev.MovementRated | ev.RoundPlayed | ev.ActionChosen, version: int
) -> str | None:
    """What a start or a round records of the state before it (``recorded``), then a round's or a side's choice's
    initiative (``_on_old_initiative``)."""
    found = None if isinstance(event, ev.ActionChosen) else facts.held(ctx, event, version)
    if found is None and isinstance(event, ev.RoundPlayed | ev.ActionChosen):
        return _on_old_initiative(ctx, event, version)
    return found


def derived(ctx: StepContext, event: Event, version: int) -> str | None:
    """An encirclement no dice decide: under ``encirclement = "referee"`` the step ``encircle`` records it only where
    the rules let the referee call it (its guard, which the audit would not otherwise hold it to); under
    ``"always"`` the surprise step records it, and the re-run of that step judges it. Either way it names the
    encounter's monsters and the rules' least number. A round, and a side's choice, are held to per-round initiative
    (``_on_old_initiative``). What an encounter's start and each round record of the state before them (the party, its
    movement, the round's number) is held to that state (``recorded``)."""
    if isinstance(event, ev.EncounterStarted | ev.MovementRated | ev.RoundPlayed | ev.ActionChosen):
        return _held(ctx, event, version)
    if not isinstance(event, ev.PartySurrounded):
        return None
    e = ctx.state(PROCEDURE)
    options = ctx.part(EncounterOptions)
    referee = options.encirclement is Encirclement.REFEREE
    phase = Phase.DISTANCE if referee else Phase.SURPRISE
    if not isinstance(e, EncounterState) or e.phase is not phase:
        step = "the step encircle, after the surprise" if referee else "the surprise step"
        return f"the party encircled, but the rules in force record it only by {step}"
    why = not_encirclable(e, options, ctx.rules.name) if referee else None
    if why is not None:
        return f"the party encircled at the referee's call, but {why}"
    recorded, given = (event.monster_count, event.at_least), (e.started.monster_count, options.surrounded_at_monsters)
    if recorded != given:
        return (
            f"{recorded[0]} monsters (at least {recorded[1]}) recorded, but the encounter gives {given[0]} "
            f"(at least {given[1]})"
        )
    return None


def concluded_by(event: Event) -> ConcludeEncounter:
    """The conclusion the referee typed (``conclude``): its outcome and note as recorded."""
    assert isinstance(event, ev.EncounterConcluded)  # noqa: S101 - declared for this event alone
    return ConcludeEncounter(outcome=event.outcome, note=event.reason)


#: the first release whose encounter refuses a conclusion in pursuit where it hands its chase off itself (in a delve,
#: on water under waterborne_pursuit_hands_off): the one that raised ``encounter.pursuit_decided`` to version 2
CONCLUSIONS_SINCE = releases.raised_at(TYPE_PREFIX + "encounter.pursuit_decided", 2)


INVERSE = Inverse(
    command_for=command_for,
    command_before=command_before,
    typed=TYPED,
    compare=compare,
    by_hand=by_hand,
    by_hand_before=by_hand_before,
    follows_only=follows_only,
    derived=derived,
    typed_steps={ev.EncounterConcluded: concluded_by},
    typed_since=CONCLUSIONS_SINCE,
    reruns=frozenset({ev.ActionChosen}),
)
