"""RFC 9457 problem documents: what the HTTP service answers when it refuses, in the command line's words."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse

from hexlog.events.errors import (
    Advice,
    ConcurrencyError,
    DatabaseUnreachableError,
    HexlogError,
    IdempotencyConflictError,
    IllegalTransitionError,
    NotFoundError,
    RuleRefusedError,
    UnknownMemberError,
    UsageError,
)
from hexlog.machine.text import shown

if TYPE_CHECKING:
    from collections.abc import Callable

MEDIA_TYPE = "application/problem+json"

#: the kinds of problem (the slug their ``type`` ends with)
BAD_REQUEST = "bad-request"
UNAUTHORIZED = "unauthorized"
FORBIDDEN = "forbidden"
NOT_FOUND = "not-found"
METHOD_NOT_ALLOWED = "method-not-allowed"
CONFLICT = "conflict"
PAST_END = "past-end"
REFUSED = "refused"
TOO_LARGE = "too-large"
UNSUPPORTED = "unsupported-media-type"
INVALID = "invalid"
TOO_MANY = "too-many-requests"
TOO_MANY_STREAMS = "too-many-streams"
INTERNAL = "internal"
BUSY = "busy"
UNREACHABLE = "unreachable"
CROSS_ORIGIN = "cross-origin"

#: seconds a client is told to wait (``Retry-After``) before trying a database that could not be reached again
UNREACHABLE_RETRY = 5

#: where the driver says the server is (``connection to server at "db" (10.0.0.5), port 5432 failed: ``): the
#: service's own business, told to its log, not to its clients
_SERVER_AT = re.compile(r'connection to server (?:at|on socket) "[^"]*"[^:]*? failed: ')

#: status and title of every kind of problem, by the slug its ``type`` ends with
KINDS: dict[str, tuple[int, str]] = {
    BAD_REQUEST: (400, "The request is not well formed"),
    UNAUTHORIZED: (401, "A valid bearer token is needed"),
    FORBIDDEN: (403, "This token may not do that"),
    CROSS_ORIGIN: (403, "This origin may not do that"),
    NOT_FOUND: (404, "Not found"),
    METHOD_NOT_ALLOWED: (405, "Method not allowed"),
    CONFLICT: (409, "The campaign has moved on"),
    PAST_END: (409, "The log does not reach that version"),
    REFUSED: (409, "The procedure does not allow this now"),
    TOO_LARGE: (413, "The body is too large"),
    UNSUPPORTED: (415, "The body must be JSON"),
    INVALID: (422, "The request is not a valid command"),
    TOO_MANY: (429, "Too many requests"),
    TOO_MANY_STREAMS: (429, "Too many open streams for this token"),
    INTERNAL: (500, "Internal error"),
    BUSY: (503, "The database is busy"),
    UNREACHABLE: (503, "The database is unreachable"),
}


class Problem(Exception):  # noqa: N818 - it is the problem document, raised
    """A refusal the service answers with a problem document."""

    def __init__(self, kind: str, detail: str, *, headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra

    @property
    def status(self) -> int:
        """The HTTP status of this kind of problem."""
        return KINDS[self.kind][0]

    def response(self, instance: str) -> JSONResponse:
        """The problem document as a response."""
        status, title = KINDS[self.kind]
        body = {
            "type": f"urn:hexlog:problem:{self.kind}",
            "title": title,
            "status": status,
            "detail": shown(self.detail),
            "instance": instance,
            **self.extra,
        }
        return JSONResponse(body, status_code=status, headers=self.headers, media_type=MEDIA_TYPE)


def problem_of(err: HexlogError, say: Callable[[Advice], str]) -> Problem:  # noqa: PLR0911 - one answer per kind
    """The problem a core error is, with its message as the command line prints it but for the command it advises,
    which ``say`` names as the service serves it (a route, not a subcommand)."""
    detail = err.said(say)
    if isinstance(err, IllegalTransitionError):
        return Problem(REFUSED, detail, allowed=list(err.allowed))
    if isinstance(err, RuleRefusedError):
        return Problem(REFUSED, detail)
    if isinstance(err, UnknownMemberError):  # a value of the body, not a resource of the path
        return Problem(INVALID, detail)
    if isinstance(err, NotFoundError):
        return Problem(NOT_FOUND, detail)
    if isinstance(err, UsageError | IdempotencyConflictError):
        return Problem(INVALID, detail)
    if isinstance(err, DatabaseUnreachableError):
        detail = f"the database is unreachable: {_SERVER_AT.sub('', err.reason)}; try again later"
        return Problem(UNREACHABLE, detail, headers={"Retry-After": str(UNREACHABLE_RETRY)})
    if isinstance(err, ConcurrencyError):
        if "busy" in detail:
            return Problem(BUSY, detail, headers={"Retry-After": "1"})
        return Problem(CONFLICT, detail)
    return Problem(INTERNAL, detail)
