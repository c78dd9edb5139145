"""What the referee typed into an encounter that steers its rolls, in the audit's words (its account of the referee's
hand): the facts of an encounter's start, the woods and magic of an evasion roll, and the rate and detection range of
an avoid where the movement rule reads them.

An encounter's start records the facts the referee gave ``encounter start`` (the monsters' number and speed, who is
aware, light and noise, surprise chances, lengths), or those ``dungeon meet`` and a camp's ``meet`` take. An encounter
another procedure starts with facts of its own (a pursuit's pursuers catching the party, a castle's garrison, a
journey's wandering monsters, a delve's chase ending with the sides met again) records no typed fact of the referee's:
its count and speed are the rules' placeholders, or facts told where they were given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import encounter as ev
from hexlog.machine.encounter.state import PROCEDURE
from hexlog.machine.kit.hand import told

if TYPE_CHECKING:
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.kit.hand import Fact

#: the facts of a start the referee may type, each with what it reads as untyped and its words
FACTS: tuple[Fact, ...] = (
    ("party_aware", False, lambda _: "the party aware of the monsters"),
    ("monsters_aware", False, lambda _: "the monsters aware of the party"),
    ("monsters_unsurprisable", False, lambda _: "the monsters never surprised"),
    ("party_surprise_on", -1, lambda n: f"the party surprised on a d6 of 1 to {n}"),
    ("monsters_surprise_on", -1, lambda n: f"the monsters surprised on a d6 of 1 to {n}"),
    ("party_surprise_modifier", 0, lambda n: f"{n:+d} to the party's surprise d6"),
    ("monsters_surprise_modifier", 0, lambda n: f"{n:+d} to the monsters' surprise d6"),
    ("party_light", False, lambda _: "the party carrying light"),
    ("monsters_light", False, lambda _: "the monsters carrying light"),
    ("party_noisy", False, lambda _: "the party making noise"),
    ("monsters_noisy", False, lambda _: "the monsters making noise"),
    ("hiding", False, lambda _: "the other side hiding"),
    ("intelligent", True, lambda _: "the monsters not intelligent"),
    ("distance_divisor", 1, lambda n: f"the distance divided by {n}"),
    ("line_of_sight_ft", 0, lambda n: f"a line of sight of {n} ft"),
    ("area_ft", 0, lambda n: f"an area of {n} ft"),
    ("light_radius_ft", 0, lambda n: f"a light radius of {n} ft"),
    ("vision_ft", 0, lambda n: f"the monsters' vision {n} ft"),
    ("terrains", (), lambda names: f"terrain {' and '.join(names)}"),
)
#: the facts beside the count and speed that ``dungeon meet`` and a camp's ``meet`` take from the referee
MEET_FACTS: dict[str, frozenset[str]] = {
    "dungeon": frozenset({"monsters_light", "party_noisy", "monsters_noisy", "intelligent"}),
    "camp": frozenset({"monsters_light", "monsters_noisy", "intelligent"}),
}


def _typed(event: ev.EncounterStarted, ctx: StepContext) -> frozenset[str] | None:
    """The facts of a start the referee typed beside the count and speed (None: neither are the referee's)."""
    handoffs = ctx.table.handoffs
    parent = handoffs[-1][0] if handoffs and handoffs[-1][1] == PROCEDURE else None
    if parent is None:
        return frozenset(name for name, _, _ in FACTS)
    if parent == "dungeon" and not (event.party_aware and event.monsters_aware):  # not the sides met again
        return MEET_FACTS[parent]
    if parent == "camp" and getattr(ctx.state(parent), "pending", None) is not None:  # the night's encounter
        return MEET_FACTS[parent]
    return None


def started_by_hand(event: ev.EncounterStarted, ctx: StepContext) -> str | None:
    """An encounter's monsters, their speed and the other facts of its start the referee typed, in words (None: an
    encounter another procedure started with facts of its own)."""
    typed = _typed(event, ctx)
    if typed is None:
        return None
    count = f"{event.monster_count} monster{'s' if event.monster_count != 1 else ''}"
    said = told(event, FACTS, only=typed)
    more = f"; by the referee's word: {', '.join(said)}" if said else ""
    return (
        f"encounter {event.number} met {count} at {event.monster_speed} ft a turn, the referee's count and speed (the "
        f"evasion, a pursuit and a chase read them){more}"
    )


def evasion_by_hand(event: ev.EvasionRolled, ctx: StepContext, *, true_hex: bool = False) -> str | None:
    """An evasion roll's woods or open ground where the referee said so against the hex the party believes it is in
    (off a journey, no hex: the open; with ``true_hex``, as releases before ``encounter.evasion_rolled`` version 3
    read the woods the referee left out: the party's true hex), and its magic: the chance reads both."""
    from hexlog.machine.pursuit.steps import terrain_here  # noqa: PLC0415 - the pursuit reads the journey's hex

    said = []
    if event.woods != (terrain_here(ctx, "", true_hex=true_hex) == "woods"):
        where = "its true hex" if true_hex else "the hex the party believes it is in"
        said.append("in woods" if event.woods else f"in the open, not the woods of {where}")
    if event.magic:
        said.append("with magic to get away")
    if not said:
        return None
    return f"the party's evasion rolled {' and '.join(said)}, as the referee said (the chance reads it)"


def typed_by_hand(event: ev.EncounterStarted | ev.EvasionRolled | ev.ActionChosen, ctx: StepContext) -> str | None:
    """What the referee typed into an encounter's start, an evasion roll or an avoid, in words (None: nothing)."""
    if isinstance(event, ev.EncounterStarted):
        return started_by_hand(event, ctx)
    if isinstance(event, ev.EvasionRolled):
        return evasion_by_hand(event, ctx)
    return avoid_by_hand(event) if event.action is ev.Action.AVOID else None


def avoid_by_hand(event: ev.ActionChosen) -> str | None:
    """An avoid judged under the AD&D movement rule (its verdict says so) on the movement rate or the detection range
    the referee gave (``encounter avoid --rate-inches --detection-range``): the referee's numbers decide it. None when
    the rule read neither."""
    given = [
        words
        for value, words in (
            (event.rate_inches, f"a movement rate of {event.rate_inches} inches"),
            (event.detection_range_ft, f"a detection range of {event.detection_range_ft} ft"),
        )
        if value is not None
    ]
    if not given or not event.note.startswith("movement:"):
        return None
    return f"the {event.side} avoiding the encounter, judged on {' and '.join(given)} given by the referee"
