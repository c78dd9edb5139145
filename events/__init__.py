"""The vocabulary and the log: event classes, codec, hash chain and stores.

Importing this package registers every event class.
"""

from hexlog.events import camp, campaign, chase, clock, dice, dungeon, encounter, party, procedure, session
from hexlog.events.base import Event, event_class, registered

__all__ = [
    "Event",
    "camp",
    "campaign",
    "chase",
    "clock",
    "dice",
    "dungeon",
    "encounter",
    "event_class",
    "party",
    "procedure",
    "registered",
    "session",
]
