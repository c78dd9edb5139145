"""The demo's story: a journey over the Fenmoor past Ravensgate, a camp each night, a delve into the barrow.

Each beat reads the state before choosing its step; where a beat rests on luck the referee uses
what the rules give him (he may set the weather; a route may be travelled by night) or the story
says plainly what the dice did instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hexlog.events import dungeon as dev
from hexlog.events import hexmap as mev
from hexlog.events import travel as tev
from hexlog.events.errors import HexlogError
from hexlog.machine import encounter as enc
from hexlog.machine.camp import commands as cc
from hexlog.machine.camp.state import PROCEDURE as CAMP
from hexlog.machine.castle.state import PROCEDURE as CASTLE
from hexlog.machine.dungeon import commands as dc
from hexlog.machine.dungeon.state import PROCEDURE as DUNGEON
from hexlog.machine.hexmap import LoadMap, grid
from hexlog.machine.hexmap.rules import MapTables
from hexlog.machine.hexmap.state import PROCEDURE as MAP
from hexlog.machine.travel import commands as tc
from hexlog.machine.travel.rules import TravelTables
from hexlog.machine.travel.state import PROCEDURE as TRAVEL
from hexlog.machine.travel.state import TravelState
from hexlog.service import demo_castle

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.hexmap.state import MapState
    from hexlog.service.demo import Referee

MAP_FILE = Path(__file__).with_name("demo_map.toml")
HOME, STONES = "2,6", "3,2"
BARROW = "the barrow of the Fen King"
NAMES = ("Aldric", "Brenna", "Corvin", "Delphine")
#: the journey gives up after this many days (the barrow is all but surely found long before)
LAST_DAY = 30
#: who wanders the barrow, in the order they come
WANDERERS = ("giant rats", "ghouls", "grave robbers")
#: the first wanderers, whom the party runs from: unintelligent (dropped food may stop them), quicker than Aldric
CHASERS, CHASERS_SPEED = 9, 120
#: the wanderers the referee sets on the party's path where no travel day rolls them
MOOR_WANDERERS = 6
#: the delve's turns at most before the party turns back
DELVE_TURNS = 40


def play(ref: Referee) -> None:
    """The whole story, from the map to the party leaving the barrow.

    Under rules that lack a procedure (ose and adnd have no travel, camp, castle or delve tables), its beat is told
    instead, saying so, and the story's meetings are played as encounters, as those rules run them.
    """
    ref.header("The referee loads the map of the Fenmoor")
    try:
        events = ref.do(LoadMap(file=str(MAP_FILE)), show=lambda e: not isinstance(e, mev.HexSet) or bool(e.landmarks))
    except HexlogError as refused:
        ref.say(f"the map cannot be loaded under these rules ({refused}); the referee keeps it on paper")
    else:
        plain = sum(isinstance(e, mev.HexSet) and not e.landmarks for e in events)
        ref.say(f"(and {plain} hexes of moor, hills and farmland without a landmark)")
    ref.say("the standing stones rise on the moor three days north of Thornby; what lies beneath is the referee's")
    if ref.barred(TRAVEL):
        told_journey(ref)
    else:
        ref.do(tc.StartJourney(hex=HOME, season="autumn"))
        delve(ref, found=journey(ref))
        return
    if ref.barred(DUNGEON):
        told_delve(ref)
    else:
        delve(ref, found=False)


def told_journey(ref: Referee) -> None:
    """The journey under rules without travel tables: told in words, its meeting on the moor an encounter."""
    ref.header("The journey north, told")
    ref.say(f"{ref.barred(TRAVEL)}: no travel day is rolled (no weather, lost check, search or wandering check)")
    ref.say("the referee tells the three days' walk north past Ravensgate to the standing stones")
    if ref.barred(CASTLE):
        ref.say(f"{ref.barred(CASTLE)}: no die says who holds Ravensgate or whether its garrison rides out")
    if ref.barred(CAMP):
        ref.say(f"{ref.barred(CAMP)}: the nights pass without watches or a night check")
    ref.header("On the moor: wanderers")
    ref.say("the referee sets wanderers on the party's path (no wandering check rolls them under these rules)")
    ref.do(
        enc.StartEncounter(
            setting=ref.setting(underground=False), name="wanderers on the moor", monster_count=MOOR_WANDERERS
        )
    )
    ref.flee("wanderers")
    ref.say(f"the party reaches the standing stones at {STONES} and goes down the stair it finds there")


def told_delve(ref: Referee) -> None:
    """The delve under rules without the dungeon's tables: its meetings played as encounters underground."""
    ref.header("The delve: the stair under the stones")
    ref.say(f"{ref.barred(DUNGEON)}: no delve turn by turn (no doors, listening, searching or wandering checks)")
    ref.say("the party goes down with torches lit; the referee plays its meetings as encounters underground")
    underground = ref.setting(underground=True)
    foes = WANDERERS[0]
    ref.say(f"{CHASERS} {foes}, too many to fight and faster than {_heaviest_armor(ref)}: the party will run")
    ref.do(
        enc.StartEncounter(
            setting=underground,
            name=f"barrow {foes}",
            monster_count=CHASERS,
            intelligent=False,
            monster_speed=CHASERS_SPEED,
            party_light=True,
        )
    )
    ref.flee_underground(foes)
    foes = WANDERERS[1]
    ref.say(f"deeper in, {foes} bar the way")
    ref.do(enc.StartEncounter(setting=underground, name=f"barrow {foes}", monster_count=3, party_light=True))
    ref.talk_or_fight(foes)
    ref.say("the party climbs back to the daylight")


