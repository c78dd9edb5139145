"""Ask the rules a question many times: ``hexlog simulate``.

A simulation plays the real procedures through the command handler on the in-memory store, on
committed dice: trial ``i`` of a simulation with seed ``s`` runs in a session of its own whose
secret is ``sha256("hexlog simulate|s|i")``. So a trial's dice depend on the seed and its index
only, and any split of the trials over processes gives the same answer. Nothing here rolls a die
or reads a rule: a trial issues the commands a referee would, and its outcome is read from the
events the procedures recorded.

A question is one ``Scenario``: the procedure's name, the class whose fields are the situation's
parameters (each field becomes an option of ``hexlog simulate NAME``), the commands a trial issues,
and what a trial's events come to (``measure``). Adding a procedure's simulation is one declaration
in ``SCENARIOS``.
"""

from __future__ import annotations

import math
import multiprocessing
import statistics
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import dungeon as dev
from hexlog.events import encounter as eev
from hexlog.events import pursuit as pev
from hexlog.events import travel as tev
from hexlog.events.errors import UsageError
from hexlog.events.session import SessionOpened
from hexlog.machine import commands as c
from hexlog.machine import dungeon as dg
from hexlog.machine import encounter as enc
from hexlog.machine.commands import arg
from hexlog.machine.dungeon.rules import DungeonTables
from hexlog.machine.dungeon.steps import rest_due
from hexlog.machine.encounter import state as encounter_state
from hexlog.machine.encounter.machine import encircles, encircling_at, not_encirclable
from hexlog.machine.encounter.opening import setting_named
from hexlog.machine.encounter.rules import Encirclement, EncounterOptions
from hexlog.machine.evasion import EvasionOptions, EvasionRules
from hexlog.machine.hexmap import LoadMap, grid
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.pursuit import PURSUIT
from hexlog.machine.pursuit import commands as pc
from hexlog.machine.pursuit import steps as pursuit_steps
from hexlog.machine.pursuit.state import PursuitState
from hexlog.machine.text import counted
from hexlog.machine.travel import commands as t
from hexlog.machine.travel.rules import ChanceSource, TerrainChances, TravelTables
from hexlog.machine.travel.state import Member
from hexlog.service.simulation_camp import CAMP
from hexlog.service.simulation_castle import CASTLE_SCENARIO
from hexlog.service.simulation_chase import CHASE_SCENARIO
from hexlog.service.simulation_kit import (
    CAMPAIGN,
    EVASION_PARTS,
    MAX_FLIGHTS,
    NEVER_EVADES,
    PARTY,
    PURSUIT_STEPS,
    Outcome,
    Play,
    Scenario,
    handler_for,
    secret_for,
)

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.ruleset import Ruleset

#: the chance outside a rate's confidence interval
ALPHA = 0.05
Z = 1.959963984540054
PERCENTILES = (5, 25, 50, 75, 95)
#: a number with more distinct values than this is shown by percentiles only
MAX_SHOWN_VALUES = 24
#: the longest trial asked of a simulation: a year of travel days, ten days of dungeon turns (a trial is held whole)
MAX_DAYS, MAX_TURNS = 366, 1440

#: the dungeon encounter the benchmark plays (eight commands)
BENCH_ENCOUNTER: tuple[c.Command, ...] = (
    enc.StartEncounter(monster_count=3, party_aware=True),
    enc.CheckSurprise(),
    enc.DetermineDistance(),
    enc.RollInitiative(),
    enc.RollReaction(speaker="Ann"),
    enc.Fight(),
    enc.PlayRound(),
    enc.ConcludeEncounter(outcome="slain"),
)


# -- the scenarios --------------------------------------------------------------------------------


def _encounter_trial(play: Play, situation: enc.StartEncounter) -> None:
    play.run(situation)
    play.finish_encounter()


