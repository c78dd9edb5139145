"""Stream naming: a campaign is one stream, ``campaign-<id>``, whose events carry the source ``hexlog:<id>``."""

from __future__ import annotations

#: the prefix of every campaign's stream id
STREAM_PREFIX = "campaign-"
#: the prefix of every campaign's CloudEvents ``source``
SOURCE_PREFIX = "hexlog:"


def stream_for(campaign: str) -> str:
    """The stream id of a campaign."""
    return STREAM_PREFIX + campaign


def source_for(campaign: str) -> str:
    """The CloudEvents source of a campaign's events."""
    return SOURCE_PREFIX + campaign


def campaign_of(stream_id: str) -> str | None:
    """The campaign a stream id belongs to, or None for a stream that is not a campaign's."""
    if stream_id.startswith(STREAM_PREFIX) and len(stream_id) > len(STREAM_PREFIX):
        return stream_id.removeprefix(STREAM_PREFIX)
    return None
