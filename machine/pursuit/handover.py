"""The pursuit an encounter in the wilderness hands over when it ends with the party pursued (§4.14).

A procedure that handed an encounter off (the travel day, the camp, a castle) reads this when it resumes: the
encounter's facts (the sides, their rates, surprise, the evasion roll already made) become the
pursuit's start. When a pursuit concludes, the procedure that handed it off (the travel day, the camp,
a castle whose forces pursued) hands an encounter met in the rest after the escape to the encounter
procedure. Pure: it reads the folded encounter or pursuit and the rules' pursuit reading.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.encounter import Advantage
from hexlog.events.errors import RuleRefusedError
from hexlog.events.vocabulary import Setting, Side
from hexlog.machine.encounter.state import PROCEDURE as ENCOUNTER_PROCEDURE
from hexlog.machine.encounter.state import EncounterState
from hexlog.machine.evasion import EvasionOptions, EvasionTables
from hexlog.machine.pursuit.commands import StartPursuit
from hexlog.machine.pursuit.state import ESCAPED, PursuitState
from hexlog.machine.pursuit.state import PROCEDURE as PURSUIT_PROCEDURE
from hexlog.machine.text import LIMITS

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hexlog.machine.evasion import EvasionRules
    from hexlog.machine.ruleset import Ruleset

#: the outcome of an encounter whose pursuers chose to pursue
PURSUIT = "pursuit"


def from_encounter(state: object, reading: EvasionRules | None, terrain: str = "") -> StartPursuit | None:
    """The pursuit of the party an encounter that ended in pursuit hands over (None: no such end, or no
    wilderness pursuit under the rules); ``terrain`` is the pursuit's terrain outside a journey.

    Surprise is handed over as the advantage the encounter recorded: the party surprised by the monsters alone, or
    the monsters by the party alone. When both sides were surprised neither has it (OSE §2.2, seed 004 1a), and the
    pursuit's first evasion reads the table as if neither was (releases before read the party as surprised)."""
    if not isinstance(state, EncounterState) or state.concluded is None or state.concluded.outcome != PURSUIT:
        return None
    if reading is None or state.setting is not Setting.WILDERNESS or state.fleeing is not Side.PARTY:
        return None
    s, movement, rolled = state.started, state.movement, state.evasion
    return StartPursuit(
        name=pursuit_name(s.number, s.name),
        party_size=len(s.party),
        pursuers=s.monster_count,
        party_speed=movement.party_base if movement is not None else None,
        pursuers_speed=s.monster_speed,
        terrain=terrain,
        # the advantage of surprise the encounter recorded: both sides surprised is neither (OSE §2.2, seed 004 1a)
        party_surprised=state.advantage is Advantage.MONSTERS,
        pursuers_surprised=state.advantage is Advantage.PARTY,
        magic=rolled.magic if rolled is not None else False,
        intelligent=s.intelligent,
        evasion_failed=rolled is not None and not rolled.evaded,
        encounter=s.number,
    )


def following(procedures: Mapping[str, Any], command: StartPursuit, reading: EvasionRules | None) -> StartPursuit:
    """The start a referee gives after encounter ``command.encounter``: what the command leaves out (the sides, their
    rates) is the encounter's, and its surprise, magic and failed evasion roll count as if given (a pursuit started
    with ``--encounter 3`` never flees 1 monster at 120 when encounter 3 met 6 at 150). A command naming no encounter
    is returned as it is; ``RuleRefusedError`` when the encounter named is not the latest, or did not end with the
    party pursued in the wilderness under rules with a wilderness pursuit."""
    if not command.encounter:
        return command
    state = procedures.get(ENCOUNTER_PROCEDURE)
    if not isinstance(state, EncounterState) or state.started.number != command.encounter:
        latest = state.started.number if isinstance(state, EncounterState) else "none"
        msg = f"a pursuit follows the latest encounter ({latest}), not encounter {command.encounter}"
        raise RuleRefusedError(msg)
    found = from_encounter(state, reading, command.terrain)
    if found is None:
        ended = state.concluded.outcome if state.concluded is not None else "not ended"
        msg = (
            f"encounter {command.encounter} ({state.setting}, {ended}) did not end with the party pursued in the "
            "wilderness: no pursuit follows it"
        )
        raise RuleRefusedError(msg)
    return attrs.evolve(
        command,
        party_size=command.party_size if command.party_size is not None else found.party_size,
        pursuers=command.pursuers if command.pursuers is not None else found.pursuers,
        party_speed=command.party_speed if command.party_speed is not None else found.party_speed,
        pursuers_speed=command.pursuers_speed if command.pursuers_speed is not None else found.pursuers_speed,
        party_surprised=command.party_surprised or found.party_surprised,
        pursuers_surprised=command.pursuers_surprised or found.pursuers_surprised,
        magic=command.magic or found.magic,
        intelligent=command.intelligent and found.intelligent,
        evasion_failed=command.evasion_failed or found.evasion_failed,
    )


def pursuit_name(number: int, encounter: str) -> str:
    """The name of the pursuit after encounter ``number`` named ``encounter``, within the longest name a command takes
    (the encounter's name shortened, marked with an ellipsis, where the two would not fit)."""
    name = f"after encounter {number}"
    if not encounter:
        return name
    room = LIMITS["name"] - len(name) - len(" ()")
    shown = encounter if len(encounter) <= room else encounter[: max(0, room - 1)] + "\u2026"
    return f"{name} ({shown})"


def pursuit_reading(rules: Ruleset) -> EvasionRules | None:
    """The pursuit reading an encounter that ends with the party pursued hands its pursuit over under (None: the
    rules have no wilderness pursuit, and such an encounter hands none over)."""
    if rules.part(EvasionTables).wilderness_pursuit is None:
        return None
    return rules.part(EvasionOptions).evasion_rules


def ended_in_pursuit(procedures: Mapping[str, Any], child: str, rules: Ruleset) -> bool:
    """Whether the child a procedure resumes after (``child``) is an encounter that ended with the party pursued, under
    rules with a wilderness pursuit: the procedure then hands that pursuit off (``from_encounter``)."""
    found = procedures.get(ENCOUNTER_PROCEDURE)
    return child == ENCOUNTER_PROCEDURE and from_encounter(found, pursuit_reading(rules)) is not None


def met_while_resting(state: object, concluded: object) -> bool:
    """Whether the pursuit ``state`` concluded with the party's escape, the rest after it met an encounter that has
    not begun yet, and it is due now (§4.14 step 5: an encounter roll per half day rested): as the procedure that
    handed the pursuit off resumes after ``concluded``, the pursuit itself or the latest encounter the rest met. That
    procedure then hands the encounter to the encounter procedure, and so each in turn."""
    return isinstance(state, PursuitState) and state.resting_due(concluded)


def rest_encounter_due(procedures: Mapping[str, Any], child: str) -> bool:
    """``met_while_resting`` as a procedure resumes after its child ``child`` concluded (the pursuit, or an encounter),
    read from the procedures' folded states."""
    pursuit = procedures.get(PURSUIT_PROCEDURE)
    concluded = {PURSUIT_PROCEDURE: pursuit, ENCOUNTER_PROCEDURE: procedures.get(ENCOUNTER_PROCEDURE)}.get(child)
    return concluded is not None and met_while_resting(pursuit, concluded)


__all__ = [
    "ESCAPED",
    "PURSUIT",
    "ended_in_pursuit",
    "following",
    "from_encounter",
    "met_while_resting",
    "pursuit_reading",
    "rest_encounter_due",
]
