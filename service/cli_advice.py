"""The command line's words for the command a refusal advises (``Advice``): ``'hexlog session open'``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.machine.registry import REGISTRY
from hexlog.service import render

if TYPE_CHECKING:
    from hexlog.events.errors import Advice

#: the campaign's own commands, which the command line gives under words of their own (the others are
#: ``hexlog PROCEDURE STEP``)
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
}


def cli_words(advice: Advice) -> str:
    """``'hexlog session abandon --reason TEXT'``: the command as it is typed, each field the user gives an
    option."""
    words = CAMPAIGN_WORDS.get(advice.command) or _subcommand(advice.command)
    given = "".join(f" --{field.replace('_', '-')} TEXT" for field in advice.fields)
    return f"'hexlog {words}{given}'"


def _subcommand(name: str) -> str:
    """``PROCEDURE STEP`` of a procedure's command, by its class name."""
    for procedure in REGISTRY:
        for cls, trigger in procedure.triggers.items():
            if cls.__name__ == name:
                return f"{procedure.name} {render.subcommand(trigger)}"
    return name
