"""A campaign played in memory on scripted dice: each command is given the faces its rolls take, and must take them
all, so that a test says every die it expects and nothing rolls unseen."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events.memory import MemoryStore
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.rolls import ScriptedRoller

if TYPE_CHECKING:
    from hexlog.machine import commands as c


class ScriptedPlay:
    """The campaign ``campaign`` on a memory store; its dice the faces ``run`` is given (the committed dice with
    ``scripted`` False)."""

    def __init__(self, campaign: str, *, scripted: bool = True) -> None:
        self.campaign = campaign
        self.script: list[int] = []
        roller = (lambda _table: ScriptedRoller(self.script)) if scripted else None
        self.h = Handler(MemoryStore(), MemoryKeeper(), roller=roller)

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        """Run ``command`` on ``faces``, which its rolls must take to the last; the events it recorded."""
        self.script[:] = list(faces)
        out = self.h.execute(self.campaign, command)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return list(out.events)
