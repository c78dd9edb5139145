"""``hexlog serve``: the HTTP API (Starlette) over one database, with a live event stream per campaign.

Every route but ``/health``, ``/openapi.json``, ``/docs`` and ``/schemas`` needs ``Authorization:
Bearer TOKEN``, a token made by ``hexlog token create`` for one campaign and one role. A referee's
token does everything in its campaign; a player's token reads and follows it (seeing what the player
view shows) and sends the commands players own. Errors are RFC 9457 problem documents in the words
of the command line. ``endpoints()`` lists the routes (the OpenAPI document is made from them); the
command routes come from the registry (``hexlog.service.http_commands``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import math
import shutil
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import attrs
import structlog
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from hexlog.events.base import TYPE_PREFIX
from hexlog.events.catalogue import catalogue
from hexlog.events.chain import canonical_json
from hexlog.events.codec import decode
from hexlog.events.errors import (
    Advice,
    HexlogError,
    IdempotencyConflictError,
    IllegalTransitionError,
    NotFoundError,
    RuleRefusedError,
    UsageError,
)
from hexlog.events.files import FileContentError, no_duplicates
from hexlog.events.postgres import PostgresStore
from hexlog.events.streams import stream_for
from hexlog.machine.campaign import check_campaign_id
from hexlog.machine.handler import Handler, Outcome, command_digest
from hexlog.machine.hexmap import grid
from hexlog.machine.keeper import FileKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.text import counted
from hexlog.projections import visibility
from hexlog.replay import audit as audits
from hexlog.replay import player_audit
from hexlog.replay.rebuild import table_at
from hexlog.replay.receipts import Receipt
from hexlog.service import render
from hexlog.service.cli_log import explained, of_another_campaign
from hexlog.service.cli_travel import map_lines
from hexlog.service.door import Door, NotReachedError, busy_timeout, campaign_ids, key_file, open_store
from hexlog.service.http_commands import FILE_FIELDS, CommandRoute, command_routes, player_may, route_words
from hexlog.service.http_cors import Cors
from hexlog.service.http_events import PlayerCache, seen, stored_head
from hexlog.service.http_problems import (
    BAD_REQUEST,
    CONFLICT,
    FORBIDDEN,
    INTERNAL,
    INVALID,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    PAST_END,
    REFUSED,
    TOO_LARGE,
    TOO_MANY,
    TOO_MANY_STREAMS,
    UNAUTHORIZED,
    UNREACHABLE,
    UNSUPPORTED,
    Problem,
    problem_of,
)
from hexlog.service.http_replies import KEEP_HOURS, KEY_LIMIT, Replies, Reply
from hexlog.service.http_stream import (
    MAX_STREAMS,
    NOTIFIED_POLL,
    POLL,
    STREAMS_RETRY,
    Bell,
    Listening,
    Slots,
    follow,
    holding,
)
from hexlog.service.http_tokens import PLAYER, REFEREE, Token, TokenStore

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from hexlog.events.store import EventStore
    from hexlog.machine.commands import Command
    from hexlog.machine.kit.registry import Registry
    from hexlog.machine.table import Table

#: how many events a page of the paged read holds when ``?limit=`` gives none, and the most it may hold (a larger
#: ``?limit=`` is taken as this many)
PAGE_DEFAULT, PAGE_LIMIT = 100, 1000

#: who may call a route: anybody; a token of the campaign (either role); its referee's token, or a player's
#: for the commands players own; any valid token
PUBLIC, READ, COMMAND, ANY_TOKEN = "public", "read", "command", "token"


@attrs.frozen(kw_only=True)
class Settings:
    """What ``hexlog serve`` is given."""

    #: the database (``--db``): a SQLite file, or a PostgreSQL URL (as a path, as ``--db`` gives it)
    db: Path
    #: the largest request body, in bytes
    max_body: int = 256 * 1024
    #: requests per second each token may make, on average, and how many at once
    rate: float = 20.0
    burst: int = 60
    #: seconds of quiet before a stream sends a heartbeat
    heartbeat: float = 15.0
    #: seconds between a stream's looks for appends nothing announced (default: ``POLL`` on SQLite, where
    #: other processes' appends are found so, ``NOTIFIED_POLL`` on PostgreSQL, which announces every append)
    poll: float | None = None
    #: the most events one page of the paged read holds
    page_limit: int = PAGE_LIMIT
    #: the origins whose browser pages may call the API (``--allow-origin``; ``*`` for every one); none: no
    #: cross-origin request is allowed
    allow_origins: tuple[str, ...] = ()
    #: hours the answer to a command sent with an Idempotency-Key is kept (``--keep-replies``)
    keep_replies: float = KEEP_HOURS
    #: the most live streams one token may hold open at once (``--max-streams``)
    max_streams: int = MAX_STREAMS


class Rates:
    """A token bucket per token: ``rate`` requests a second, ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when a request may go now, else the seconds until it may."""
        now = time.monotonic()
        with self._lock:
            level, then = self._buckets.get(key, (float(self.burst), now))
            level = min(float(self.burst), level + (now - then) * self.rate)
            if level >= 1:
                self._buckets[key] = (level - 1, now)
                return 0.0
            self._buckets[key] = (level, now)
            return (1 - level) / self.rate


@attrs.frozen(kw_only=True)
class Endpoint:
    """One route: how it is called, who may call it, and what the OpenAPI document says of it."""

    method: str
    path: str
    summary: str
    access: str
    run: Callable[[Service, Request, Token | None], Awaitable[Response]]
    params: tuple[tuple[str, str, dict[str, Any], str], ...] = ()  # (name, in, schema, description)
    body: CommandRoute | None = None
    answers: str = "application/json"


class Service:
    """One database's store, handler, tokens and stored replies, shared by every request."""

    def __init__(self, settings: Settings, registry: Registry = REGISTRY) -> None:
        self.settings = settings
        timeout = busy_timeout()
        self.store = open_store(settings.db)
        # the key file every command of the database uses (for PostgreSQL: HEXLOG_KEY_FILE, else the user's one)
        self.handler = Handler(self.store, FileKeeper(key_file(settings.db), lock_timeout=timeout), registry=registry)
        #: reads are made on a connection of their own, by a handler of their own (its live projections one read at
        #: a time): a read never waits for a command, nor for the commands' connection, which a command waiting
        #: for a busy database holds
        self.reads = open_store(settings.db)
        self.reader = Handler(self.reads, FileKeeper(key_file(settings.db), lock_timeout=timeout), registry=registry)
        self.read_lock = threading.Lock()
        self.tokens = TokenStore(settings.db, busy_timeout=timeout)
        self.replies = Replies(settings.db, busy_timeout=timeout, keep_hours=settings.keep_replies)
        self.registry = registry
        self.bell = Bell()
        #: on PostgreSQL, the database's announcements of every append ring the bell
        self.listening = Listening(self.store, self.bell) if isinstance(self.store, PostgresStore) else None
        default_poll = NOTIFIED_POLL if self.listening is not None else POLL
        self.poll = default_poll if settings.poll is None else settings.poll
        self.rates = Rates(settings.rate, settings.burst)
        #: the live streams each token holds open
        self.streams = Slots(settings.max_streams)
        #: commands are one at a time: the handler keeps its live projections in memory
        self.lock = threading.Lock()
        #: commands run on one thread of their own, in the order they arrive (a fair queue)
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hexlog-commands")
        #: each campaign's events as a player sees them, kept between requests
        self.player_views: dict[str, PlayerCache] = {}
        self.views_lock = threading.Lock()
        #: where a command's file text (a map) is put for its step to read: made for this service, its alone
        self.files = Path(tempfile.mkdtemp(prefix="hexlog-http-"))

    def door(self, campaign: str) -> Door:
        """The command line's door to a campaign for reads, on this service's reading store and handler (used
        holding ``read_lock``)."""
        return Door(store=self.reads, handler=self.reader, campaign=campaign)

    def words(self, campaign: str | None) -> Callable[[Advice], str]:
        """How a refusal names the command it advises here: the command's route (of ``campaign``, when known)."""
        return functools.partial(route_words, registry=self.registry, campaign=campaign)

    def table(self, campaign: str) -> Table:
        """A campaign's table as the reads see it (``NotFoundError`` when it does not exist)."""
        with self.read_lock:
            return self.door(campaign).table()

    def close(self) -> None:
        """Release the database."""
        if self.listening is not None:
            self.listening.stop()
        self.writer.shutdown(wait=True)
        self.store.close()
        self.reads.close()
        self.tokens.close()
        self.replies.close()
        shutil.rmtree(self.files, ignore_errors=True)


