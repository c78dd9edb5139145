"""The encounter procedure as a state machine declared as data (seeds 000, 001 and 004).

One shared ``transitions.Machine`` holds ``TRANSITIONS``; a command attaches a ``Model`` built from
the folded ``EncounterState``, fires its trigger and detaches it. Conditions only read; the steps in
``encounter_steps`` roll the dice and emit the events, and replay never fires a trigger: the fold
takes the phase from ``PhaseChanged.dest``. Importing this module registers the fold and the
encounter commands.
"""

from __future__ import annotations

import enum
import threading
from typing import TYPE_CHECKING, Any

import attrs
from transitions import Machine, MachineError

from hexlog.events import encounter as ev
from hexlog.events.errors import HexlogError, IllegalTransitionError, RuleRefusedError, UsageError
from hexlog.events.procedure import PhaseChanged
from hexlog.machine import positions
from hexlog.machine import table as tables
from hexlog.machine.commands import Command
from hexlog.machine.encounter_commands import (
    TRIGGERS,
    Avoid,
    CheckSurprise,
    ConcludeEncounter,
    DecidePursuit,
    DetermineDistance,
    Evade,
    Fight,
    Parley,
    PlayRound,
    RerollReaction,
    RollInitiative,
    RollReaction,
    StartEncounter,
    TakeFreeAction,
    Wait,
)
from hexlog.machine.ruleset import Ruleset
from hexlog.projections.party import Party

if TYPE_CHECKING:
    from transitions.core import TransitionConfigDict

    from hexlog.events.base import Event

PROCEDURE = "encounter"


class Phase(enum.Enum):
    """Where an encounter stands."""

    IDLE = "idle"
    SURPRISE = "surprise"
    DISTANCE = "distance"
    FREE_ACTION = "free_action"
    INITIATIVE = "initiative"
    ACTIONS = "actions"
    EVASION = "evasion"
    COMBAT = "combat"
    CONCLUDED = "concluded"


P = Phase
#: The whole procedure. Rows with the same trigger and source are tried in order: the first whose
#: conditions hold is taken, and a row without conditions is the default branch.
TRANSITIONS: list[TransitionConfigDict] = [
    {"trigger": "start", "source": [P.IDLE, P.CONCLUDED], "dest": P.SURPRISE, "conditions": "has_party"},
    {"trigger": "check_surprise", "source": P.SURPRISE, "dest": P.DISTANCE},
    # AD&D free segments, or the 004 dungeon's single action, for the side that alone surprised
    {"trigger": "determine_distance", "source": P.DISTANCE, "dest": P.FREE_ACTION, "conditions": "gains_free_action"},
    # 004 dungeon, both sides surprised: straight to combat, no free actions
    {"trigger": "determine_distance", "source": P.DISTANCE, "dest": P.COMBAT, "conditions": "straight_to_combat"},
    {"trigger": "determine_distance", "source": P.DISTANCE, "dest": P.INITIATIVE},
    # 004: non-intelligent monsters that surprised the party close to melee, unless it may flee
    {"trigger": "take_free_action", "source": P.FREE_ACTION, "dest": P.COMBAT, "conditions": "closes_to_melee"},
    {"trigger": "take_free_action", "source": P.FREE_ACTION, "dest": P.INITIATIVE},
    {"trigger": "avoid", "source": [P.FREE_ACTION, P.ACTIONS], "dest": P.CONCLUDED,
     "conditions": "slips_away_unnoticed"},
    {"trigger": "roll_initiative", "source": P.INITIATIVE, "dest": P.ACTIONS},
    {"trigger": "react", "source": P.ACTIONS, "dest": P.ACTIONS, "conditions": "monsters_may_react"},
    {"trigger": "reroll_reaction", "source": P.ACTIONS, "dest": P.ACTIONS,
     "conditions": "uncertain_reaction_a_round_ago"},
    {"trigger": "parley", "source": P.ACTIONS, "dest": P.ACTIONS, "conditions": "side_may_act"},
    {"trigger": "wait", "source": P.ACTIONS, "dest": P.ACTIONS},
    {"trigger": "round", "source": P.ACTIONS, "dest": P.ACTIONS, "conditions": "within_round_limit"},
    # combat rounds are not limited: the 60-round limit is on encounter movement (OSE §2.7)
    {"trigger": "round", "source": P.COMBAT, "dest": P.COMBAT},
    {"trigger": "fight", "source": P.ACTIONS, "dest": P.COMBAT, "conditions": "side_may_act"},
    {"trigger": "evade", "source": P.ACTIONS, "dest": P.EVASION, "conditions": ["side_may_act", "flight_allowed"]},
    {"trigger": "decide_pursuit", "source": P.EVASION, "dest": P.CONCLUDED},
    {"trigger": "conclude", "source": [P.ACTIONS, P.COMBAT], "dest": P.CONCLUDED},
]
del P