def trip(ref: Referee) -> TravelState:
    """The journey under way."""
    state = ref.state(TRAVEL)
    assert isinstance(state, TravelState)  # noqa: S101 - started by the story
    return state


def _cube(hex_name: str) -> tuple[int, int]:
    col, row = grid.parse(hex_name)
    return col, row - (col - (col & 1)) // 2


def distance(one: str, two: str) -> int:
    """Hexes between two hexes."""
    (x1, z1), (x2, z2) = _cube(one), _cube(two)
    return max(abs(x1 - x2), abs(z1 - z2), abs((x1 + z1) - (x2 + z2)))


def path(the_map: MapState, start: str, goal: str) -> tuple[str, ...]:
    """The headings of a straight way from ``start`` to ``goal`` over the map (at most four)."""
    headings: list[str] = []
    here = start
    while here != goal and len(headings) < 4:  # noqa: PLR2004 - a day's walk at most
        steps = [(h, grid.neighbour(here, h)) for h in grid.HEADINGS]
        on_map = [(h, n) for h, n in steps if n is not None and the_map.hex(n) is not None]
        heading, here = min(on_map, key=lambda step: distance(step[1], goal))
        headings.append(heading)
    return tuple(headings)


def journey(ref: Referee) -> bool:
    """Travel day by day to the stones and search them; whether the barrow was found."""
    found = met = False
    while trip(ref).day < LAST_DAY:
        day = trip(ref).day + 1
        member = trip(ref).members[NAMES[0]]
        if member.owed or member.travel_days >= _rest_every(ref):
            ref.header(f"Day {day}: " + ("the rest the forced march owes" if member.owed else "six days out: a rest"))
            ref.do(tc.RestDay())
            met = day_s_end(ref, "wanderers come upon the resting party") or met
            camp(ref, "the party rests by its fire", weather="")
            continue
        if found:
            break
        found, encounter = travel_day(ref, day)
        met = met or encounter
    if not met:
        ref.say("no wanderers crossed the party's path on the moor")
    if not found:
        ref.say(f"the party does not find the barrow; it goes down the stair it saw at {STONES}")
    ref.do(tc.EndJourney())
    return found


def _rest_every(ref: Referee) -> int:
    """Travel days in a row after which the party rests, before exhaustion sets in (tables.rest)."""
    rules = ref.door.table().rules
    rest = rules.part(TravelTables).rest if rules is not None else None
    return rest.rest_every_travel_days if rest is not None else LAST_DAY


