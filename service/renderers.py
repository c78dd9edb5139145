"""The text of every event type, gathered explicitly: a procedure with events of its own adds one line
(and, for more than its phase in ``hexlog state``, one line in ``STATES``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.service import render_camp, render_campaign, render_dungeon, render_encounter

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event
    from hexlog.machine.table import Table

TEXTS: dict[type[Event], Callable[[Any], str]] = {
    **render_campaign.TEXTS,
    **render_camp.TEXTS,
    **render_dungeon.TEXTS,
    **render_encounter.TEXTS,
}

#: what ``hexlog state`` shows of a procedure beyond its phase and next steps, by procedure name
STATES: dict[str, Callable[[Any, Table], list[str]]] = {
    **render_camp.STATES,
    **render_dungeon.STATES,
}
