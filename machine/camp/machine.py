"""A night in camp as a state machine declared as data (seed 004 §4.16).

``TRANSITIONS`` is the whole night: camp is made, firewood gathered (or not), the watches set, the
night's wandering checks rolled, an encounter met in the watch the die picks (the camp waits while
the encounter runs, and resumes with ``encounter_over`` when it concludes; an encounter that ends with
the party pursued hands on to the wilderness pursuit, and the night goes on when that concludes (each
encounter met in the rest after an escape is handed off first, one after another, and waited for), and
the camp broken in the morning. The conditions are methods of ``CampModel``; they only read, and say why they refuse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import Advice, RuleRefusedError
from hexlog.machine import commands as c
from hexlog.machine.camp.rules import CampTable, CampTables
from hexlog.machine.camp.state import PROCEDURE, CampState, Phase
from hexlog.machine.kit.model import Model
from hexlog.machine.pursuit import handover
from hexlog.machine.text import counted
from hexlog.machine.travel import commands as travel
from hexlog.machine.travel.rules import WildernessOptions
from hexlog.machine.travel.state import PROCEDURE as TRAVEL
from hexlog.machine.travel.state import Phase as TravelPhase
from hexlog.machine.travel.state import TravelState

if TYPE_CHECKING:
    from transitions.core import TransitionConfigDict

    from hexlog.machine.ruleset import Ruleset
    from hexlog.machine.table import Table

P = Phase
TRANSITIONS: list[TransitionConfigDict] = [
    {
        "trigger": "make",
        "source": [P.IDLE, P.BROKEN],
        "dest": P.PITCHED,
        "conditions": ["has_camp_rules", "has_party", "day_is_done"],
    },
    {"trigger": "firewood", "source": P.PITCHED, "dest": P.FUELLED},
    {"trigger": "watches", "source": [P.PITCHED, P.FUELLED], "dest": P.WATCHED},
    {"trigger": "check", "source": [P.WATCHED, P.NIGHT], "dest": P.NIGHT, "conditions": "check_due"},
    {"trigger": "meet", "source": P.NIGHT, "dest": P.ENCOUNTER, "conditions": "encounter_due"},
    # the kit fires it when the encounter handed off to concludes: the night goes on, or, when the
    # encounter ended with the party pursued, the pursuit takes over (the camp waits again)
    {"trigger": "encounter_over", "source": P.ENCOUNTER, "dest": P.PURSUIT, "conditions": "ended_in_pursuit"},
    # an encounter the rest after an escape met concluded, and that rest met another: it is handed off in turn
    {"trigger": "encounter_over", "source": P.ENCOUNTER, "dest": P.ENCOUNTER, "conditions": "met_while_resting"},
    {"trigger": "encounter_over", "source": P.ENCOUNTER, "dest": P.NIGHT},
    # the kit fires it when the pursuit concludes (caught or escaped): the night goes on, or, when the
    # rest after the escape met an encounter, that encounter is handed off (the camp waits again)
    {"trigger": "encounter_over", "source": P.PURSUIT, "dest": P.ENCOUNTER, "conditions": "met_while_resting"},
    {"trigger": "encounter_over", "source": P.PURSUIT, "dest": P.NIGHT},
    {"trigger": "break", "source": [P.WATCHED, P.NIGHT], "dest": P.BROKEN, "conditions": "night_is_over"},
]
del P
#: the travel day's phases in which its day is under way: the party is on the road, or resting a full day
DAY_UNDER_WAY = frozenset({TravelPhase.ROUTE, TravelPhase.TRAVEL, TravelPhase.RESTING})
#: the phases in which the watches are set and the night is under way
WATCHED_NIGHT = frozenset({Phase.WATCHED, Phase.NIGHT, Phase.ENCOUNTER, Phase.PURSUIT})


def checks_owed(options: WildernessOptions, table: CampTable) -> int:
    """How many wandering checks the night owes under the rules in force (A19)."""
    return table.night_checks if options.night_encounter_check else 0


def unavailable(rules: Ruleset) -> str:
    """Why the rules have no nights in camp, in words ("" when they have)."""
    return "no camp table (tables.camp)" if rules.part(CampTables).camp is None else ""


@attrs.define(slots=False)
class CampModel(Model):
    """What the camp's machine sees while one command runs."""

    @property
    def c(self) -> CampState:
        """The folded camp (conditions past ``make`` only run when there is one)."""
        assert isinstance(self.proc, CampState)  # noqa: S101 - every phase past IDLE has a camp
        return self.proc

    @property
    def table_rules(self) -> CampTable:
        """The camp table in force (``make`` refuses rules without one)."""
        found = self.rules.part(CampTables).camp
        assert found is not None  # noqa: S101 - a camp is made only under rules with a camp table
        return found

    def has_camp_rules(self) -> bool:
        """Only rules with a camp table (§4.16) have nights in camp."""
        missing = unavailable(self.rules)
        return not missing or self.refuse(f"the rules in force ({self.rules.name}) have {missing}")

    def has_party(self) -> bool:
        """A camp needs a party to sleep in it."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return bool(self.table.party.members) or self.refuse("the party has no members; add one first")

    def day_is_done(self) -> bool:
        """A journey's camp is made once its day is done: after the day's wandering check (at dusk) or its end, not
        while the party is still on the road (the route declared, its moves made) or resting a full day (the night
        would pass within the day, and the party travel on after it with the day's points)."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        trip = self.table.procedures.get(TRAVEL)
        if not isinstance(trip, TravelState) or trip.phase not in DAY_UNDER_WAY:
            return True
        phase = trip.phase
        return self.refuse(
            f"travel day {trip.day} is under way ({phase.name}): the party camps once the day is done, after its "
            "wandering check (travel check) or its end (travel end-day)"
        )

    def check_due(self) -> bool:
        """A wandering check is rolled while the night owes one and no encounter waits to be met."""
        owed = checks_owed(self.rules.part(WildernessOptions), self.table_rules)
        if not owed:
            return self.refuse(
                f"the rules in force ({self.rules.name}) roll no wandering check at night "
                "(options.night_encounter_check or tables.camp.night_checks); break camp"
            )
        if self.c.pending is not None:
            return self.refuse(f"an encounter comes in watch {self.c.pending.watch}; meet it first")
        if len(self.c.checks) >= owed:
            return self.refuse(
                f"the night's {counted(owed, 'wandering check')} {'is' if owed == 1 else 'are'} rolled; break camp"
            )
        return True

    def encounter_due(self) -> bool:
        """An encounter is met only when a night check found one."""
        return self.c.pending is not None or self.refuse("no wandering check of this night found an encounter")

    def ended_in_pursuit(self) -> bool:
        """The encounter the camp waited for ended with the party pursued, under rules with a wilderness pursuit.

        (The kit resumes with its conclusion; without a pursuit the night simply goes on.)
        """
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return handover.ended_in_pursuit(self.table.procedures, getattr(self.command, "child", ""), self.rules)

    def met_while_resting(self) -> bool:
        """The pursuit the camp waited for ended in the party's escape and the rest after it met an encounter not begun
        yet: as the camp resumes after the pursuit, or after the latest encounter that rest met."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return handover.rest_encounter_due(self.table.procedures, getattr(self.command, "child", ""))

    def night_is_over(self) -> bool:
        """The camp breaks once every check the night owes is rolled and any encounter met."""
        owed = checks_owed(self.rules.part(WildernessOptions), self.table_rules)
        if self.c.pending is not None:
            return self.refuse(f"an encounter comes in watch {self.c.pending.watch}; meet it first")
        if len(self.c.checks) < owed:
            return self.refuse(f"the night's wandering check is not rolled yet ({len(self.c.checks)} of {owed}); check")
        return True


def guard(table: Table, command: c.Command) -> None:
    """While the watches stand, a member who alone guards a watch cannot leave the party (it would be unguarded)."""
    state = table.procedures.get(PROCEDURE)
    if not isinstance(command, c.RemoveMember) or not isinstance(state, CampState) or state.watches is None:
        return
    if state.phase not in WATCHED_NIGHT:
        return
    alone = [w.number for w in state.watches.watches if w.guards == (command.name,)]
    if alone:
        watches = ", ".join(str(n) for n in alone)
        msg = f"{command.name} alone guards watch {watches} of camp {state.number}; break camp first"
        raise RuleRefusedError(msg)


#: the travel steps that start a day (of travel or rest): none starts while a camp's night is not over (the audit
#: re-runs a day an older release let start so with a command of its own, which this does not refuse; a rest day of
#: release 32, which had no check at its end, and a travel day of release 32, which kept no time of its start, it
#: re-runs with ones this refuses as that release did)
_DAY_STARTS = (
    travel.RollWeather,
    travel.RestDay,
    travel.RestDayWithoutCheck,
    travel.RestDayRestedAtStart,
    travel.RollWeatherUntimed,
)
#: the camp's next step while its night is not over, by phase: the step's command and the words before it
_NIGHT_GOES_ON: dict[Phase, tuple[str, str]] = {
    Phase.PITCHED: ("SetWatches", "set its watches"),
    Phase.FUELLED: ("SetWatches", "set its watches"),
    Phase.WATCHED: ("CheckNight", "roll the night's wandering check"),
    Phase.NIGHT: ("BreakCamp", "break it in the morning"),
}


def night_first(table: Table, command: c.Command) -> None:
    """A day starts once the night in camp is over (§4.5, §4.12: a wandering check each night at camp, then the next
    day): the weather of a day, or a rest day, is refused while a camp is made and not broken."""
    if type(command) not in _DAY_STARTS:
        return
    state = table.procedures.get(PROCEDURE)
    if not isinstance(state, CampState) or state.phase in {Phase.IDLE, Phase.BROKEN}:
        return
    lead = f"camp {state.number}'s night is not over, and the next day starts once it is: "
    if state.phase in {Phase.ENCOUNTER, Phase.PURSUIT}:
        what = "encounter" if state.phase is Phase.ENCOUNTER else "pursuit"
        msg = f"{lead}its night's {what} goes on; conclude it, then break camp"
        raise RuleRefusedError(msg)
    step, words = _NIGHT_GOES_ON[state.phase]
    if state.phase is Phase.NIGHT and state.pending is not None:
        step, words = "MeetEncounter", "meet the encounter its check brought"
    raise RuleRefusedError(f"{lead}{words} (").advising(Advice(step, (), "camp"), ")")