def travel_day(ref: Referee, day: int) -> tuple[bool, bool]:
    """One travel day and its night; whether the barrow was found, whether wanderers came."""
    night = day == 2  # noqa: PLR2004 - the lost day: fog, a forced march by night
    if night:
        ref.header("Day 2: fog over the moor")
        ref.say("an autumn fog lies on the moor (the referee sets the weather); the party sets out by night")
        ref.do(tc.RollWeather(weather="fog"))
    else:
        ref.header(f"Day {day}: " + ("the moor road north" if day == 1 else "across the Fenmoor"))
        ref.do(tc.RollWeather())
    demo_castle.morning(ref, first=day == 1)
    here = trip(ref).believed
    route = ("N", "N") if day == 1 else path(_map(ref), here, STONES)
    if not route:
        ref.say("the party is where it means to be; it declares no route")
    demo_castle.road(ref, tc.DeclareRoute(headings=route, night=night))
    if trip(ref).lost:
        ref.say("(the referee knows the party is lost; the players do not)")
    if night:
        ref.say("behind time, the party forces the march")
        demo_castle.road(ref, tc.ForceMarch())
    if route and "move" not in ref.allowed(TRAVEL):
        ref.say("the party cannot go on that way: the map ends there")
    elif route and any(isinstance(e, tev.LostRevealed) for e in demo_castle.road(ref, tc.Move())):
        ref.say("the party knows now that it is lost")
    found = search(ref)
    met = day_s_end(ref, "the encounter procedure takes over; the day resumes when it ends")
    place = _map(ref).hex(trip(ref).hex)
    camp(ref, f"camp in the {place.terrain if place else 'open'}", weather=trip(ref).weather)
    return found, met


def day_s_end(ref: Referee, met_words: str) -> bool:
    """The end of a day of travel or of rest: its wandering check (wanderers met are fled), the party told where it
    is if it is lost, the day's end; whether wanderers came."""
    demo_castle.road(ref, tc.CheckWandering())
    met = trip(ref).encounter
    if met:
        ref.say(met_words)
        ref.flee("wanderers")
    if trip(ref).hex != trip(ref).believed:
        ref.do(tc.RevealLost(reason="at dusk the party sees where it truly is"))
    elif trip(ref).lost:
        ref.do(tc.RevealLost(reason="at dusk the referee tells the party it was lost, though it is where it believes"))
    demo_castle.road(ref, tc.EndDay())
    return met


def _map(ref: Referee) -> MapState:
    found = ref.state(MAP)
    assert found is not None  # noqa: S101 - loaded first
    return found  # type: ignore[no-any-return]


def search(ref: Referee) -> bool:
    """At the stones, search while the points pay for it and nothing is found; whether it was found."""
    place = _map(ref).hex(trip(ref).hex)
    if trip(ref).hex != STONES or place is None:
        return False
    while "search" in ref.allowed(TRAVEL):
        events = demo_castle.road(ref, tc.SearchHex())
        if any(isinstance(e, mev.FINDS) for e in events):
            ref.say("under the tallest stone, a passage leads down")
            return True
        ref.say("nothing yet")
    return False


def camp(ref: Referee, title: str, *, weather: str) -> None:
    """A night in camp: firewood, four watches, the secret night check, any encounter, morning."""
    place = _map(ref).hex(trip(ref).hex)
    rules = ref.door.table().rules
    assert rules is not None  # noqa: S101 - the campaign has begun
    terrain = rules.part(MapTables).odd_row(place.terrain) if place is not None else "clear"
    ref.header(f"Night: {title}")
    ref.do(cc.MakeCamp(weather=weather, terrain=terrain))
    ref.do(cc.GatherFirewood(gatherers=NAMES[2:]))
    ref.do(cc.SetWatches(watches=tuple(f"{n}={name}" for n, name in enumerate(NAMES, start=1))))
    ref.do(cc.CheckNight())
    if "meet" in ref.allowed(CAMP):
        ref.say("something comes out of the dark")
        ref.do(cc.MeetEncounter(name="night prowlers", monster_count=3, intelligent=False))
        ref.say("the party stands by its fire rather than flee into the dark")
        ref.talk_or_fight("prowlers")
    ref.do(cc.BreakCamp())


