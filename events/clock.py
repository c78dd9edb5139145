"""The game clock: time passes only through these events."""

from __future__ import annotations

from typing import ClassVar

import attrs

from hexlog.events.base import Event


@attrs.frozen(kw_only=True)
class ClockAdvanced(Event):
    """Game time passed: ``seconds`` in all, counted as ``rounds`` and ``turns`` too."""

    type_name: ClassVar[str] = "clock.advanced"
    seconds: int
    rounds: int = 0
    turns: int = 0
    reason: str = ""
