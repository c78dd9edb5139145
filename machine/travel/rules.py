"""The options and tables the travel day reads, typed (REFERENCE §4.6-4.12, §4.16, options of §4.17).

Every table may be left out (the OSE and AD&D rulesets have none): a journey is then refused at its
start, naming what is missing (``missing``).
"""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs

from hexlog.machine.kit.rules import chosen_by, in_range, rule

FACES = in_range(1, 6)


class LostSource(enum.StrEnum):
    """Which lost and encounter chances apply (A21)."""

    ODD_P18 = "odd_p18"
    DOLMENWOOD = "dolmenwood"


class AfloatRule(enum.StrEnum):
    """The wandering check of a ship continuously afloat (§4.7)."""

    SEED = "seed"
    ODD_TWO_DICE = "odd_two_dice"


class SearchTable(enum.StrEnum):
    """Which search table applies (A32)."""

    DEFAULT = "default"
    DVDM = "dvdm"


class WeatherTable(enum.StrEnum):
    """Which weather table applies (§4.10)."""

    FALLBACK = "fallback"
    CUSTOM = "custom"


@attrs.frozen(kw_only=True)
class ChanceSource:
    """Whose lost and encounter chances by terrain apply: read by the travel day, the night in camp and the rest
    after a pursuit's escape."""

    section: ClassVar[str] = "options"

    lost_encounter_source: LostSource = rule(
        LostSource.ODD_P18,
        help=(
            "A21 (§4.8): lost and encounter chances from odd_p18 (OD&D U&WA p.18) or dolmenwood. Each reads a road "
            "its own way: odd_p18 has no road or track row, so such a hex reads its terrain's row (a road through a "
            "swamp is lost on 1-3); dolmenwood reads its road row (never lost in clear weather by day) and track row. "
            "A night in camp reads the row of the camp's ground (camp make --terrain tangled_forest: moderate under "
            "dolmenwood, woods under odd_p18), off any road or track."
        ),
    )


@attrs.frozen(kw_only=True)
class WildernessOptions:
    """The option the travel day and the night in camp both read: the night's check."""

    section: ClassVar[str] = "options"

    night_encounter_check: bool = rule(
        True,  # noqa: FBT003 - a default
        help="A19: a wandering check at the day's end and once each night in camp (false: the day's end only).",
    )


@attrs.frozen(kw_only=True)
class TravelOptions:
    """The travel day's options."""

    section: ClassVar[str] = "options"

    afloat_rule: AfloatRule = rule(
        AfloatRule.SEED, help="§4.7 ships afloat: seed (encounter on 1-in-6) or odd_two_dice (U&WA p.18)."
    )
    carry_partial_hex: bool = rule(
        False,  # noqa: FBT003 - a default
        help=(
            "A22: unused travel points are lost at the day's end (false), or those spent on an unfinished hex count "
            "next day (true: the points left when the next hex of the route costs more than them; none when they "
            "would pay for it or no route is left, so a day's points never carry whole)."
        ),
    )
    search_table: SearchTable = rule(
        SearchTable.DEFAULT, help="A32 (§4.11): default (1-3 / 1-2 / 1 by difficulty) or dvdm (5-6 per feature)."
    )
    weather_table: WeatherTable = rule(
        WeatherTable.FALLBACK, help="§4.10: fallback (the DVDM table) or custom (tables.weather.custom)."
    )
    day_end_hour: int = rule(
        24,
        help="The hour a travel day (or a rest day on a journey) ends: its wandering check runs the clock on to it "
        "first, so the encounter it meets, a pursuit after it and a camp made then take their time from there. "
        "Neither seed 004 nor the reference names the hours a party travels; 24: midnight, the day's end, from which "
        "an 8-hour night in camp ends at day_start_hour 8. A day that started at or after it is checked when it "
        "started; travel.day_started before version 5 kept no start, and its check runs no clock.",
        validator=in_range(1, 24),
    )


@attrs.frozen(kw_only=True)
class SpeedRow:
    """One row of the travel-point table."""

    speed: int = rule(help="The slowest member's speed (Dolmenwood scale).", validator=in_range(1, 1000))
    tp: int = rule(help="Travel points a day.", validator=in_range(0, 1000))
    forced: int = rule(help="Travel points on a forced march.", validator=in_range(0, 1000))


