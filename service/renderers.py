"""The text of every event type, gathered explicitly: a procedure with events of its own adds one line
(and, for more than its phase in ``hexlog state``, one line in ``STATES``)."""

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
