"""Camp events: a night in camp (seed 004 §4.16), from setting it up to breaking it in the morning.

Every decision that used dice names the nonces of its public rolls in ``rolls`` and of its secret
rolls (the referee's night check) in ``referee_rolls``. Hours are whole hours of game time.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from hexlog.events.base import Event


@attrs.frozen(kw_only=True)
class CampMade(Event):
    """The party set up camp for the night: ground cleared, tents raised, fire pit prepared.

    Since version 2 ``terrain`` is ground, a terrain a hex may have (tangled forest, swamp, an OD&D row such as woods),
    whose row of the chances in force the night's wandering check reads, and which a pursuit from the camp is handed
    (when the camp names none, the ground of the night's check that met the encounter): before, it was the row itself
    (under ``lost_encounter_source = dolmenwood`` a difficulty, ``moderate``, which no pursuit reads), and a pursuit
    was handed it alone (``terrain_is_ground`` false)."""

    type_name: ClassVar[str] = "camp.made"
    schema_version: ClassVar[int] = 2
    #: 1 for the campaign's first camp, 2 for the next, ...
    number: int
    #: the day's weather as the referee gave it ("" when not given), and whether it is wet
    weather: str = ""
    wet: bool = False
    winter: bool = False
    #: the ground of the camp, whose row of the chances the night's wandering check reads ("" when not given here;
    #: before version 2 the row itself)
    terrain: str = ""
    #: the game time (seconds since the campaign began) when the camp was made: the night starts here
    started_at: int = 0
    #: ``terrain`` is ground, and a pursuit from the camp is handed it, or the ground of the night's check that met
    #: the encounter when it is "" (version 2); false before version 2, whose ``terrain`` was a row of the chances and
    #: whose releases handed a pursuit from the camp that terrain alone
    terrain_is_ground: bool = True

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 recorded the row of the chances as ``terrain``, and handed a pursuit from the camp that alone."""
        return {**data, "terrain_is_ground": False}


@attrs.frozen(kw_only=True)
class Gathered:
    """The fuel one gatherer brought back."""

    name: str
    #: the roll's total (with any modifier the state imposed), and the hours once divided for the weather
    rolled: int
    hours: int


@attrs.frozen(kw_only=True)
class FirewoodGathered(Event):
    """Each gatherer brought back hours of fuel; wet weather and winter divide what each brings."""

    type_name: ClassVar[str] = "camp.firewood_gathered"
    gathered: tuple[Gathered, ...]
    #: what each gatherer's roll is divided by (rounded down): 1, or the wet and winter divisors multiplied
    divisor: int = 1
    hours: int = 0
    #: whether there is fuel for a fire at all, and how many hours of the night it burns
    fire: bool = False
    fire_hours: int = 0
    reason: str = ""
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class Watch:
    """One watch of the night and who stands it."""

    #: 1 for the first watch of the night
    number: int
    guards: tuple[str, ...]


@attrs.frozen(kw_only=True)
class WatchesSet(Event):
    """The watches were assigned before sleeping: at least one guard each."""

    type_name: ClassVar[str] = "camp.watches_set"
    watches: tuple[Watch, ...]
    watch_hours: int


@attrs.frozen(kw_only=True)
class NightChecked(Event):
    """The referee's secret wandering check of the night; on an encounter, the watch it comes in (its die rolled every
    check, encounter or not, since version 2: a watch rolled only on an encounter told the players one comes). Since
    version 3 ``terrain`` is the ground the check was made on (its own, or its camp's), whose row of the chances in
    force it reads: before, the row itself."""

    type_name: ClassVar[str] = "camp.night_checked"
    schema_version: ClassVar[int] = 3
    #: 1 for the night's first check
    check: int
    #: the ground the check was made on, whose row of the chances it reads (before version 3 the row itself)
    terrain: str
    face: int
    #: the faces that mean an encounter in this terrain
    encounter_on: tuple[int, ...]
    encounter: bool
    #: the watch the encounter comes in (0: no encounter), who stands it and who sleeps through it
    watch: int = 0
    awake: tuple[str, ...] = ()
    asleep: tuple[str, ...] = ()
    #: whether the camp fire still burns in that watch
    fire: bool = False
    rolls: tuple[int, ...] = ()
    referee_rolls: tuple[int, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 rolled the watch's die only on an encounter: its data reads as version 2 unchanged."""
        return dict(data)

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 named the row of the chances it read as ``terrain``: its data reads as version 3 unchanged (the
        audit re-runs it on that row, as its release did)."""
        return dict(data)


@attrs.frozen(kw_only=True)
class NightEncounterEnded(Event):
    """The night's encounter concluded: who it surprised, whose sleep it broke; the night goes on."""

    type_name: ClassVar[str] = "camp.night_encounter_ended"
    #: the encounter's number and how it ended
    encounter: int
    outcome: str
    watch: int
    #: the members it caught unawares (sleepers on the camp's range, guards on the encounter's)
    surprised: tuple[str, ...] = ()
    #: the sleepers it woke: each loses the watch's hours of sleep
    woken: tuple[str, ...] = ()
    reason: str = ""


@attrs.frozen(kw_only=True)
class Rest:
    """How one member slept."""

    name: str
    #: the watches the member stood, and the watches in which an encounter woke the member
    watches: tuple[int, ...] = ()
    woken: tuple[int, ...] = ()
    slept_hours: int
    healed_hp: int
    can_memorise: bool


@attrs.frozen(kw_only=True)
class CampBroken(Event):
    """Morning: the night has passed; who slept enough to heal and to memorise spells."""

    type_name: ClassVar[str] = "camp.broken"
    number: int
    rests: tuple[Rest, ...]
    #: the least sleep that rests a member (hours)
    min_sleep_hours: int