@attrs.frozen(kw_only=True)
class EncounterState:
    """The latest encounter of a campaign: its phase and the facts recorded so far."""

    started: ev.EncounterStarted
    phase: Phase = Phase.IDLE
    movement: ev.MovementRated | None = None
    surprise: ev.SurpriseChecked | None = None
    surrounded: ev.PartySurrounded | None = None
    distance: ev.DistanceDetermined | None = None
    free_action: ev.FreeActionTaken | None = None
    initiative: ev.InitiativeRolled | None = None
    #: the latest reaction roll, and how many were rolled
    reaction: ev.ReactionRolled | None = None
    reactions: int = 0
    actions: tuple[ev.ActionChosen, ...] = ()
    rounds: int = 0
    in_combat: bool = False
    pursuit: ev.PursuitDecided | None = None
    concluded: ev.EncounterConcluded | None = None

    @property
    def setting(self) -> str:
        """Where it happens."""
        return self.started.setting

    @property
    def surprised(self) -> tuple[bool, bool]:
        """Whether (party, monsters) are surprised."""
        s = self.surprise
        return (s.party_surprised, s.monsters_surprised) if s is not None else (False, False)

    @property
    def advantage(self) -> str:
        """``party``, ``monsters`` or ``none``: who surprised the other alone."""
        return self.surprise.advantage if self.surprise is not None else "none"

    @property
    def advantage_kind(self) -> str:
        """``round``, ``segments`` or ``single_action``; "" before surprise."""
        return self.surprise.advantage_kind if self.surprise is not None else ""

    @property
    def distance_ft(self) -> int:
        """The encounter distance in feet; 0 before it is known."""
        d = self.distance
        return 0 if d is None else d.value * (positions.FEET_PER_YARD if d.unit == "yd" else 1)

    @property
    def fleeing(self) -> str:
        """The side that chose evasion, or ""."""
        return next((a.side for a in reversed(self.actions) if a.action == "evasion"), "")


#: the events kept as the latest fact of their kind, by the state field that holds them
_LATEST: dict[type[Event], str] = {
    ev.MovementRated: "movement", ev.SurpriseChecked: "surprise", ev.PartySurrounded: "surrounded",
    ev.DistanceDetermined: "distance", ev.FreeActionTaken: "free_action", ev.InitiativeRolled: "initiative",
    ev.PursuitDecided: "pursuit", ev.EncounterConcluded: "concluded",
}


def evolve(state: EncounterState | None, event: Event) -> EncounterState | None:
    """The encounter after one event; a new ``EncounterStarted`` replaces a concluded one."""
    if isinstance(event, ev.EncounterStarted):
        return EncounterState(started=event)
    if state is None:
        return None
    changes: dict[str, Any] = {}
    latest = _LATEST.get(type(event))
    if latest is not None:
        changes[latest] = event
    match event:
        case PhaseChanged(procedure="encounter", dest=dest):
            changes["phase"] = Phase[dest]
        case ev.ReactionRolled():
            changes.update(reaction=event, reactions=state.reactions + 1)
        case ev.ActionChosen():
            changes.update(actions=(*state.actions, event), in_combat=state.in_combat or event.action == "combat")
        case ev.RoundPlayed():
            changes.update(rounds=event.round, in_combat=state.in_combat or event.combat)
    return attrs.evolve(state, **changes) if changes else state


tables.PROCEDURE_FOLDS[PROCEDURE] = evolve

#: Options the encounter reads that a ruleset file may leave out: the value then, by ruleset name
#: (``*`` for any other). A value in the ruleset always wins.
def option(rules: Ruleset, name: str) -> Any:
    """An option of the rules in force (every ruleset file declares every option it uses)."""
    return rules.option(name)


