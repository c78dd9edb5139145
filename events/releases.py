"""The order in which hexlog's releases raised the schema versions of its event types.

A release writes every event type at its current schema version, and an upgrade only raises them, so the releases
that wrote a stream's events, in stream order, never go back. ``RAISED`` lists the versions after the first of every
type in the order the releases first wrote them, one entry per release that raised any (the versions it raised
together). An event at a version that a release before it in the stream had left behind (``camp.night_checked``
version 1 after a ``dice.rolled`` of version 4, which only releases writing night checks at version 2 write) was
re-labelled by hand, to be judged by older rules (``hexlog.replay.chain_audit.SchemaVersions``).

A change that raises a type's schema version appends an entry (a test holds every version after the first of every
type to exactly one). The last entry is the current release's, ``CURRENT``: every session it opens names it
(``session.opened`` version 3, ``release``), so that a stream shows its release from the session's first event.
"""

from __future__ import annotations

from hexlog.events.base import TYPE_PREFIX

__all__ = ["CURRENT", "FIRST_WRITTEN", "RAISED", "left_behind", "raised_at"]

#: the versions each release raised, oldest release first: (type name, schema version) pairs
RAISED: tuple[tuple[tuple[str, int], ...], ...] = (
    (("dice.rolled", 2),),
    (("session.opened", 2),),
    (("encounter.started", 2),),
    (("dice.rolled", 3),),
    (("encounter.started", 3),),
    (("pursuit.fled", 2),),
    (("chase.started", 2),),
    (("castle.joust_fought", 2),),
    (("travel.lost_checked", 2),),
    (("camp.night_checked", 2),),
    (("travel.search_rolled", 2),),
    (("encounter.evasion_rolled", 2),),
    (("travel.moved", 2), ("travel.searched", 2), ("travel.wandering_checked", 2)),
    (("travel.lost_checked", 3),),
    (
        ("encounter.evasion_rolled", 3),
        ("pursuit.started", 2),
        ("pursuit.evasion_rolled", 2),
        ("pursuit.catch_rolled", 2),
        ("pursuit.rested", 2),
    ),
    (("dice.rolled", 4),),
    (("castle.joust_fought", 3),),
    (("travel.day_started", 2),),
    (("travel.ended", 2),),
    (("travel.ended", 3),),
    (("encounter.evasion_rolled", 4), ("pursuit.evasion_rolled", 3)),
    (("travel.started", 2),),
    (("pursuit.fled", 3),),
    (("pursuit.heading_rolled", 2), ("pursuit.fled", 4)),
    (("travel.day_started", 3),),
    (("travel.search_rolled", 3),),
    (("castle.placed", 2),),
    (("travel.wandering_checked", 3),),
    (("dungeon.secret_door_searched", 2),),
    (("travel.wandering_checked", 4),),
    (
        ("encounter.action_chosen", 2),
        ("encounter.pursuit_decided", 2),
        ("encounter.round_played", 2),
        ("session.opened", 3),
    ),
    (("encounter.pursuit_decided", 3), ("encounter.reaction_rolled", 2), ("travel.day_started", 4)),
    (("pursuit.rested", 3), ("travel.day_started", 5)),
    (
        ("encounter.action_chosen", 3),
        ("pursuit.started", 3),
        ("pursuit.rested", 4),
        ("travel.day_started", 6),
    ),
    (("camp.made", 2), ("camp.night_checked", 3)),
)

#: the number of the current release (the last entry of ``RAISED``): what ``session.opened`` records since version 3
CURRENT = len(RAISED)

#: (CloudEvents type, schema version) -> the number of the release that first wrote it (1 for ``RAISED[0]``)
FIRST_WRITTEN: dict[tuple[str, int], int] = {
    (TYPE_PREFIX + name, version): number for number, raised in enumerate(RAISED, start=1) for name, version in raised
}


def raised_at(cloud_type: str, version: int) -> int:
    """The number of the first release that wrote ``cloud_type`` at ``version`` (0: every release that knows the
    type, as for a first version)."""
    return FIRST_WRITTEN.get((cloud_type, version), 0)


def left_behind(cloud_type: str, version: int) -> int | None:
    """The number of the first release that no longer wrote ``cloud_type`` at ``version`` (it wrote the next), or
    None while the current release still writes it."""
    return FIRST_WRITTEN.get((cloud_type, version + 1))
