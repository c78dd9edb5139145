"""The text of every event type, gathered explicitly: a procedure with events of its own adds one line
(and one more for lines of its own in the campaign's state)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.service import render_camp, render_campaign, render_encounter

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event

TEXTS: dict[type[Event], Callable[[Any], str]] = {
    **render_campaign.TEXTS,
    **render_camp.TEXTS,
    **render_encounter.TEXTS,
}

#: the lines a procedure adds to the campaign's state beyond its phase and next steps, by procedure name
STATES: dict[str, Callable[[Any], list[str]]] = {
    **render_camp.STATES,
}