def other(side: str) -> str:
    """The opposing side."""
    return ev.MONSTERS if side == ev.PARTY else ev.PARTY


def situation_of(e: EncounterState) -> positions.Situation:
    """The place of the encounter as the distance rules read it (0 = not given)."""
    s = e.started
    return positions.Situation(
        setting=s.setting, terrains=s.terrains, line_of_sight_ft=s.line_of_sight_ft or None,
        area_ft=s.area_ft or None, light_radius_ft=s.light_radius_ft or None,
        vision_ft=s.vision_ft or None, hiding=s.hiding,
    )


@attrs.define(slots=False)
class Model:
    """What the machine sees while one command runs; conditions only read, and note why they fail."""

    state: Phase
    encounter: EncounterState | None
    rules: Ruleset
    party: Party
    command: Command
    refusals: list[str] = attrs.field(factory=list)

    if TYPE_CHECKING:  # bound by transitions on add_model (declaring it would skip the binding)

        def trigger(self, name: str) -> bool:
            """Fire a trigger by name."""

    @property
    def e(self) -> EncounterState:
        """The folded encounter (conditions past ``start`` only run when there is one)."""
        assert self.encounter is not None  # noqa: S101 - every phase past IDLE has an encounter
        return self.encounter

    @property
    def side(self) -> str:
        """The side the command speaks for; ``UsageError`` when it names neither side."""
        side = str(getattr(self.command, "side", ev.PARTY))
        if side not in ev.SIDES:
            msg = f"side must be one of {', '.join(ev.SIDES)}, not {side!r}"
            raise UsageError(msg)
        return side

    def _refuse(self, why: str) -> bool:
        self.refusals.append(why)
        return False

    def has_party(self) -> bool:
        """An encounter needs a party to meet the monsters."""
        return bool(self.party.members) or self._refuse("the party has no members; add one first")

    def gains_free_action(self) -> bool:
        """One side alone surprised the other: free segments (AD&D) or a single action (004 dungeon)."""
        kind = self.e.advantage_kind
        single = kind == "single_action" and self.e.setting == "dungeon"
        return self.e.advantage != "none" and (kind == "segments" or single)

    def straight_to_combat(self) -> bool:
        """004 dungeon: when both sides are surprised they go straight to combat, no free actions."""
        e = self.e
        return e.advantage_kind == "single_action" and e.setting == "dungeon" and all(e.surprised)

    def closes_to_melee(self) -> bool:
        """004: non-intelligent monsters that surprised the party move to melee, unless it may flee first."""
        e = self.e
        attack = option(self.rules, "unintelligent_monsters_attack")
        return e.advantage == ev.MONSTERS and not e.started.intelligent and attack and not self._party_flees_first()

    def _party_may_flee(self) -> bool:
        """Flight is not limited (limit 0: no such rule) or the monsters are within the limit."""
        limit = int(option(self.rules, "surprised_party_flees_within_ft"))
        return limit == 0 or self.e.distance_ft <= limit

    def _party_flees_first(self) -> bool:
        """§4.3 3a: the rule exists (limit above 0) and the monsters are within it, so the party may flee first."""
        limit = int(option(self.rules, "surprised_party_flees_within_ft"))
        return limit > 0 and self.e.distance_ft <= limit

    def side_may_act(self) -> bool:
        """A side surprised under the one-round advantage cannot act until the first round is over."""
        e = self.e
        if e.advantage_kind == "round" and e.advantage == other(self.side) and e.rounds < 1:
            return self._refuse(f"the {self.side} are surprised and cannot act in the first round; play it first")
        return True

    def flight_allowed(self) -> bool:
        """004: a surprised party may flee before combat only when the monsters are close."""
        if self.side == ev.PARTY and self.e.advantage == ev.MONSTERS and not self._party_may_flee():
            limit = option(self.rules, "surprised_party_flees_within_ft")
            away = self.e.distance_ft
            return self._refuse(f"a surprised party may flee only within {limit} ft; the monsters are {away} ft away")
        return True

    def slips_away_unnoticed(self) -> bool:
        """AD&D: the side that alone surprised the other, or faces a noisy one, may slip away unnoticed."""
        ok, why = avoid_verdict(self.rules, self.e, self.side, self.command)
        return ok or self._refuse(why)

    def monsters_may_react(self) -> bool:
        """Monsters roll reaction unless the rules make non-intelligent ones simply attack."""
        if not self.e.started.intelligent and option(self.rules, "unintelligent_monsters_attack"):
            return self._refuse("non-intelligent monsters roll no reaction: they move to attack (fight)")
        return True

    def uncertain_reaction_a_round_ago(self) -> bool:
        """An uncertain reaction may be rolled again once, after a round has passed."""
        e, last = self.e, self.e.reaction
        if not option(self.rules, "reroll_uncertain_reaction"):
            return self._refuse(f"the rules in force ({self.rules.name}) do not re-roll uncertain reactions")
        if last is None or last.result != "uncertain":
            seen = f"the last one was {last.result}" if last is not None else "none was rolled yet"
            return self._refuse(f"only an uncertain reaction may be re-rolled; {seen}")
        if last.reroll:
            return self._refuse("the uncertain reaction was already re-rolled once; roll a new reaction instead")
        if e.rounds <= last.round:
            when = f"rolled in round {last.round}, now {e.rounds}"
            return self._refuse(f"a round must pass after the uncertain reaction ({when})")
        return True

    def within_round_limit(self) -> bool:
        """Encounter movement (before combat) lasts at most the rules' maximum of rounds."""
        limit = int(option(self.rules, "encounter_move_max_rounds"))
        return self.e.rounds < limit or self._refuse(
            f"encounter movement lasts at most {limit} rounds; fight, evade or conclude it"
        )


