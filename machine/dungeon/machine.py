"""The delve as a state machine declared as data (seed 004 §4.2).

The party explores turn by turn until it leaves; a wandering monster (or any other) is met by
handing off to the encounter, and the delve resumes when the encounter concludes. An encounter whose
pursuers give chase hands the chase off itself and waits for it (a party caught fights it out there), so the
delve waits for the encounter throughout. An encounter that concluded in pursuit (as releases before
``encounter.pursuit_decided`` version 2 recorded it, or the referee's ``conclude --outcome pursuit``, which the
encounter refuses since) is handed on to the chase by the delve, which resumes when the chase ends: a side it
caught meets its pursuers again (the delve hands off an encounter with them and waits for it), else the delve goes
on exploring. The conditions are methods of ``DungeonModel``; they only read, and say why they refuse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.machine.chase.rules import ChaseTables
from hexlog.machine.dungeon.rules import DungeonTables
from hexlog.machine.dungeon.state import DelveState, Phase
from hexlog.machine.encounter.state import PROCEDURE as ENCOUNTER
from hexlog.machine.encounter.state import EncounterState
from hexlog.machine.kit.model import Model

if TYPE_CHECKING:
    from transitions.core import TransitionConfigDict

    from hexlog.machine.ruleset import Ruleset

P = Phase
TRANSITIONS: list[TransitionConfigDict] = [
    {"trigger": "enter", "source": [P.OUTSIDE, P.LEFT], "dest": P.EXPLORING, "conditions": ["has_party", "has_tables"]},
    {"trigger": "light", "source": P.EXPLORING, "dest": P.EXPLORING, "conditions": "carrier_free"},
    {"trigger": "refill", "source": P.EXPLORING, "dest": P.EXPLORING, "conditions": "carries_lantern"},
    {"trigger": "move", "source": P.EXPLORING, "dest": P.EXPLORING, "conditions": ["no_monster_due", "may_map"]},
    {"trigger": "door", "source": P.EXPLORING, "dest": P.EXPLORING, "conditions": "no_monster_due"},
    {"trigger": "listen", "source": P.EXPLORING, "dest": P.EXPLORING, "conditions": "no_monster_due"},
    {"trigger": "search", "source": P.EXPLORING, "dest": P.EXPLORING, "conditions": "no_monster_due"},
    {"trigger": "spike", "source": P.EXPLORING, "dest": P.EXPLORING, "conditions": "no_monster_due"},
    {"trigger": "rest", "source": P.EXPLORING, "dest": P.EXPLORING, "conditions": "no_monster_due"},
    # the wandering monster due, or any other the referee places: the encounter takes over
    {"trigger": "meet", "source": P.EXPLORING, "dest": P.ENCOUNTER},
    # fired by the kit when the encounter concludes: concluded in pursuit, the chase takes over (the delve waits again)
    {"trigger": "resume", "source": P.ENCOUNTER, "dest": P.CHASE, "conditions": "ended_in_pursuit"},
    {"trigger": "resume", "source": P.ENCOUNTER, "dest": P.EXPLORING},
    # fired by the kit when the chase ends: caught, the party meets its pursuers again (the delve waits again)
    {"trigger": "resume", "source": P.CHASE, "dest": P.ENCOUNTER, "conditions": "caught_by_the_chase"},
    {"trigger": "resume", "source": P.CHASE, "dest": P.EXPLORING},
    {"trigger": "leave", "source": P.EXPLORING, "dest": P.LEFT, "conditions": "no_monster_due"},
]
del P
#: the outcome of an encounter the pursuers chose to pursue (``encounter decide-pursuit``)
PURSUIT = "pursuit"
#: the chase, as procedures know it, and its outcome when the fleeing side was caught
CHASE = "chase"
CAUGHT = "caught"


def unavailable(rules: Ruleset) -> str:
    """The dungeon's tables the rules lack, in words ("no tables.dungeon, tables.open_doors"; "" when none)."""
    tables = rules.part(DungeonTables)
    found = (("light", tables.light), ("dungeon", tables.dungeon), ("open_doors", tables.open_doors))
    missing = [f"tables.{name}" for name, table in found if table is None]
    return f"no {', '.join(missing)}" if missing else ""


@attrs.define(slots=False)
class DungeonModel(Model):
    """What the delve's machine sees while one command runs."""

    @property
    def d(self) -> DelveState:
        """The folded delve (conditions past ``enter`` only run when there is one)."""
        assert isinstance(self.proc, DelveState)  # noqa: S101 - every phase past OUTSIDE has a delve
        return self.proc

    def has_party(self) -> bool:
        """A delve needs a party."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return bool(self.table.party.members) or self.refuse("the party has no members; add one first")

    def has_tables(self) -> bool:
        """The rules in force must have the dungeon's tables."""
        missing = unavailable(self.rules)
        if missing:
            return self.refuse(
                f"the rules in force ({self.rules.name}) have {missing}; use explore or add them as house rules"
            )
        return True

    def ended_in_pursuit(self) -> bool:
        """The encounter the delve waited for concluded in pursuit, under rules with a dungeon pursuit table.

        (The kit resumes with its conclusion; without the table the delve simply goes on exploring.)
        """
        assert self.table is not None  # noqa: S101 - loaded by the kit
        encounter = self.table.procedures.get(ENCOUNTER)
        child = getattr(self.command, "child", "")
        return (
            child == ENCOUNTER
            and isinstance(encounter, EncounterState)
            and encounter.concluded is not None
            and encounter.concluded.outcome == PURSUIT
            and self.rules.part(ChaseTables).dungeon_pursuit is not None
        )

    def caught_by_the_chase(self) -> bool:
        """The chase the delve handed on ended with the fleeing side caught: the sides meet again and fight."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        ended = getattr(self.table.procedures.get(CHASE), "ended", None)
        return getattr(self.command, "child", "") == CHASE and getattr(ended, "outcome", None) == CAUGHT

    def no_monster_due(self) -> bool:
        """A wandering monster that has come must be met first."""
        return not self.d.monster_due or self.refuse("a wandering monster has come: meet it first (meet)")

    def carrier_free(self) -> bool:
        """A member carries one light at a time."""
        by = str(self.command.by)  # type: ignore[union-attr]
        light = self.d.light_of(by)
        if light is not None and light.lit:
            return self.refuse(f"{by} already carries a burning {light.kind}")
        return True

    def carries_lantern(self) -> bool:
        """Only a lantern is refilled."""
        by = str(self.command.by)  # type: ignore[union-attr]
        light = self.d.light_of(by)
        if light is None or light.kind != "lantern":
            return self.refuse(f"{by} carries no lantern; light one first (light lantern --by {by})")
        return True

    def may_map(self) -> bool:
        """No mapping in the dark or while fleeing (§4.2)."""
        if getattr(self.command, "mapping", None) is not True:
            return True
        if getattr(self.command, "fleeing", False):
            return self.refuse("the dungeon cannot be mapped while fleeing")
        if not self.d.lit:
            return self.refuse("the dungeon cannot be mapped in the dark; light a torch or lantern first")
        return True
