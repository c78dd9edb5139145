"""The HTTP server under ``hexlog serve``: uvicorn, ending every follower's stream as soon as it is told to stop.

A stream never ends by itself, so without this a stopping server would wait its whole grace period for them and
then cancel them mid-write. Their followers resume with ``Last-Event-ID`` wherever the service runs next.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import uvicorn

if TYPE_CHECKING:
    from types import FrameType

    from starlette.applications import Starlette

    from hexlog.service.http_stream import Bell

#: seconds a request under way may take to finish once the server is told to stop
GRACE = 5


class Server(uvicorn.Server):
    """uvicorn's server, which ends the service's streams (its ``Bell``) first when it is told to stop."""

    def __init__(self, config: uvicorn.Config, bell: Bell) -> None:
        super().__init__(config)
        self.bell = bell

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """Stop: the streams end at once, then the server stops as uvicorn does."""
        self.bell.close()
        super().handle_exit(sig, frame)


def run(app: Starlette, *, host: str, port: int) -> None:
    """Serve ``app`` (made by ``create_app``) until interrupted."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,  # the service logs each request itself, without its token
        timeout_graceful_shutdown=GRACE,
    )
    Server(config, app.state.service.bell).run()
