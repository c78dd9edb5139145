"""The one error tree of hexlog: the core raises these, the doors turn them into messages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

import attrs

if TYPE_CHECKING:
    from collections.abc import Callable


@attrs.frozen
class Advice:
    """A command that gets past a refusal, as the registry names it: ``command`` its class (``OpenSession``; or
    ``Audit``, the audit of the campaign, which each door serves as a read of its own),
    ``fields`` the fields the user gives it, each with its value (``("hex", "1,0")``) or a placeholder for it
    (``("reason", "TEXT")``), ``procedure`` the procedure that has it, where two have a command of that name
    (``Move``: ``travel`` and ``dungeon``). The core names it; each door says it in its own words (the command line
    ``hexlog session open``, the HTTP service its route); the sentence around it quotes it."""

    command: str
    fields: tuple[tuple[str, str], ...] = ()
    procedure: str = ""
    #: the campaign it is given to, where another than the one refused (``ID``: a placeholder); "": that one
    campaign: str = ""

    def plain(self) -> str:
        """The command as the registry names it, in no door's words (the error's own ``str``)."""
        given = ", ".join(f"{field} {value}" for field, value in self.fields)
        return f"{self.command}({given})" + (f" of campaign {self.campaign}" if self.campaign else "")


#: the audit of the campaign (``hexlog audit``, ``GET /campaigns/main/audit``)
AUDIT = Advice("Audit")


class HexlogError(Exception):
    """The root of every error hexlog raises on purpose."""

    #: exit code the command line uses for this kind of error
    exit_code = 1
    #: what is said after the message: words, and the commands that get past this refusal (each door says them in
    #: its own words); empty when it names none
    told: tuple[str | Advice, ...] = ()

    @classmethod
    def saying(cls, *parts: str | Advice) -> Self:
        """An error whose message is ``parts``: words, and commands each door says in its own words (the words
        before the first command are its ``lead``)."""
        cut = next((i for i, part in enumerate(parts) if isinstance(part, Advice)), len(parts))
        return cls("".join(str(part) for part in parts[:cut])).telling(*parts[cut:])

    def advising(self, advice: Advice, after: str = "") -> Self:
        """This error, its message followed by the command that gets past it, then ``after``."""
        return self.telling(advice, after)

    def telling(self, *parts: str | Advice) -> Self:
        """This error, its message followed by ``parts``: words, and commands each door says in its own words."""
        self.told = (*self.told, *(part for part in parts if part != ""))
        return self

    @property
    def advice(self) -> Advice | None:
        """The first command that gets past this refusal (None when it names none)."""
        return next((part for part in self.told if isinstance(part, Advice)), None)

    @property
    def lead(self) -> str:
        """The message before its advice (all of it when it names none)."""
        return super().__str__()

    def said(self, say: Callable[[Advice], str]) -> str:
        """The message with its advice in a door's words (``say``)."""
        return self.lead + "".join(say(part) if isinstance(part, Advice) else part for part in self.told)

    def __str__(self) -> str:
        return self.said(Advice.plain)

    def reworded(self, lead: str) -> Self:
        """An error of the same kind with another lead and the same advice (a door renaming a step in it)."""
        return type(self)(lead).telling(*self.told)


class UsageError(HexlogError):
    """A request that is malformed: a bad argument, an unknown name, a value out of range."""

    exit_code = 2


class DiceExpressionError(UsageError):
    """A dice expression that does not parse or is over the limits."""


class RuleRefusedError(HexlogError):
    """The procedure forbids this now (for example, a roll with no open session)."""


class IllegalTransitionError(RuleRefusedError):
    """A trigger the current state of a procedure does not allow."""

    def __init__(self, procedure: str, state: str, trigger: str, allowed: list[str], *, before: str = "") -> None:
        self.procedure = procedure
        self.state = state
        self.trigger = trigger
        self.allowed = sorted(allowed)
        #: what is said first (that another command wrote first, when the command lost a race)
        self.before = before
        allowed_text = ", ".join(self.allowed) if self.allowed else "none"
        super().__init__(
            f"{before}{procedure}: '{trigger}' is not allowed in state {state}; allowed now: {allowed_text}"
        )


class ConcurrencyError(HexlogError):
    """An append whose expected stream version is stale: someone else wrote first."""


class IdempotencyConflictError(HexlogError):
    """A command id that was already used for a different command."""


class UnknownEventTypeError(HexlogError):
    """An event type name that no registered class carries."""


class CorruptLogError(HexlogError):
    """A log that cannot be trusted or decoded: a broken chain, a gap, a failed decode."""


class NotFoundError(UsageError):
    """A campaign, session, member or roll that does not exist."""


class UnknownMemberError(NotFoundError):
    """A command that names a member the party does not have: a bad value in the request (HTTP 422), where a
    campaign or a roll that does not exist is a resource that is not there (404)."""


class StaleVersionError(ConcurrencyError):
    """An append refused because another append moved the stream first: the command may be decided again."""


class StoreWriteError(HexlogError):
    """The database cannot be written (read-only, a full disk, a file-size limit); nothing was recorded."""


class DatabaseUnreachableError(StoreWriteError):
    """The database server cannot be reached: it refused the connection, closed it, or is shutting down.

    A transaction it broke off is rolled back by the server (nothing of it is recorded); the next use of
    the store connects again.
    ``reason`` is the driver's one-line reason (without the URL's password).
    """

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason
