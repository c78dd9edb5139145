"""The audit's verdict, and what keeps a log that holds no fault from being verified.

``VERIFIED`` (exit 0): every roll re-derived, every decision re-run, every receipt given matched.
``INCOMPLETE`` (exit 3): nothing is wrong, but some rolls cannot be checked yet or ever, or do not
protect the players: a session still open, one abandoned (a withheld reveal), one whose secret was
supplied instead of drawn, one without the players' client seed, one using the client seed of an earlier
session (abandoned or not: opened knowing that seed, its secret could have been drawn until it suited); or a
map whose hidden features are not all revealed, so that the searches made while one never revealed was hidden,
which may have read it, cannot be checked (``hidden_audit``). Each is named once, with its count.
``FAILED`` (exit 1): something is wrong; the first bad event is named.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hexlog.replay.dice_audit import SessionRecord


class Verdict(enum.StrEnum):
    """What an audit concludes."""

    VERIFIED = "VERIFIED"
    INCOMPLETE = "INCOMPLETE"
    FAILED = "FAILED"

    @property
    def exit_code(self) -> int:
        """0 verified, 3 incomplete, 1 failed."""
        return {Verdict.VERIFIED: 0, Verdict.INCOMPLETE: 3, Verdict.FAILED: 1}[self]


def _rolls(count: int) -> str:
    return f"{count} roll{'s' if count != 1 else ''}"


class Caveats:
    """The caveats of sessions given one at a time in open order, each once it can change no more (what
    ``caveats`` gives for them all): it keeps only the client seeds of the sessions so far."""

    def __init__(self) -> None:
        #: the client seed of every abandoned session so far, with the first that used it
        self.abandoned_seeds: dict[str, str] = {}
        #: the client seed of every session so far, with the first that used it
        self.seeds: dict[str, str] = {}

    def add(self, record: SessionRecord) -> list[str]:
        """Why this session (the next in open order) is not verified, or does not protect the players."""
        out: list[str] = []
        n = len(record.rolls)
        if n:
            if record.abandoned_at is not None:
                out.append(
                    f"session {record.id} was abandoned, a withheld reveal: its {_rolls(n)} can never be verified"
                )
            elif record.open:
                out.append(f"session {record.id} is still open: its {_rolls(n)} can be verified once it closes")
            if record.supplied:
                out.append(
                    f"session {record.id}'s secret was supplied to hexlog, not drawn by it: "
                    f"whoever supplied it could have chosen its {_rolls(n)}"
                )
            if not record.client_seed:
                out.append(
                    f"session {record.id} has no client seed from the players: "
                    f"the referee could have chosen its secret, and so its {_rolls(n)}"
                )
            earlier = self.abandoned_seeds.get(record.client_seed) if record.client_seed else None
            before = self.seeds.get(record.client_seed) if record.client_seed else None
            if earlier is not None:
                out.append(
                    f"session {record.id} uses the client seed of the abandoned session {earlier}: "
                    f"its secret could have been chosen knowing that seed"
                )
            elif before is not None:
                out.append(
                    f"session {record.id} uses the client seed of the earlier session {before}: its secret could "
                    f"have been drawn again and again, knowing that seed, until its {_rolls(n)} suited the referee"
                )
        if record.abandoned_at is not None and record.client_seed:
            self.abandoned_seeds.setdefault(record.client_seed, record.id)
        if record.client_seed:
            self.seeds.setdefault(record.client_seed, record.id)
        return out


def caveats(sessions: Mapping[str, SessionRecord]) -> list[str]:
    """Why each session with rolls is not verified, or does not protect the players, in open order."""
    tally = Caveats()
    return [line for record in sessions.values() for line in tally.add(record)]
