"""``hexlog simulate camp``: nights in camp (seed 004 §4.16), asked many times.

A trial makes camp for some nights in one terrain and weather. The party, four with two more members than the
kit's (``CAMPERS``), gathers firewood (or not) and stands the rules' watches in turn, one member a watch; the
referee makes the night's secret wandering checks; an encounter the die calls is met in the dark and played
through (it ends resolved: no trial flees it); the camp is broken in the morning. What the nights come to is read
from the events the camp recorded: how often it is met, in which watch, whether the fire still burns then, whom it
catches unawares, and who sleeps too little to heal and memorise spells.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events import camp as ev
from hexlog.machine import camp
from hexlog.machine import commands as c
from hexlog.machine.camp.machine import checks_owed
from hexlog.machine.camp.rules import CampTables
from hexlog.machine.commands import arg
from hexlog.machine.travel.rules import WildernessOptions
from hexlog.service.simulation_kit import EVASION_PARTS, NEVER_EVADES, PARTY, Scenario

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.base import Event
    from hexlog.machine.ruleset import Ruleset
    from hexlog.service.simulation_kit import Outcome, Play

#: the most nights a trial camps (a trial is held whole)
MAX_NIGHTS = 366
#: the members who join the kit's party of two in camp, so that each of the rules' four watches has its own guard
CAMPERS = (c.AddMember(name="Cal"), c.AddMember(name="Dee"))
#: the names of the party's members, in the order they stand the watches and gather firewood
MEMBERS = tuple(member.name for member in (*PARTY, *CAMPERS) if isinstance(member, c.AddMember))


@attrs.frozen(kw_only=True)
class Night:
    """A camp's situation: where and in what weather the party camps, how many gather firewood, and for how long."""

    terrain: str = arg(
        "woods",
        help="the camp's ground, a terrain of the map (the night's wandering check reads its row of the chances)",
    )
    weather: str = arg("", help="the day's weather (a key of tables.weather_flags): wet weather means less firewood")
    winter: bool = arg(False, help="it is winter: less firewood")  # noqa: FBT003 - a default
    gatherers: int = arg(4, help="how many of the party (four) gather firewood; 0: no fire", least=0, most=len(MEMBERS))
    monsters: int = arg(2, help="how many monsters a night encounter brings", least=1)
    nights: int = arg(1, help="nights in camp per trial", least=1, most=MAX_NIGHTS)


def _watches(play: Play) -> tuple[str, ...]:
    """The rules' watches, stood by the party's members in turn."""
    rules = play.handler.load(play.campaign).rules
    table = rules.part(CampTables).camp if rules is not None else None
    count = table.watches if table is not None else 0
    return tuple(f"{n}={MEMBERS[(n - 1) % len(MEMBERS)]}" for n in range(1, count + 1))


def _camp_prepare(play: Play, _: Night) -> None:
    """The party of four that camps."""
    for member in CAMPERS:
        play.run(member)


def _camp_trial(play: Play, night: Night) -> None:
    """Camp ``night.nights`` nights: make camp, gather firewood, set the watches, make the night's checks (an
    encounter met and played through), break camp."""
    for _ in range(night.nights):
        play.run(camp.MakeCamp(weather=night.weather, winter=night.winter, terrain=night.terrain))
        if night.gatherers:
            play.run(camp.GatherFirewood(gatherers=MEMBERS[: night.gatherers]))
        play.run(camp.SetWatches(watches=_watches(play)))
        while "check" in play.allowed(camp.PROCEDURE):
            play.run(camp.CheckNight())
            if "meet" in play.allowed(camp.PROCEDURE):
                play.run(camp.MeetEncounter(monster_count=night.monsters))
                play.finish_encounter()
        play.run(camp.BreakCamp())


#: the measures of the night's first encounter (None in a trial that met none)
FIRST_WATCH = "first encounter's watch"
FIRE_BURNING = "fire burning at the first encounter"
CAUGHT_UNAWARES = "members caught unawares at the first encounter"


def _checks(rules: Ruleset) -> int:
    """The wandering checks a night owes under the rules (0: no night meets an encounter)."""
    table = rules.part(CampTables).camp
    return 0 if table is None else checks_owed(rules.part(WildernessOptions), table)


def _camp_measure(events: Sequence[Event], night: Night, rules: Ruleset) -> Outcome:
    """What the trial's nights came to: the encounters, the first one's watch, fire and the members it caught
    unawares, the firewood a night, and the members short of sleep (who neither heal nor memorise) a morning; under
    rules that make no night check only the firewood, as a note says (nothing else is the dice's)."""
    met = [e for e in events if isinstance(e, ev.NightChecked) and e.encounter]
    ended = next((e for e in events if isinstance(e, ev.NightEncounterEnded)), None)
    wood = [e.hours for e in events if isinstance(e, ev.FirewoodGathered)]
    mornings = [e for e in events if isinstance(e, ev.CampBroken)]
    out: Outcome = {}
    if _checks(rules):
        out |= {
            "night encounters": len(met),
            "any night encounter": bool(met),
            FIRST_WATCH: f"watch {met[0].watch}" if met else None,
            FIRE_BURNING: met[0].fire if met and night.gatherers else None,
            CAUGHT_UNAWARES: len(ended.surprised) if ended is not None else None,
        }
    if night.gatherers:
        out["firewood (hours a night)"] = sum(wood) / len(wood) if night.nights > 1 else wood[0]
    if _checks(rules):
        short = sum(rest.slept_hours < morning.min_sleep_hours for morning in mornings for rest in morning.rests)
        out[SHORT_OF_SLEEP] = short / len(mornings) if night.nights > 1 else short
    return out


#: the members short of sleep in the morning (over several nights, the mean of the mornings)
SHORT_OF_SLEEP = "members short of sleep"


def _camp_notes(night: Night, rules: Ruleset) -> tuple[str, ...]:
    """What no dice decide: a camp without firewood has no fire; under rules that make no night check, no night
    meets an encounter, and who sleeps too little is the watches' alone."""
    out = ["no one gathers firewood: the camp has no fire in any watch"] if not night.gatherers else []
    if not _checks(rules):
        out.append(
            "the rules make no night check (options.night_encounter_check, tables.camp.night_checks): no night meets "
            "an encounter, and who sleeps too little is the watches' alone"
        )
    return tuple(out)


def _camp_unheeded(night: Night, rules: Ruleset) -> dict[str, str]:
    """``--weather`` and ``--winter`` with no one gathering firewood: they change only the firewood; ``--terrain``
    under rules that make no night check, the only one that reads it."""
    out: dict[str, str] = {}
    if not night.gatherers:
        given = [name for name in ("weather", "winter") if getattr(night, name)]
        out |= dict.fromkeys(given, "it changes only the firewood, and no one gathers any (--gatherers 0)")
    if not _checks(rules) and night.terrain != attrs.fields(Night).terrain.default:
        out["terrain"] = "only the night's check reads it, and the rules make none"
    return out


CAMP = Scenario(
    name="camp",
    unreached=EVASION_PARTS,
    unreached_why=NEVER_EVADES,
    procedures=("campaign", "camp", "encounter"),
    title=(
        "Camp for some nights: night encounters and their watch, the fire when they come, members caught unawares, "
        "firewood, members short of sleep."
    ),
    ruleset="explore",
    situation=Night,
    trial=_camp_trial,
    prepare=_camp_prepare,
    measure=_camp_measure,
    notes=_camp_notes,
    unheeded=_camp_unheeded,
    # the encounter's number of monsters decides nothing a trial measures (surprise, the watch, the fire, sleep)
    unread=("monsters",),
)
