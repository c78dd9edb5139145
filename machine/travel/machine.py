"""The travel day as a state machine declared as data (seed 004, REFERENCE §4.5).

``WEATHER -> ROUTE (and the secret lost check) -> TRAVEL (move, search, forced march) -> the wandering
check (an encounter is handed off; the day resumes when it concludes) -> END OF DAY``, or a full rest
day instead of travel, which ends with the same wandering check (``REST -> RESTING -> the check -> END OF DAY``;
after the journey has ended a rest day has no check: the clock runs on to the next day at once). The conditions are
methods of ``TravelModel``; they only read, and say why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import Advice
from hexlog.machine.hexmap import grid
from hexlog.machine.hexmap.state import PROCEDURE as MAP
from hexlog.machine.hexmap.state import MapState
from hexlog.machine.kit.model import Model
from hexlog.machine.travel import commands as c
from hexlog.machine.travel import terrain
from hexlog.machine.travel.commands import StartJourney
from hexlog.machine.travel.rules import TerrainChances, TravelTables, WildernessTables
from hexlog.machine.travel.state import Phase, TravelState

if TYPE_CHECKING:
    from transitions.core import TransitionConfigDict

    from hexlog.machine.ruleset import Ruleset

P = Phase
TRANSITIONS: list[TransitionConfigDict] = [
    {
        "trigger": "start",
        "source": [P.IDLE, P.ENDED],
        "dest": P.DAWN,
        "conditions": ["has_party", "has_tables", "on_map", "afloat_at_water"],
    },
    {"trigger": "weather", "source": P.DAWN, "dest": P.ROUTE},
    # a rest day as the releases before travel.day_started version 5 made it (the audit's re-run): the next day at once
    {"trigger": "rest", "source": P.DAWN, "dest": P.DAWN, "conditions": "rests_without_check"},
    # a rest day during the journey ends as a travel day does: the wandering check, then the day's end
    {"trigger": "rest", "source": P.DAWN, "dest": P.RESTING},
    # a party whose journey has ended may still rest a full day, to rest off what the journey left it (no check: the
    # journey is over, and a day without one rolls no wandering check of its own)
    {"trigger": "rest", "source": P.ENDED, "dest": P.ENDED},
    {"trigger": "finish", "source": P.DAWN, "dest": P.ENDED},
    {"trigger": "route", "source": P.ROUTE, "dest": P.TRAVEL},
    {"trigger": "move", "source": P.TRAVEL, "dest": P.TRAVEL, "conditions": "can_move"},
    {"trigger": "search", "source": P.TRAVEL, "dest": P.TRAVEL, "conditions": "can_search"},
    {"trigger": "forced_march", "source": P.TRAVEL, "dest": P.TRAVEL, "conditions": "not_forced_yet"},
    {"trigger": "check", "source": [P.TRAVEL, P.RESTING], "dest": P.DUSK},
    # the day resumes in DUSK when a wandering encounter it handed off concludes (the kit fires it)
    {"trigger": "resume", "source": P.DUSK, "dest": P.DUSK},
    {"trigger": "end_day", "source": P.DUSK, "dest": P.DAWN},
    # the party learns it is lost (the referee says so) at any point of the day
    {"trigger": "reveal_lost", "source": P.DAWN, "dest": P.DAWN, "conditions": "astray"},
    {"trigger": "reveal_lost", "source": P.ROUTE, "dest": P.ROUTE, "conditions": "astray"},
    {"trigger": "reveal_lost", "source": P.TRAVEL, "dest": P.TRAVEL, "conditions": "astray"},
    {"trigger": "reveal_lost", "source": P.RESTING, "dest": P.RESTING, "conditions": "astray"},
    {"trigger": "reveal_lost", "source": P.DUSK, "dest": P.DUSK, "conditions": "astray"},
]
del P


def unavailable(rules: Ruleset) -> str:
    """The travel tables the rules lack, in words ("" when none)."""
    missing = rules.part(TravelTables).missing(rules.part(TerrainChances), rules.part(WildernessTables))
    return f"no travel tables ({', '.join(missing)})" if missing else ""


@attrs.define(slots=False)
class TravelModel(Model):
    """What the travel day's machine sees while one command runs."""

    @property
    def trip(self) -> TravelState:
        """The journey (conditions past ``start`` only run when there is one)."""
        assert isinstance(self.proc, TravelState)  # noqa: S101 - every phase past IDLE has a journey
        return self.proc

    @property
    def the_map(self) -> MapState:
        """The hex map drawn so far."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        found = self.table.procedures.get(MAP)
        return found if isinstance(found, MapState) else MapState()

    def has_party(self) -> bool:
        """A journey needs a party."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        return bool(self.table.party.members) or self.refuse("the party has no members; add one first")

    def has_tables(self) -> bool:
        """The rules in force must have the travel tables."""
        missing = unavailable(self.rules)
        return not missing or self.refuse(f"the rules in force ({self.rules.name}) have {missing}; use explore")

    def on_map(self) -> bool:
        """The party sets out from a hex of the map."""
        # read as an attribute: a start the kit sketches without its hex is judged when the hex is given
        where = grid.normal(self.command.hex if isinstance(self.command, StartJourney) else "")
        return self.the_map.hex(where) is not None or self.refuse(
            f"hex {where} is not on the map; draw it first (",
            Advice("SetHex", (("hex", where), ("terrain", "..."))),
            ")",
        )

    def afloat_at_water(self) -> bool:
        """A ship sets out on water, or from a port beside it (``tables.water_terrains``; any hex without the table)."""
        if not isinstance(self.command, StartJourney) or not self.command.afloat:
            return True
        why = terrain.ashore(self.rules, self.the_map, grid.normal(self.command.hex))
        return why is None or self.refuse(why)

    def can_move(self) -> bool:
        """The route goes on, the map goes on, the points pay for the next hex, and a ship afloat sails on water."""
        step = terrain.next_step(self.rules, self.the_map, self.trip)
        if not isinstance(step, terrain.Step):
            return self.refuse(*((step,) if isinstance(step, str) else step))
        dry = terrain.aground(self.rules, self.the_map, self.trip)
        return dry is None or self.refuse(*((dry,) if isinstance(dry, str) else dry))

    def can_search(self) -> bool:
        """The points left pay for the search (of the hex the party believes it is in)."""
        place = terrain.seen(self.the_map, self.trip)
        cost = terrain.search_cost(self.rules, place) if place is not None else 0
        why = terrain.unrated(self.rules, place) if place is not None else ""
        here = f"here ({why})" if why else "here"
        return cost <= self.trip.tp or self.refuse(f"searching {here} costs {cost} travel points; {self.trip.tp} left")

    def not_forced_yet(self) -> bool:
        """One forced march a day."""
        return not self.trip.forced or self.refuse("the party is already on a forced march today")

    def rests_without_check(self) -> bool:
        """The audit's re-run of a rest day an older release made (``REST_WITHOUT_CHECK``): no check at its end. Says
        nothing when not: the rest day of today's rules follows."""
        return isinstance(self.command, c.REST_WITHOUT_CHECK)

    def astray(self) -> bool:
        """Only a party that is lost, or fled without knowing which way, can learn where it is."""
        trip = self.trip
        return trip.lost or trip.hex != trip.believed or bool(trip.fled) or self.refuse("the party is not lost")
