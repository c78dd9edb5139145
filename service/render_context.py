"""What an event's line reads back to: the events before it in its stream that its words depend on.

An event names its own facts only. A few lines need an earlier event's: a wilderness pursuit's flights, its rest
and its end are counted in hexes fled, or under OSE in days of flight, and only the pursuit's start names its
rules. A reader that tells a stream's events in order notes each one before its line (the timeline, a follower of
the live stream); a door that tells the events of one command starts from the table the command left
(``render.context``).
"""

from __future__ import annotations

from typing import TypeVar

import attrs

from hexlog.events.base import Event

E = TypeVar("E", bound=Event)


@attrs.define
class Context:
    """The latest event of each kind noted so far."""

    latest: dict[type[Event], Event] = attrs.field(factory=dict)

    def note(self, event: Event) -> None:
        """Note the next event of the stream."""
        self.latest[type(event)] = event

    def last(self, kind: type[E]) -> E | None:
        """The latest event of ``kind`` noted, if any."""
        found = self.latest.get(kind)
        return found if isinstance(found, kind) else None

    def copy(self) -> Context:
        """A context that notes on from here on its own."""
        return Context(dict(self.latest))
