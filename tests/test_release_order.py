"""The releases' history of schema versions (``hexlog.events.releases``) and the audit that holds a log to it.

A release writes every event type at its current schema version and an upgrade only raises them, so an event at a
version that the release of an earlier event of its stream had left behind was re-labelled by hand: a referee who
owns the database could write a night's check as ``camp.night_checked`` version 1 (the watch die rolled on an
encounter alone) to keep the die of a quiet night off the secret lane, and so choose which secret rolls come next.
"""

from __future__ import annotations

import pytest

import hexlog.machine.handler  # noqa: F401 - registers every procedure and its events
from hexlog.events import releases
from hexlog.events.base import TYPE_PREFIX, registered


def test_every_version_after_the_first_of_every_type_was_raised_by_one_release() -> None:
    """A change that raises a type's version appends it to ``RAISED``: none left out, none given twice, none unknown."""
    listed = [(name, version) for raised in releases.RAISED for name, version in raised]
    assert len(listed) == len(set(listed))
    wanted = {(name, v) for name, cls in registered().items() for v in range(2, cls.schema_version + 1)}
    assert set(listed) == wanted


def test_each_type_was_raised_one_version_at_a_time_in_order() -> None:
    for name in {name for raised in releases.RAISED for name, _ in raised}:
        numbers = [releases.raised_at(TYPE_PREFIX + name, v) for v in range(2, registered()[name].schema_version + 1)]
        assert numbers == sorted(numbers), name
        assert len(set(numbers)) == len(numbers), name


@pytest.mark.parametrize(
    ("kind", "version", "left"),
    [
        ("hexlog.camp.night_checked", 1, 10),
        ("hexlog.camp.night_checked", 2, 35),
        ("hexlog.camp.night_checked", 3, None),
        ("hexlog.dice.rolled", 3, 16),
        ("hexlog.party.member_added", 1, None),
        ("hexlog.no.such_type", 1, None),
    ],
)
def test_the_release_that_left_a_version_behind(kind: str, version: int, left: int | None) -> None:
    assert releases.left_behind(kind, version) == left
