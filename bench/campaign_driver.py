"""A long campaign on the committed dice of one open session: a generated hex map, a journey of travel
days with a camp each night and rest days as the rules require, and delves turn by turn.

Every next step is one the procedures allow now (the runner's allowed steps and the folded state),
so the campaign completes whatever the dice say: an encounter handed off at the day's end, at night
or in a delve is played to its conclusion, a lost party is told so at dusk, a party owed a rest (or
exhausted) rests, a light gone out is lit again, the party rests one turn in each hour of a delve.

``Campaign(handler).set_up()`` then ``play(days, turns)``; ``fresh`` (a factory of handlers) runs
each command on a new handler, as each ``hexlog`` invocation is. ``spent`` holds the seconds each
command took to execute, by its procedure and name (``travel.Move``, ``dungeon.Move``, ``camp.BreakCamp``, ...).
"""

from __future__ import annotations

import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hexlog.machine import camp as cp
from hexlog.machine import commands as c
from hexlog.machine import dungeon as dg
from hexlog.machine import encounter as enc
from hexlog.machine.hexmap import LoadMap, RevealHidden, grid
from hexlog.machine.hexmap.rules import MapTables
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.registry import REGISTRY
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.machine.travel import commands as t

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.machine.handler import Handler
    from hexlog.machine.table import Table

CAMPAIGN = "long"
SECRET = "5c" * 32
CLIENT_SEED = "the long campaign"
SIZE = 40
MEMBERS = (c.AddMember(name="Ann", strength=16), c.AddMember(name="Bo"), c.AddMember(name="Cara", cha=14))
WATCHES = cp.SetWatches(watches=("1=Ann", "2=Bo", "3=Cara", "4=Ann,Bo"))
TERRAINS = ("meadow", "farmland", "hills", "open_forest", "bog", "tangled_forest", "hilly_forest", "swamp")
#: a delve is made once this many dungeon turns are owed (or on the last day)
DELVE_TURNS = 20
#: the hour of the day the march ends and camp is made
EVENING_HOUR = 14
HOUR = 3600
DAY = 86400


def map_text(size: int = SIZE) -> str:
    """A ``size`` x ``size`` map of mixed terrain, a road along row and column ``size // 2``, a few hidden features."""
    lines = []
    for col in range(size):
        for row in range(size):
            terrain = TERRAINS[(col * 7 + row * 13 + (col * row) % 5) % len(TERRAINS)]
            lines.append(f'[hex."{col},{row}"]')
            lines.append(f'terrain = "{terrain}"')
            if size // 2 in (col, row):
                lines.append("road = true")
            if (col * 31 + row * 17) % 97 == 0:
                lines.append('hidden = ["a ruined shrine"]')
            if (col + row) % 53 == 0:
                lines.append('landmarks = ["a standing stone"]')
    return "\n".join(lines) + "\n"


def waypoints(size: int) -> tuple[str, ...]:
    """The journey's waypoints, visited in turn (the party heads for the next once it believes it is there)."""
    near, far = size // 6, size - 1 - size // 6
    return tuple(grid.name(col, row) for col, row in ((near, near), (far, near), (far, far), (near, far)))


def cube(name: str) -> tuple[int, int, int]:
    """A hex's cube coordinates (odd columns sit half a hex lower)."""
    col, row = grid.parse(name)
    z = row - (col - (col & 1)) // 2
    return col, -col - z, z


def distance(a: str, b: str) -> int:
    """Hexes between two hexes."""
    return max(abs(p - q) for p, q in zip(cube(a), cube(b), strict=True))


def route_towards(start: str, goal: str, length: int, size: int = SIZE) -> tuple[str, ...]:
    """``length`` headings, each to the neighbour on the map nearest ``goal``."""
    headings, here = [], start
    for _ in range(length):
        steps = []
        for heading in grid.HEADINGS:
            there = grid.neighbour(here, heading)
            if there is not None and max(grid.parse(there)) < size:
                steps.append((distance(there, goal), heading, there))
        _, heading, here = min(steps)
        headings.append(heading)
    return tuple(headings)


#: the encounter's steps the driver takes, in order of preference, with the command for each
ENCOUNTER_STEPS: dict[str, c.Command] = {
    "check_surprise": enc.CheckSurprise(),
    "determine_distance": enc.DetermineDistance(),
    "take_free_action": enc.TakeFreeAction(action="attack"),
    "roll_initiative": enc.RollInitiative(),
    "decide_pursuit": enc.DecidePursuit(),
}


