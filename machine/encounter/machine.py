"""The encounter procedure as a state machine declared as data (seeds 000, 001 and 004).

``TRANSITIONS`` is the whole procedure: rows with the same trigger and source are tried in order,
the first whose conditions hold is taken, and a row without conditions is the default branch. The
conditions are methods of ``EncounterModel``; they only read, and say why they refuse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events import encounter as ev
from hexlog.events.errors import Advice, UsageError
from hexlog.events.vocabulary import SIDES, Setting, Side
from hexlog.machine.encounter import afloat, positions, positions_adnd, surprise
from hexlog.machine.encounter.commands import DecidePursuitBeforeHandOff, RollReactionSpokenWhileSurprised
from hexlog.machine.encounter.rules import Encirclement, EncounterOptions
from hexlog.machine.encounter.state import PROCEDURE, EncounterState, Phase
from hexlog.machine.evasion import EvasionOptions, EvasionRules
from hexlog.machine.kit.model import Model
from hexlog.machine.text import counted

if TYPE_CHECKING:
    from transitions.core import TransitionConfigDict

    from hexlog.machine.commands import Command
    from hexlog.machine.ruleset import Ruleset
    from hexlog.machine.table import Table

P = Phase
#: the open country where a surprised party may be encircled (``outdoors`` is the AD&D name)
OPEN_COUNTRY = frozenset({Setting.WILDERNESS, Setting.OUTDOORS})
#: the phases of an encounter under way
RUNNING = [P.SURPRISE, P.DISTANCE, P.FREE_ACTION, P.INITIATIVE, P.ACTIONS, P.COMBAT, P.EVASION]
TRANSITIONS: list[TransitionConfigDict] = [
    {"trigger": "start", "source": [P.IDLE, P.CONCLUDED], "dest": P.SURPRISE, "conditions": "has_party"},
    {"trigger": "check_surprise", "source": P.SURPRISE, "dest": P.DISTANCE},
    # §2.2 "may find itself encircled" (option encirclement = "referee"): the referee's call, before the distance
    {"trigger": "encircle", "source": P.DISTANCE, "dest": P.DISTANCE, "conditions": "may_encircle"},
    # AD&D free segments, or the 004 dungeon's single action, for the side that alone surprised
    {"trigger": "determine_distance", "source": P.DISTANCE, "dest": P.FREE_ACTION, "conditions": "gains_free_action"},
    # 004 dungeon, both sides surprised: straight to combat, no free actions
    {"trigger": "determine_distance", "source": P.DISTANCE, "dest": P.COMBAT, "conditions": "straight_to_combat"},
    {"trigger": "determine_distance", "source": P.DISTANCE, "dest": P.INITIATIVE},
    # 004: non-intelligent monsters that surprised the party close to melee, unless it may flee
    {"trigger": "take_free_action", "source": P.FREE_ACTION, "dest": P.COMBAT, "conditions": "closes_to_melee"},
    {"trigger": "take_free_action", "source": P.FREE_ACTION, "dest": P.INITIATIVE},
    {
        "trigger": "avoid",
        "source": [P.FREE_ACTION, P.ACTIONS],
        "dest": P.CONCLUDED,
        "conditions": ["slips_away_unnoticed", "not_spoken_with", "kept_out_of_the_fight"],
    },
    {"trigger": "roll_initiative", "source": P.INITIATIVE, "dest": P.ACTIONS},
    # OSE: initiative again at the start of every later round (option initiative_each_round)
    {"trigger": "roll_initiative", "source": P.ACTIONS, "dest": P.ACTIONS, "conditions": "initiative_due"},
    {"trigger": "roll_initiative", "source": P.COMBAT, "dest": P.COMBAT, "conditions": "initiative_due"},
    # the monsters' reaction: once; a further roll only for the rules' reason, at any point (combat included)
    # §2.2: a party surprised under the one-round advantage cannot act, so nobody of it speaks, in the first round
    {
        "trigger": "react",
        "source": P.ACTIONS,
        "dest": P.ACTIONS,
        "conditions": ["monsters_may_react", "no_reaction_yet", "speaker_may_speak"],
    },
    {
        "trigger": "react",
        "source": P.COMBAT,
        "dest": P.COMBAT,
        "conditions": ["monsters_may_react", "no_reaction_yet", "speaker_may_speak"],
    },
    {
        "trigger": "reroll_reaction",
        "source": P.ACTIONS,
        "dest": P.ACTIONS,
        "conditions": "uncertain_reaction_a_round_ago",
    },
    {
        "trigger": "reroll_reaction",
        "source": P.COMBAT,
        "dest": P.COMBAT,
        "conditions": "uncertain_reaction_a_round_ago",
    },
    # OSE (option initiative_each_round): a side acts in a later round, and the round is played, on its own initiative
    {"trigger": "parley", "source": P.ACTIONS, "dest": P.ACTIONS, "conditions": ["side_may_act", "initiative_rolled"]},
    {"trigger": "wait", "source": P.ACTIONS, "dest": P.ACTIONS, "conditions": ["side_may_act", "initiative_rolled"]},
    {
        "trigger": "round",
        "source": P.ACTIONS,
        "dest": P.ACTIONS,
        "conditions": ["within_round_limit", "initiative_rolled"],
    },
    # combat rounds are not limited: the 60-round limit is on encounter movement (OSE §2.7)
    {"trigger": "round", "source": P.COMBAT, "dest": P.COMBAT, "conditions": "initiative_rolled"},
    {"trigger": "fight", "source": P.ACTIONS, "dest": P.COMBAT, "conditions": ["side_may_act", "initiative_rolled"]},
    {
        "trigger": "evade",
        "source": P.ACTIONS,
        "dest": P.EVASION,
        "conditions": ["side_may_act", "initiative_rolled", "flight_allowed"],
    },
    # A38: a party surprised within the flight limit may still flee once non-intelligent monsters closed to melee
    {"trigger": "evade", "source": P.COMBAT, "dest": P.EVASION, "conditions": "flees_from_the_charge"},
    # §2.9 on water (option waterborne_pursuit_hands_off), and in the dungeon (the dungeon pursuit table): the decision
    # is recorded, then its step settles it
    {
        "trigger": "decide_pursuit",
        "source": P.EVASION,
        "dest": P.EVASION,
        "conditions": ["pursuit_is_decided", "hands_chase_off"],
    },
    {"trigger": "decide_pursuit", "source": P.EVASION, "dest": P.CONCLUDED, "conditions": "pursuit_is_decided"},
    # fired by that step: pursued, the chase takes over and the encounter waits; let go, it ends
    {"trigger": "settle", "source": P.EVASION, "dest": P.CHASE, "conditions": "pursued"},
    {"trigger": "settle", "source": P.EVASION, "dest": P.CONCLUDED},
    # fired by the kit when that chase ends: a side caught is fought, one that got away ends the encounter
    {"trigger": "resume", "source": P.CHASE, "dest": P.COMBAT, "conditions": "caught"},
    {"trigger": "resume", "source": P.CHASE, "dest": P.CONCLUDED},
    # seed 004 in the wilderness (§4.5 6a): the party rolls its evasion chance instead of a pursuit decision
    {"trigger": "roll_evasion", "source": P.EVASION, "dest": P.CONCLUDED, "conditions": "evasion_is_rolled"},
    # where the encounter hands its chase off itself (on water, in a delve) the pursuit is decided, not concluded
    {
        "trigger": "conclude",
        "source": [P.ACTIONS, P.COMBAT],
        "dest": P.CONCLUDED,
        "conditions": "not_a_chase_handed_on",
    },
    # an encounter started by mistake is cancelled at any phase; a fact recorded wrong is corrected in place
    {"trigger": "cancel", "source": RUNNING, "dest": P.CONCLUDED},
    # (the rows of ``correct``, one per phase it keeps, follow)
]
TRANSITIONS += [{"trigger": "correct", "source": phase, "dest": phase} for phase in RUNNING]
del P
#: the outcome of an encounter concluded with the side fled from pursuing
PURSUIT = "pursuit"


def confused(state: EncounterState, options: EncounterOptions) -> bool:
    """Both sides surprised under the one-round advantage, and option ``mutually_surprised_sides_act`` false (seed 000
    §2.2: "surprised sides cannot move or act in the first round"): neither acts in the first round."""
    mutual = state.advantage_kind is ev.AdvantageKind.ROUND and all(state.surprised)
    return mutual and not options.mutually_surprised_sides_act


def held_in_first_round(e: EncounterState, options: EncounterOptions, side: Side) -> bool:
    """Whether ``side`` cannot act now, being surprised in the first round under the one-round advantage (seed 000
    §2.2: "surprised sides cannot move or act in the first round"): the side surprised alone, or either side after
    mutual surprise where ``mutually_surprised_sides_act`` is false. After a chase the surprise is long past; under
    free segments (adnd) or a free single action (explore's dungeon) surprise costs less than the round."""
    first = e.rounds < 1 and not e.chased
    alone = e.advantage_kind is ev.AdvantageKind.ROUND and e.advantage.value == side.other.value
    return first and (alone or confused(e, options))


def party_may_speak(table: Table) -> bool:
    """Whether a member of the party may speak to the monsters of the encounter under way now (``react --speaker``):
    not while the party is held in the first round (``held_in_first_round``)."""
    e, rules = table.procedures.get(PROCEDURE), table.rules
    if not isinstance(e, EncounterState) or rules is None:
        return True
    return not held_in_first_round(e, rules.part(EncounterOptions), Side.PARTY)


def initiative_missing(e: EncounterState, options: EncounterOptions) -> int:
    """The round whose initiative is due and not rolled yet (0: none is). Under option ``initiative_each_round``
    (seed 000, OSE) every round after the first starts with its own initiative, and so does the first after a chase
    (on water or in a delve: the one before it was rolled for another fight); a side acts in it, and it is played,
    only once that is rolled. Rolled once per encounter, a round never waits for it."""
    if not options.initiative_each_round or (e.rounds < 1 and not e.chased):
        return 0
    number = e.rounds + 1
    return number if e.initiative_round < number else 0


def side_of(command: Command | None) -> Side:
    """The side a command speaks for (the party unless it says); ``UsageError`` when it names neither side."""
    side = str(getattr(command, "side", Side.PARTY))
    if side not in SIDES:
        msg = f"side must be one of {', '.join(SIDES)}, not {side!r}"
        raise UsageError(msg)
    return Side(side)


def situation_of(e: EncounterState) -> positions.Situation:
    """The place of the encounter as the distance rules read it (0 = not given)."""
    s = e.started
    return positions.Situation(
        setting=s.setting,
        terrains=s.terrains,
        line_of_sight_ft=s.line_of_sight_ft or None,
        area_ft=s.area_ft or None,
        light_radius_ft=s.light_radius_ft or None,
        light_carried=s.party_light or s.monsters_light,
        # the referee's --vision, else the best infravision among the members, which light blinds (seed 001)
        vision_ft=s.vision_ft or (0 if s.party_light else s.party_vision_ft) or None,
        hiding=s.hiding,
        distance_divisor=s.distance_divisor,
    )


def encircling_at(options: EncounterOptions, setting: Setting) -> int:
    """How many monsters at least encircle a party they surprise in ``setting`` (§2.2, §4.5: in the open, by
    ``surrounded_at_monsters``), always or at the referee's call as ``options.encirclement`` says; 0: none ever do
    there (the rules encircle nobody, or not in that setting)."""
    return options.surrounded_at_monsters if setting in OPEN_COUNTRY else 0


def encircles(options: EncounterOptions, setting: Setting, monster_count: int) -> bool:
    """Whether ``monster_count`` monsters that surprise a party in ``setting`` encircle it (the surprise step records
    it), or under ``encirclement = "referee"`` may (the step encircle): the one condition the encounter, its audit
    and ``hexlog simulate`` ask."""
    at_least = encircling_at(options, setting)
    return bool(at_least) and monster_count >= at_least


def not_encirclable(e: EncounterState, options: EncounterOptions, rules_name: str) -> str | None:
    """Why the referee may not encircle the party now (None: the rules let them): only under ``encirclement =
    "referee"``, a party surprised in the open by at least ``surrounded_at_monsters`` monsters, once."""
    at_least = options.surrounded_at_monsters
    if options.encirclement is not Encirclement.REFEREE or not at_least:
        never = "never encircle a party" if not at_least else "encircle a party themselves, at surprise"
        return (
            f"the rules in force ({rules_name}) {never}; encircle is the referee's call only "
            'under option encirclement = "referee"'
        )
    if e.surrounded is not None:
        return "the party is already encircled"
    if not encircling_at(options, e.setting) or not e.surprised[0]:
        return "only a party surprised in the open (wilderness, outdoors) may be encircled"
    if not encircles(options, e.setting, e.started.monster_count):
        return f"{counted(e.started.monster_count, 'monster')} cannot encircle a party (at least {at_least} can)"
    return None


@attrs.define(slots=False)
class EncounterModel(Model):
    """What the encounter's machine sees while one command runs."""

    @property
    def e(self) -> EncounterState:
        """The folded encounter (conditions past ``start`` only run when there is one)."""
        assert isinstance(self.proc, EncounterState)  # noqa: S101 - every phase past IDLE has an encounter
        return self.proc

    @property
    def options(self) -> EncounterOptions:
        """The encounter's options in force."""
        return self.rules.part(EncounterOptions)

    @property
    def side(self) -> Side:
        """The side the command speaks for."""
        return side_of(self.command)

    def has_party(self) -> bool:
        """An encounter needs a party to meet the monsters."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return bool(self.table.party.members) or self.refuse("the party has no members; add one first")

    def may_encircle(self) -> bool:
        """Under ``encirclement = "referee"``, a party surprised in the open by at least ``surrounded_at_monsters``
        monsters may be encircled, once."""
        why = not_encirclable(self.e, self.options, self.rules.name)
        return self.refuse(why) if why else True

    def gains_free_action(self) -> bool:
        """One side alone surprised the other: free segments (AD&D) or a single action (004 dungeon)."""
        kind = self.e.advantage_kind
        single = kind is ev.AdvantageKind.SINGLE_ACTION and self.e.setting is Setting.DUNGEON
        return self.e.advantage is not ev.Advantage.NONE and (kind is ev.AdvantageKind.SEGMENTS or single)

    def straight_to_combat(self) -> bool:
        """004 dungeon: when both sides are surprised they go straight to combat, no free actions."""
        e = self.e
        single = e.advantage_kind is ev.AdvantageKind.SINGLE_ACTION
        return single and e.setting is Setting.DUNGEON and all(e.surprised)

    def closes_to_melee(self) -> bool:
        """004: non-intelligent monsters that surprised the party move directly to melee (§4.3 3a).

        A party surprised within the flight limit may still try to flee after their free action (A38).
        """
        e = self.e
        attack = self.options.unintelligent_monsters_attack
        return e.advantage is ev.Advantage.MONSTERS and not e.started.intelligent and attack

    def _within_flight_limit(self) -> bool:
        """§4.3 3a (underground only): the rule exists (limit above 0) and the monsters are within it."""
        limit = self.options.surprised_party_flees_within_ft
        return self.e.setting.underground and limit > 0 and self.e.distance_ft <= limit

    def flees_from_the_charge(self) -> bool:
        """A38: after the charge of non-intelligent monsters, before any round, a party surprised close by may flee;
        not once a chase caught it (the fight it came back to is combat begun, §2.8)."""
        e = self.e
        if e.chased:
            caught = e.fleeing or Side.PARTY
            return self.refuse(f"the chase caught the {caught}: the melee is on, and no side evades it")
        if self.options.surprised_party_flees_within_ft <= 0:
            return self.refuse("evasion is possible only before combat has begun (§2.8)")
        charged = e.advantage is ev.Advantage.MONSTERS and not e.started.intelligent and e.rounds == 0
        if self.side is not Side.PARTY or not charged or not self._within_flight_limit():
            return self.refuse("only a party surprised within the flight limit may flee once combat has begun")
        return True

    def _rolls_evasion(self) -> bool:
        """Seed 004: a party fleeing monsters in the wilderness rolls its evasion chance (§4.13)."""
        e = self.e
        odd = self.rules.part(EvasionOptions).evasion_rules is EvasionRules.ODD
        return odd and e.setting is Setting.WILDERNESS and e.fleeing is Side.PARTY

    def pursuit_is_decided(self) -> bool:
        """The side fled from decides whether to pursue, except where seed 004 rolls the party's evasion."""
        if self._rolls_evasion():
            return self.refuse("in the wilderness the party's evasion is rolled (seed 004 §4.13): roll-evasion")
        return True

    def hands_chase_off(self) -> bool:
        """§2.9: the pursuit is the chase's, on water (option waterborne_pursuit_hands_off, the waterborne table) or in
        the dungeon (the dungeon pursuit table: a delve's encounter, or one the referee started there), except in the
        audit's re-run of a pursuit an older release decided (``DecidePursuitBeforeHandOff``): before
        ``encounter.pursuit_decided`` version 2 it concluded in pursuit, and before version 3 an encounter the
        referee started did."""
        if afloat.hands_off(self.rules, self.e):
            return True
        assert self.table is not None  # noqa: S101 - loaded by the kit
        if isinstance(self.command, DecidePursuitBeforeHandOff):
            return self.command.delve_hands_off and afloat.underground(self.rules, self.table, self.e, delve_only=True)
        return afloat.underground(self.rules, self.table, self.e)

    def not_a_chase_handed_on(self) -> bool:
        """An encounter that hands its chase off itself (on water under option waterborne_pursuit_hands_off, or one a
        delve waits for under the dungeon pursuit table) is not concluded in pursuit: the procedure that waits for it
        would hand the chase on, and a side caught there would not be fought. Its pursuers decide (decide-pursuit)
        after the side flees (evade); the chase then comes back to this encounter. One the referee started in the
        dungeon, which no procedure waits for, may still be concluded in pursuit, the chase then started by hand."""
        if getattr(self.command, "outcome", "") != PURSUIT:
            return True
        assert self.table is not None  # noqa: S101 - loaded by the kit
        if not afloat.hands_off(self.rules, self.e) and not afloat.underground(
            self.rules, self.table, self.e, delve_only=True
        ):
            return True
        where = "on water" if self.e.setting is Setting.WATERBORNE else "in a delve"
        why = (
            f"{where} an encounter ends in pursuit only by its pursuers' decision, which hands the chase off and "
            "fights a side it catches in this encounter"
        )
        afloat_setting = (("setting", str(Setting.WATERBORNE)),) if self.e.setting is Setting.WATERBORNE else ()
        by_hand: tuple[str | Advice, ...] = (
            "conclude with another outcome and start the chase by hand (",
            Advice("StartChase", (*afloat_setting, ("from_encounter", str(self.e.started.number)))),
            ")",
        )
        if self.e.phase is Phase.COMBAT:  # a side flees the melee only as A38 lets it (``flees_from_the_charge``)
            return self.refuse(
                f"{why}; in melee a side flees only where the rules let it (",
                Advice("Evade", (), PROCEDURE),
                "), else ",
                *by_hand,
            )
        return self.refuse(
            f"{why}: the side flees (",
            Advice("Evade", (), PROCEDURE),
            "), then its pursuers decide (",
            Advice("DecidePursuit"),
            "); or ",
            *by_hand,
        )

    def pursued(self) -> bool:
        """The side fled from gives chase."""
        return self.e.pursuit is not None and self.e.pursuit.pursue

    def caught(self) -> bool:
        """The chase the encounter waited for ended with the fleeing side caught."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return afloat.caught(self.table)

    def evasion_is_rolled(self) -> bool:
        """Only a party fleeing in the wilderness under seed 004's evasion rules rolls its evasion here."""
        if not self._rolls_evasion():
            rules = self.rules.part(EvasionOptions).evasion_rules
            return self.refuse(
                f"the evasion roll is seed 004's for a party fleeing in the wilderness (evasion rules: {rules}, "
                f"setting: {self.e.setting}); decide-pursuit instead"
            )
        return True

    def side_may_act(self) -> bool:
        """A side surprised under the one-round advantage cannot act until the first round is over (nor either side
        after mutual surprise, where ``mutually_surprised_sides_act`` is false)."""
        if held_in_first_round(self.e, self.options, self.side):
            return self.refuse(f"the {self.side} are surprised and cannot act in the first round; play it first")
        return True

    def speaker_may_speak(self) -> bool:
        """Seed 000 §2.5: the CHA modifier is that of a character who "attempts to speak with the monsters"; a party
        that cannot act in the first round (``held_in_first_round``) cannot speak in it either, so the reaction rolled
        then has no speaker. The audit re-runs a reaction an older release recorded so (``encounter.reaction_rolled``
        before version 2) as ``RollReactionSpokenWhileSurprised``, which those releases' reading lets speak."""
        speaker = str(getattr(self.command, "speaker", "") or "")
        if isinstance(self.command, RollReactionSpokenWhileSurprised):
            return True
        if not speaker or not held_in_first_round(self.e, self.options, Side.PARTY):
            return True
        return self.refuse(
            f"the party are surprised and cannot act in the first round, so {speaker} cannot speak to the monsters: "
            "roll the reaction with nobody speaking (",
            Advice("RollReaction", (), PROCEDURE),
            ", no CHA modifier), or play the round first",
        )

    def flight_allowed(self) -> bool:
        """004 underground (§4.3 3a): a surprised party may flee before combat only when the monsters are close."""
        limit = self.options.surprised_party_flees_within_ft
        e = self.e
        underground = e.setting.underground
        if (
            self.side is Side.PARTY
            and e.advantage is ev.Advantage.MONSTERS
            and limit
            and underground
            and e.distance_ft > limit
        ):
            away = e.distance_ft
            return self.refuse(f"a surprised party may flee only within {limit} ft; the monsters are {away} ft away")
        return True

    def kept_out_of_the_fight(self) -> bool:
        """§3.3: avoiding is what surprisers do with their segments, moving out of sight and hearing; a side that spent
        them on an action of its own (its free action: an attack, a spell, a shout) chose that instead, and may no
        longer slip away unnoticed, even from a noisy foe."""
        free = self.e.free_action
        if free is None or free.side != self.side:
            return True
        return self.refuse(
            f"the {self.side} spent their free segments on an action ({free.action}) instead of slipping away: they "
            "cannot avoid the encounter now; fight, evade or conclude it"
        )

    def not_spoken_with(self) -> bool:
        """§3.2 / §3.4 (AD&D): avoiding is slipping away unseen and unheard; once a side has parleyed, the sides have
        spoken with each other and both know of the other, so neither may avoid the meeting any more (it may still
        flee: evade). Waiting to see what the other side does reveals nobody, and leaves avoiding open."""
        spoken = next((a for a in self.e.actions if a.action is ev.Action.PARLEY), None)
        if spoken is None:
            return True
        said = f" ({spoken.note})" if spoken.note else ""
        return self.refuse(
            f"the {spoken.side} parleyed{said}: the sides have spoken and know of each other, so the {self.side} "
            "cannot slip away unnoticed; evade, fight or conclude it"
        )

    def slips_away_unnoticed(self) -> bool:
        """AD&D: the side that alone surprised the other (in its free segments), or faces a noisy one (before any round
        of encounter movement), may slip away unnoticed."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        armor = surprise.worn(self.table.party.members)
        ok, why = avoid_verdict(self.rules, self.e, self.side, self.command, party_armor=armor)
        return ok or self.refuse(why)

    def monsters_may_react(self) -> bool:
        """Non-intelligent monsters do not react: they attack (when the rules say so) or do as the referee says."""
        if not self.e.started.intelligent:
            if self.options.unintelligent_monsters_attack:
                return self.refuse("non-intelligent monsters roll no reaction: they move to attack (fight)")
            return self.refuse("non-intelligent monsters roll no reaction: choose what they do (fight, evade, wait)")
        return True

    def no_reaction_yet(self) -> bool:
        """The reaction is rolled once; a further roll needs the rules' reason (an uncertain one, reroll-reaction)."""
        last = self.e.reaction
        if last is None:
            return True
        why = f"the monsters' reaction was already rolled ({last.result}, total {last.total})"
        return self.refuse(f"{why}; a further roll needs a reason the rules give: reroll-reaction when it is uncertain")

    def uncertain_reaction_a_round_ago(self) -> bool:
        """An uncertain reaction may be rolled again a round after it (A7: the first re-roll is the rules', any later
        one the referee's, each while the reaction is still uncertain and a round after the last)."""
        e, last = self.e, self.e.reaction
        if not self.options.reroll_uncertain_reaction:
            return self.refuse(f"the rules in force ({self.rules.name}) do not re-roll uncertain reactions")
        if last is None or last.result is not ev.ReactionResult.UNCERTAIN:
            seen = f"the last one was {last.result}" if last is not None else "none was rolled yet"
            return self.refuse(f"only an uncertain reaction may be re-rolled; {seen}")
        if e.rounds <= last.round:
            when = f"rolled in round {last.round}, now {e.rounds}"
            return self.refuse(f"a round must pass after the uncertain reaction ({when})")
        return True

    def initiative_due(self) -> bool:
        """Under per-round initiative a new round's initiative may be rolled once its previous round is over."""
        e = self.e
        if not self.options.initiative_each_round:
            return self.refuse(f"the rules in force ({self.rules.name}) roll initiative once per encounter")
        if e.rounds < 1 and not e.chased:
            return self.refuse("initiative is rolled again only once a round has been played")
        if e.initiative_round > e.rounds:
            return self.refuse(f"initiative for round {e.initiative_round} is already rolled; play the round")
        return True

    def initiative_rolled(self) -> bool:
        """Under per-round initiative a later round is played, and a side acts in it, once its initiative is rolled."""
        due = initiative_missing(self.e, self.options)
        if due:
            return self.refuse(
                f"the rules in force ({self.rules.name}) roll initiative at the start of every round; roll initiative "
                f"for round {due} first (",
                Advice("RollInitiative"),
                ")",
            )
        return True

    def within_round_limit(self) -> bool:
        """Encounter movement (before combat) lasts at most the rules' maximum of rounds."""
        limit = self.options.encounter_move_max_rounds
        return self.e.rounds < limit or self.refuse(
            f"encounter movement lasts at most {counted(limit, 'round')}; fight, evade or conclude it"
        )


def avoid_verdict(
    rules: Ruleset, e: EncounterState, side: Side, command: Command | None, *, party_armor: tuple[str, ...] = ()
) -> tuple[bool, str]:
    """AD&D §3.2-3.4: whether ``side`` may avoid the encounter unnoticed, and why.

    A side making noise (``--party-noisy``, ``--monsters-noisy``, or the party in armor of a kind option
    ``noisy_armor`` names, worn as ``party_armor``) cannot surprise the other, which "can avoid the encounter by
    fleeing or hiding" (seed 001, Modifiers for Noise), indoors only under option ``noise_outdoors = false``; the
    add20 rule's surprisers are still heard anywhere they make noise (§3.4: "unseen and unheard"). Avoiding is a way
    out of the meeting, open before the sides close: once a round of encounter movement has been played, it is not.
    """
    if rules.part(EncounterOptions).avoid_rule is None:
        return False, f"the rules in force ({rules.name}) have no avoid-encounter rule; use evade"
    s, foe = e.started, side.other
    clanking = surprise.armor_noise(rules, surprise.Side(name=Side.PARTY, armor=party_armor))
    noise = {
        Side.PARTY: "make noise" if s.party_noisy else (f"wear noisy armor ({clanking})" if clanking else ""),
        Side.MONSTERS: "make noise" if s.monsters_noisy else "",
    }
    noisy = {who: bool(what) for who, what in noise.items()}
    surprised = dict(zip(SIDES, e.surprised, strict=True))
    heard = surprise.noise_counts(rules, e.setting)
    if heard and noisy[foe] and not noisy[side] and not surprised[side]:
        if e.rounds > 0:
            have = "has" if e.rounds == 1 else "have"
            played = f"{counted(e.rounds, 'round')} of encounter movement {have} been played"
            return False, (
                f"the {side} may slip away from the noisy {foe} only before the sides close, and {played}; fight, "
                "evade or conclude it"
            )
        return True, f"the {foe} {noise[foe]}: the {side} slip away before they are noticed"
    if e.advantage.value != side.value or e.distance is None:
        why = "only a side that alone surprised the other, or faces a noisy one, may avoid it"
        if heard and noisy[foe] and noisy[side]:  # the foe is noisy, but so is the side: it is heard as it slips away
            why = (
                f"the {foe} {noise[foe]}, but the {side} {noise[side]} too: it cannot slip away unnoticed, and only "
                "a side that alone surprised the other may avoid it"
            )
        return False, f"{why} (advantage: {e.advantage})"
    if e.phase is not Phase.FREE_ACTION:
        return False, f"the {side} could slip away only in their free segments, which have passed"
    found = positions.Distance.of(e.distance)
    speed = s.monster_speed if side is Side.MONSTERS else (e.movement.party_base if e.movement else 0)
    rate = getattr(command, "rate_inches", None)
    alone = e.surprised
    if e.advantage_kind is ev.AdvantageKind.SEGMENTS:
        # after mutual surprise the side with free segments left surprised the other alone
        alone = (e.free_segments(Side.MONSTERS) > 0, e.free_segments(Side.PARTY) > 0)
    return positions_adnd.avoid(
        rules,
        situation_of(e),
        found,
        alone,
        e.free_segments(side),
        rate_inches=rate if rate is not None else (speed // 10 or None),
        detection_range_ft=getattr(command, "detection_range_ft", None),
        surprisers_lit=s.monsters_light if side is Side.MONSTERS else s.party_light,
        surprisers_noisy=noisy[side],
    )