@attrs.frozen(kw_only=True)
class TravelPoints:
    """§4.6 travel points: speed / divisor, +50 % on a forced march."""

    speed_divisor: int = rule(help="TP = speed / this.", validator=in_range(1, 1000))
    forced_march_pct: int = rule(
        help="A forced march adds this percentage (rounded down).", validator=in_range(0, 1000)
    )
    rows: tuple[SpeedRow, ...] = rule((), help="The filled table (speeds not listed use the divisor).")

    def per_day(self, speed: int) -> tuple[int, int]:
        """(travel points, on a forced march) for a speed."""
        row = next((r for r in self.rows if r.speed == speed), None)
        if row is not None:
            return row.tp, row.forced
        tp = speed // self.speed_divisor
        return tp, tp * (100 + self.forced_march_pct) // 100


@attrs.frozen(kw_only=True)
class Chances:
    """The d6 faces of one terrain row: lost, and an encounter."""

    lost: tuple[int, ...] = rule(help="Faces that mean lost.", validator=FACES)
    encounter: tuple[int, ...] = rule(help="Faces that mean an encounter.", validator=FACES)


@attrs.frozen(kw_only=True)
class Afloat:
    """§4.7 ships continuously afloat."""

    seed_encounter: tuple[int, ...] = rule(help="seed: the faces of an encounter.", validator=FACES)
    odd_first_die_waterborne: tuple[int, ...] = rule(
        help="odd_two_dice: the first die's faces of a waterborne encounter.", validator=FACES
    )
    odd_second_die_normal: tuple[int, ...] = rule(
        help="odd_two_dice: the second die's faces of a normal encounter (met after the first's, when both call one).",
        validator=FACES,
    )


@attrs.frozen(kw_only=True)
class LostDirection:
    """§4.12 the true heading of a lost party, by d6 face."""

    faces: tuple[str, ...] = rule(help="Six headings, face 1 first.")


@attrs.frozen(kw_only=True)
class Access:
    """§4.8 mounts and vehicles in a terrain: allowed, led (on foot) or no."""

    mounts: str = rule(help="allowed, led or no.")
    vehicles: str = rule(help="allowed, led or no.")


@attrs.frozen(kw_only=True)
class WeatherRow:
    """One row of a 2d6 seasonal weather table: the lowest total, then the weather of each season."""

    at_least: int = rule(help="The lowest 2d6 total of the row.", validator=in_range(2, 12))
    winter: str = rule(help="Winter's weather.")
    spring: str = rule(help="Spring's weather.")
    summer: str = rule(help="Summer's weather.")
    autumn: str = rule(help="Autumn's weather.")


@attrs.frozen(kw_only=True)
class Weather:
    """§4.10 the weather tables."""

    fallback: tuple[WeatherRow, ...] = rule((), help="The DVDM fallback table (C1).")
    custom: tuple[WeatherRow, ...] = rule((), help="The referee's own rows (option weather_table = custom).")


@attrs.frozen(kw_only=True)
class WeatherEffects:
    """§4.10 what the weather flags do."""

    impeded_tp: int = rule(help="Travel points changed by impeded weather.", validator=in_range(-100, 100))
    poor_visibility_lost: int = rule(
        help="Lost range widened by poor visibility (not added to the seed's own fog/blizzard modifier).",
        validator=in_range(0, 6),
    )
    poor_visibility_distance_divisor: int = rule(
        help="The encounter distance is divided by this in poor visibility.", validator=in_range(1, 100)
    )


@attrs.frozen(kw_only=True)
class SearchDefault:
    """§4.11 DEFAULT search table."""

    light: tuple[int, ...] = rule(help="Faces that find a feature in a light hex.", validator=FACES)
    moderate: tuple[int, ...] = rule(help="... in a moderate hex.", validator=FACES)
    difficult: tuple[int, ...] = rule(help="... in a difficult hex.", validator=FACES)
    always: tuple[int, ...] = rule(help="Faces that always find a feature that is there (seed: 1).", validator=FACES)
    guide_widen: int = rule(help="A local guide widens the range by this.", validator=in_range(0, 6))


@attrs.frozen(kw_only=True)
class SearchDvdm:
    """§4.11 DVDM variant: one die per hidden feature."""

    feature: tuple[int, ...] = rule(help="Faces that find a feature.", validator=FACES)
    lair: tuple[int, ...] = rule(help="Faces that find a lair.", validator=FACES)


@attrs.frozen(kw_only=True)
class Search:
    """§4.11 the search tables."""

    default: SearchDefault | None = rule(None, help="The DEFAULT table.")
    dvdm: SearchDvdm | None = rule(None, help="The DVDM variant.")


