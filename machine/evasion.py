"""Wilderness evasion: the chance that a fleeing side slips away, as pure functions of the situation.

Two readings of the same table (REFERENCE §2.9, §4.13), chosen by the option ``evasion_rules``:

``odd`` (seed 004, OD&D U&WA p.20, DEFAULT stacking A27)
    1. the base chance from the sizes of the two sides (``tables.evasion``, the entry the option
       ``evasion_table`` names; fleeing side = the party, pursuers = the monsters);
    2. a surprised party has no chance, unless in woods (a flat 10 %, nothing else applies) or magic
       is used (the party is then treated as unsurprised, ``magic_counts_as_unsurprised``);
    3. +25 % evading in woods; +25 % when the evaders move at twice the pursuers' speed or more, -25 %
       when the pursuers move at twice the evaders' speed or more;
    4. x2 when the party surprised the enemy;
    5. clamped to ``evasion_floor_pct`` .. ``evasion_cap_pct``.

``ose`` (seed 000, OSE §2.9)
    the side that surprised the other evades automatically; a surprised side has no chance, unless
    the referee allows a small one (say 10 % in dense woods); otherwise the base chance, with the
    optional B/X speed modifiers (option ``evasion_speed_modifiers``: +/-25 % at twice the speed, and
    then never below ``tables.evasion_speed.floor_pct``), clamped to floor .. cap.

A chance of 0 or 100 decided by a rule needs no roll (``Chance.roll``); otherwise d100 at most the
chance evades. The functions only read: ``chance(rules, situation)`` gives the chance and its steps
in words; the encounter and the pursuit roll it.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, ClassVar

import attrs

from hexlog.events.errors import UsageError
from hexlog.machine.kit.context import read_low
from hexlog.machine.kit.rules import RulesError, chosen_by, in_range, rule

if TYPE_CHECKING:
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.ruleset import Ruleset

PCT = in_range(0, 100)
#: a modifier in percentage points
PCT_CHANGE = in_range(-100, 100)


class EvasionRules(enum.StrEnum):
    """Whose evasion and wilderness pursuit apply."""

    ODD = "odd"
    OSE = "ose"


@attrs.frozen(kw_only=True)
class EvasionOptions:
    """The options of wilderness evasion and pursuit (§2.9, §4.13-4.14, A26-A28, A37)."""

    section: ClassVar[str] = "options"

    evasion_rules: EvasionRules | None = rule(
        None,
        help="Whose wilderness evasion and pursuit apply: odd (seed 004, U&WA p.20: the party rolls its evasion "
        "at once, then flees hex by hex) or ose (§2.9: the pursuers decide, then day-by-day pursuit); "
        "leave out for none.",
    )
    evasion_table: str = rule("bx", help="The entry of tables.evasion that gives the base chance (A26, A37).")
    evasion_speed_modifiers: bool = rule(
        default=False,
        help="ose: the optional B/X speed modifiers of tables.evasion_speed apply (§2.9); odd has its own (§4.13).",
    )
    evasion_floor_pct: int = rule(
        0, help="The evasion chance is never below this (A37), unless surprised.", validator=PCT
    )
    evasion_cap_pct: int = rule(100, help="The evasion chance is never above this (A27).", validator=PCT)


@attrs.frozen(kw_only=True)
class EvasionRow:
    """One row of the evasion table: the smallest fleeing-side size it covers, and [pursuers at least, %] bands."""

    fleeing_at_least: int = rule(help="The smallest fleeing side this row covers.", validator=in_range(1, 100_000))
    bands: tuple[tuple[int, int], ...] = rule(help="[pursuers at least, chance %], rising.")


@attrs.frozen(kw_only=True)
class EvasionAdjust:
    """Seed 004's adjustments (§4.13)."""

    surprised_enemy_multiplier: int = rule(help="The party surprised the enemy: x this.", validator=in_range(1, 100))
    surprised_in_woods_pct: int = rule(help="A surprised party in woods: this flat chance.", validator=PCT)
    woods_pct: int = rule(help="Evading in woods: + this.", validator=PCT_CHANGE)
    speed_ratio: int = rule(help="Twice the speed: at least this many times as fast.", validator=in_range(1, 100))
    evaders_faster_pct: int = rule(help="The evaders that much faster: + this.", validator=PCT_CHANGE)
    pursuers_faster_pct: int = rule(help="The pursuers that much faster: + this (negative).", validator=PCT_CHANGE)
    magic_counts_as_unsurprised: bool = rule(help="A surprised party using magic rolls as if unsurprised.")


