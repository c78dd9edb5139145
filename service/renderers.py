"""The text of every event type, gathered explicitly: a procedure with events of its own adds one line
(and, for more than its phase in ``hexlog state``, one line in ``STATES``; for texts that read back to an earlier
event, one in ``TOLD`` and ``READ_BACK``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.service import (
    render_camp,
    render_campaign,
    render_castle,
    render_chase,
    render_dungeon,
    render_encounter,
    render_pursuit,
    render_travel,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event
    from hexlog.machine.table import Table
    from hexlog.service.render_context import Context

TEXTS: dict[type[Event], Callable[[Any], str]] = {
    **render_campaign.TEXTS,
    **render_camp.TEXTS,
    **render_castle.TEXTS,
    **render_chase.TEXTS,
    **render_dungeon.TEXTS,
    **render_encounter.TEXTS,
    **render_pursuit.TEXTS,
    **render_travel.TEXTS,
}

#: the texts that read back to an earlier event of the stream (``render_context``): (event, context) -> text
TOLD: dict[type[Event], Callable[[Any, Context], str]] = {**render_encounter.TOLD, **render_pursuit.TOLD}

#: what those texts read back to, in the table a command left: table -> events
READ_BACK: tuple[Callable[[Table], tuple[Event, ...]], ...] = (render_encounter.read_back, render_pursuit.read_back)

#: the state lines of procedures that show more than their phase: (state, table, player=...) -> lines
STATES: dict[str, Callable[..., list[str]]] = {
    **render_camp.STATES,
    **render_castle.STATES,
    **render_chase.STATES,
    **render_dungeon.STATES,
    **render_encounter.STATES,
    **render_pursuit.STATES,
    **render_travel.STATES,
}

#: what the referee does next outside a procedure a command left so: (state, table, the command's events) -> lines
AFTER: dict[str, Callable[[Any, Table, tuple[Event, ...]], list[str]]] = {
    **render_chase.AFTER,
    **render_encounter.AFTER,
    **render_travel.AFTER,
}