#: a party surprised in the open by at least the rules' number of monsters is encircled (§2.2, §4.5): how often an
#: encounter in the open starts with the party encircled, of every trial (the number of monsters is the situation's:
#: given too few, no trial measures it, and a note says why)
ENCIRCLED = "encircled"
#: where the rules leave it to the referee (option ``encirclement = "referee"``, §2.2 "may"), a trial makes no call:
#: how often an encounter in the open starts with the party surprised by enough monsters that the referee may
#: encircle it, of every trial
MAY_BE_ENCIRCLED = "may be encircled (the referee's call)"
#: the side that acts first: the one surprise gives the advantage (a free round under OSE, the segments the other
#: loses under AD&D, a free action under explore), else initiative's winner, so that it means one thing whatever
#: the rules
FIRST_TO_ACT = "first to act"


def _encircling(situation: enc.StartEncounter, rules: Ruleset) -> int:
    """The number of monsters that encircle a party surprised in the situation (0: the rules encircle nobody, or not
    in its setting), as the encounter asks it (``machine.encircling_at``) of the setting its start names."""
    return encircling_at(rules.part(EncounterOptions), setting_named(rules, situation.setting))


def _encounter_measure(events: Sequence[Event], situation: enc.StartEncounter, rules: Ruleset) -> Outcome:
    """The encounter's outcome; encirclement, of every trial, only where the situation lets the rules encircle its
    party (OSE, seed 004, in the open, by enough monsters; AD&D never does, and a rate of 0 there would read as a
    chance the monsters never took), and where the referee makes that call (option ``encirclement = "referee"``)
    how often the call is the referee's to make."""
    out: Outcome = {}
    options = rules.part(EncounterOptions)
    if encircles(options, setting_named(rules, situation.setting), situation.monster_count):
        referee = options.encirclement is Encirclement.REFEREE
        out[MAY_BE_ENCIRCLED if referee else ENCIRCLED] = False
    state: encounter_state.EncounterState | None = None
    for event in events:
        state = encounter_state.evolve(state, event)
        if isinstance(event, eev.SurpriseChecked):
            out["party surprised"] = event.party_surprised
            out["monsters surprised"] = event.monsters_surprised
            if MAY_BE_ENCIRCLED in out and state is not None:  # whether the procedure lets the referee encircle now
                out[MAY_BE_ENCIRCLED] = not_encirclable(state, options, rules.name) is None
            if event.advantage is not eev.Advantage.NONE:
                out[FIRST_TO_ACT] = str(event.advantage)
        elif isinstance(event, eev.PartySurrounded):
            out[ENCIRCLED] = True
        elif isinstance(event, eev.DistanceDetermined):
            out[distance_name(str(event.unit))] = event.value
        elif isinstance(event, eev.InitiativeRolled):
            out.setdefault(FIRST_TO_ACT, str(event.first))
        elif isinstance(event, eev.ReactionRolled) and "reaction" not in out:
            out["reaction"] = str(event.result)
    return out


def _encounter_notes(situation: enc.StartEncounter, rules: Ruleset) -> tuple[str, ...]:
    """What the number of monsters decides of encirclement, which no trial's dice do."""
    at_least = _encircling(situation, rules)
    if not at_least:
        return ()
    many = counted(situation.monster_count, "monster")
    if situation.monster_count < at_least:
        return (f"{many} cannot encircle a party (at least {at_least} can): no trial measures encirclement",)
    if rules.part(EncounterOptions).encirclement is Encirclement.REFEREE:
        call = f"{many} (at least {at_least}) may encircle a party they surprise in the open, at the referee's call"
        return (f"{call}: '{MAY_BE_ENCIRCLED}' is how often they surprise it",)
    return (f"{many} (at least {at_least}) encircle a party they surprise in the open: '{ENCIRCLED}' is how often",)


@attrs.frozen(kw_only=True)
class Journey:
    """A journey's situation: the terrain all around, the season and weather, how far and how long."""

    terrain: str = arg("meadow", help="the terrain of every hex (a row of the ruleset's terrain table)")
    days: int = arg(7, help="travel days per trial", least=1, most=MAX_DAYS)
    season: str = arg("summer", help="spring, summer, autumn or winter")
    weather: str = arg("", help="the weather every day instead of a roll (a key of tables.weather_flags)")
    mounted: bool = arg(False, help="the party rides")  # noqa: FBT003 - a default
    road: bool = arg(False, help="a road runs through every hex")  # noqa: FBT003 - a default
    night: bool = arg(False, help="the party travels in darkness")  # noqa: FBT003 - a default