class Campaign:
    """Plays the campaign through a handler (or a new handler per command), choosing allowed steps."""

    def __init__(self, handler: Handler, *, fresh: Callable[[], Handler] | None = None) -> None:
        self.handler = handler
        self.fresh = fresh
        self.spent: dict[str, list[float]] = defaultdict(list)
        self.waypoint = 0
        self.size = SIZE
        self.days = 0
        self.rest_days = 0
        self.turns = 0
        self.delves = 0
        self.encounters = 0
        self.commands = 0

    # -- running commands -------------------------------------------------------------------------

    def run(self, command: c.Command) -> None:
        """Execute one command, timing it under its procedure's name."""
        handler = self.fresh() if self.fresh is not None else self.handler
        start = time.perf_counter()
        handler.execute(CAMPAIGN, command)
        spent = time.perf_counter() - start
        self.spent[f"{REGISTRY.route(type(command)).procedure.name}.{type(command).__name__}"].append(spent)
        self.commands += 1

    def table(self) -> Table:
        """The table now (the long-lived handler catches up with what fresh ones wrote)."""
        return self.handler.load(CAMPAIGN)

    def state(self, procedure: str) -> Any:
        """A procedure's folded state."""
        return self.table().procedures.get(procedure)

    def allowed(self, procedure: str) -> set[str]:
        """The triggers of ``procedure`` allowed now."""
        return set(self.sides(procedure))

    def sides(self, procedure: str) -> dict[str, tuple[str, ...]]:
        """Each trigger of ``procedure`` allowed now, with the sides it is allowed for (none: no side)."""
        table = self.table()
        return dict(REGISTRY.runner(procedure).allowed(table.procedures.get(procedure), table))

    # -- the campaign -----------------------------------------------------------------------------

    def set_up(self, size: int = SIZE, *, secret_hex: str | None = SECRET) -> None:
        """Start the campaign under explore, open the session, add the party, load the map, set out.

        The session's secret is ``secret_hex`` (None: drawn by hexlog).
        """
        self.size = size
        for command in (
            c.StartCampaign(ruleset="explore"),
            c.OpenSession(secret_hex=secret_hex),
            c.SetClientSeed(client_seed=CLIENT_SEED),
            *MEMBERS,
        ):
            self.run(command)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "long.toml"
            path.write_text(map_text(size), encoding="utf-8")
            self.run(LoadMap(file=str(path)))
        self.run(t.StartJourney(hex=grid.name(size // 2, size // 2)))

    def play(self, days: int, turns: int) -> None:
        """``days`` travel days (and the rest days owed), with ``turns`` dungeon turns in delves spread over them."""
        done = 0
        for day in range(days):
            owed = turns * (day + 1) // days - done
            if owed >= DELVE_TURNS or (day == days - 1 and owed > 0):
                self.delve(owed)
                done += owed
            self.travel_day()

    def reveal_map(self) -> None:
        """At the campaign's end, reveal every hidden feature no search found (so the audit checks every search)."""
        if self.state("map").unopened:
            self.run(RevealHidden())

    def finish_encounter(self) -> None:
        """Take allowed steps until the encounter concludes: react once, fight a round or two, conclude."""
        self.encounters += 1
        reacted = rounds = 0
        while True:
            state = self.state("encounter")
            if state.phase is enc.Phase.CONCLUDED:
                return
            allowed = self.allowed("encounter")
            step = next((ENCOUNTER_STEPS[s] for s in ENCOUNTER_STEPS if s in allowed), None)
            if step is None and "react" in allowed and not reacted:
                # a party surprised in the first round cannot speak in it (seed 000 §2.2)
                speaks = enc.party_may_speak(self.table())
                reacted, step = 1, enc.RollReaction(speaker="Cara" if speaks else "")
            elif step is None and "fight" in allowed:
                # a side surprised for a round (OSE, the open country under explore) waits for the other
                step = enc.Fight(side=self.sides("encounter")["fight"][0])
            elif step is None and "round" in allowed and rounds < 2:  # noqa: PLR2004 - two rounds of combat
                rounds, step = rounds + 1, enc.PlayRound()
            elif step is None:
                step = enc.ConcludeEncounter(outcome="resolved")
            self.run(step)

    # -- the travel day ---------------------------------------------------------------------------

    def travel_day(self) -> None:
        """A rest day when one is owed (its check, its end), then a travel day: weather, route, moves, the check, camp,
        end."""
        trip = self.state("travel")
        if any(m.exhaustion or m.owed or m.travel_days >= 6 for m in trip.members.values()):  # noqa: PLR2004 - rules
            self.rest_days += 1
            self.run(t.RestDay())
            self.day_s_check()  # a rest day ends with the day's wandering check too
            self.run(t.EndDay())
        self.days += 1
        self.run(t.RollWeather())
        trip = self.state("travel")
        goals = waypoints(self.size)
        if distance(trip.believed, goals[self.waypoint]) <= 1:
            self.waypoint = (self.waypoint + 1) % len(goals)
        self.run(t.DeclareRoute(headings=route_towards(trip.believed, goals[self.waypoint], 4, self.size)))
        if self.days % 9 == 0 and "forced_march" in self.allowed("travel"):
            self.run(t.ForceMarch())
        if self.days % 4 == 0 and "move" in self.allowed("travel"):
            self.run(t.Move(hexes=1))
            if "search" in self.allowed("travel"):
                self.run(t.SearchHex(guide=self.days % 8 == 0))
        if "move" in self.allowed("travel"):
            self.run(t.Move())
        self.day_s_check()
        hour = self.table().clock.seconds % DAY // HOUR
        if hour < EVENING_HOUR:
            self.run(AdvanceClock(duration=f"{EVENING_HOUR - hour}h", reason="the day's march"))
        self.night()
        self.run(t.EndDay())

    def day_s_check(self) -> None:
        """The wandering check at the day's end (of travel or rest), the encounter it meets, the party told where it is
        if it is lost."""
        self.run(t.CheckWandering())
        if self.table().handoffs:
            self.finish_encounter()
        if "reveal_lost" in self.allowed("travel"):
            self.run(t.RevealLost(reason="the landmarks are wrong"))

    def night(self) -> None:
        """Camp: firewood, the watches, the secret night check, any encounter met, break at morning."""
        trip, table = self.state("travel"), self.table()
        assert table.rules is not None  # noqa: S101 - the campaign has begun
        place = self.state("map").hex(trip.hex)
        row = table.rules.part(MapTables).odd_row(place.terrain)
        self.run(cp.MakeCamp(weather=trip.weather, winter=trip.season == "winter", terrain=row))
        self.run(cp.GatherFirewood(gatherers=("Ann", "Bo")))
        self.run(WATCHES)
        if "check" in self.allowed("camp"):
            self.run(cp.CheckNight())
        if "meet" in self.allowed("camp"):
            self.run(cp.MeetEncounter(monster_count=2))
            self.finish_encounter()
        self.run(cp.BreakCamp())

    # -- the delve --------------------------------------------------------------------------------

    def delve(self, turns: int) -> None:
        """Enter, take ``turns`` turns (move, search, rest each hour; doors, listening, spikes between), leave."""
        self.delves += 1
        self.run(dg.EnterDungeon(name=f"delve {self.delves}", danger=self.delves % 3 == 0))
        self.run(dg.LightSource(kind="lantern", by="Bo"))
        taken = 0
        while taken < turns:
            took = self.dungeon_step(taken)
            taken += took
            self.turns += took
        if self.state("dungeon").monster_due:
            self.run(dg.Meet(monster_count=2))
            self.finish_encounter()
        self.run(dg.LeaveDungeon(note="back to the road"))

    def dungeon_step(self, turn: int) -> int:
        """One step of the delve; the turns it took (0 for a step that takes no turn)."""
        delve, table = self.state("dungeon"), self.table()
        if delve.monster_due:
            self.run(dg.Meet(monster_count=2, monsters_noisy=turn % 2 == 0))
            self.finish_encounter()
            return 0
        lantern, torch = delve.light_of("Bo"), delve.light_of("Ann")
        if lantern is not None and not lantern.lit:
            self.run(dg.RefillLantern(by="Bo"))
        if torch is None or not torch.lit:
            self.run(dg.LightSource(kind="torch", by="Ann"))
        assert table.rules is not None  # noqa: S101 - the campaign has begun
        turn_seconds = table.rules.part(ClockOptions).turn_seconds
        if table.clock.seconds - delve.rested_at >= HOUR - turn_seconds:
            self.run(dg.Rest())
            return 1
        door = f"door {self.delves}.{turn}"
        if turn % 7 == 3:  # noqa: PLR2004 - a door every seventh turn
            self.run(dg.Listen(by="Bo", door=door))
            if not self.state("dungeon").monster_due:
                self.run(dg.OpenDoor(by="Ann", door=door, tool="crowbar" if turn % 2 else ""))
            return 0 if self.state("dungeon").monster_due else self._move()
        if turn % 7 == 5:  # noqa: PLR2004 - a search every seventh turn
            self.run(dg.Search())
            return 1
        if turn % 11 == 9:  # noqa: PLR2004 - a spike now and then
            self.run(dg.SpikeDoor(held_open=turn % 2 == 1, door=door))
            return 0 if self.state("dungeon").monster_due else self._move()
        return self._move()

    def _move(self) -> int:
        self.run(dg.Move())
        return 1
