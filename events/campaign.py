"""Campaign events: the start (with the rules in force) and later rule changes."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from hexlog.events.base import Event


@attrs.frozen(kw_only=True)
class CampaignStarted(Event):
    """A campaign began under a ruleset; ``rules`` is the whole resolved ruleset."""

    type_name: ClassVar[str] = "campaign.started"
    campaign: str
    ruleset: str
    rules_hash: str
    rules: dict[str, Any]


@attrs.frozen(kw_only=True)
class RulesChanged(Event):
    """The referee changed the rules in force; ``rules`` is the whole new resolved ruleset."""

    type_name: ClassVar[str] = "campaign.rules_changed"
    ruleset: str
    rules_hash: str
    rules: dict[str, Any]
    reason: str = ""
