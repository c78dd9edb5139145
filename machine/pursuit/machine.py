"""The wilderness pursuit as a state machine declared as data (seed 004 §4.14, OSE §2.9).

Seed 004 (REFERENCE §4.14, loops repaired by A24)::

    EVASION --roll_evasion--> EVASION_ROLLED --rest (evaded)--> ESCAPED
                                             --flee (failed)--> FLED
    FLED --rest (pursuers not faster)--> ESCAPED ; --catch (faster)--> CATCH_ROLLED
    CATCH_ROLLED: caught -> an encounter is handed off; the pursuit resumes CAUGHT
                  not caught -> roll_evasion (monsters) or continue_check (a castle force)
    CONTINUE_ROLLED --flee (continues)--> FLED ; --rest (gave up)--> ESCAPED

OSE (§2.9), one day at a time: after a failed evasion the party flees a day; faster pursuers catch
it on 50 %; otherwise it rolls again (roll_evasion) or stops and is caught (stop). A dice-decided
branch is taken by the next command, whose conditions read what the roll decided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import RuleRefusedError
from hexlog.events.pursuit import Disposition, Pursuers
from hexlog.machine.encounter.state import PROCEDURE as ENCOUNTER
from hexlog.machine.encounter.state import EncounterState
from hexlog.machine.encounter.state import Phase as EncounterPhase
from hexlog.machine.evasion import EvasionOptions, EvasionRules, EvasionTables
from hexlog.machine.kit.model import Model
from hexlog.machine.pursuit import handover
from hexlog.machine.pursuit.commands import StartPursuit
from hexlog.machine.pursuit.state import Phase, PursuitState

if TYPE_CHECKING:
    from transitions.core import TransitionConfigDict

    from hexlog.machine.ruleset import Ruleset

P = Phase
TRANSITIONS: list[TransitionConfigDict] = [
    # an encounter that rolled the evasion and failed hands over a party that must flee at once
    {
        "trigger": "start",
        "source": [P.IDLE, P.CAUGHT, P.ESCAPED],
        "dest": P.EVASION_ROLLED,
        "conditions": ["has_party", "has_rules", "no_encounter_under_way", "evasion_already_failed"],
    },
    {
        "trigger": "start",
        "source": [P.IDLE, P.CAUGHT, P.ESCAPED],
        "dest": P.EVASION,
        "conditions": ["has_party", "has_rules", "no_encounter_under_way"],
    },
    {"trigger": "roll_evasion", "source": P.EVASION, "dest": P.EVASION_ROLLED},
    {"trigger": "rest", "source": P.EVASION_ROLLED, "dest": P.ESCAPED, "conditions": "evaded"},
    {"trigger": "flee", "source": P.EVASION_ROLLED, "dest": P.FLED, "conditions": "evasion_failed"},
    {"trigger": "catch", "source": P.FLED, "dest": P.CATCH_ROLLED, "conditions": "pursuers_faster"},
    # seed 004: slower pursuers give up (3a); OSE: the party rolls again or stops
    {"trigger": "rest", "source": P.FLED, "dest": P.ESCAPED, "conditions": ["pursuers_not_faster", "odd"]},
    {
        "trigger": "roll_evasion",
        "source": P.FLED,
        "dest": P.EVASION_ROLLED,
        "conditions": ["pursuers_not_faster", "ose"],
    },
    {"trigger": "stop", "source": P.FLED, "dest": P.HALTED, "conditions": ["pursuers_not_faster", "ose"]},
    # not caught: monsters (and OSE) -> the party's evasion roll again; a castle force -> its continue check
    {
        "trigger": "roll_evasion",
        "source": P.CATCH_ROLLED,
        "dest": P.EVASION_ROLLED,
        "conditions": ["not_caught", "evasion_again"],
    },
    {
        "trigger": "continue_check",
        "source": P.CATCH_ROLLED,
        "dest": P.CONTINUE_ROLLED,
        "conditions": ["not_caught", "castle_force"],
    },
    {"trigger": "stop", "source": P.CATCH_ROLLED, "dest": P.HALTED, "conditions": ["not_caught", "ose"]},
    {"trigger": "flee", "source": P.CONTINUE_ROLLED, "dest": P.FLED, "conditions": "force_continues"},
    {"trigger": "rest", "source": P.CONTINUE_ROLLED, "dest": P.ESCAPED, "conditions": "force_gave_up"},
    # the encounter a catch handed off concluded (the kit fires it)
    {"trigger": "resume", "source": [P.CATCH_ROLLED, P.HALTED], "dest": P.CAUGHT},
]
del P


def unavailable(rules: Ruleset) -> str:
    """Why the rules have no wilderness pursuit, in words ("" when they have)."""
    if rules.part(EvasionOptions).evasion_rules is None or rules.part(EvasionTables).wilderness_pursuit is None:
        return "no wilderness pursuit (options.evasion_rules)"
    return ""


@attrs.define(slots=False)
class PursuitModel(Model):
    """What the pursuit's machine sees while one command runs."""

    @property
    def p(self) -> PursuitState:
        """The pursuit (conditions past ``start`` only run when there is one)."""
        assert isinstance(self.proc, PursuitState)  # noqa: S101 - every phase past IDLE has a pursuit
        return self.proc

    @property
    def reading(self) -> EvasionRules | None:
        """Whose pursuit rules apply."""
        return self.rules.part(EvasionOptions).evasion_rules

    def has_party(self) -> bool:
        """A pursuit needs a party to flee."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return bool(self.table.party.members) or self.refuse("the party has no members; add one first")

    def has_rules(self) -> bool:
        """The rules in force have wilderness evasion and pursuit rules."""
        missing = unavailable(self.rules)
        return not missing or self.refuse(f"the rules in force ({self.rules.name}) have {missing}")

    def no_encounter_under_way(self) -> bool:
        """A pursuit follows an encounter's end (in pursuit), never runs beside it."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        meeting = self.table.procedures.get(ENCOUNTER)
        if isinstance(meeting, EncounterState) and meeting.phase not in {EncounterPhase.IDLE, EncounterPhase.CONCLUDED}:
            return self.refuse("an encounter is under way; it ends in pursuit first (evade, then roll-evasion)")
        return True

    def evasion_already_failed(self) -> bool:
        """The encounter it comes from rolled the party's evasion, which failed."""
        if not isinstance(self.command, StartPursuit):
            return False
        assert self.table is not None  # noqa: S101 - loaded by the kit
        try:
            return handover.following(self.table.procedures, self.command, self.reading).evasion_failed
        except RuleRefusedError:  # the step refuses it, naming why
            return self.command.evasion_failed

    def evaded(self) -> bool:
        """The party's evasion roll passed."""
        return self.p.evaded or self.refuse("the evasion roll failed: the party flees (flee)")

    def evasion_failed(self) -> bool:
        """The party's evasion roll failed."""
        return not self.p.evaded or self.refuse("the evasion roll passed: the party got away (rest)")

    def pursuers_faster(self) -> bool:
        """Only faster pursuers may catch the party."""
        return self.p.pursuers_faster or self.refuse("the pursuers are not faster than the party: they cannot catch it")

    def pursuers_not_faster(self) -> bool:
        """Pursuers that are faster roll to catch the party first."""
        return not self.p.pursuers_faster or self.refuse("the pursuers are faster: roll to catch the party (catch)")

    def odd(self) -> bool:
        """Seed 004's pursuit."""
        return self.reading is EvasionRules.ODD or self.refuse(f"not under {self.reading} pursuit rules")

    def ose(self) -> bool:
        """OSE's day-by-day pursuit."""
        return self.reading is EvasionRules.OSE or self.refuse(f"not under {self.reading} pursuit rules")

    def not_caught(self) -> bool:
        """The catch roll missed."""
        return not self.p.caught or self.refuse("the party was caught")

    def evasion_again(self) -> bool:
        """Monsters (seed 004) and every pursuer under OSE: the party rolls its evasion again."""
        castle = self.p.started.pursuers_kind is Pursuers.CASTLE and self.reading is EvasionRules.ODD
        return not castle or self.refuse(
            "a castle force decides by its disposition whether it continues (continue-check)"
        )

    def castle_force(self) -> bool:
        """Seed 004: a castle force checks whether it keeps up the pursuit."""
        castle = self.p.started.pursuers_kind is Pursuers.CASTLE and self.reading is EvasionRules.ODD
        return castle or self.refuse("only a castle force checks whether it continues; the party rolls its evasion")

    def force_continues(self) -> bool:
        """The castle force keeps up the pursuit."""
        c = self.p.continued
        return (c is not None and c.continues) or self.refuse("the castle force gave up: the party got away (rest)")

    def force_gave_up(self) -> bool:
        """The castle force gave up."""
        c = self.p.continued
        return (c is not None and not c.continues) or self.refuse("the castle force keeps up the pursuit (flee)")


__all__ = ["TRANSITIONS", "Disposition", "PursuitModel"]