def delve(ref: Referee, *, found: bool) -> None:
    """Torches, moves, listening, a stuck door forced, a secret door searched for, a wandering monster, out."""
    ref.header("The delve: " + (BARROW if found else "the stair under the stones"))
    ref.do(dc.EnterDungeon(name=BARROW if found else "the stair under the stones", danger=True))
    ref.say("a dangerous place: the referee checks for wanderers every turn, on 1-2")
    torches = list(NAMES[1:])
    seen: list[Event] = []
    listened = door = searched = met = False
    for _ in range(DELVE_TURNS):
        if door and searched and met and any(isinstance(e, dev.LightBurnedOut) for e in seen):
            break
        if met_monster(ref):
            met = True
        elif not ref.state(DUNGEON).lit and torches:
            seen += ref.do(dc.LightSource(kind="torch", by=torches.pop(0)))
        elif ref.state(DUNGEON).moves >= 2 and not listened:  # noqa: PLR2004 - the passage ends at a door
            ref.say("a door of bronze ends the passage; Corvin puts his ear to it")
            seen += ref.do(dc.Listen(by="Corvin", door="the bronze door"))
            listened = True
        elif listened and not door:
            door = force_door(ref, seen)
        elif door and not searched and ref.state(DUNGEON).moves >= 3:  # noqa: PLR2004 - a blank wall beyond
            ref.say("the passage beyond ends in blank stone; the party searches the walls")
            seen += ref.do(dc.Search())
            searched = True
        else:
            seen += ref.do(dc.Move())
    if not met:
        ref.say("no wandering monster came before the party turned back; on the way out, the referee sends one")
        run_from(ref, WANDERERS[0])
    met_monster(ref)
    if not ref.state(DUNGEON).lit and torches:
        ref.do(dc.LightSource(kind="torch", by=torches.pop(0)))
    ref.do(dc.LeaveDungeon(note="back to the daylight"))


def met_monster(ref: Referee) -> bool:
    """Meet the wandering monster if one is due; whether one was. The party runs from the first."""
    delve_state = ref.state(DUNGEON)
    if delve_state is None or not delve_state.monster_due:
        return False
    foes = WANDERERS[delve_state.encounters % len(WANDERERS)]
    ref.say(f"the wandering check says a monster has come: {foes}")
    if not delve_state.encounters:
        run_from(ref, foes)
        return True
    ref.do(dc.Meet(name=f"barrow {foes}", monster_count=3))
    ref.talk_or_fight(foes)
    return True


def run_from(ref: Referee, foes: str) -> None:
    """The first wanderers are too many to fight: the party flees, and the chase runs to its end."""
    ref.say(f"{CHASERS} {foes}, too many to fight and faster than {_heaviest_armor(ref)}: the party will run")
    ref.do(dc.Meet(name=f"barrow {foes}", monster_count=CHASERS, intelligent=False, monster_speed=CHASERS_SPEED))
    ref.flee_underground(foes)


#: armor from the heaviest, as the narration reads it (a joust lost may have taken Aldric's plate)
ARMOR_WEIGHT = ("plate", "chain", "leather")


def _heaviest_armor(ref: Referee) -> str:
    """Who slows the party, as the narration says it: a man in the heaviest armor worn now, if any is worn."""
    worn = {member.armor for member in ref.door.table().party.members}
    heaviest = next((armor for armor in ARMOR_WEIGHT if armor in worn), None)
    return f"a man in {heaviest}" if heaviest is not None else "the party can run"


def force_door(ref: Referee, seen: list[Event]) -> bool:
    """Aldric forces the stuck door, with the crowbar while it lasts; whether it opened."""
    broken = any(isinstance(e, dev.DoorOpened) and e.tool_broke for e in seen)
    ref.say("the door is stuck; Aldric " + ("heaves at it" if broken else "sets his crowbar to it"))
    events = ref.do(dc.OpenDoor(by="Aldric", door="the bronze door", tool="" if broken else "crowbar"))
    seen += events
    opened = any(isinstance(e, dev.DoorOpened) and e.opened for e in events)
    if not opened:
        ref.say("the door holds")
    return opened
