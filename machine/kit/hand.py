"""The words of what the referee typed, for the audit's account of the referee's hand (a procedure's ``by_hand``).

A procedure names the facts of an event the referee may type, each with what it reads as untyped and its words;
``told`` gives the words of those the event records otherwise than untyped, in order. A fact whose untyped value
depends on the state (the party's speed, the hex it believes it is in) is compared by the procedure itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence

#: a fact the referee may type: the event's field, what it records untyped, and its words given its value
Fact = tuple[str, Any, "Callable[[Any], str]"]


def told(record: object, facts: Sequence[Fact], *, only: Collection[str] | None = None) -> list[str]:
    """The words of each fact (of ``only``, when given) that ``record`` holds otherwise than untyped, in order."""
    return [
        words(getattr(record, name))
        for name, untyped, words in facts
        if (only is None or name in only) and getattr(record, name) != untyped
    ]