#: the journey's map: SIZE x SIZE hexes of one terrain, the party setting out from the middle
SIZE = 41
CENTRE = grid.name(SIZE // 2, SIZE // 2)


def _map_text(journey: Journey) -> str:
    lines = []
    for col in range(SIZE):
        for row in range(SIZE):
            lines += [f'[hex."{col},{row}"]', f'terrain = "{journey.terrain}"']
            if journey.road:
                lines.append("road = true")
    return "\n".join(lines) + "\n"


def prepare_journey(play: Play, journey: Journey) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "simulate.toml"
        path.write_text(_map_text(journey), encoding="utf-8")
        play.run(LoadMap(file=str(path)))


def _towards_centre(here: str, length: int) -> tuple[str, ...]:
    """``length`` headings, each to the neighbour nearest the map's middle (the party paces around it)."""
    headings = []
    for _ in range(length):
        steps = []
        for heading in grid.HEADINGS:
            there = grid.neighbour(here, heading)
            if there is not None and max(grid.parse(there)) < SIZE:
                col, row = grid.parse(there)
                steps.append(((col - SIZE // 2) ** 2 + (row - SIZE // 2) ** 2 + 1, heading, there))
        _, heading, here = min(steps)
        headings.append(heading)
    return tuple(headings)


def travel_day(play: Play, journey: Journey) -> None:
    """One travel day (a rest day first when one is owed, which ends with its own wandering check): weather, route,
    moves, the check, the end of the day."""
    trip = play.state("travel")
    if any(m.exhaustion or m.owed or m.travel_days >= _travel_days_before_rest(play) for m in trip.members.values()):
        play.run(t.RestDay())
        _day_s_end(play)
    play.run(t.RollWeather(weather=journey.weather))
    believed = play.state("travel").believed
    away = _towards_centre(believed, 1)[0] if believed == CENTRE else None
    headings = (away, *_towards_centre(grid.neighbour(believed, away) or believed, 3)) if away else None
    play.run(t.DeclareRoute(headings=headings or _towards_centre(believed, 4), night=journey.night))
    if "move" in play.allowed("travel"):
        play.run(t.Move())
    _day_s_end(play)


def _day_s_end(play: Play) -> None:
    """The end of a day of travel or rest: the wandering check (its encounter played out), the party told where it is
    if it is lost, the day's end."""
    play.run(t.CheckWandering())
    if play.handler.load(play.campaign).handoffs:
        play.finish_encounter()
    if "reveal_lost" in play.allowed("travel"):
        play.run(t.RevealLost(reason="the landmarks are wrong"))
    play.run(t.EndDay())


def _travel_days_before_rest(play: Play) -> float:
    """The travel days a party may make before it rests, as the rules in force read it (``tables.rest``): a trial's
    party rests when the rules owe it, never sooner or later (no rest table: it never needs one)."""
    rules = play.handler.load(play.campaign).rules
    rest = rules.part(TravelTables).rest if rules is not None else None
    return math.inf if rest is None else rest.rest_every_travel_days


def _journey_trial(play: Play, journey: Journey) -> None:
    play.run(t.StartJourney(hex=CENTRE, season=journey.season, mounted=journey.mounted))
    for _ in range(journey.days):
        travel_day(play, journey)
    play.run(t.EndJourney())


def _journey_reset(play: Play, _: Journey) -> None:
    """A rest day where the last journey left the party owing one (days travelled, exhaustion, a forced march):
    every journey sets out as rested as the first, so the rest days one owes are its own."""
    trip = play.state("travel")
    if trip is None or all(member == Member() for member in trip.members.values()):
        return
    play.run(t.RestDay())  # after the journey (a trial ends it): the clock runs on to the next day, with no check


#: how often the party is lost on the first travel day: the chance of any one day, as the terrain and weather set it
LOST_ON_DAY_1 = "lost on the first day"


def _journey_unheeded(journey: Journey, _: Ruleset) -> dict[str, str]:
    """``--season`` with ``--weather``: the season is read for the column of the day's weather roll alone, and a
    weather given every day rolls none."""
    if not journey.weather or journey.season == attrs.fields(Journey).season.default:
        return {}
    return {
        "season": f"it picks the column of the day's weather roll, and --weather {journey.weather} sets every day's"
    }


def _journey_measure(events: Sequence[Event], *_: Any) -> Outcome:
    days = [e for e in events if isinstance(e, tev.LostChecked)]
    wandering = [e for e in events if isinstance(e, tev.WanderingChecked)]
    return {
        "days lost": sum(e.lost for e in days),
        LOST_ON_DAY_1: None if not days else days[0].lost,
        "ever lost": any(e.lost for e in days),
        "encounters": sum(e.encounter for e in wandering),
        "hexes travelled": sum(e.hexes for e in events if isinstance(e, tev.DayEnded)),
        "rest days": sum(isinstance(e, tev.Rested) for e in events),
    }


@attrs.frozen(kw_only=True)
class Delve:
    """A delve's situation: how many turns the party explores, and how often wandering monsters are checked."""

    turns: int = arg(36, help="dungeon turns of movement per trial", least=1, most=MAX_TURNS)
    danger: bool = arg(False, help="a dangerous place: wandering checks at the rules' danger values")  # noqa: FBT003 - a default
    every_turns: int | None = arg(None, help="check for wandering monsters every N turns (overrides)", least=1)
    wandering_on: tuple[int, ...] = arg((), help="a d6 face that brings a wandering monster (repeat; overrides)")


def _delve_unheeded(delve: Delve, _: Ruleset) -> dict[str, str]:
    """``--danger`` with both ``--every-turns`` and ``--wandering-on``: a dangerous place sets how often and on which
    faces the wandering checks come, and the two given set both."""
    if delve.danger and delve.every_turns is not None and delve.wandering_on:
        return {
            "danger": "it sets how often and on which faces the wandering checks come: --every-turns and "
            "--wandering-on set both"
        }
    return {}


def _delve_trial(play: Play, delve: Delve) -> None:
    play.run(dg.EnterDungeon(danger=delve.danger, every_turns=delve.every_turns, wandering_on=delve.wandering_on))
    play.run(dg.LightSource(kind="lantern", by="Bo"))
    moved = 0
    while moved < delve.turns:
        state, table = play.state("dungeon"), play.handler.load(play.campaign)
        if state.monster_due:
            play.run(dg.Meet(monster_count=2))
            play.finish_encounter()
            continue
        lantern = state.light_of("Bo")
        if lantern is not None and not lantern.lit:
            play.run(dg.RefillLantern(by="Bo"))
        assert table.rules is not None  # noqa: S101 - the campaign has begun
        turn_seconds = table.rules.part(ClockOptions).turn_seconds
        dungeon = table.rules.part(DungeonTables).dungeon
        rest_turns = dungeon.rest_turns_per_hour if dungeon is not None else 0
        if rest_due(state, table.clock.seconds, turn_seconds, rest_turns):  # the rules' rest, when they owe it
            play.run(dg.Rest())
            continue
        play.run(dg.Move())
        moved += 1
    if play.state("dungeon").monster_due:
        play.run(dg.Meet(monster_count=2))
        play.finish_encounter()
    play.run(dg.LeaveDungeon())


def _delve_measure(events: Sequence[Event], *_: Any) -> Outcome:
    checks = [e for e in events if isinstance(e, dev.WanderingChecked)]
    met = sum(isinstance(e, eev.EncounterStarted) for e in events)
    return {
        "wandering monsters met": met,
        "any wandering monster": met > 0,
        "checks": len(checks),
        "lantern refills": sum(isinstance(e, dev.LanternRefilled) for e in events),
    }


@attrs.frozen(kw_only=True)
class Chase(pc.StartPursuit):
    """A pursuit's situation: the facts it starts with (every option of ``hexlog pursuit start``), and how long an
    OSE party keeps fleeing pursuers that are not faster before it stops."""

    give_up_after: int = arg(
        30, help="OSE: the party stops (and is caught) after this many days of flight without evading", least=1
    )

    @property
    def start(self) -> pc.StartPursuit:
        """The command that starts the pursuit."""
        return pc.StartPursuit(**{f.name: getattr(self, f.name) for f in attrs.fields(pc.StartPursuit)})


def _pursuit_trial(play: Play, chase: Chase) -> None:
    """Start the pursuit and play it to its end; a caught party's encounter is played through, and an OSE party
    that has fled ``give_up_after`` days stops."""
    play.run(chase.start)
    while play.state(PURSUIT.name).phase not in PURSUIT.final:
        if play.handler.load(play.campaign).handoffs:
            play.finish_encounter()
            continue
        allowed, fled = play.allowed(PURSUIT.name), play.state(PURSUIT.name).hexes_fled
        if fled > MAX_FLIGHTS:
            msg = f"the pursuit has not ended after {MAX_FLIGHTS} flights: the rules in force never end it"
            raise UsageError(msg)
        if "stop" in allowed and fled >= chase.give_up_after:
            play.run(pc.Stop(note="the party gives up the flight"))
            continue
        play.run(next(step for trigger, step in PURSUIT_STEPS.items() if trigger in allowed))


#: whose evasion each reading is
EVASIONS = {EvasionRules.ODD: "seed 004's", EvasionRules.OSE: "OSE's"}


def _chase_unheeded(chase: Chase, rules: Ruleset) -> dict[str, str]:
    """The options of a chase its rules never read: ``--give-up-after`` where the rules never stop a flight (only
    OSE's reading lets the party stop, §2.9); ``--magic`` but under seed 004's evasion (§4.13), ``--referee-pct`` but
    under OSE's (§2.9), and either where the party is not surprised at the first roll, the only one they count for
    (both sides surprised is neither; an evasion already failed has no first roll); ``--terrain`` and ``--castle``
    where the pursuit reads nothing of them (``_chase_facts_unheeded``)."""
    reading = rules.part(EvasionOptions).evasion_rules
    out: dict[str, str] = _chase_facts_unheeded(chase, rules)
    if reading is not EvasionRules.OSE and chase.give_up_after != attrs.fields(Chase).give_up_after.default:
        out["give_up_after"] = (
            f"only OSE's pursuit (options.evasion_rules = ose) lets the party stop; {rules.name}'s is {reading}"
        )
    surprised = chase.party_surprised and not chase.pursuers_surprised and not chase.evasion_failed
    for name, given, reads in (
        ("magic", chase.magic, EvasionRules.ODD),
        ("referee_pct", chase.referee_pct, EvasionRules.OSE),
    ):
        if not given:
            continue
        if reading is not reads:
            out[name] = (
                f"only {EVASIONS[reads]} evasion (options.evasion_rules = {reads}) reads it; {rules.name}'s is "
                f"{reading}"
            )
        elif not surprised:
            out[name] = "it counts only for a party surprised (--party-surprised alone) at its first evasion roll"
    return out


def _chase_facts_unheeded(chase: Chase, rules: Ruleset) -> dict[str, str]:
    """``--terrain`` where the pursuit the chase starts reads the same of it as of clear terrain (its default), and
    ``--castle`` where the pursuers are not faster than the party: a castle force is asked whether it keeps up the
    pursuit only after a catch roll it missed, and only faster pursuers roll to catch (§4.14). Both are the
    pursuit's own answers (``steps.terrain_reads``, the facts' ``pursuers_faster``) for the facts it starts with;
    facts the pursuit refuses (an unknown terrain, a castle under OSE) are left to its refusal, naming them."""
    if not chase.terrain and not chase.castle:
        return {}
    speeds = [member.speed for member in PARTY if isinstance(member, c.AddMember)]
    try:
        facts = pursuit_steps.started(
            rules,
            chase.start,
            speeds,
            number=1,
            terrain=pursuit_steps.terrain_row(rules, chase.terrain),
        )
        facts = attrs.evolve(facts, ground=pursuit_steps.ground_given(rules, chase.terrain))
    except UsageError:
        return {}
    out: dict[str, str] = {}
    clear = attrs.evolve(facts, terrain=pursuit_steps.terrain_row(rules, ""), ground="")
    if chase.terrain and pursuit_steps.terrain_reads(rules, facts) == pursuit_steps.terrain_reads(rules, clear):
        out["terrain"] = (
            f"the pursuit under {rules.name} reads nothing of {chase.terrain} it does not of clear terrain (the "
            "default): not the evasion chance, the catch roll (faster pursuers only) nor the rest's encounters"
        )
    if chase.castle and not PursuitState(started=facts).pursuers_faster:
        out["castle"] = (
            "a castle force decides whether it keeps up the pursuit only after a catch roll it missed, and only "
            f"pursuers faster than the party roll one (pursuers {facts.pursuers_speed}, party {facts.party_speed})"
        )
    return out


#: what one flight is under each reading: seed 004 flees hex by hex (§4.14), OSE day by day (§2.9)
FLIGHTS = {EvasionRules.ODD: "hexes fled", EvasionRules.OSE: "days of flight"}


def _pursuit_unread_under(rules: Ruleset) -> dict[tuple[str, str], str]:
    """The chances of an encounter by terrain, which the pursuit reads only for the rest after an escape: unread
    under rules that owe none (OSE's pursuit; ``pursuit.steps.rest_owed``)."""
    if pursuit_steps.rest_owed(rules):
        return {}
    why = (
        f"the rest after an escape, which the pursuit under {rules.name} does not owe "
        "(tables.wilderness_pursuit.rest_days_per_hex = 0)"
    )
    return {(ChanceSource.section, "lost_encounter_source"): why, (TerrainChances.section, "lost_encounter"): why}


def _pursuit_measure(events: Sequence[Event], _: Any, rules: Ruleset) -> Outcome:
    """The pursuit's end, named in the words of the rules in force: the flights are hexes under seed 004 and days
    under OSE, and the rest after an escape (and its encounters) is measured only where the rules owe one."""
    ended = next(e for e in events if isinstance(e, pev.PursuitEnded))
    rested = next((e for e in events if isinstance(e, pev.PursuitRested)), None)
    out: Outcome = {
        "evaded at once": ended.outcome == "escaped" and ended.hexes_fled == 0,
        "escaped": ended.outcome == "escaped",
        "caught": ended.outcome == "caught",
    }
    reading = EvasionRules(next(e for e in events if isinstance(e, pev.PursuitStarted)).rules)
    if reading is EvasionRules.OSE:
        out["stopped"] = any(isinstance(e, pev.PursuitStopped) for e in events)
    out[FLIGHTS[reading]] = ended.hexes_fled
    if pursuit_steps.rest_owed(rules):
        out |= {
            "rest owed (half-days)": None if rested is None else 2 * rested.days,
            "encounters while resting": None if rested is None else rested.encounters,
        }
    return out


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            name="encounter",
            unreached=EVASION_PARTS,
            unreached_why=NEVER_EVADES,
            title=(
                "Start encounters in a situation and play surprise (and, surprised in the open, encirclement by "
                "enough monsters), distance, initiative and reaction (spoken by Ann, CHA 13, unless the party is "
                "held in the first round by surprise: then nobody speaks)."
            ),
            ruleset="ose",
            situation=enc.StartEncounter,
            trial=_encounter_trial,
            measure=_encounter_measure,
            unread=("monster_speed",),
            notes=_encounter_notes,
        ),
        Scenario(
            name="travel",
            unreached=EVASION_PARTS,
            unreached_why=NEVER_EVADES,
            procedures=("campaign", "travel", "map", "encounter"),
            title=(
                "Travel for some days through one terrain: days lost, encounters at the day's check (not the "
                "night's), hexes covered, rest days."
            ),
            ruleset="explore",
            situation=Journey,
            trial=_journey_trial,
            measure=_journey_measure,
            prepare=prepare_journey,
            reset=_journey_reset,
            unheeded=_journey_unheeded,
        ),
        Scenario(
            name="dungeon",
            unreached=EVASION_PARTS,
            unreached_why=NEVER_EVADES,
            procedures=("campaign", "dungeon", "encounter"),
            title="Explore a dungeon for some turns: wandering monsters met, checks made, lantern refills.",
            ruleset="explore",
            situation=Delve,
            trial=_delve_trial,
            unheeded=_delve_unheeded,
            measure=_delve_measure,
        ),
        Scenario(
            name="pursuit",
            procedures=("campaign", "pursuit", "map", "encounter"),
            title=(
                "Flee a wilderness pursuit from its start: evaded at once, escaped or caught, hexes fled (OSE: days of "
                "flight), the rest owed where the rules owe one."
            ),
            ruleset="explore",
            situation=Chase,
            trial=_pursuit_trial,
            measure=_pursuit_measure,
            unheeded=_chase_unheeded,
            unread_under=_pursuit_unread_under,
            # a trial's pursuit follows no encounter: one named would be refused; whether the pursuers are intelligent
            # is read only by the encounter of a caught party, which no measure reads (the pursuit ends caught)
            unread=("encounter", "intelligent"),
        ),
        CAMP,
        CHASE_SCENARIO,
        CASTLE_SCENARIO,
    )
}


# -- running --------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Question:
    """What to simulate: a scenario's situation under a ruleset (and house rules)."""

    scenario: str
    situation: Any
    ruleset: str
    overrides: Mapping[str, Any] = attrs.field(factory=dict)
    seed: int = 1


def trials(question: Question, indices: Sequence[int]) -> list[Outcome]:
    """The outcomes of the trials ``indices`` of ``question``, played on one campaign in turn."""
    scenario = SCENARIOS[question.scenario]
    play = Play(handler_for(question.ruleset, CAMPAIGN, question.overrides))
    rules = play.handler.load(play.campaign).rules
    assert rules is not None  # noqa: S101 - the campaign has begun
    if scenario.prepare is not None:
        scenario.prepare(play, question.situation)
    out = []
    for index in indices:
        if scenario.reset is not None:
            scenario.reset(play, question.situation)
        play.run(c.CloseSession())
        play.events = []
        play.run(c.OpenSession(secret_hex=secret_for(question.seed, index)))
        scenario.trial(play, question.situation)
        events = [e for e in play.events if not isinstance(e, SessionOpened)]
        out.append(scenario.measure(events, question.situation, rules))
    return out


def _chunk(job: tuple[Question, list[int]]) -> list[Outcome]:
    return trials(*job)


def chunks(n: int, size: int) -> Iterator[list[int]]:
    """The trial indices 0 to n - 1 in runs of ``size``."""
    for start in range(0, n, size):
        yield list(range(start, min(n, start + size)))


def simulate(
    question: Question, n: int, jobs: int = 1, progress: Callable[[int], None] = lambda _: None
) -> list[Outcome]:
    """The outcomes of ``n`` trials in index order, on ``jobs`` processes; ``progress`` hears each chunk's size."""
    size = max(1, min(200, n // (jobs * 8) or 1))
    work = [(question, indices) for indices in chunks(n, size)]
    out: list[Outcome] = []
    if jobs <= 1:
        for job in work:
            out.extend(_chunk(job))
            progress(len(job[1]))
        return out
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for done in pool.imap(_chunk, work):
            out.extend(done)
            progress(len(done))
    return out


# -- summaries ------------------------------------------------------------------------------------


def wilson(hits: int, n: int, z: float = Z) -> tuple[float, float]:
    """The Wilson score interval of a rate (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # at 0 or n hits the bound is 0 or 1 exactly (the float sum would fall just short, outside its own rate)
    low = 0.0 if hits == 0 else max(0.0, centre - half)
    return low, 1.0 if hits == n else min(1.0, centre + half)


@attrs.frozen(kw_only=True)
class Rate:
    """How often a flag held (or a category came up), with its confidence interval."""

    label: str
    hits: int
    n: int

    @property
    def rate(self) -> float:
        """The observed rate."""
        return self.hits / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95 % Wilson interval."""
        return wilson(self.hits, self.n)


@attrs.frozen(kw_only=True)
class Measure:
    """One measure over every trial that reached it."""

    name: str
    kind: str  # "rate", "number" or "category"
    n: int
    rates: tuple[Rate, ...] = ()
    mean: float = 0.0
    stdev: float = 0.0
    percentiles: dict[int, float] = attrs.field(factory=dict)
    #: each value (a number's, when few) and how many trials gave it
    counts: dict[str, int] = attrs.field(factory=dict)

    def as_json(self) -> dict[str, Any]:
        """The measure for ``--json``."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "n": self.n}
        if self.rates:
            out["rates"] = {r.label: {"hits": r.hits, "rate": r.rate, "ci95": list(r.interval)} for r in self.rates}
        if self.kind == "number":
            out |= {
                "mean": self.mean,
                "stdev": self.stdev,
                "percentiles": {str(k): v for k, v in self.percentiles.items()},
            }
        if self.counts:
            out["counts"] = self.counts
        return out


def _percentile(ordered: Sequence[float], p: int) -> float:
    """The ``p``th percentile (nearest rank)."""
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return float(ordered[rank - 1])


def summarise(outcomes: Sequence[Outcome]) -> list[Measure]:
    """Every measure of the trials, in the order they first appear."""
    names: dict[str, None] = {}
    for outcome in outcomes:
        names.update(dict.fromkeys(outcome))
    out = []
    for name in names:
        values = [o[name] for o in outcomes if o.get(name) is not None]
        if not values:
            continue
        if all(isinstance(v, bool) for v in values):
            out.append(
                Measure(
                    name=name,
                    kind="rate",
                    n=len(values),
                    rates=(Rate(label="yes", hits=sum(map(bool, values)), n=len(values)),),
                )
            )
        elif all(isinstance(v, int | float) for v in values):
            numbers = sorted(float(v) for v in values)  # type: ignore[arg-type]
            counted = Counter(values)
            counts = {_number(v): counted[v] for v in sorted(counted)} if len(counted) <= MAX_SHOWN_VALUES else {}  # type: ignore[type-var]
            out.append(
                Measure(
                    name=name,
                    kind="number",
                    n=len(values),
                    mean=statistics.fmean(numbers),
                    stdev=statistics.pstdev(numbers),
                    percentiles={p: _percentile(numbers, p) for p in PERCENTILES},
                    counts=counts,
                )
            )
        else:
            named = Counter(str(v) for v in values)
            rates = tuple(Rate(label=k, hits=v, n=len(values)) for k, v in named.most_common())
            out.append(
                Measure(name=name, kind="category", n=len(values), rates=rates, counts=dict(named.most_common()))
            )
    return out


#: a distance's unit in feet: a measure named ``distance (UNIT)`` is in one of these
FEET_PER_UNIT = {"ft": 1, "yd": 3}


def distance_name(unit: str) -> str:
    """The name of the measure of an encounter's distance in ``unit``."""
    return f"distance ({unit})"


def in_common_units(sides: Sequence[Sequence[Outcome]]) -> list[list[Outcome]]:
    """Each side's outcomes with their distances in one unit: where the sides' rules measure it in different units
    (OSE's wilderness in yards, AD&D's outdoors in feet), every distance in feet, so that ``compare`` sets the two
    side by side; else as they are."""
    units = {unit for outcomes in sides for o in outcomes for unit in FEET_PER_UNIT if distance_name(unit) in o}
    if len(units) < 2:  # noqa: PLR2004 - two units to reconcile
        return [list(outcomes) for outcomes in sides]
    feet = distance_name("ft")

    def converted(outcome: Outcome) -> Outcome:
        out: Outcome = {}
        for name, value in outcome.items():
            unit = next((u for u in FEET_PER_UNIT if name == distance_name(u)), None)
            if unit is None:
                out[name] = value
            else:
                out[feet] = value * FEET_PER_UNIT[unit] if isinstance(value, int | float) else value
        return out

    return [[converted(o) for o in outcomes] for outcomes in sides]


def _number(value: Any) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
