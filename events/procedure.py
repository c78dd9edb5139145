"""The event every procedure emits when its state machine changes phase."""

from __future__ import annotations

from typing import ClassVar

import attrs

from hexlog.events.base import Event


@attrs.frozen(kw_only=True)
class PhaseChanged(Event):
    """A procedure's machine took ``trigger`` from ``source`` to ``dest``."""

    type_name: ClassVar[str] = "procedure.phase_changed"
    procedure: str
    trigger: str
    source: str
    dest: str