# --- requests -------------------------------------------------------------------------------------------


def _campaign(request: Request) -> str:
    campaign = str(request.path_params["campaign"])
    try:
        check_campaign_id(campaign)
    except HexlogError as err:
        raise Problem(NOT_FOUND, f"no campaign {campaign!r}: {err}") from None
    return campaign


def _player(token: Token | None) -> bool:
    return token is not None and token.role == PLAYER


#: the most digits a whole number of a query or a header may have (a stream version fits in 15), and so the largest
WHOLE_DIGITS = 15
WHOLE_MOST = 10**WHOLE_DIGITS - 1


def _version_text(text: str) -> bool:
    """Whether text is a whole number as a stream version is written: ASCII digits, at most ``WHOLE_DIGITS``."""
    return text.isascii() and text.isdigit() and len(text) <= WHOLE_DIGITS


def _int(request: Request, name: str, default: int | None, least: int = 0) -> int | None:
    """A whole-number query parameter: ``default`` when it is absent; a 400 naming it when it is given empty (``?from=``
    is no version, and taken as the default it would read from where the client did not ask) or holds no number."""
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.strip():
        raise Problem(BAD_REQUEST, f"?{name} must be a whole number, not {text!r} (leave ?{name} out for its default)")
    return _whole(name, text, least)


def _given(request: Request, name: str, what: str, default: str) -> str | None:
    """A text query parameter: None when it is absent; a 400 naming it when it is given empty (``?hex=`` names no hex,
    and taken as its default it would answer what the client did not ask: every hex, the latest session)."""
    text = request.query_params.get(name)
    if text is not None and not text.strip():
        raise Problem(BAD_REQUEST, f"?{name} must be {what}, not {text!r} (leave ?{name} out for {default})")
    return text


def _whole(name: str, text: str, least: int) -> int:
    """The whole number a query parameter holds; a 400 naming the parameter when it holds none, or one too small."""
    if not _version_text(text):
        raise Problem(BAD_REQUEST, f"?{name} must be a whole number, not {text!r}")
    value = int(text)
    if value < least:
        raise Problem(BAD_REQUEST, f"?{name} must be at least {least}")
    return value


def _flag(request: Request, name: str) -> bool:
    """A yes-or-no query parameter (absent: no); a 400 naming it when it is neither, or given empty (``?secret=``, from
    a client that built its query from a variable left unset, asks neither yes nor no)."""
    given = request.query_params.get(name)
    text = (given or "").strip().lower()
    if text in {"1", "true", "yes"}:
        return True
    if given is None or text in {"0", "false", "no"}:
        return False
    raise Problem(BAD_REQUEST, f"?{name} must be true or false, not {given!r} (leave ?{name} out for false)")


def _parsed(name: str, parse: Callable[[str], Any], text: str) -> Any:
    """A query parameter read by the core's own parser; its refusal is a 400 naming the parameter."""
    try:
        return parse(text)
    except UsageError as err:
        raise Problem(BAD_REQUEST, f"?{name}: {err}") from None
    except ValueError:  # a number past the interpreter's digits
        raise Problem(BAD_REQUEST, f"?{name}: {text[:40]!r}... is too long a number") from None


def _expected_receipt(text: str) -> Receipt:
    """One ``?expect=`` receipt; an empty one is a 400 in the words of every empty text parameter (from a client that
    built its query from a variable left unset, it expects nothing: taken so, the audit would check less than asked)."""
    if not text.strip():
        raise Problem(
            BAD_REQUEST,
            f"?expect must be a receipt, CAMPAIGN@VERSION:FINGERPRINT, not {text!r} "
            "(leave ?expect out to expect no receipt)",
        )
    parsed: Receipt = _parsed("expect", Receipt.parse, text)
    return parsed


