"""Hidden features: committed to in the log, kept in plaintext (with their salts) by the referee's keeper.

Placing a feature derives a 32-byte salt, keeps ``{hex, feature, lair, salt}`` in the key keeper under
the feature's commitment (``hexlog.events.hexmap.commitment``) and records only the commitment. A
search reads the still-hidden features from the keeper; finding one, or ``hexlog map reveal``, opens
its commitment in the log. The audit re-runs a search with a keeper holding what the log opened.

Each salt is HMAC-SHA256 of the feature's place among the commitments, keyed by the campaign's salt
key: 32 random bytes drawn once and kept by the keeper (``SALT_KEY``), so no salt is ever reused and
none can be guessed without the key file. (The demo supplies a salt key, to be reproducible.)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import TYPE_CHECKING

import attrs

from hexlog.events import hexmap as ev
from hexlog.events.errors import RuleRefusedError
from hexlog.machine.hexmap.state import PROCEDURE, MapState

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.machine.keeper import SecretKeeper
    from hexlog.machine.kit.context import StepContext

SALT_BYTES = 32
#: the keeper's fact that holds a campaign's salt key (hex)
SALT_KEY = "map.salt_key"


@attrs.frozen(kw_only=True)
class Placement:
    """A hidden feature to place (as the map file or ``map set`` gives it)."""

    hex: str
    feature: str
    lair: bool = False


@attrs.frozen(kw_only=True)
class Hidden:
    """A hidden feature as the keeper holds it."""

    hex: str
    feature: str
    lair: bool = False
    salt: str

    @property
    def commitment(self) -> str:
        """Its commitment."""
        return ev.commitment(self.hex, self.feature, lair=self.lair, salt=self.salt)

    def text(self) -> str:
        """How the keeper keeps it (JSON)."""
        return json.dumps(attrs.asdict(self), sort_keys=True)


def _hidden(text: str) -> Hidden | None:
    try:
        data = json.loads(text)
        return Hidden(
            hex=str(data["hex"]), feature=str(data["feature"]), lair=bool(data["lair"]), salt=str(data["salt"])
        )
    except (ValueError, KeyError, TypeError):
        return None


def keep(keeper: SecretKeeper, campaign: str, feature: Hidden) -> None:
    """Keep a feature under its commitment."""
    keeper.put_fact(campaign, feature.commitment, feature.text())


def salt_key(keeper: SecretKeeper, campaign: str) -> bytes:
    """The campaign's salt key, drawn and kept the first time it is asked for."""
    kept = keeper.get_facts(campaign).get(SALT_KEY)
    if kept is None:
        kept = secrets.token_bytes(SALT_BYTES).hex()
        keeper.put_fact(campaign, SALT_KEY, kept)
    return bytes.fromhex(kept)


def place(ctx: StepContext, placements: Sequence[Placement], index: int) -> list[ev.HiddenFeaturePlaced]:
    """Keep new features with their salts (``index``: the first one's place among the map's commitments), all
    in one write of the keeper (with the salt key, when it is drawn now); the events that commit to them."""
    if not placements:
        return []
    if ctx.keeper is None:
        msg = "no key keeper: a hidden feature cannot be placed here"
        raise RuleRefusedError(msg)
    kept = ctx.keeper.get_facts(ctx.campaign).get(SALT_KEY)
    facts: dict[str, str] = {}
    if kept is None:
        kept = facts[SALT_KEY] = secrets.token_bytes(SALT_BYTES).hex()
    key = bytes.fromhex(kept)
    placed = []
    for offset, placement in enumerate(placements):
        salt = hmac.new(key, f"hidden feature {index + offset}".encode(), hashlib.sha256).hexdigest()
        feature = Hidden(hex=placement.hex, feature=placement.feature, lair=placement.lair, salt=salt)
        facts[feature.commitment] = feature.text()
        placed.append(ev.HiddenFeaturePlaced(commitment=feature.commitment))
    ctx.keeper.put_facts(ctx.campaign, facts)
    return placed


def kept(keeper: SecretKeeper, campaign: str, state: MapState) -> list[Hidden]:
    """The features of a map placed and not yet opened that the keeper holds (matching their commitments),
    in order."""
    facts = keeper.get_facts(campaign)
    out: list[Hidden] = []
    for key in state.unopened:
        found = _hidden(facts[key]) if key in facts else None
        if found is not None and found.commitment == key:
            out.append(found)
    return out


def still_hidden(ctx: StepContext) -> list[Hidden]:
    """The still-hidden features the keeper holds, in order (none without a keeper)."""
    state = ctx.state(PROCEDURE)
    if not isinstance(state, MapState) or ctx.keeper is None:
        return []
    return kept(ctx.keeper, ctx.campaign, state)


def lost(ctx: StepContext) -> int:
    """How many still-hidden features the keeper does not hold (a key file lost or replaced)."""
    state = ctx.state(PROCEDURE)
    if not isinstance(state, MapState):
        return 0
    return len(state.unopened) - len(still_hidden(ctx))


def unopened(ctx: StepContext) -> tuple[int, dict[int, Hidden]]:
    """How many features of the map are still hidden, and those the keeper holds by their place among them (the
    players know the count, never which hex holds which)."""
    state = ctx.state(PROCEDURE)
    if not isinstance(state, MapState):
        return 0, {}
    held = {f.commitment: f for f in still_hidden(ctx)}
    order = state.unopened
    return len(order), {at: held[key] for at, key in enumerate(order) if key in held}


def in_hex(ctx: StepContext, hex_name: str) -> list[Hidden]:
    """The still-hidden features of one hex."""
    return [f for f in still_hidden(ctx) if f.hex == hex_name]


def opening(
    feature: Hidden, *, found: bool, lost: bool = False
) -> ev.FeatureFound | ev.FeatureFoundLost | ev.FeatureRevealed:
    """The event that opens a feature's commitment: found by a search (by a party that is ``lost``, the
    referee's for the session), or revealed by the referee."""
    kind: type[ev.FeatureFound | ev.FeatureFoundLost | ev.FeatureRevealed] = ev.FeatureRevealed
    if found:
        kind = ev.FeatureFoundLost if lost else ev.FeatureFound
    return kind(hex=feature.hex, feature=feature.feature, lair=feature.lair, salt=feature.salt)
