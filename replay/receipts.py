"""Receipts: one short line a player can note at the table that pins the whole history up to it.

``CAMPAIGN@VERSION:FINGERPRINT`` names the event at stream version ``VERSION`` of a campaign by the
first 16 hex digits of its hash. Every hash covers the one before it (hexlog-chain-v1), so a log that
still holds that event at that version holds the same history up to it: the commitment, the players'
client seed, the rules and every roll. A cut tail or a rewritten past no longer matches the receipt.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import UsageError
from hexlog.events.streams import campaign_of, stream_for

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.chain import Envelope

FINGERPRINT_DIGITS = 16
_FORM = re.compile(r"^(?P<campaign>.+)@(?P<version>[0-9]{1,15}):(?P<fingerprint>[0-9a-f]{16})$")


@attrs.frozen
class Receipt:
    """The event at ``version`` of ``campaign`` has a hash beginning with ``fingerprint``."""

    campaign: str
    version: int
    fingerprint: str

    def __str__(self) -> str:
        return f"{self.campaign}@{self.version}:{self.fingerprint}"

    @classmethod
    def parse(cls, text: str) -> Receipt:
        """A receipt written as ``CAMPAIGN@VERSION:FINGERPRINT``; ``UsageError`` naming the form otherwise."""
        found = _FORM.match(text.strip())
        if found is None:
            msg = f"not a receipt: {text!r} (write CAMPAIGN@VERSION:FINGERPRINT, e.g. main@42:1a6e40cb6dd21552)"
            raise UsageError(msg)
        return cls(found["campaign"], int(found["version"]), found["fingerprint"])

    @classmethod
    def of(cls, envelope: Envelope) -> Receipt:
        """The receipt of one recorded event."""
        campaign = campaign_of(envelope.subject) or envelope.subject
        return cls(campaign, envelope.streamversion, envelope.hash[:FINGERPRINT_DIGITS])


def mismatch(receipt: Receipt, envelopes: Sequence[Envelope]) -> str | None:
    """Why a log (envelopes of one or more streams) does not hold the receipt's event, or None when it does."""
    stream = stream_for(receipt.campaign)
    held = {env.streamversion: env for env in envelopes if env.subject == stream}
    if not held:
        return f"receipt {receipt}: the log holds no campaign {receipt.campaign!r}"
    found = held.get(receipt.version)
    if found is None:
        return f"receipt {receipt}: the log of {receipt.campaign} ends at version {max(held)}, before {receipt.version}"
    if not found.hash.startswith(receipt.fingerprint):
        return (
            f"receipt {receipt}: version {receipt.version} of {receipt.campaign} has fingerprint "
            f"{found.hash[:FINGERPRINT_DIGITS]}, not {receipt.fingerprint}: the history up to it was rewritten"
        )
    return None
