"""The events every procedure shares: a phase change, and one procedure handing off to another."""

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


@attrs.frozen(kw_only=True)
class HandedOff(Event):
    """``parent`` started ``child`` and waits for it: the parent resumes when the child concludes."""

    type_name: ClassVar[str] = "procedure.handed_off"
    parent: str
    child: str


@attrs.frozen(kw_only=True)
class Resumed(Event):
    """``child`` concluded, so ``parent`` takes up where it handed off."""

    type_name: ClassVar[str] = "procedure.resumed"
    parent: str
    child: str
