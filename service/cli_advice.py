"""The command line's words for the command a refusal advises (``Advice``): ``hexlog session open``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.machine.commands import FLAG, POSITIONAL
from hexlog.machine.registry import REGISTRY
from hexlog.service import render

if TYPE_CHECKING:
    from hexlog.events.errors import Advice
    from hexlog.machine.commands import Command

#: the campaign's own commands, which the command line gives under words of their own (the others are
#: ``hexlog PROCEDURE STEP``), and the audit
CAMPAIGN_WORDS = {
    "StartCampaign": "init",
    "OpenSession": "session open",
    "SetClientSeed": "session seed",
    "CloseSession": "session close",
    "AbandonSession": "session abandon",
    "AddMember": "party add",
    "EditMember": "party edit",
    "RemoveMember": "party remove",
    "RollDice": "roll",
    "ChangeRules": "rules change",
    "Audit": "audit",
}


def cli_words(advice: Advice) -> str:
    """``hexlog session abandon --reason TEXT``: the command as it is typed, each field it is given an option (or an
    argument, for a field given by position); given to another campaign, ``hexlog --campaign ID init``."""
    found = _command(advice.command, advice.procedure)
    words = CAMPAIGN_WORDS.get(advice.command) or _subcommand(advice.command, advice.procedure)
    fields = {} if found is None else attrs.fields_dict(found)
    parts = [f"hexlog --campaign {advice.campaign} {words}" if advice.campaign else f"hexlog {words}"]
    for name, value in advice.fields:
        meta = fields[name].metadata if name in fields else {}
        if meta.get(POSITIONAL):
            parts.append(value)
        else:
            flag = (meta.get(FLAG) or "--" + name.replace("_", "-")).split("/")[0]
            parts.append(f"{flag} {value}")
    return " ".join(parts)


def _command(name: str, of: str = "") -> type[Command] | None:
    """The command class of that name, of procedure ``of`` (any, when empty)."""
    for procedure in REGISTRY:
        if of and procedure.name != of:
            continue
        for cls in procedure.steps:
            if cls.__name__ == name:
                return cls
    return None


def _subcommand(name: str, of: str = "") -> str:
    """``PROCEDURE STEP`` of a procedure's command, by its class name (of procedure ``of``, when given)."""
    for procedure in REGISTRY:
        if of and procedure.name != of:
            continue
        for cls, trigger in procedure.triggers.items():
            if cls.__name__ == name:
                return f"{procedure.name} {render.subcommand(trigger)}"
    return name