@attrs.frozen(kw_only=True)
class EvasionSpeed:
    """OSE's optional B/X speed modifiers (§2.9)."""

    speed_ratio: int = rule(help="Twice the speed: at least this many times as fast.", validator=in_range(1, 100))
    pursuers_faster_pct: int = rule(help="The pursuers that much faster: + this (negative).", validator=PCT_CHANGE)
    fleeing_faster_pct: int = rule(help="The fleeing side that much faster: + this.", validator=PCT_CHANGE)
    floor_pct: int = rule(help="With the modifiers the chance is never below this, unless surprised.", validator=PCT)


@attrs.frozen(kw_only=True)
class EvasionSurprise:
    """OSE: surprise and evasion in the wilderness (§2.9)."""

    surprisers_evade: bool = rule(help="The side that surprised the other evades automatically.")
    surprised_example_pct: int = rule(
        help="The text's example of a small chance a referee may allow a surprised side (dense woods); not applied: "
        "the referee gives a chance with 'pursuit start --referee-pct'.",
        validator=PCT,
    )


@attrs.frozen(kw_only=True)
class WildernessPursuit:
    """The wilderness pursuit: seed 004 hex by hex (§4.14) or OSE day by day (§2.9)."""

    catch_dice: str = rule("", help="odd: the catch die (3-in-6).")
    catch_on: tuple[int, ...] = rule((), help="odd: the faces that catch the party.", validator=in_range(1, 100))
    rough_terrains: tuple[str, ...] = rule((), help="odd: the terrains where the rough catch die applies.")
    rough_catch_dice: str = rule("", help="odd: the catch die in woods or swamp (1-in-4).")
    rough_catch_on: tuple[int, ...] = rule((), help="odd: its faces that catch.", validator=in_range(1, 100))
    castle_continue_hostile: tuple[int, ...] = rule(
        (), help="odd: d6 faces on which a hostile castle force keeps up the pursuit.", validator=in_range(1, 6)
    )
    castle_continue_neutral: tuple[int, ...] = rule(
        (), help="odd: d6 faces on which a neutral castle force keeps up the pursuit.", validator=in_range(1, 6)
    )
    rest_days_per_hex: float = rule(0.0, help="Days of rest owed per hex fled (A28).", validator=in_range(0, 10))
    rest_encounter_check_every_days: float = rule(
        0.5, help="A wilderness encounter roll per this many days of that rest.", validator=in_range(0.05, 10)
    )
    faster_pursuers_catch_pct: int = rule(
        0, help="ose: faster pursuers catch the fleeing side on d100 at most this.", validator=PCT
    )
    flight_seconds: int = rule(
        86_400, help="Game time one flight takes (a hex fled, or OSE's day of pursuit).", validator=in_range(1, 864_000)
    )


@attrs.frozen(kw_only=True)
class EvasionTables:
    """The tables of wilderness evasion and pursuit."""

    section: ClassVar[str] = "tables"

    evasion: dict[str, tuple[EvasionRow, ...]] | None = chosen_by(
        "evasion_table",
        rule(None, help="The base evasion chance by the sizes of the two sides (§2.9, §4.13; A26, A37)."),
    )
    evasion_adjust: EvasionAdjust | None = rule(None, help="Seed 004's adjustments (§4.13, A27).")
    evasion_speed: EvasionSpeed | None = rule(None, help="OSE's optional B/X speed modifiers (§2.9).")
    evasion_surprise: EvasionSurprise | None = rule(
        None,
        help="OSE: surprise and evasion (§2.9). surprised_example_pct is the text's example of the small chance a "
        "referee may allow a surprised side (dense woods), not applied: the referee gives one with "
        "'pursuit start --referee-pct'.",
    )
    wilderness_pursuit: WildernessPursuit | None = rule(None, help="The wilderness pursuit (§2.9, §4.14, A24-A28).")


@attrs.frozen(kw_only=True)
class Situation:
    """What the evasion chance reads: the two sides, their speeds, the place, surprise and magic."""

    #: how many flee, and how many pursue
    fleeing: int
    pursuers: int
    #: base rates (any one unit for both)
    fleeing_speed: int
    pursuers_speed: int
    #: the flight is in woods
    woods: bool = False
    #: the fleeing side was surprised; the fleeing side alone surprised the pursuers
    surprised: bool = False
    surprised_enemy: bool = False
    #: seed 004: the party uses magic to get away
    magic: bool = False
    #: OSE: the small chance the referee allows a surprised side (None: none)
    referee_pct: int | None = None


@attrs.frozen(kw_only=True)
class Chance:
    """An evasion chance in percent, the steps that made it, and whether it must be rolled."""

    pct: int
    base: int
    steps: tuple[str, ...]
    #: False when a rule decides without dice (automatic, or no chance at all)
    roll: bool = True


