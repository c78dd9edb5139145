"""Folding: a read model is ``functools.reduce(evolve, events, initial)``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import TypeVar

from hexlog.events.base import Event

S = TypeVar("S")

Evolve = Callable[[S, Event], S]


def fold(evolve: Callable[[S, Event], S], events: Iterable[Event], initial: S) -> S:
    """Fold ``events`` into ``initial`` with ``evolve``; unknown events pass through."""
    return functools.reduce(evolve, events, initial)
