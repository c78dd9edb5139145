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
    """The party set up camp for the night: ground cleared, tents raised, fire pit prepared."""

    type_name: ClassVar[str] = "camp.made"
    #: 1 for the campaign's first camp, 2 for the next, ...
    number: int
    #: the day's weather as the referee gave it ("" when not given), and whether it is wet
    weather: str = ""
    wet: bool = False
    winter: bool = False
    #: the terrain whose encounter range the night's wandering check uses ("" when not given here)
    terrain: str = ""
    #: the game time (seconds since the campaign began) when the camp was made: the night starts here
    started_at: int = 0


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
    check, encounter or not, since version 2: a watch rolled only on an encounter told the players one comes)."""

    type_name: ClassVar[str] = "camp.night_checked"
    schema_version: ClassVar[int] = 2
    #: 1 for the night's first check
    check: int
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