def base_chance(rows: tuple[EvasionRow, ...], fleeing: int, pursuers: int) -> int:
    """The table's chance: the last row whose smallest size the fleeing side reaches, then its last band reached."""
    if fleeing < 1 or pursuers < 1:
        msg = f"both sides need at least one member to evade (fleeing {fleeing}, pursuers {pursuers})"
        raise UsageError(msg)
    row = max((r for r in rows if fleeing >= r.fleeing_at_least), key=lambda r: r.fleeing_at_least, default=None)
    if row is None:
        msg = f"no row of the evasion table covers a fleeing side of {fleeing}"
        raise UsageError(msg)
    band = max((b for b in row.bands if pursuers >= b[0]), key=lambda b: b[0], default=None)
    if band is None:
        msg = f"no band of the evasion row for {row.fleeing_at_least}+ covers {pursuers} pursuers"
        raise UsageError(msg)
    return band[1]


def _clamp(pct: int, low: int, high: int, steps: list[str]) -> int:
    clamped = max(low, min(high, pct))
    if clamped != pct:
        steps.append(f"clamped to {low}..{high} %: {clamped} %")
    return clamped


def _speed(sit: Situation, ratio: int, faster: int, slower: int, steps: list[str]) -> int:
    """The speed modifier: +``faster`` when the evaders are ``ratio`` times as fast, ``slower`` the other way."""
    if sit.fleeing_speed >= ratio * sit.pursuers_speed:
        speeds = f"{sit.fleeing_speed} vs {sit.pursuers_speed}"
        steps.append(f"evaders at {ratio}x the pursuers' speed or more ({speeds}): {faster:+d} %")
        return faster
    if sit.pursuers_speed >= ratio * sit.fleeing_speed:
        speeds = f"{sit.pursuers_speed} vs {sit.fleeing_speed}"
        steps.append(f"pursuers at {ratio}x the evaders' speed or more ({speeds}): {slower:+d} %")
        return slower
    return 0


def odd_chance(sit: Situation, rows: tuple[EvasionRow, ...], adjust: EvasionAdjust, floor: int, cap: int) -> Chance:
    """Seed 004's chance (§4.13): base, surprise, woods and speed, x2 for surprising the enemy, clamp."""
    base = base_chance(rows, sit.fleeing, sit.pursuers)
    steps = [f"base {base} % ({sit.fleeing} fleeing, {sit.pursuers} pursuing)"]
    surprised = sit.surprised
    if surprised and sit.magic and adjust.magic_counts_as_unsurprised:
        steps.append("surprised, but magic is used: as if unsurprised")
        surprised = False
    if surprised:
        if sit.woods:
            pct = min(cap, adjust.surprised_in_woods_pct)
            steps.append(f"surprised in woods: a flat {pct} %")
            return Chance(pct=pct, base=base, steps=tuple(steps), roll=0 < pct < 100)  # noqa: PLR2004 - percent
        steps.append("surprised, not in woods and no magic: no chance")
        return Chance(pct=0, base=base, steps=tuple(steps), roll=False)
    pct = base
    if sit.woods:
        pct += adjust.woods_pct
        steps.append(f"evading in woods: {adjust.woods_pct:+d} %")
    pct += _speed(sit, adjust.speed_ratio, adjust.evaders_faster_pct, adjust.pursuers_faster_pct, steps)
    if sit.surprised_enemy:
        pct *= adjust.surprised_enemy_multiplier
        steps.append(f"the party surprised the enemy: x{adjust.surprised_enemy_multiplier} = {pct} %")
    pct = _clamp(pct, floor, cap, steps)
    return Chance(pct=pct, base=base, steps=tuple(steps), roll=0 < pct < 100)  # noqa: PLR2004 - percent


