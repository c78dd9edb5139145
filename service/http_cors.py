"""Cross-origin requests (``hexlog serve --allow-origin``): a browser page served from another origin may call the API
and follow a stream, when its origin is named. Off unless an origin is given.

A page sends its bearer token in ``Authorization`` (never a cookie: no credentials are allowed), so the headers a
client sends (``Authorization``, ``Idempotency-Key``, ``If-Match``, ``Last-Event-ID``) are allowed, and those it
reads (``ETag``, ``Idempotent-Replayed``, ``Retry-After``) are exposed. A named origin's page on the internet may
call the service on a private network or this machine (a browser's Private Network Access preflight is answered).
A preflight the service will not allow is refused with a problem document (403) naming what it asked for, not with
Starlette's bare text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware

from hexlog.events.errors import UsageError
from hexlog.service.http_problems import CROSS_ORIGIN, Problem

if TYPE_CHECKING:
    from collections.abc import Collection

    from starlette.responses import Response
    from starlette.types import ASGIApp, Receive, Scope, Send

#: the methods the API answers, and the headers a client of it sends and reads
METHODS = ("GET", "POST")
SENT = ("Authorization", "Content-Type", "Idempotency-Key", "If-Match", "Last-Event-ID")
READ = ("ETag", "Idempotent-Replayed", "Retry-After", "WWW-Authenticate")
#: seconds a browser may keep a preflight's answer
MAX_AGE = 600

#: an origin as a browser sends it: scheme, host, an optional port; no path, not even "/"
_ORIGIN = re.compile(r"^https?://(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::[0-9]{1,5})?$")


def check_origin(text: str) -> str:
    """An origin ``--allow-origin`` may name (``*`` for every origin), as a browser's ``Origin`` header writes it; a
    ``UsageError`` in one line when it is not one, since no ``Origin`` would ever match it (``http://localhost:3000/``
    ends with a path)."""
    if text == "*":
        return text
    if _ORIGIN.match(text):  # as a browser writes it: in lower case, without the scheme's own port
        origin = text.lower()
        for scheme, port in (("http://", ":80"), ("https://", ":443")):
            if origin.startswith(scheme) and origin.endswith(port):
                origin = origin.removesuffix(port)
        return origin
    bare = re.match(r"^(https?://[^/?#]+)", text)
    hint = f" ({bare.group(1)})" if bare else " (https://vtt.example or http://localhost:3000)"
    msg = f"--allow-origin {text!r} is not an origin: write scheme://host[:port], without a path{hint}, or *"
    raise UsageError(msg)


class Cors(CORSMiddleware):
    """Starlette's CORS middleware set for this API, whose refused preflight is a problem document."""

    def __init__(self, app: ASGIApp, origins: Collection[str]) -> None:
        super().__init__(
            app,
            allow_origins=tuple(origins),
            allow_methods=METHODS,
            allow_headers=SENT,
            expose_headers=READ,
            allow_credentials=False,
            # a page of a named origin on the internet may call a service on this machine or its network (where
            # 'hexlog serve' listens by default): the browser asks first, and only the origins named are told yes
            allow_private_network=True,
            max_age=MAX_AGE,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A preflight answered here (refused with a problem document at its path), any other request passed on."""
        headers = Headers(scope=scope) if scope["type"] == "http" else None
        if (
            headers is not None
            and scope["method"] == "OPTIONS"
            and "origin" in headers
            and "access-control-request-method" in headers
        ):
            await self.preflight(headers, scope["path"])(scope, receive, send)
            return
        await super().__call__(scope, receive, send)

    def preflight(self, request_headers: Headers, path: str) -> Response:
        """The preflight's answer; when it is refused, a 403 problem document saying which part of it is not allowed
        (the browser then refuses the request itself)."""
        answer = self.preflight_response(request_headers)
        if answer.status_code < 400:  # noqa: PLR2004 - a refused preflight is Starlette's 400
            return answer
        asked = []
        if not self.is_allowed_origin(request_headers["origin"]):
            asked.append(f"origin {request_headers['origin']!r} is not one --allow-origin names")
        if request_headers["access-control-request-method"] not in self.allow_methods:
            asked.append(f"method {request_headers['access-control-request-method']!r} is not {' or '.join(METHODS)}")
        wanted = [h.strip().lower() for h in request_headers.get("access-control-request-headers", "").split(",")]
        others = [h for h in wanted if h and h not in self.allow_headers]
        if others:
            asked.append(f"header {', '.join(others)} is not one a client of the API sends")
        if not asked:  # no other part of a preflight is refused: said plainly all the same
            asked.append("the preflight is not one this service answers")
        headers = {k: v for k, v in answer.headers.items() if k.lower().startswith("access-control-") or k == "vary"}
        refused = Problem(CROSS_ORIGIN, f"cross-origin request refused: {'; '.join(asked)}", headers=headers)
        return refused.response(path)