def avoid_verdict(rules: Ruleset, e: EncounterState, side: str, command: Command) -> tuple[bool, str]:
    """AD&D §3.2-3.4: whether ``side`` may avoid the encounter unnoticed, and why."""
    if "avoid_rule" not in rules.content.get("options", {}):
        return False, f"the rules in force ({rules.name}) have no avoid-encounter rule; use evade"
    s, foe = e.started, other(side)
    noisy = {ev.PARTY: s.party_noisy, ev.MONSTERS: s.monsters_noisy}
    surprised = dict(zip(ev.SIDES, e.surprised, strict=True))
    if noisy[foe] and not noisy[side] and not surprised[side]:
        return True, f"the {foe} make noise: the {side} slip away before they are noticed"
    if e.advantage != side or e.distance is None:
        why = "only a side that alone surprised the other, or faces a noisy one, may avoid it"
        return False, f"{why} (advantage: {e.advantage})"
    if e.phase is not Phase.FREE_ACTION:
        return False, f"the {side} could slip away only in their free segments, which have passed"
    d = e.distance
    found = positions.Distance(
        value=d.value, unit=d.unit, melee=d.melee, missiles_possible=d.missiles_possible, rule=d.rule,
        steps=d.steps, rolls=d.rolls,
    )
    speed = s.monster_speed if side == ev.MONSTERS else (e.movement.party_base if e.movement else 0)
    rate = getattr(command, "rate_inches", None)
    sur = e.surprise
    segments = 0 if sur is None else (sur.party_segments if side == ev.MONSTERS else sur.monsters_segments)
    return positions.avoid(
        rules, situation_of(e), found, e.surprised, segments,
        rate_inches=rate if rate is not None else (speed // 10 or None),
        detection_range_ft=getattr(command, "detection_range_ft", None),
        surprisers_lit=s.monsters_light if side == ev.MONSTERS else s.party_light,
        surprisers_noisy=noisy[side],
    )


MACHINE = Machine(
    model=None, states=Phase, transitions=TRANSITIONS, initial=Phase.IDLE,
    auto_transitions=False, name=PROCEDURE,
)
_LOCK = threading.Lock()


def phase_of(state: EncounterState | None) -> Phase:
    """The phase of a folded encounter; ``IDLE`` before the first one."""
    return Phase.IDLE if state is None else state.phase


def allowed_triggers(state: EncounterState | Phase | None) -> list[str]:
    """The triggers the machine allows in the encounter's phase (conditions aside), in table order."""
    phase = state if isinstance(state, Phase) else phase_of(state)
    return list(MACHINE.get_triggers(phase))


def available_triggers(encounter: EncounterState | None, rules: Ruleset, party: Party) -> list[str]:
    """The triggers whose conditions hold now for some command with default arguments (either side)."""
    return [trigger for trigger, _ in available_steps(encounter, rules, party)]


def available_steps(
    encounter: EncounterState | None, rules: Ruleset, party: Party,
) -> list[tuple[str, tuple[str, ...]]]:
    """Each trigger available now, with the sides that may take it (``()`` for a command without a side)."""
    phase = phase_of(encounter)
    commands = {trigger: cls for cls, trigger in TRIGGERS.items()}
    steps: list[tuple[str, tuple[str, ...]]] = []
    for trigger in allowed_triggers(phase):
        cls = commands[trigger]
        rows = [r for r in TRANSITIONS if r["trigger"] == trigger and phase.name in _names(r["source"])]

        def passes(command: Command, rows: list[Any] = rows) -> bool:
            return _passes(Model(state=phase, encounter=encounter, rules=rules, party=party, command=command), rows)

        if "side" in attrs.fields_dict(cls):
            make: Any = cls  # a command class with a side field
            sides = tuple(side for side in ev.SIDES if passes(make(side=side)))
            if sides:
                steps.append((trigger, sides))
        elif passes(cls()):
            steps.append((trigger, ()))
    return steps


def _passes(model: Model, rows: list[Any]) -> bool:
    try:
        return any(all(getattr(model, c)() for c in _conditions(r)) for r in rows)
    except HexlogError:
        return False


def _conditions(row: Any) -> list[str]:
    found = row.get("conditions", [])
    return [found] if isinstance(found, str) else list(found)


def _names(value: Any) -> set[str]:
    values = value if isinstance(value, list) else [value]
    return {v.name if isinstance(v, Phase) else str(v) for v in values}


def recorded_transition_ok(trigger: str, source: str, dest: str) -> bool:
    """Whether ``TRANSITIONS`` has a row taking ``trigger`` from phase ``source`` to ``dest``."""
    return any(
        row["trigger"] == trigger and source in _names(row["source"]) and dest in _names(row["dest"])
        for row in TRANSITIONS
    )


def fire(
    trigger: str, encounter: EncounterState | None, rules: Ruleset, party: Party, command: Command,
) -> PhaseChanged:
    """Fire ``trigger`` on the folded encounter and give the ``PhaseChanged`` to record.

    Raises ``IllegalTransitionError`` when the phase does not allow the trigger, and
    ``RuleRefusedError`` with the reasons when the conditions of every matching row fail.
    """
    source = phase_of(encounter)
    model = Model(state=source, encounter=encounter, rules=rules, party=party, command=command)
    with _LOCK:
        MACHINE.add_model(model, initial=source)
        try:
            done = model.trigger(trigger)
        except MachineError as err:
            offered = available_triggers(encounter, rules, party)
            raise IllegalTransitionError(PROCEDURE, source.name, trigger, offered) from err
        finally:
            MACHINE.remove_model(model)
    if not done:
        why = "; ".join(dict.fromkeys(model.refusals)) or "its conditions do not hold"
        msg = f"{PROCEDURE}: '{trigger}' refused in phase {source.name}: {why}"
        raise RuleRefusedError(msg)
    dest: Phase = model.state
    return PhaseChanged(procedure=PROCEDURE, trigger=trigger, source=source.name, dest=dest.name)


__all__ = [
    "MACHINE", "PROCEDURE", "TRANSITIONS", "TRIGGERS", "Avoid", "CheckSurprise", "ConcludeEncounter",
    "DecidePursuit", "DetermineDistance", "EncounterState", "Evade", "Fight", "Model", "Parley", "Phase",
    "PlayRound", "RerollReaction", "RollInitiative", "RollReaction", "StartEncounter", "TakeFreeAction",
    "Wait", "allowed_triggers", "available_steps", "available_triggers", "evolve", "fire", "option", "other", "phase_of", "recorded_transition_ok",
    "situation_of",
]

# The steps import this module; importing them last registers the encounter commands with the handler.
from hexlog.machine import encounter_steps as _steps  # noqa: E402,F401