def ose_chance(  # noqa: PLR0913 - the situation and each table the reading uses
    sit: Situation,
    rows: tuple[EvasionRow, ...],
    *,
    surprise: EvasionSurprise | None,
    speed: EvasionSpeed | None,
    floor: int,
    cap: int,
) -> Chance:
    """OSE's chance (§2.9): surprisers evade, the surprised have the referee's chance at most, else the table."""
    base = base_chance(rows, sit.fleeing, sit.pursuers)
    steps = [f"base {base} % ({sit.fleeing} fleeing, {sit.pursuers} pursuing)"]
    if sit.surprised_enemy and (surprise is None or surprise.surprisers_evade):
        steps.append("the fleeing side surprised the pursuers: it evades automatically")
        return Chance(pct=100, base=base, steps=tuple(steps), roll=False)
    if sit.surprised:
        pct = min(cap, sit.referee_pct or 0)
        if pct:
            steps.append(f"surprised: the referee allows {pct} %")
        else:
            steps.append("surprised: no chance (the referee allows none)")
        return Chance(pct=pct, base=base, steps=tuple(steps), roll=0 < pct < 100)  # noqa: PLR2004 - percent
    pct = base
    if speed is not None:
        pct += _speed(sit, speed.speed_ratio, speed.fleeing_faster_pct, speed.pursuers_faster_pct, steps)
        floor = max(floor, speed.floor_pct)
    pct = _clamp(pct, floor, cap, steps)
    return Chance(pct=pct, base=base, steps=tuple(steps), roll=0 < pct < 100)  # noqa: PLR2004 - percent


def chance(rules: Ruleset, sit: Situation) -> Chance:
    """The evasion chance under the rules in force; ``UsageError`` when they have no evasion rules."""
    options, tables = rules.part(EvasionOptions), rules.part(EvasionTables)
    if options.evasion_rules is None or tables.evasion is None:
        msg = f"the rules in force ({rules.name}) have no wilderness evasion rules (options.evasion_rules)"
        raise UsageError(msg)
    rows = tables.evasion.get(options.evasion_table, ())
    if not rows:
        msg = f"the evasion table {options.evasion_table!r} is empty; fill tables.evasion.{options.evasion_table}"
        raise UsageError(msg)
    floor, cap = options.evasion_floor_pct, options.evasion_cap_pct
    if options.evasion_rules is EvasionRules.ODD:
        assert tables.evasion_adjust is not None  # noqa: S101 - check() requires it
        return odd_chance(sit, rows, tables.evasion_adjust, floor, cap)
    speed = tables.evasion_speed if options.evasion_speed_modifiers else None
    return ose_chance(sit, rows, surprise=tables.evasion_surprise, speed=speed, floor=floor, cap=cap)


def evades(pct: int, total: int) -> bool:
    """A d100 total evades when it is at most the chance."""
    return total <= pct


def roll_against(
    ctx: StepContext, found: Chance, purpose: str, *, made_for: str = ""
) -> tuple[int, tuple[int, ...], bool]:
    """d100 against the chance when a roll decides it: (total, roll nonces, evaded); a chance a rule
    decides (none, or certain) rolls no die and totals 0.

    The roll is made for the fleeing side (``made_for``; "" for nobody, as releases before rolled it): a low total
    is the good one, so the state's modifiers on it (exhaustion) count against the fleeing side, raising it."""
    if not found.roll:
        return 0, (), found.pct >= 100  # noqa: PLR2004 - percent
    rolled = ctx.roll("1d100", purpose, made_for=made_for, low_is_good=bool(made_for))
    total = read_low(rolled) if made_for else rolled.total
    return total, (rolled.nonce,), evades(found.pct, total)


def check(rules: Ruleset) -> None:
    """The option names an entry of the table; each rule finds the tables it reads."""
    options, tables = rules.part(EvasionOptions), rules.part(EvasionTables)
    if options.evasion_rules is None:
        return
    if options.evasion_floor_pct > options.evasion_cap_pct:
        floor, cap = options.evasion_floor_pct, options.evasion_cap_pct
        msg = f"options.evasion_floor_pct: {floor} is above evasion_cap_pct ({cap})"
        raise RulesError(msg)
    needs: tuple[tuple[str, object], ...] = {
        EvasionRules.ODD: (
            ("evasion", tables.evasion),
            ("evasion_adjust", tables.evasion_adjust),
            ("wilderness_pursuit", tables.wilderness_pursuit),
        ),
        EvasionRules.OSE: (("evasion", tables.evasion), ("wilderness_pursuit", tables.wilderness_pursuit)),
    }[options.evasion_rules]
    for name, found in needs:
        if found is None:
            msg = f"options.evasion_rules: {options.evasion_rules} reads tables.{name}, which the rules do not have"
            raise RulesError(msg)
    speed = options.evasion_rules is EvasionRules.OSE and options.evasion_speed_modifiers
    if speed and tables.evasion_speed is None:
        msg = "options.evasion_speed_modifiers: the modifiers read tables.evasion_speed, which the rules do not have"
        raise RulesError(msg)
    if options.evasion_table not in (tables.evasion or {}):
        shown = ", ".join(tables.evasion or ()) or "nothing"
        msg = f"options.evasion_table: '{options.evasion_table}' is not an entry of tables.evasion (it has {shown})"
        raise RulesError(msg)
