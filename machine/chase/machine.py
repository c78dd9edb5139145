"""The chase as a state machine declared as data (OSE §2.9, seed 004 §4.4, A18).

A dungeon chase runs round by round until the fleeing side escapes (out of sight, pursuers halted
by something dropped or stopped by an obstacle) or is caught (the gap closed: melee next round); a
fleeing side that is faster escapes at once, unless forced to stop. A waterborne chase is an evasion
roll, then rounds in which the gap closes until the vessel is caught. A round's outcome follows from
the state and what the referee declares, so the table chooses it; where a roll decides the way on,
the step fires ``settle`` itself once the roll is recorded. The conditions are methods of
``ChaseModel``; they only read, and say why they refuse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events import chase as ev
from hexlog.events.errors import HexlogError, UsageError
from hexlog.machine.chase import rounds
from hexlog.machine.chase.rules import ChaseOptions, ChaseTables
from hexlog.machine.chase.state import ChaseState, Phase
from hexlog.machine.kit.model import Model

if TYPE_CHECKING:
    from transitions.core import TransitionConfigDict

    from hexlog.machine.ruleset import Ruleset

P = Phase
TRANSITIONS: list[TransitionConfigDict] = [
    # a faster fleeing side escapes at once, unless forced to stop (dungeon)
    {
        "trigger": "start",
        "source": [P.IDLE, P.ESCAPED, P.CAUGHT],
        "dest": P.ESCAPED,
        "conditions": ["ready", "outruns"],
    },
    # A18: from an encounter in progress, surprise and distance are rolled again first
    {"trigger": "start", "source": [P.IDLE, P.ESCAPED, P.CAUGHT], "dest": P.REPEAT, "conditions": ["ready", "repeats"]},
    {"trigger": "start", "source": [P.IDLE, P.ESCAPED, P.CAUGHT], "dest": P.EVASION, "conditions": ["ready", "afloat"]},
    {"trigger": "start", "source": [P.IDLE, P.ESCAPED, P.CAUGHT], "dest": P.RUNNING, "conditions": "ready"},
    {"trigger": "repeat", "source": P.REPEAT, "dest": P.RUNNING},
    # a round: caught when the gap closes, escaped out of sight or stopped, else the running goes on
    {"trigger": "run", "source": P.RUNNING, "dest": P.CAUGHT, "conditions": "closes"},
    {"trigger": "run", "source": P.RUNNING, "dest": P.ESCAPED, "conditions": "gets_away"},
    {"trigger": "run", "source": P.RUNNING, "dest": P.RUNNING},
    {"trigger": "drop", "source": P.RUNNING, "dest": P.RUNNING},
    # fired by the drop's step when the pursuers stop for what was dropped
    {"trigger": "settle", "source": P.RUNNING, "dest": P.ESCAPED, "conditions": "halted"},
    {"trigger": "evade", "source": P.EVASION, "dest": P.EVASION, "conditions": "not_rolled"},
    # fired by the evasion's step once the roll is recorded
    {"trigger": "settle", "source": P.EVASION, "dest": P.ESCAPED, "conditions": "evaded"},
    {"trigger": "settle", "source": P.EVASION, "dest": P.CLOSING, "conditions": "not_evaded"},
    {"trigger": "run", "source": P.CLOSING, "dest": P.CAUGHT, "conditions": "closes"},
    {"trigger": "run", "source": P.CLOSING, "dest": P.CLOSING},
]
del P


def unavailable(rules: Ruleset) -> str:
    """Why the rules have no chase in any setting, in words ("" when they have one)."""
    tables = rules.part(ChaseTables)
    if tables.dungeon_pursuit is None and tables.evasion_waterborne is None:
        return "no tables.dungeon_pursuit or tables.evasion_waterborne"
    return ""


@attrs.define(slots=False)
class ChaseModel(Model):
    """What the chase's machine sees while one command runs."""

    @property
    def c(self) -> ChaseState:
        """The folded chase (conditions past ``start`` only run when there is one)."""
        assert isinstance(self.proc, ChaseState)  # noqa: S101 - every phase past IDLE has a chase
        return self.proc

    @property
    def setting(self) -> ev.ChaseSetting:
        """The setting the start command names."""
        try:
            return ev.ChaseSetting(str(getattr(self.command, "setting", "dungeon")))
        except ValueError:
            msg = f"a chase runs in the dungeon or on water (dungeon, waterborne), not {self.command.setting!r}"  # type: ignore[union-attr]
            raise UsageError(msg) from None

    def ready(self) -> bool:
        """A chase needs a party and the rules' table for its setting."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        if not self.table.party.members:
            return self.refuse("the party has no members; add one first")
        tables = self.rules.part(ChaseTables)
        setting = self.setting
        key = "dungeon_pursuit" if setting is ev.ChaseSetting.DUNGEON else "evasion_waterborne"
        if getattr(tables, key) is None:
            return self.refuse(f"the rules in force ({self.rules.name}) have no tables.{key}; add it as a house rule")
        return True

    def outruns(self) -> bool:
        """Dungeon: the fleeing side is faster and not forced to stop."""
        if self.setting is not ev.ChaseSetting.DUNGEON or getattr(self.command, "forced_to_stop", False):
            return False
        assert self.table is not None  # noqa: S101 - loaded by the kit
        try:
            facts = rounds.facts_of(self.table, self.command)  # type: ignore[arg-type]
        except HexlogError:
            return False  # facts missing or wrong: the step refuses the start, naming them
        return facts.fleeing_ft > facts.pursuers_ft

    def repeats(self) -> bool:
        """A18: a dungeon pursuit from an encounter, under rules that repeat its surprise and distance."""
        from_encounter = getattr(self.command, "from_encounter", 0)
        repeat = self.rules.part(ChaseOptions).pursuit_repeats_encounter_steps
        return bool(from_encounter) and repeat and self.setting is ev.ChaseSetting.DUNGEON

    def afloat(self) -> bool:
        """A waterborne chase begins with the evasion roll."""
        return self.setting is ev.ChaseSetting.WATERBORNE

    def closes(self) -> bool:
        """The pursuers close the gap this round (to the rules' melee gap, or to nothing on water)."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return rounds.next_round(self.table, self.c, self.command).caught  # type: ignore[arg-type]

    def gets_away(self) -> bool:
        """The fleeing side gets away this round: out of sight, the pursuit stopped, or the pursuers halted."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return rounds.next_round(self.table, self.c, self.command).escaped  # type: ignore[arg-type]

    def halted(self) -> bool:
        """The pursuers stopped for what was dropped."""
        return self.c.halted is not None

    def not_rolled(self) -> bool:
        """The vessel's evasion is rolled once."""
        return self.c.evasion is None or self.refuse("the evasion was rolled already")

    def evaded(self) -> bool:
        """The evasion roll succeeded."""
        return self.c.evasion is not None and self.c.evasion.evaded

    def not_evaded(self) -> bool:
        """The evasion roll failed."""
        return self.c.evasion is not None and not self.c.evasion.evaded
