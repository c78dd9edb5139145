"""How far every build that shipped a shape of a built-in ruleset had come in the order of releases.

A campaign records the whole ruleset it starts under (and each it changes to), so rules recorded exactly in a shape
of a built-in were recorded by a build that shipped that shape. ``FLOORS`` gives, for each shape, the number of the
releases in ``hexlog.events.releases.RAISED`` that every such build had made: none of them writes an event at a
schema version one of those releases had left behind. A stream's events after such a record are held to it, as to
an event of a later release (``hexlog.replay.chain_audit.SchemaVersions``): a ``travel.started`` re-labelled as
version 1 in a campaign started under today's ``explore``, to be judged by the older rules, is a finding even where
no earlier event contradicts it.

A floor may be lower than the truth, never higher (a higher one would fail an honest log). A change to a built-in
keeps its shape before the change (``machine/rulesets/released``) under the floor it had, and gives today's shape
``len(RAISED)`` as it stands then.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from hexlog.machine import ruleset as rulesets

if TYPE_CHECKING:
    from hexlog.machine.ruleset import Ruleset

__all__ = ["FLOORS", "floor"]

#: each shape of a built-in (today's by its name, a kept one by ``<release>/<file stem>``) -> the releases every
#: build that shipped it had made, counted in ``RAISED``'s order (read off the history of the built-ins' files)
FLOORS: dict[str, int] = {
    # today's explore (day_end_hour, release 33) keeps its shape before's floor: lower than the truth, which a floor
    # may be, while the tests that write an older release's log start it under today's built-in
    "explore": 29,
    "ose": 30,
    "adnd": 30,
    "0.1.0/explore": 0,
    "0.1.0/explore.2": 0,
    "0.1.0/explore.3": 1,
    "0.1.0/explore.4": 3,
    "0.1.0/explore.5": 3,
    "0.1.0/explore.6": 2,
    "0.1.0/explore.7": 3,
    "0.1.0/explore.8": 3,
    "0.1.0/explore.9": 5,
    "0.1.0/explore.10": 7,
    "0.1.0/explore.11": 11,
    "0.1.0/explore.12": 29,
    "0.1.0/explore.13": 29,
    "0.1.0/ose": 0,
    "0.1.0/ose.2": 0,
    "0.1.0/ose.3": 0,
    "0.1.0/ose.4": 1,
    "0.1.0/ose.5": 2,
    "0.1.0/ose.6": 3,
    "0.1.0/ose.7": 5,
    "0.1.0/ose.8": 7,
    "0.1.0/ose.9": 29,
    "0.1.0/ose.10": 30,
    "0.1.0/adnd": 0,
    "0.1.0/adnd.2": 0,
    "0.1.0/adnd.3": 1,
    "0.1.0/adnd.4": 3,
}


@functools.cache
def _by_hash(name: str) -> dict[str, tuple[str, str]]:
    """Each shape of the built-in ``name`` by its hash: (key of ``FLOORS``, the shape's label)."""
    return {known: (key, label) for key, label, known in rulesets.shapes(name)}


def floor(name: str, content: dict[str, Any]) -> tuple[int, str]:
    """How far every build that records the rules ``content`` under ``name`` had come: their shape's floor, when
    they are exactly a shape a build shipped a built-in in (house rules over one give none: an earlier build's
    referee may have laid them), and the shape's label; ``(0, "")`` for rules in no shape a build shipped."""
    if name not in rulesets.shipped_names():
        return 0, ""
    rules: Ruleset = rulesets.from_recorded(name, content)
    found = _by_hash(name).get(rules.hash)
    if found is None:
        return 0, ""
    key, label = found
    return FLOORS.get(key, 0), label
