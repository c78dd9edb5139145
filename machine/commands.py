"""Commands for the campaign, its sessions, its party and free rolls (imperative names).

A command's fields are its arguments. ``arg`` gives one the sentence that explains it and, for the
doors, the flag that sets it (``--monsters`` for ``monster_count``), whether a flag says the
opposite of the field (``--unintelligent`` sets ``intelligent`` false), its least value, and whether it
is given by position instead.
"""

from __future__ import annotations

from typing import Any

import attrs

HELP, FLAG, NEGATE, LEAST, POSITIONAL = "help", "flag", "negate", "least", "positional"


def arg(  # noqa: PLR0913 - one keyword per way a door spells an argument
    default: Any = attrs.NOTHING,
    *,
    help: str,  # noqa: A002 - the sentence that explains the argument
    flag: str | None = None,
    negate: bool = False,
    least: int | None = None,
    positional: bool = False,
) -> Any:
    """A command argument with the sentence that explains it and how a door spells it.

    ``positional``: a door takes it by position (``hexlog map show 3,4``), not as an option.
    """
    meta = {HELP: help, FLAG: flag, NEGATE: negate, LEAST: least, POSITIONAL: positional}
    return attrs.field(default=default, metadata=meta)


@attrs.frozen(kw_only=True)
class Command:
    """Something the referee asks hexlog to do."""


@attrs.frozen(kw_only=True)
class StartCampaign(Command):
    """Create a campaign under a ruleset, with the referee's overrides."""

    ruleset: str = "ose"
    overrides: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class ChangeRules(Command):
    """Put another ruleset, or other overrides, in force from now on."""

    ruleset: str
    overrides: dict[str, Any] = attrs.field(factory=dict)
    reason: str = ""


@attrs.frozen(kw_only=True)
class OpenSession(Command):
    """Open a session: commit to a fresh secret (or the given one, for a reproducible demo)."""

    secret_hex: str | None = attrs.field(default=None, repr=False)


@attrs.frozen(kw_only=True)
class SetClientSeed(Command):
    """The players' own seed, mixed into every roll of the session."""

    client_seed: str


@attrs.frozen(kw_only=True)
class CloseSession(Command):
    """Close the open session and reveal its secret."""


@attrs.frozen(kw_only=True)
class AbandonSession(Command):
    """End the open session without a reveal, when its secret is lost: its rolls stay unverifiable."""

    reason: str


@attrs.frozen(kw_only=True)
class AddMember(Command):
    """Add a character to the party."""

    name: str
    cha: int = 10
    wis: int = 10
    dex: int = 10
    strength: int = 10
    speed: int = 120
    armor: str = "none"
    infravision_ft: int = 0


@attrs.frozen(kw_only=True)
class RemoveMember(Command):
    """Remove a character from the party."""

    name: str
    reason: str = ""


@attrs.frozen(kw_only=True)
class RollDice(Command):
    """A free roll the referee asks for, outside any procedure."""

    expression: str
    purpose: str = "free roll"
    secret: bool = False
    #: the character (or side) it is made for: the modifiers the state imposes on them apply
    made_for: str = ""
