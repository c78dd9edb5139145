"""Readable text for the session events that ``render`` does not describe itself."""

from __future__ import annotations

from hexlog.events.session import SessionAbandoned
from hexlog.service.render import describer


@describer(SessionAbandoned)
def _abandoned(e: SessionAbandoned) -> str:
    return f"session {e.session} abandoned without revealing its secret: {e.reason}"