@attrs.frozen(kw_only=True)
class Rest:
    """§4.12 / §4.16 forced march, rest and exhaustion."""

    rest_every_travel_days: int = rule(
        help="A full rest day is needed per this many travel days.", validator=in_range(1, 1000)
    )
    exhaustion_per_day: int = rule(
        help="The change to every roll per level of exhaustion (added where a low total is good).",
        validator=in_range(-100, 0),
    )
    forced_march_rest_days: int = rule(help="Rest days a forced march owes.", validator=in_range(0, 100))


@attrs.frozen(kw_only=True)
class TravelTables:
    """The travel day's tables."""

    section: ClassVar[str] = "tables"

    travel_points: TravelPoints | None = rule(None, help="§4.6 travel points per day (C1 [DVDM]).")
    lost_modifiers: dict[str, int] | None = rule(
        None,
        help=(
            "§4.7 the lost range grows by these in fog, blizzard or darkness (night travel, A20). They raise every "
            "row's range, a Dolmenwood road's none included (the seed and REFERENCE name no exception: a road in fog "
            "is lost on 1, by night on 1-2, both on 1-3)."
        ),
    )
    afloat: Afloat | None = rule(None, help="§4.7 ships continuously afloat.")
    lost_direction: LostDirection | None = rule(None, help="§4.12 the true heading of a lost party, by d6 face.")
    terrain_cost: dict[str, int] | None = rule(
        None, help="§4.8 travel points to enter (and to search) a hex, by difficulty, road or track."
    )
    terrain_access: dict[str, Access] | None = rule(None, help="§4.8 mounts and vehicles by difficulty.")
    water_terrains: tuple[str, ...] | None = rule(
        None,
        help=(
            "§4.7 the terrains a ship continuously afloat may sail into: a move afloat into a hex of any other "
            "terrain is refused, naming the hex and its terrain (a lost ship's true hex too), and so is a start "
            "afloat from a hex neither of water nor next to one (a port). Leave out for none: ships set out from "
            "and sail into any hex, as rules recorded before it was read."
        ),
    )
    weather: Weather | None = chosen_by("weather_table", rule(None, help="§4.10 the 2d6 seasonal weather tables."))
    weather_effects: WeatherEffects | None = rule(None, help="§4.10 what the flags do.")
    search: Search | None = chosen_by("search_table", rule(None, help="§4.11 the search tables (option search_table)."))
    rest: Rest | None = rule(
        None,
        help=(
            "§4.12 / §4.16 rest and exhaustion. Each level changes every roll made for the member (for the party "
            "side, its most exhausted member's) by exhaustion_per_day, always against them: a roll where a low "
            "total is good (a search, an evasion on water, a wilderness evasion, a door forced, picked or "
            "listened at) has it added, and a joust's total below 1 is the champion's. A rest day rolls its "
            "weather first and, on a journey, ends with the day's wandering check, and clears it at its end unless "
            "a delve, a pursuit or a chase was under way in it (A28: no rest; the rest after an escape counts once "
            "it adds up to a full day); after the journey, a rest day or a full day on the clock without a journey, "
            "a delve, a pursuit or a chase clears it."
        ),
    )

    def missing(self, chances: TerrainChances, shared: WildernessTables) -> list[str]:
        """The tables a journey needs that the rules in force leave out."""
        needed = ("travel_points", "lost_direction", "terrain_cost", "weather")
        found = [name for name in needed if getattr(self, name) is None]
        found += ["lost_encounter"] if chances.lost_encounter is None else []
        return found + (["weather_flags"] if shared.weather_flags is None else [])


@attrs.frozen(kw_only=True)
class TerrainChances:
    """The lost and encounter chances by terrain: read by the travel day, the night in camp and the rest after a
    pursuit's escape."""

    section: ClassVar[str] = "tables"

    lost_encounter: dict[str, dict[str, Chances]] | None = chosen_by(
        "lost_encounter_source",
        rule(None, help="§4.7-4.8 lost and encounter faces per terrain row, by source (option lost_encounter_source)."),
    )


@attrs.frozen(kw_only=True)
class WildernessTables:
    """The table both the travel day and the night in camp read: the weather's flags."""

    section: ClassVar[str] = "tables"

    weather_flags: dict[str, tuple[str, ...]] | None = rule(
        None, help="§4.10 DEFAULT each weather's flags: impeded, poor_visibility, wet."
    )
