"""The object a procedure's machine sees while one command runs; its conditions only read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.errors import Advice
from hexlog.machine.commands import Command
from hexlog.machine.table import Table

if TYPE_CHECKING:
    from hexlog.machine.ruleset import Ruleset


@attrs.define(slots=False)
class Model:
    """The folded state of the procedure, the table and the command, for the conditions to read.

    A procedure subclasses it with its condition methods; a condition that fails says why through
    ``refuse`` (the kit joins the reasons into the refusal). ``transitions`` binds ``trigger`` and
    ``may_trigger`` when the model is attached.
    """

    #: the phase's name (the kit's machines run on names; the folded state holds the phase)
    state: str
    proc: Any = None
    table: Table | None = None
    command: Command | None = None
    #: each failed condition's reason: words, and the commands it names (each door says them in its own words)
    refusals: list[tuple[str | Advice, ...]] = attrs.field(factory=list)

    if TYPE_CHECKING:  # bound by transitions on add_model (declaring them would skip the binding)

        def trigger(self, name: str) -> bool:
            """Fire a trigger by name."""

        def may_trigger(self, name: str) -> bool:
            """Whether a trigger's conditions hold now."""

    @property
    def rules(self) -> Ruleset:
        """The rules in force."""
        assert self.table is not None  # noqa: S101 - loaded by the kit
        assert self.table.rules is not None  # noqa: S101 - a procedure runs in a started campaign
        return self.table.rules

    def refuse(self, *why: str | Advice) -> bool:
        """Note why a condition fails, and fail: words, and any command that gets past it (``Advice``, which each
        door says in its own words: ``"hex 3,3 is not on the map; draw it first (", Advice("SetHex"), ")"``)."""
        self.refusals.append(why)
        return False
