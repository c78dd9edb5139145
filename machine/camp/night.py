"""The pure rules of a night in camp (seed 004 §4.16): watches, firewood, who sleeps how long.

* Watches: the night is ``watches`` watches of ``watch_hours``; each has at least one guard. A member
  may stand more than one (a small party must), and sleeps ``night_hours - watch_hours`` for each.
* Firewood: each gatherer's roll is divided (rounded down) by the wet divisor in wet weather, then by
  the winter divisor in winter. The fire burns from nightfall for the hours gathered.
* Sleep (DEFAULT, following the seed's counting in watches): a sleeper woken by a night encounter
  loses that watch's hours of sleep; a guard, awake anyway, loses nothing. A member who slept at
  least ``min_sleep_hours`` heals ``heal_hp`` and may memorise spells; less gives no benefit.
* Surprise (DEFAULT): the party rolls one d6 as a side; its guards are surprised on the encounter's
  ``surprise_on``, its sleepers on ``sleepers_surprised_on``, and the side counts as surprised when
  any member is (as the WIS rule of §4.3 counts a side).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import camp as ev
from hexlog.events.errors import UnknownMemberError, UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.machine.camp.rules import CampTable


def parse_watches(given: Sequence[str], table: CampTable, members: Sequence[str]) -> tuple[ev.Watch, ...]:
    """The watches as the referee typed them (``2=Aldric,Brom``); ``UsageError`` naming what is wrong."""
    found: dict[int, tuple[str, ...]] = {}
    for text in given:
        number_text, sep, names_text = text.partition("=")
        number_text = number_text.strip()
        if not sep or not (number_text.isascii() and number_text.isdigit()):  # 0-9 only, as every number hexlog reads
            msg = f"a watch is written NUMBER=NAME,NAME (1=Aldric,Brom), not {text!r}"
            raise UsageError(msg)
        number = int(number_text)
        if not 1 <= number <= table.watches:
            msg = f"watch {number} is not a watch of the night: watches are 1 to {table.watches}"
            raise UsageError(msg)
        if number in found:
            msg = f"watch {number} is given twice; name all its guards at once (2=Aldric,Brom)"
            raise UsageError(msg)
        guards = tuple(n.strip() for n in names_text.split(",") if n.strip())
        unknown = [n for n in guards if n not in members]
        if unknown:
            there = f"its members: {', '.join(members)}" if members else "the party has no members"
            msg = f"watch {number}: the party has no member called {', '.join(unknown)} ({there})"
            raise UnknownMemberError(msg)
        twice = sorted({n for n in guards if guards.count(n) > 1})
        if twice:
            msg = f"watch {number} names {', '.join(twice)} twice"
            raise UsageError(msg)
        found[number] = guards
    empty = [n for n in range(1, table.watches + 1) if not found.get(n)]
    if empty:
        listed = ", ".join(str(n) for n in empty)
        msg = f"watch {listed} {'has' if len(empty) == 1 else 'have'} no guard: each watch needs at least one"
        raise UsageError(msg)
    return tuple(ev.Watch(number=n, guards=found[n]) for n in range(1, table.watches + 1))


def divisor(table: CampTable, *, wet: bool, winter: bool) -> int:
    """What each gatherer's hours are divided by: the wet divisor, then the winter one."""
    return (table.firewood_wet_divisor if wet else 1) * (table.firewood_winter_divisor if winter else 1)


def fuel(rolled: int, by: int) -> int:
    """One gatherer's hours of fuel: the roll divided, rounded down, never below 0."""
    return max(0, rolled) // by


def fire_in_watch(firewood: ev.FirewoodGathered | None, watch: int, watch_hours: int) -> bool:
    """Whether the fire, lit at nightfall, still burns when watch ``watch`` begins."""
    return firewood is not None and firewood.fire_hours > (watch - 1) * watch_hours


def watch_begins(started_at: int, watch: int, watch_seconds: int) -> int:
    """The game time (seconds) at which watch ``watch`` of a night that began at ``started_at`` begins."""
    return started_at + (watch - 1) * watch_seconds


def surprise_shift(table: CampTable, surprise_on: int) -> int:
    """The modifier on the party's surprise d6 that surprises it on the sleepers' range (0 or less)."""
    return min(0, surprise_on - table.sleepers_surprised_on)


def surprised(face: int, shift: int, surprise_on: int, awake: Sequence[str], asleep: Sequence[str]) -> tuple[str, ...]:
    """The members a party total of ``face`` (with ``shift`` in it) catches: sleepers first, then guards."""
    sleepers = [n for n in asleep if face <= surprise_on]
    guards = [n for n in awake if face - shift <= surprise_on]
    return (*sleepers, *guards)


def rests(
    table: CampTable,
    members: Sequence[str],
    watches: ev.WatchesSet | None,
    woken: Sequence[ev.NightEncounterEnded],
) -> tuple[ev.Rest, ...]:
    """How each member slept: hours, hit points healed, whether spells may be memorised."""
    out = []
    for name in members:
        stood = tuple(w.number for w in watches.watches if name in w.guards) if watches is not None else ()
        broken = tuple(sorted({e.watch for e in woken if name in e.woken and e.watch not in stood}))
        slept = max(0, table.night_hours - table.watch_hours * (len(stood) + len(broken)))
        rested = slept >= table.min_sleep_hours
        out.append(
            ev.Rest(
                name=name,
                watches=stood,
                woken=broken,
                slept_hours=slept,
                healed_hp=table.heal_hp if rested else 0,
                can_memorise=rested,
            )
        )
    return tuple(out)