async def _json_body(request: Request, limit: int) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise Problem(TOO_LARGE, f"the body has {declared} bytes; the most is {limit}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise Problem(TOO_LARGE, f"the body has more than {limit} bytes; the most is {limit}")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    kind, *parameters = request.headers.get("content-type", "application/json").split(";")
    kind = kind.strip().lower()
    if kind != "application/json" and not kind.endswith("+json"):
        raise Problem(UNSUPPORTED, f"the body is {kind}, not application/json")
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        charset = value.strip().strip('"').lower()
        if name.strip().lower() == "charset" and charset not in {"utf-8", "utf8"}:
            raise Problem(UNSUPPORTED, f"the body is in {charset or 'no charset'}; JSON is sent in UTF-8")
    return _parsed_body(raw)


def _parsed_body(raw: bytes) -> Any:
    """A request's JSON body; a 400 naming what is wrong when it is not UTF-8 or not JSON, gives a key twice in one
    object (which ``json.loads`` alone lets the last of them win), holds too long a number or nests too deep."""
    try:  # JSON is UTF-8 (RFC 8259; a BOM before it let be): json.loads alone would read UTF-16 or UTF-32 too
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise Problem(BAD_REQUEST, f"the body is not UTF-8: byte {err.start} is {raw[err.start]:#04x}") from None
    try:
        body = json.loads(text, object_pairs_hook=no_duplicates)
    except FileContentError as err:
        raise Problem(BAD_REQUEST, f"the body is refused: {err}") from None
    except RecursionError:
        raise Problem(BAD_REQUEST, f"the body nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as err:
        if "int_max_str_digits" in str(err):  # Python's own words name a setting of its own
            raise Problem(BAD_REQUEST, "the body holds a number of more than 4300 digits") from None
        raise Problem(BAD_REQUEST, f"the body is not JSON: {err}") from None
    if _depth(body) > MAX_DEPTH:
        raise Problem(BAD_REQUEST, f"the body nests deeper than {MAX_DEPTH} levels")
    return body


#: how deep a body's arrays and objects may nest (no command's fields need more than a few levels)
MAX_DEPTH = 32


def _depth(value: Any) -> int:
    """How deep a JSON value's arrays and objects nest (a number or a string: 0), without recursion."""
    deepest, level = 0, [(value, 1)]
    while level:
        item, depth = level.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        level.extend((child, depth + 1) for child in children)
    return deepest


def _shown(
    service: Service, campaign: str, first: int, *, player: bool, store: EventStore | None = None
) -> list[tuple[dict[str, Any], str]]:
    """A campaign's events from version ``first`` on as the caller sees them, with their text (read on ``store``,
    by default the reads' own)."""
    stream, read = stream_for(campaign), service.reads if store is None else store
    if not player:
        return seen(read.read_stream(stream, first), player=False, first=first)
    return _player_view(service, campaign).items(lambda version: read.read_stream(stream, version), first)


def _player_view(service: Service, campaign: str) -> PlayerCache:
    """The campaign's events as a player sees them, kept by the service."""
    with service.views_lock:
        found = service.player_views.get(campaign)
        if found is None:
            head = functools.partial(stored_head, service.reads, campaign, service.registry)
            found = service.player_views[campaign] = PlayerCache(service.registry, head)
        return found


def _told(service: Service, campaign: str, last: int, *, player: bool) -> list[tuple[dict[str, Any], str]]:
    """The campaign's last ``last`` events (every one for 0) as a role sees them, with their lines: read from where
    they begin, their lines reading back (past version 1) to what the table holds, as a command's answer's do, so
    that the cost is the lines asked for, however long the campaign."""
    table = service.table(campaign)
    stream = stream_for(campaign)
    first = max(1, service.reads.stream_version(stream) - last + 1) if last else 1
    if player:
        return _shown(service, campaign, first, player=True)
    told = render.context(table) if first > 1 else None
    return seen(service.reads.read_stream(stream, first), player=False, first=first, told=told)


def _received(service: Service, campaign: str, first: int, *, player: bool) -> list[dict[str, Any]]:
    return [event for event, _ in _shown(service, campaign, first, player=player)]


# --- the command routes ---------------------------------------------------------------------------------


def _with_file(command: Command, folder: Path) -> tuple[Command, Path | None]:
    """A command whose file field holds the file's text, given the path of that text in a file of its own: in a
    folder of the service's own that no one else may enter (``Service.files``), in a folder named by the text's hash,
    so that a retried command is the same command, under a name that says nothing of the text (``map.toml``)."""
    for name in FILE_FIELDS:
        text = getattr(command, name, None)
        if isinstance(text, str):
            try:
                raw = text.encode("utf-8")
            except UnicodeEncodeError:
                msg = f"the {name} of {type(command).__name__} is not valid Unicode"
                raise UsageError(msg) from None
            path = folder / hashlib.sha256(raw).hexdigest()[:32] / "map.toml"
            path.parent.mkdir(mode=0o700, exist_ok=True)
            path.write_bytes(raw)
            return attrs.evolve(command, **{name: str(path)}), path
    return command, None


def _refusal(service: Service, campaign: str, route: CommandRoute, err: HexlogError, path: Path | None) -> Problem:
    """The problem a command's refusal is: named as the route's step, without the path of the file of its text, and
    a conflict with the version the campaign is at."""
    problem = problem_of(_worded(err, route), service.words(campaign))
    if path is not None:
        problem.detail = _unplaced(problem.detail, path)
    if problem.kind == CONFLICT:
        problem.extra["current_version"] = service.store.stream_version(stream_for(campaign))
    if problem.kind == REFUSED and "allowed" not in problem.extra and route.procedure.has_machine:
        problem.extra["allowed"] = _allowed_now(service, campaign, route)  # a rule's refusal names them too
    return problem


def _allowed_now(service: Service, campaign: str, route: CommandRoute) -> list[str]:
    """The steps of the route's procedure allowed now, as a refusal by the procedure's machine names them."""
    try:
        table = service.handler.load(campaign)
    except HexlogError:
        return []
    state = table.procedures.get(route.procedure.name)
    return [
        render.subcommand(trigger) for trigger, _ in service.registry.runner(route.procedure.name).allowed(state, table)
    ]


def _unplaced(detail: str, path: Path) -> str:
    """A refusal's words without the path of the file the service put a command's text in (the client sent the text,
    never a path): ``the map /tmp/.../map.toml is not TOML`` is ``the map is not TOML``."""
    return detail.replace(f" {path}", "").replace(str(path), "the map")


def _worded(err: HexlogError, route: CommandRoute) -> HexlogError:
    """A refusal named as the route's step (as the command line names its subcommand)."""
    trigger = route.procedure.triggers.get(route.cls)
    if isinstance(err, IllegalTransitionError):
        allowed = [render.subcommand(t) for t in err.allowed]
        return IllegalTransitionError(err.procedure, err.state, render.subcommand(err.trigger), allowed).telling(
            *err.told
        )
    if isinstance(err, RuleRefusedError) and trigger is not None:
        return err.reworded(err.lead.replace(f"'{trigger}'", f"'{render.subcommand(trigger)}'"))
    return err


def _answer(service: Service, route: CommandRoute, campaign: str, outcome: Outcome, *, player: bool) -> dict[str, Any]:
    """What a command's response says: the events as the caller may see them, their text, the steps next."""
    result = outcome.result
    first = result.first_version
    if player:
        shown = _shown(service, campaign, first, player=True, store=service.store)
    else:  # the referee's from the command's first event on, their lines reading back to the table it left
        records = service.store.read_stream(stream_for(campaign), first)
        shown = seen(records, player=False, first=first, told=render.context(outcome.table))
    shown = [item for item in shown if item[0]["streamversion"] <= result.last_version]
    body: dict[str, Any] = {
        "campaign": campaign,
        "command": route.name,
        "first_version": result.first_version,
        "version": result.last_version,
        "replayed": result.replayed,
        "events": [event for event, _ in shown],
        "text": [text for _, text in shown],
        "receipt": _receipt_at(service, campaign, result.last_version),
    }
    state = outcome.table.procedures.get(route.procedure.name)
    if state is not None and route.procedure.has_machine and not player:
        phase = route.procedure.phase_of(state)
        name = route.procedure.name
        body["phase"] = phase.name if phase is not None else None
        body["next"] = render.steps_now(name, state, outcome.table, service.registry)
        body["resumed"] = {
            parent: {"phase": phase, "next": steps}
            for parent, phase, steps in render.resumed(name, outcome.table, outcome.events, service.registry)
        }
        body["after"] = render.after(name, state, outcome.table, outcome.events)
    return body


def _receipt_at(service: Service, campaign: str, version: int) -> str | None:
    records = service.store.read_stream(stream_for(campaign), version)[:1]
    return str(Receipt.of(records[0].envelope)) if records else None


def _request_digest(route: CommandRoute, body: Any) -> str:
    return hashlib.sha256(canonical_json([route.name, body]).encode("utf-8", "surrogatepass")).hexdigest()


def _execute(  # noqa: PLR0913, PLR0917 - the request's parts (run in a worker thread, by position)
    service: Service,
    route: CommandRoute,
    campaign: str,
    body: Any,
    token: Token,
    key: str | None,
    expected: int | None,
) -> tuple[int, dict[str, Any], bool]:
    """Run a command once (in a worker thread): the status, the body, and whether it was a stored answer."""
    command = route.command(body)
    player = _player(token)
    if player and not player_may(command):
        raise Problem(FORBIDDEN, f"a player's token may not send {route.name} with these arguments")
    digest = _request_digest(route, body)
    # a key names a request of its token alone: two clients that count their keys alike do not meet
    scoped = None if key is None else f"{token.id}:{key}"
    with service.lock:
        if scoped is not None:
            stored = service.replies.get(campaign, scoped)
            if stored is not None:
                if stored.digest != digest:
                    msg = f"Idempotency-Key {key!r} was already used for another request"
                    raise Problem(INVALID, msg)
                return stored.status, {**stored.body, "replayed": True}, True
        version = service.store.stream_version(stream_for(campaign))
        command_id = None if scoped is None else f"http:{campaign}:{scoped}"
        sent, path = _with_file(command, service.files)
        try:
            earlier = None if key is None else _sent_before_scoping(service, campaign, token, key, command)
            # a retry is answered as recorded, whatever version its If-Match names (the one it was first sent at)
            retry = earlier is not None or (command_id is not None and _recorded(service, command_id, command))
            if expected is not None and expected != version and not retry:
                msg = f"campaign {campaign!r} is at version {version}, not {expected} (If-Match)"
                raise Problem(CONFLICT, msg, current_version=version)
            # known by the text it sent, not by the path of this service's own folder it is run from; decided on the
            # version If-Match names, or refused, even when another process writes to the campaign meanwhile
            outcome = earlier or service.handler.execute(
                campaign, sent, command_id, as_sent=command, expected=None if retry else expected
            )
        except HexlogError as err:
            raise _refusal(service, campaign, route, err, path) from None
        finally:
            if path is not None:
                path.unlink(missing_ok=True)
                path.parent.rmdir()
        answer = _answer(service, route, campaign, outcome, player=player)
        if scoped is not None:
            service.replies.put(campaign, scoped, Reply(digest=digest, status=200, body=answer))
    service.bell.ring(campaign)
    return 200, answer, False


def _recorded(service: Service, command_id: str, sent: Command) -> bool:
    """Whether this very command (as the body sent it) was recorded under this command id (a retry whose answer was
    never stored)."""
    try:
        return service.store.command_result(command_id, command_digest(sent)) is not None
    except (IdempotencyConflictError, UnicodeEncodeError):
        return False  # the id used for another command: the handler refuses it in its own words


def _legacy_file(command: Command) -> Command:
    """The command as a release that took the bare key sent it: its file text in ``hexlog-http-<hash>.toml`` of the
    shared temporary folder (the path is an argument, so it is part of the command's digest)."""
    for name in FILE_FIELDS:
        text = getattr(command, name, None)
        if isinstance(text, str):
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            return attrs.evolve(command, **{name: str(Path(tempfile.gettempdir()) / f"hexlog-http-{digest[:32]}.toml")})
    return command


def _sent_before_scoping(service: Service, campaign: str, token: Token, key: str, command: Command) -> Outcome | None:
    """What a retry of a command first sent to a release that took the bare ``Idempotency-Key`` (its command id
    ``http:CAMPAIGN:KEY``, no token in it) recorded, or None when the retry is to be run as a command of its own.

    Only when this token's own command id is unknown, and the bare key's command is this very one: of this
    campaign's stream and of the same command digest (a player's key naming the referee's command of another kind
    or other arguments is the player's own), recorded after this token was made (a token made later never sent it).
    The answer is then made anew in the caller's own view, never taken from the stored reply of the bare key.
    """
    store, stream = service.store, stream_for(campaign)
    if ":" in key:
        return None  # ``TOKEN:KEY`` would name another token's own command
    try:
        if store.command_result(f"http:{campaign}:{token.id}:{key}", command_digest(command)) is not None:
            return None  # this token's own: the handler answers it
        earlier = store.command_result(f"http:{campaign}:{key}", command_digest(_legacy_file(command)))
    except (IdempotencyConflictError, UnicodeEncodeError):
        # this token's key used for another command, or text that is not Unicode: the handler refuses it in its own
        # words; the bare key used for another command: this one is new
        return None
    if earlier is None or earlier.stream_id != stream:
        return None
    first = next(iter(store.iter_stream(stream, earlier.first_version)), None)
    # both in UTC; a token's time is to the second, so only a token made in a later second is known to be later
    if first is None or token.created[:19] > first.envelope.time[:19]:
        return None
    return Outcome(result=earlier, events=(), table=service.handler.load(campaign))


def _command_endpoint(route: CommandRoute) -> Endpoint:
    async def run(service: Service, request: Request, token: Token | None) -> Response:
        assert token is not None  # noqa: S101 - the route needs a token
        campaign = _campaign(request)
        request.state.command = route.name
        body = await _json_body(request, service.settings.max_body)
        key = _header_once(request, "Idempotency-Key")
        if key is not None and not 0 < len(key) <= KEY_LIMIT:
            raise Problem(BAD_REQUEST, f"Idempotency-Key must have 1 to {KEY_LIMIT} characters")
        expected = _if_match(_header_once(request, "If-Match"))
        status, answer, stored = await asyncio.wrap_future(
            service.writer.submit(_execute, service, route, campaign, body, token, key, expected)
        )
        headers = {"ETag": f'"{answer["version"]}"'}
        # a retry answered from its stored answer, or from what the log recorded of it (sent to another process on the
        # same database too, or answered before the answer was kept): the header says so as the body does
        replayed = stored or answer["replayed"] is True
        if replayed:
            headers["Idempotent-Replayed"] = "true"
        request.state.outcome = "replayed" if replayed else "ok"
        return JSONResponse(answer, status_code=status, headers=headers)

    doc = (route.cls.__doc__ or route.name).strip().splitlines()[0]
    return Endpoint(
        method="POST",
        path=route.path,
        summary=doc,
        access=COMMAND,
        run=run,
        body=route,
        params=(
            (
                "Idempotency-Key",
                "header",
                {"type": "string", "maxLength": KEY_LIMIT},
                "a retry returns the first answer",
            ),
            (
                "If-Match",
                "header",
                {"type": "string", "pattern": f'^(\\*|(W/)?"?[0-9]{{1,{WHOLE_DIGITS}}}"?)$'},
                "the stream version expected (409 when the campaign moved on)",
            ),
        ),
    )


def _header_once(request: Request, name: str) -> str | None:
    """A header a command reads once; a 400 when it is given more than once (two If-Match headers were read as the
    first, and a command stale by the second applied; two keys as the first, and a retry sent with the second alone
    applied again)."""
    given = request.headers.getlist(name)
    if len(given) > 1:
        raise Problem(BAD_REQUEST, f"{name} is given {len(given)} times; a command takes one")
    return given[0] if given else None


def _if_match(text: str | None) -> int | None:
    """The stream version an ``If-Match`` header expects (``"42"``, ``42`` or ``W/"42"``); None for none or ``*``."""
    if text is None or text.strip() == "*":
        return None
    bare = text.strip().removeprefix("W/").strip('"')
    if not _version_text(bare):
        raise Problem(BAD_REQUEST, f"If-Match must be a stream version, not {text!r}")
    return int(bare)


# --- the read routes ------------------------------------------------------------------------------------


async def _health(service: Service, request: Request, token: Token | None) -> Response:
    del service, request, token
    return JSONResponse({"status": "ok"})


async def _openapi(service: Service, request: Request, token: Token | None) -> Response:
    del token
    from hexlog.service.http_openapi import document  # noqa: PLC0415 - made from the endpoints, which need this module

    return JSONResponse(document(request.app.state.endpoints, service.registry))


async def _docs(service: Service, request: Request, token: Token | None) -> Response:
    del token
    from hexlog.service.http_openapi import document, page  # noqa: PLC0415 - as above

    return HTMLResponse(page(document(request.app.state.endpoints, service.registry)))


async def _campaigns(service: Service, request: Request, token: Token | None) -> Response:
    del request
    assert token is not None  # noqa: S101 - the route needs a token
    known = await anyio.to_thread.run_sync(campaign_ids, service.reads)
    mine = [c for c in known if c == token.campaign]
    versions = [service.reads.stream_version(stream_for(c)) for c in mine]
    return JSONResponse(
        {
            "campaigns": [{"id": c, "version": v} for c, v in zip(mine, versions, strict=True)],
            "token": {"campaign": token.campaign, "role": token.role},
        }
    )


def _state_body(service: Service, campaign: str, at: str | None, *, player: bool) -> dict[str, Any]:
    with service.read_lock:
        door = service.door(campaign)
        table = door.table()
        latest = table.version
        version = latest
        if at is not None:
            version = _version_at(door, at, table)
            table = table_at(door.store, campaign, version, service.registry)
        session = table.session
        body: dict[str, Any] = {
            "campaign": campaign,
            "view": PLAYER if player else REFEREE,
            "version": version,
            "latest": latest,
            "receipt": door.receipt(None if version == latest else version).removeprefix("receipt "),
            "lines": render.state_lines(campaign, table, service.registry, player=player),
            "session": None
            if session is None
            else {
                "id": session.id,
                "status": session.status,
                "commitment": session.commitment,
                "scheme": session.scheme,
                "client_seed": session.client_seed,
                "rolls": session.rolls,
            },
            "party": [m.name for m in table.party.members],
            "clock": {"text": table.clock.text, "seconds": table.clock.seconds},
        }
        procedures = {}
        for procedure in service.registry.procedures:
            if procedure.name in table.procedures:
                state = table.procedures[procedure.name]
                phase = procedure.phase_of(state)
                entry: dict[str, Any] = {"phase": phase.name if phase is not None else None}
                if procedure.has_machine and not player:
                    entry["next"] = render.steps_now(procedure.name, state, table, service.registry)
                procedures[procedure.name] = entry
        body["procedures"] = procedures
        return body


def _version_at(door: Door, at: str, table: Table) -> int:
    """The stream version the state route's ``?at=`` names: a version (a 404 when the campaign holds none there,
    as the receipt's ``?at=`` says) or a moment of game time (a 404 when the clock has not reached it); a 400
    naming the parameter when it is neither."""
    text = at.strip()
    if not text:
        detail = f"?at must be a stream version or a moment of game time, not {at!r} (leave ?at out for the state now)"
        raise Problem(BAD_REQUEST, detail)
    if text.isdigit():  # digits of any script: only ASCII ones are a version
        version = _whole("at", text, least=1)
        try:
            return door.version_at(str(version), table)
        except UsageError as err:
            raise Problem(NOT_FOUND, str(err)) from None

    def at_moment(moment: str) -> int:
        try:
            return door.version_at(moment, table)
        except NotReachedError as err:  # as a version the campaign does not hold yet
            raise Problem(NOT_FOUND, str(err)) from None

    return int(_parsed("at", at_moment, text))


async def _state(service: Service, request: Request, token: Token | None) -> Response:
    campaign = _campaign(request)
    at = request.query_params.get("at")
    body = await anyio.to_thread.run_sync(lambda: _state_body(service, campaign, at, player=_player(token)))
    # the state now carries its version as a command's answer does, for the If-Match of the next command
    return JSONResponse(body, headers={"ETag": f'"{body["version"]}"'} if at is None else None)


async def _timeline(service: Service, request: Request, token: Token | None) -> Response:
    campaign = _campaign(request)
    last = _int(request, "last", 0) or 0

    def read() -> dict[str, Any]:
        shown = _told(service, campaign, last, player=_player(token))
        lines = [
            {"version": e["streamversion"], "time": e["time"], "kind": e["type"].removeprefix(TYPE_PREFIX), "text": t}
            for e, t in (shown[-last:] if last else shown)
        ]
        return {"campaign": campaign, "lines": lines}

    return JSONResponse(await anyio.to_thread.run_sync(read))


async def _events(service: Service, request: Request, token: Token | None) -> Response:
    campaign = _campaign(request)
    first = _int(request, "from", 1, least=1) or 1
    limit = min(_int(request, "limit", PAGE_DEFAULT, least=1) or PAGE_DEFAULT, service.settings.page_limit)

    def read() -> dict[str, Any]:
        service.table(campaign)
        head = service.reads.stream_version(stream_for(campaign))
        events = _received(service, campaign, first, player=_player(token))
        # the head is the last version the events were read (and a player's view judged) through: a session closed
        # after the version read above shows a player the rolls it revealed, so the page says it holds their reveal
        # (an empty page keeps the version read before it, so that its next skips nothing appended since)
        head = events[-1]["streamversion"] if events else head
        page = events[:limit]
        after = page[-1]["streamversion"] + 1 if page else max(first, head + 1)
        return {"campaign": campaign, "events": page, "next": after, "head": head, "limit": limit}

    return JSONResponse(await anyio.to_thread.run_sync(read))


async def _stream(service: Service, request: Request, token: Token | None) -> Response:
    campaign = _campaign(request)
    await anyio.to_thread.run_sync(service.table, campaign)
    resume = request.headers.get("last-event-id")
    if resume is not None:
        if not _version_text(resume.strip()):
            raise Problem(BAD_REQUEST, f"Last-Event-ID must be a stream version, not {resume!r}")
        first = int(resume.strip()) + 1
    else:
        first = _int(request, "from", 1, least=1) or 1
    until = _int(request, "until", None, least=0)
    head = await anyio.to_thread.run_sync(service.reads.stream_version, stream_for(campaign))
    if first > head + 1:  # a follower that received the last version waits for the next; one past it never could
        raise _past_end(campaign, head, None if resume is None else first - 1, first)
    if until is not None and first > until:  # all it asked for was sent: 204 tells an EventSource not to reconnect
        return Response(status_code=204, headers={"Cache-Control": "no-cache"})
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if request.method == "HEAD":  # what a GET would begin with, and nothing followed: no stream to hold open
        return Response(status_code=200, media_type="text/event-stream", headers=headers)
    holder = "" if token is None else token.id
    free = service.streams.take(holder)
    if free is None:
        limit = service.streams.limit
        detail = (
            f"this token holds {counted(limit, 'live stream')} open already, the most the service lets one token "
            "hold; "
            "end one of them, then retry"
        )
        raise Problem(TOO_MANY_STREAMS, detail, headers={"Retry-After": str(STREAMS_RETRY)}, max_streams=limit)
    frames = follow(
        service.reads,
        service.bell,
        campaign,
        first=first,
        until=until,
        player=_player(token),
        heartbeat=service.settings.heartbeat,
        poll=service.poll,
        allowed=lambda: token is not None and service.tokens.verify_id(token.id),
        views=_player_view(service, campaign),
    )
    # the slot is freed when the frames end, or when the response does (a stream never started)
    held = holding(frames, free)
    return StreamingResponse(held, media_type="text/event-stream", headers=headers, background=BackgroundTask(free))


def _past_end(campaign: str, head: int, received: int | None, first: int) -> Problem:
    """The refusal of a stream asked to start past the end of the log: the versions between its end and the start
    asked for would never be sent, so nothing is."""
    skipped = f"version {head + 1}" if first - 1 == head + 1 else f"versions {head + 1} to {first - 1}"
    asked, fix = (
        (f"?from={first}", f"start at ?from={head + 1} at the latest")
        if received is None
        else (f"Last-Event-ID {received}", f"resume with a Last-Event-ID of {head} at the most")
    )
    detail = (
        f"{asked} is past the end of the log of campaign {campaign!r}, which is at version {head}: "
        f"nothing is streamed, since {skipped} would never be; {fix}"
    )
    return Problem(PAST_END, detail, current_version=head)


async def _audit(service: Service, request: Request, token: Token | None) -> Response:
    campaign = _campaign(request)
    expect = [_expected_receipt(text) for text in request.query_params.getlist("expect")]
    for receipt in expect:  # the audit of this campaign would say the log holds no such campaign
        if receipt.campaign != campaign:
            detail = f"{of_another_campaign(receipt, campaign)}: check it at /campaigns/{receipt.campaign}/audit"
            raise Problem(INVALID, detail)
    roll = _int(request, "roll", None)
    session = _given(request, "session", "a session's name", "the latest session with the roll")
    secret = _flag(request, "secret")

    def run() -> dict[str, Any]:
        service.table(campaign)
        if roll is not None:  # one roll's derivation, as 'hexlog audit --roll N' gives it
            envelopes = [r.envelope for r in service.reads.read_stream(stream_for(campaign))]
            text = explained(envelopes, roll, session, referee=not _player(token), secret=secret)
            return {"campaign": campaign, "roll": roll, "text": text}
        report = audits.audit_store(service.reads, campaign, service.registry, expect=expect)
        if _player(token):  # the verdict is everybody's; what it quotes of the referee's events is not
            stream = stream_for(campaign)
            report = player_audit.for_player(report, lambda: (r.envelope for r in service.reads.iter_stream(stream)))
        return {"campaign": campaign, "verdict": str(report.verdict), "ok": report.ok, "text": report.text()}

    return JSONResponse(await anyio.to_thread.run_sync(run))


async def _schemas(service: Service, request: Request, token: Token | None) -> Response:
    del service, request, token
    found = catalogue()
    listed = [
        {
            "type": f"{TYPE_PREFIX}{name}",
            "version": body["x-hexlog-schema-version"],
            "description": body["description"].splitlines()[0],
        }
        for name, body in found.items()
    ]
    return JSONResponse({"types": listed})


async def _schema(service: Service, request: Request, token: Token | None) -> Response:
    del service, token
    given = str(request.path_params["type"])
    found = catalogue().get(given.removeprefix(TYPE_PREFIX))
    if found is None:
        raise Problem(NOT_FOUND, f"no event type {given!r}; GET /schemas lists them")
    return JSONResponse(found)


async def _export(service: Service, request: Request, token: Token | None) -> Response:
    campaign = _campaign(request)

    def run() -> str:
        service.table(campaign)
        events = _received(service, campaign, 1, player=_player(token))
        if not events:
            msg = f"campaign {campaign!r} has no events"
            raise NotFoundError(msg)
        if any(event.get("redacted") for event in events):
            raise RuleRefusedError(_unexportable(service, campaign))
        lines = []
        for event in events:
            if "redacted" not in event:
                event["data"] = json.loads(canonical_json(event["data"]))
            lines.append(json.dumps(event, ensure_ascii=False) + "\n")
        return "".join(lines)

    return PlainTextResponse(await anyio.to_thread.run_sync(run), media_type="application/x-ndjson")


def _unexportable(service: Service, campaign: str) -> str:
    """Why a player may not export the campaign now: an export holding placeholders would not verify."""
    recorded = service.reads.read_stream(stream_for(campaign))
    hidden = sorted(visibility.withheld_sessions(decode(r.envelope) for r in recorded))
    if len(hidden) > 1:
        named = f"sessions {', '.join(hidden)} are still open and their"
    else:
        named = f"session {''.join(hidden) or '(unnamed)'} is still open and its"
    return (
        f"{named} secret rolls are not revealed yet: a player's export now would not verify; "
        "it can be exported once the session closes"
    )


async def _receipt(service: Service, request: Request, token: Token | None) -> Response:
    campaign = _campaign(request)
    at = _int(request, "at", None, least=1)
    del token

    def run() -> dict[str, Any]:
        with service.read_lock:
            door = service.door(campaign)
            door.table()
            return {"campaign": campaign, "receipt": door.receipt(at).removeprefix("receipt ")}

    return JSONResponse(await anyio.to_thread.run_sync(run))


async def _map(service: Service, request: Request, token: Token | None) -> Response:
    campaign = _campaign(request)
    given = _given(request, "hex", "a hex, col,row", "every hex")
    hex_name = None if given is None else str(_parsed("hex", grid.normal, given))

    def run() -> dict[str, Any]:
        with service.read_lock:
            return {"campaign": campaign, "lines": map_lines(service.door(campaign), hex_name, player=_player(token))}

    return JSONResponse(await anyio.to_thread.run_sync(run))


_VERSION = {"type": "integer", "minimum": 1, "maximum": WHOLE_MOST}
#: the schema of a text query parameter: an empty one is refused (leave it out for its default)
_TEXT = {"type": "string", "minLength": 1}
#: the schema of a yes-or-no query parameter: true or false (an empty one is refused: leave it out for false)
_FLAG = {"type": "boolean"}


def _whole_schema(least: int, **more: Any) -> dict[str, Any]:
    """The schema of a whole-number query parameter: from ``least`` to the largest the service reads."""
    return {"type": "integer", "minimum": least, "maximum": WHOLE_MOST, **more}


def endpoints(registry: Registry) -> list[Endpoint]:
    """Every route of the service, the command routes from the registry."""
    at = (
        "at",
        "query",
        {"type": "string", "minLength": 1},
        (
            "a stream version ('42') or a moment of game time ('day 4 turn 3'; one the clock has not reached "
            "is a 404, but 'day N' of the day it stands in is the state now)"
        ),
    )
    fixed = [
        Endpoint(method="GET", path="/health", summary="Whether the service is up", access=PUBLIC, run=_health),
        Endpoint(method="GET", path="/openapi.json", summary="This document", access=PUBLIC, run=_openapi),
        Endpoint(
            method="GET", path="/docs", summary="This document, to read", access=PUBLIC, run=_docs, answers="text/html"
        ),
        Endpoint(
            method="GET",
            path="/schemas",
            summary="The event catalogue: every type and version",
            access=PUBLIC,
            run=_schemas,
        ),
        Endpoint(
            method="GET",
            path="/schemas/{type}",
            summary="One event type's JSON Schema (hexlog.dice.rolled or dice.rolled)",
            access=PUBLIC,
            run=_schema,
        ),
        Endpoint(
            method="GET", path="/campaigns", summary="The campaigns this token opens", access=ANY_TOKEN, run=_campaigns
        ),
        Endpoint(
            method="GET",
            path="/campaigns/{campaign}",
            summary="The campaign's state (now, or as it was with ?at=)",
            access=READ,
            run=_state,
            params=(at,),
        ),
        Endpoint(
            method="GET",
            path="/campaigns/{campaign}/timeline",
            summary="Every roll with what it meant, every decision, as lines",
            access=READ,
            run=_timeline,
            params=(("last", "query", _whole_schema(0), "only the last N lines (0: all)"),),
        ),
        Endpoint(
            method="GET",
            path="/campaigns/{campaign}/events",
            summary="A page of the campaign's events (CloudEvents, hexlog-chain-v1)",
            access=READ,
            run=_events,
            params=(
                ("from", "query", _VERSION, "the first stream version wanted"),
                (
                    "limit",
                    "query",
                    _whole_schema(1, default=PAGE_DEFAULT),
                    (
                        f"the most events in the page (at most {PAGE_LIMIT}: a larger limit is taken as {PAGE_LIMIT}; "
                        "the page's limit says the one used)"
                    ),
                ),
            ),
        ),
        Endpoint(
            method="GET",
            path="/campaigns/{campaign}/stream",
            summary="The live stream (Server-Sent Events; id: the stream version)",
            access=READ,
            run=_stream,
            answers="text/event-stream",
            params=(
                ("from", "query", _VERSION, "the first stream version wanted (409 past the version after the log's)"),
                ("until", "query", _whole_schema(0), "end the stream after this version"),
                (
                    "Last-Event-ID",
                    "header",
                    {"type": "string", "pattern": f"^[0-9]{{1,{WHOLE_DIGITS}}}$"},
                    "resume after this version (409 past the log's)",
                ),
            ),
        ),
        Endpoint(
            method="GET",
            path="/campaigns/{campaign}/audit",
            summary="Verify the chain, the commitments, every roll and decision (a player's token: the verdict and "
            "every finding, without what the player view hides)",
            access=READ,
            run=_audit,
            params=(
                ("expect", "query", {"type": "array", "items": _TEXT}, "a receipt the log must hold (one or more)"),
                ("roll", "query", _whole_schema(0), "explain the roll with this nonce instead"),
                ("session", "query", _TEXT, "the session of ?roll= (default: the latest with it)"),
                ("secret", "query", _FLAG, "?roll= names a secret roll (its own lane)"),
            ),
        ),
        Endpoint(
            method="GET",
            path="/campaigns/{campaign}/export",
            summary="The campaign as CloudEvents JSON lines",
            access=READ,
            run=_export,
            answers="application/x-ndjson",
        ),
        Endpoint(
            method="GET",
            path="/campaigns/{campaign}/map",
            summary="The map, or one hex (hidden features only in the referee's view, until found)",
            access=READ,
            run=_map,
            params=(("hex", "query", _TEXT, "one hex, col,row (default: every hex)"),),
        ),
        Endpoint(
            method="GET",
            path="/campaigns/{campaign}/receipt",
            summary="A receipt players can note: CAMPAIGN@VERSION:FINGERPRINT",
            access=READ,
            run=_receipt,
            params=(("at", "query", _VERSION, "the receipt of this stream version"),),
        ),
    ]
    return fixed + [_command_endpoint(route) for route in command_routes(registry)]


# --- authorisation, problems, logging -------------------------------------------------------------------


def _authorise(service: Service, request: Request, endpoint: Endpoint) -> Token | None:
    if endpoint.access == PUBLIC:
        return None
    header = request.headers.get("authorization", "")
    scheme, _, text = header.partition(" ")
    token = service.tokens.verify(text.strip()) if scheme.lower() == "bearer" and text.strip() else None
    if token is None:
        raise Problem(
            UNAUTHORIZED,
            (
                "a valid bearer token is needed; this one is missing, unknown or revoked (the service's operator "
                "makes tokens with 'hexlog token create')"
            ),
            headers={"WWW-Authenticate": 'Bearer realm="hexlog"'},
        )
    request.state.token = token.id
    request.state.role = token.role
    wait = service.rates.take(token.id)
    if wait > 0:
        raise Problem(
            TOO_MANY,
            f"this token is over its rate of {service.settings.rate:g} requests a second; retry later",
            headers={"Retry-After": str(max(1, math.ceil(wait)))},
        )
    if "campaign" in request.path_params and request.path_params["campaign"] != token.campaign:
        raise Problem(FORBIDDEN, "this token is for another campaign")
    if endpoint.access == COMMAND and token.role != REFEREE and (endpoint.body is None or not endpoint.body.player):
        raise Problem(FORBIDDEN, "only the referee's token may send this command")
    if endpoint.access == COMMAND and token.role == REFEREE and endpoint.body is not None and not endpoint.body.referee:
        raise Problem(FORBIDDEN, "the client seed is the players' own: a player's token sends it, never the referee's")
    return token


def _query_read(request: Request, endpoint: Endpoint) -> None:
    """A 400 for a query parameter the route does not read, naming it and those it reads (taken as left out, a
    misspelt ``?form=5`` read the events from the first, and any on a command was applied as if it said nothing), and
    for one given twice that the route reads once (``?hex=1,1&hex=2,2`` answered the last alone): nothing is run."""
    query = request.query_params
    read = {name: schema for name, where, schema, _ in endpoint.params if where == "query"}
    path = request.url.path
    for name in dict.fromkeys(query.keys()):
        if name not in read:
            reads = f"it reads {', '.join(f'?{known}' for known in read)}" if read else "it reads none"
            raise Problem(BAD_REQUEST, f"?{name} is not a query parameter of {endpoint.method} {path}; {reads}")
        given = len(query.getlist(name))
        if given > 1 and read[name].get("type") != "array":
            raise Problem(BAD_REQUEST, f"?{name} is given {given} times; {path} reads it once")


def _handler(service: Service, endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    async def handle(request: Request) -> Response:
        if "campaign" in request.path_params:
            request.state.campaign = request.path_params["campaign"]
        try:
            token = _authorise(service, request, endpoint)
            _query_read(request, endpoint)
            return await endpoint.run(service, request, token)
        except Problem as problem:
            request.state.outcome = problem.kind
            return problem.response(request.url.path)
        except HexlogError as err:
            refusal = problem_of(err, service.words(request.path_params.get("campaign")))
            request.state.outcome = refusal.kind
            if refusal.kind == UNREACHABLE:  # the service's own trouble: said once, here, with the database named
                structlog.get_logger().warning("http.database_unreachable", path=request.url.path, error=str(err))
            return refusal.response(request.url.path)
        except Exception as exc:  # noqa: BLE001 - a fault of the service: one log line, its traceback a field of it
            request.state.outcome = INTERNAL
            return _crashed(request, exc)

    return handle


async def _http_problem(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    kind = {404: NOT_FOUND, 405: METHOD_NOT_ALLOWED}.get(status, BAD_REQUEST if status < 500 else INTERNAL)  # noqa: PLR2004
    detail = exc.detail if isinstance(exc, HTTPException) else "the service failed"
    headers = dict(exc.headers or {}) if isinstance(exc, HTTPException) else {}  # a 405's Allow, among others
    if kind == NOT_FOUND:
        detail = _no_route(request)
    elif kind == METHOD_NOT_ALLOWED and "allow" in {name.lower() for name in headers}:
        allowed = next(value for name, value in headers.items() if name.lower() == "allow")
        detail = f"{request.url.path} is not served to {request.method}; send {allowed} (GET /openapi.json lists them)"
    return Problem(kind, str(detail), headers=headers).response(request.url.path)


def _no_route(request: Request) -> str:
    """What a path no route serves names: a step its procedure does not have (with the steps it has), a procedure
    the registry does not hold (with those it holds), or else the path (a path with a slash at its end among them:
    no route ends in one)."""
    path = request.url.path
    parts = path.removeprefix("/").split("/")
    if path.endswith("/") and path != "/":
        return f"nothing is served at {path}: no path ends in '/' (GET /openapi.json lists what is)"
    if len(parts) == 4 and parts[0] == "campaigns":  # noqa: PLR2004 - /campaigns/{campaign}/{procedure}/{step}
        procedure, step = parts[2], parts[3]
        routes = command_routes(request.app.state.service.registry)
        steps = [route.step for route in routes if route.procedure.name == procedure]
        if steps:
            return f"procedure {procedure} has no step {step!r} a client sends; its steps: {', '.join(steps)}"
        procedures = list(dict.fromkeys(route.procedure.name for route in routes))
        return f"no procedure {procedure!r}; the procedures: {', '.join(procedures)}"
    return f"nothing is served at {path} (GET /openapi.json lists what is)"


async def _crash(request: Request, exc: Exception) -> Response:
    return _crashed(request, exc)


def _crashed(request: Request, exc: Exception) -> Response:
    """The 500 of a fault of the service, logged as one line whose ``exception`` holds the traceback. Answered by the
    route itself, inside the middleware (a browser page of an allowed origin reads it; the server prints no
    traceback of its own); ``_crash`` answers a fault outside any route alike."""
    structlog.get_logger().error("http.crashed", path=request.url.path, error=repr(exc), exc_info=exc)
    return Problem(INTERNAL, f"the service failed: {type(exc).__name__}").response(request.url.path)


class RequestLog:
    """One structured line per request: method, path, campaign, command, role, token id, status, outcome, time."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            state = scope.get("state", {})
            structlog.get_logger().info(
                "http.request",
                method=scope["method"],
                path=scope["path"],
                campaign=state.get("campaign"),
                command=state.get("command"),
                role=state.get("role"),
                token_id=state.get("token"),
                status=status,
                outcome=state.get("outcome", "ok" if status < 400 else "refused"),  # noqa: PLR2004
                duration_ms=round((time.perf_counter() - start) * 1000, 2),
            )


def create_app(settings: Settings, registry: Registry = REGISTRY) -> Starlette:
    """The service's ASGI application over one database (which must exist)."""
    service = Service(settings, registry)
    listed = endpoints(registry)
    routes = [Route(e.path, _handler(service, e), methods=[e.method]) for e in listed]

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        yield
        service.close()  # the server stops: release the database

    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: _http_problem, Exception: _crash},
        lifespan=lifespan,
    )
    app.router.redirect_slashes = (
        False  # a path with a slash too many is not found, not redirected to a URL built from Host
    )
    app.state.service = service
    app.state.endpoints = listed
    if settings.allow_origins:  # inside the log, so that a refused preflight is logged too
        app.add_middleware(Cors, origins=settings.allow_origins)
    app.add_middleware(RequestLog)
    return app
