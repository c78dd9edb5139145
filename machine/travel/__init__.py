"""The wilderness travel day (seed 004, REFERENCE §4.5-4.12, §4.16): weather, route, the secret lost
check, travel points spent hex by hex, searching, forced march, the wandering check at the day's end
(handing an encounter to the encounter procedure), rest days and exhaustion.

``TRAVEL`` declares it for the kit: the transition table and its conditions (``machine``), the
folded state (``state``), the commands, the steps (``day``, ``moves``), the typed rules, the pure
terrain rules (``terrain``) and exhaustion, a modifier source on every roll made for an exhausted
member or the party, and a due check that counts a full day without a journey, a delve, a pursuit or a chase as
a rest day (``exhaustion``). It comes right after the campaign in the registry, so its modifier is the first
applied and its due check the first run.
"""

from __future__ import annotations

from hexlog.events import hexmap as mapev
from hexlog.events import travel as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.machine.hexmap.rules import TerrainOptions
from hexlog.machine.kit.procedure import DueCheck, Procedure, Resume
from hexlog.machine.travel import commands as c
from hexlog.machine.travel import day, exhaustion, moves
from hexlog.machine.travel.inverse import INVERSE, guard
from hexlog.machine.travel.machine import TRANSITIONS, TravelModel, unavailable
from hexlog.machine.travel.rules import (
    ChanceSource,
    TerrainChances,
    TravelOptions,
    TravelTables,
    WildernessOptions,
    WildernessTables,
)
from hexlog.machine.travel.state import PROCEDURE, READS, Phase, TravelState, evolve

#: what the rule texts leave open about rest and exhaustion, and what the journey does instead
LIMIT_AFTER_THE_JOURNEY = (
    "what the party does once its journey has ended: a full day of game time with no journey under way counts "
    "as its rest day (exhaustion, an owed rest and the travel days counted are cleared) when no delve, pursuit or "
    "chase was under way in it, whenever it began (a day in a dungeon, fleeing or chasing is no rest: the day is "
    "counted afresh from its end; a night in camp, a castle's visit or an encounter alone does not break it); "
    "travel rest gives one at once, refused while a delve, pursuit or chase is under way, with no wandering check "
    "at its end (the journey is over: a rest day during one ends with the day's check, as a travel day does, and "
    "its rest is recorded at its end, none when its check met a pursuit or a chase, or a delve went on in it). A "
    "journey ended before travel.ended version 3 lets any full day count, as its release did."
)
LIMIT_FLIGHT_BEARINGS = (
    "whether a party that flees during a journey knows which way it ran: the heading is the referee's secret, so "
    "the hex it believes it is in stays where it was, and the journey counts the hexes it fled since it last knew "
    "where it was (shown to the players too: it may be that far off); travel reveal-lost tells it where it is, "
    "and so does the journey's end, which names the hex it ends in. "
    "Told the heading (pursuit flee --told), its belief moves that way, keeping to its hex where the map ends."
)
LIMIT_ROLLS_REACHED = (
    "exhaustion on all rolls: it reaches every roll made for the party or a member (the lost check, a search, "
    "surprise and initiative, a joust, an evasion on water, the wilderness evasion of an encounter or a pursuit, "
    "firewood, a delve's doors and secret doors, a free roll --for), always against them; the pursuit's other dice "
    "are not the party's and do not carry it: the flight's heading, the pursuers' catch, a castle force's keeping "
    "up the pursuit and the rest's encounter checks are made for nobody."
)
TRAVEL = Procedure(
    name=PROCEDURE,
    unavailable=unavailable,
    title="The wilderness travel day: weather, route, lost check, moves, search, wandering check, rest.",
    steps={
        c.StartJourney: day.start,
        c.RollWeather: day.weather,
        c.RollWeatherPastCamp: day.weather,
        c.RollWeatherUntimed: day.weather,
        c.DeclareRoute: day.route,
        c.DeclareRouteHeadingWhenLost: day.route_heading_when_lost,
        c.DeclareRouteRoadNeverLost: day.route_road_never_lost,
        c.Move: moves.move,
        c.MoveOneHex: moves.move_one_hex,
        c.MoveOneHexTrueCost: moves.move_one_hex,
        c.SearchHex: moves.search,
        c.SearchRoll: moves.search_roll,
        c.SearchRollHexDice: moves.search_roll,
        c.SearchRollOpenFinds: moves.search_roll,
        c.ForceMarch: moves.forced_march,
        c.RevealLost: day.reveal_lost,
        c.CheckWandering: day.check,
        c.CheckWanderingTrueHex: day.check_true_hex,
        c.CheckWanderingAfloatOnLand: day.check_afloat_on_land,
        c.CheckWanderingOneAfloat: day.check_one_afloat,
        c.EndDay: day.end_day,
        c.RestDay: day.rest,
        c.RestDayWhileExerting: day.rest,
        c.RestDayPastCamp: day.rest,
        c.RestDayWithoutCheck: day.rest,
        c.RestDayRestedAtStart: day.rest,
        c.EndJourney: day.finish,
    },
    triggers=c.TRIGGERS,
    phases=Phase,
    transitions=TRANSITIONS,
    initial=Phase.IDLE,
    final=frozenset({Phase.ENDED}),
    model=TravelModel,
    fold=evolve,
    reads=READS,
    state_type=TravelState,
    rules=(
        TravelOptions,
        TravelTables,
        ChanceSource,
        WildernessOptions,
        TerrainChances,
        WildernessTables,
        TerrainOptions,
    ),
    purposes=("travel.weather", "travel.lost", "travel.search", "travel.wandering"),
    inverse=INVERSE,
    guards=(guard,),
    internal=c.INTERNAL,
    modifiers=(exhaustion.modifiers,),
    due_checks=(DueCheck(name="rest", run=exhaustion.rest_on_the_clock, records=(ev.ExhaustionChanged, ev.Rested)),),
    resume=Resume(trigger="resume", step=day.resumed),
    limits=(LIMIT_AFTER_THE_JOURNEY, LIMIT_FLIGHT_BEARINGS, LIMIT_ROLLS_REACHED),
    needs_party="a journey is under way; end it first",
    events=(
        ev.JourneyStarted,
        ev.DayStarted,
        ev.ExhaustionChanged,
        ev.RouteDeclared,
        ev.LostChecked,
        ev.ForcedMarch,
        ev.Moved,
        ev.TruePosition,
        ev.LostRevealed,
        ev.Searched,
        ev.SearchRolled,
        mapev.FeatureFound,
        mapev.FeatureFoundLost,
        mapev.FeatureTold,
        mapev.FeatureLocated,
        ev.WanderingChecked,
        ev.DayEnded,
        ev.Rested,
        ev.JourneyEnded,
        ClockAdvanced,
    ),
)

__all__ = ["PROCEDURE", "TRANSITIONS", "TRAVEL", "Phase", "TravelState"]
