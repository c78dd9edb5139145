"""A meeting with a castle's garrison as a state machine declared as data (seed 004, U&WA p.15).

``TRANSITIONS``: the ride-out check of the castles passed today (``pass``) or a hail (``hail``)
leaves the castle where it was, with a garrison coming when one rides out; ``meet`` starts the
meeting (``MET``), in which the castle makes its demand by kind: a joust (fighter), a toll (the
fighter's when the joust is declined, the magic-user's when the quest is, the cleric's tithe), a
quest (magic-user, cleric). A toll is paid or refused; from a demand or a refusal the party may
fight (handed to the encounter; the castle resumes with ``fight_over``), flee (the forces pursue on
their chance: pursued, the wilderness pursuit takes over with the riders as pursuers and the castle's
disposition deciding its continue check, and the castle resumes with ``fight_over`` when it concludes)
or part in peace. When the pursuit ends in the party's escape and the rest after it meets an encounter,
the meeting ends and the castle hands that encounter off as a travel day or a camp does, waiting for it
in ``RESTING``; when that encounter ends with the party pursued again, the castle hands that pursuit off and
waits for it in ``PURSUED`` (the meeting having ended, its end is not recorded again). The conditions are
methods of ``CastleModel``; they only read.

The guard (``guard``) keeps the travel day from closing while the day's ride-out check is owed (``CLOSING``;
every castle's die, for show when out of the party's reach), from going on while a castle placed by an earlier
release was passed unchecked, a garrison rides out, or a meeting is under way, and refuses the audit's own
command to anyone else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import Advice, RuleRefusedError
from hexlog.machine.castle import reach
from hexlog.machine.castle.rules import CastleTables, Kind
from hexlog.machine.castle.state import MEETING, PROCEDURE, CastleState, Phase
from hexlog.machine.evasion import EvasionOptions, EvasionRules, EvasionTables
from hexlog.machine.kit.model import Model
from hexlog.machine.pursuit import handover
from hexlog.machine.travel import commands as travel

if TYPE_CHECKING:
    from transitions.core import TransitionConfigDict

    from hexlog.machine.commands import Command
    from hexlog.machine.ruleset import Ruleset
    from hexlog.machine.table import Table

P = Phase
TRANSITIONS: list[TransitionConfigDict] = [
    # a castle is placed on the map outside a meeting (its phase is kept)
    {"trigger": "place", "source": P.IDLE, "dest": P.IDLE, "conditions": "has_castle_rules"},
    {"trigger": "place", "source": P.DONE, "dest": P.DONE, "conditions": "has_castle_rules"},
    {"trigger": "pass", "source": P.IDLE, "dest": P.IDLE, "conditions": ["has_castle_rules", "pass_owed"]},
    {"trigger": "pass", "source": P.DONE, "dest": P.DONE, "conditions": ["has_castle_rules", "pass_owed"]},
    {"trigger": "hail", "source": P.IDLE, "dest": P.IDLE, "conditions": ["has_castle_rules", "none_coming"]},
    {"trigger": "hail", "source": P.DONE, "dest": P.DONE, "conditions": ["has_castle_rules", "none_coming"]},
    {
        "trigger": "meet",
        "source": [P.IDLE, P.DONE],
        "dest": P.MET,
        "conditions": ["has_castle_rules", "garrison_coming"],
    },
    {"trigger": "joust", "source": P.MET, "dest": P.DONE, "conditions": "fighters"},
    {"trigger": "toll", "source": P.MET, "dest": P.TOLL},
    {"trigger": "pay", "source": P.TOLL, "dest": P.DONE},
    {"trigger": "quest", "source": [P.MET, P.TOLL], "dest": P.DONE, "conditions": "gives_quests"},
    {"trigger": "refuse", "source": [P.MET, P.TOLL], "dest": P.REFUSED},
    {"trigger": "fight", "source": [P.MET, P.TOLL, P.REFUSED], "dest": P.FIGHTING},
    # the kit fires it when the encounter handed off to concludes: the meeting is over
    {"trigger": "fight_over", "source": P.FIGHTING, "dest": P.DONE},
    # the party flees; the forces' pursue roll decides where the meeting goes (the step follows on):
    # pursued under seed 004's pursuit, it is handed to the wilderness pursuit; else the meeting ends
    {"trigger": "flee", "source": [P.MET, P.TOLL, P.REFUSED], "dest": P.FLED},
    {"trigger": "pursue", "source": P.FLED, "dest": P.PURSUED, "conditions": ["forces_pursue", "has_pursuit"]},
    {"trigger": "settle", "source": P.FLED, "dest": P.DONE},
    # the kit fires it when the pursuit concludes (escaped, or caught and the fight over): the meeting is over;
    # when the rest after the escape met an encounter, that encounter is handed off and the castle waits for it
    {"trigger": "fight_over", "source": P.PURSUED, "dest": P.RESTING, "conditions": "met_while_resting"},
    {"trigger": "fight_over", "source": P.PURSUED, "dest": P.DONE},
    # an encounter the rest met ended with the party pursued again: that pursuit is handed off and the castle waits
    # for it (the rest's later encounters are not met: it was cut short)
    {"trigger": "fight_over", "source": P.RESTING, "dest": P.PURSUED, "conditions": "ended_in_pursuit"},
    # an encounter the rest met concluded, and the rest met another: it is handed off in turn
    {"trigger": "fight_over", "source": P.RESTING, "dest": P.RESTING, "conditions": "met_while_resting"},
    {"trigger": "fight_over", "source": P.RESTING, "dest": P.DONE},
    {"trigger": "part", "source": [P.MET, P.REFUSED], "dest": P.DONE},
]
del P


def hex_by_hex(rules: Ruleset) -> bool:
    """Whether castle forces that pursue are handed to the wilderness pursuit (seed 004's, with its table)."""
    reading = rules.part(EvasionOptions).evasion_rules
    return reading is EvasionRules.ODD and rules.part(EvasionTables).wilderness_pursuit is not None


def unavailable(rules: Ruleset) -> str:
    """Why the rules have no castles, in words ("" when they have)."""
    return "no castle table (tables.castle)" if rules.part(CastleTables).castle is None else ""


@attrs.define(slots=False)
class CastleModel(Model):
    """What the castle's machine sees while one command runs."""

    @property
    def s(self) -> CastleState:
        """The castles (an empty state before the first is placed)."""
        return self.proc if isinstance(self.proc, CastleState) else CastleState()

    def has_castle_rules(self) -> bool:
        """Only rules with a castle table (§4.15) have castles."""
        missing = unavailable(self.rules)
        return not missing or self.refuse(f"the rules in force ({self.rules.name}) have {missing}")

    def pass_owed(self) -> bool:
        """A ride-out check is made while none rides out, and the day's check of the castles checked every day is
        due (the party moved since the last one), or a castle placed before those passed today within range is
        unchecked."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        if self.s.coming:
            return self.refuse(f"the garrison of the castle at {self.s.coming[0].hex} rides out; meet it first")
        if not reach.due(self.table) and not reach.owed(self.table):
            return self.refuse(
                "no ride-out check is owed: the castles are checked once a travel day is under way, and again only "
                "after the party moves"
            )
        return True

    def none_coming(self) -> bool:
        """A castle is hailed while no garrison rides out already."""
        coming = self.s.coming
        return not coming or self.refuse(f"the garrison of the castle at {coming[0].hex} rides out; meet it first")

    def garrison_coming(self) -> bool:
        """A garrison is met only when one rides out."""
        return bool(self.s.coming) or self.refuse("no garrison rides out; hail a castle or pass one first")

    def _kind(self) -> Kind:
        met = self.s.met
        assert met is not None  # noqa: S101 - a meeting under way has met a garrison
        return Kind(met.kind)

    def forces_pursue(self) -> bool:
        """The castle's forces rolled to pursue the fleeing party."""
        fled = self.s.fled
        return (fled is not None and fled.pursued) or self.refuse("the castle's forces do not pursue")

    def has_pursuit(self) -> bool:
        """Castle forces pursue hex by hex under seed 004's wilderness pursuit (else the referee runs the chase)."""
        return hex_by_hex(self.rules) or self.refuse(
            f"the rules in force ({self.rules.name}) have no seed 004 wilderness pursuit"
        )

    def met_while_resting(self) -> bool:
        """The pursuit the castle waited for ended in the party's escape and the rest after it met an encounter not
        begun yet: as the castle resumes after the pursuit, or after the latest encounter that rest met."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return handover.rest_encounter_due(self.table.procedures, getattr(self.command, "child", ""))

    def ended_in_pursuit(self) -> bool:
        """An encounter the rest after the escape met ended with the party pursued again (§4.14): the castle hands
        that pursuit off as a travel day or a camp does."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return handover.ended_in_pursuit(self.table.procedures, getattr(self.command, "child", ""), self.rules)

    def fighters(self) -> bool:
        """Only a fighter's castle (Lord, Superhero) challenges to a joust."""
        kind = self._kind()
        return kind is Kind.FIGHTER or self.refuse(
            f"a {kind.value} castle does not joust; its demand is a quest or a toll"
        )

    def gives_quests(self) -> bool:
        """A magic-user's or a cleric's castle places a quest; a fighter's does not."""
        kind = self._kind()
        return kind is not Kind.FIGHTER or self.refuse("a fighter castle places no quest: joust, or pay its toll")


#: the travel commands that go on while a castle waits (learning one is lost never moves the party)
_WAITS = (travel.RevealLost,)
#: the travel commands that close the day: the day's check of the castles checked every day comes before them
CLOSING = (travel.CheckWandering, travel.EndDay, travel.EndJourney)


def guard(table: Table, command: Command) -> None:
    """The travel day does not go on past a castle whose ride-out is unchecked, a garrison coming, or a meeting;
    every decision the audit re-runs is held to it too."""
    if not isinstance(command, tuple(travel.TRIGGERS)) or isinstance(command, _WAITS):
        return
    state = table.procedures.get(PROCEDURE)
    if not isinstance(state, CastleState):
        return
    if state.phase in MEETING:
        msg = f"the party is meeting the garrison of the castle at {state.met.hex if state.met else '?'}; end it first"
        raise RuleRefusedError(msg)
    if state.phase is Phase.RESTING:
        msg = (
            f"the party escaped the garrison of the castle at {state.met.hex if state.met else '?'}, and wandering "
            "monsters met while it rested after the pursuit; conclude that encounter first"
        )
        raise RuleRefusedError(msg)
    if state.coming:
        msg = f"the garrison of the castle at {state.coming[0].hex} rides out; meet it first ("
        raise RuleRefusedError(msg).advising(Advice("MeetGarrison"), ")")
    owed = reach.owed(table)
    if owed:
        where = ", ".join(f"{hex_name} ({reach.away(distance)})" for hex_name, distance in owed)
        msg = f"the party passed the castle at {where}: check whether its garrison rides out ("
        raise RuleRefusedError(msg).advising(Advice("PassCastles"), ")")
    if isinstance(command, CLOSING) and reach.due(table):
        msg = "the castles' garrisons are checked each travel day before it closes, wherever the party is ("
        raise RuleRefusedError(msg).advising(Advice("PassCastles"), ")")
