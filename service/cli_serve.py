"""``hexlog serve`` (the HTTP API) and ``hexlog token`` (who may call it)."""

from __future__ import annotations

import contextlib
import errno
import os
import socket
from pathlib import Path
from typing import Annotated

import typer

from hexlog.events.errors import HexlogError
from hexlog.machine.campaign import check_campaign_id
from hexlog.service import console, logs
from hexlog.service.door import CampaignOption, DbOption, Door, busy_timeout, open_store, refuse_blank, shown_db
from hexlog.service.http_cors import check_origin
from hexlog.service.http_replies import KEEP_HOURS
from hexlog.service.http_stream import MAX_STREAMS
from hexlog.service.http_tokens import TokenStore, check_role

out = console.plain()
token_app = typer.Typer(
    help="Bearer tokens for 'hexlog serve': one campaign and one role each (referee or player).",
    no_args_is_help=True,
)


def serve(  # noqa: PLR0913, PLR0917 - one option per setting
    db: DbOption = Path("hexlog.db"),
    host: Annotated[str, typer.Option(help="the address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="the port to listen on", min=0, max=65535)] = 8000,
    rate: Annotated[float, typer.Option(help="requests a second each token may make, on average", min=0.01)] = 20.0,
    burst: Annotated[int, typer.Option(help="requests each token may make at once", min=1)] = 60,
    max_body: Annotated[int, typer.Option("--max-body", help="the largest request body, in bytes", min=1)] = 262144,
    heartbeat: Annotated[float, typer.Option(help="seconds of quiet before a stream's heartbeat", min=0.1)] = 15.0,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-origin",
            metavar="ORIGIN",
            help="an origin whose browser pages may call the API (https://vtt.example; repeat for more; * for any)",
        ),
    ] = None,
    keep_replies: Annotated[
        float,
        typer.Option(
            "--keep-replies",
            metavar="HOURS",
            help="hours the answer to a command sent with an Idempotency-Key is kept for its retries",
            min=1,
        ),
    ] = KEEP_HOURS,
    max_streams: Annotated[
        int,
        typer.Option(
            "--max-streams",
            help="live streams each token may hold open at once (one more is refused, 429)",
            min=1,
            max=10_000,
        ),
    ] = MAX_STREAMS,
) -> None:
    """Serve the HTTP API and the live event streams of the database's campaigns (Ctrl-C stops)."""
    from hexlog.service import http_server  # noqa: PLC0415 - only this command needs the server
    from hexlog.service.http_app import Settings, create_app  # noqa: PLC0415 - as above

    origins = tuple(check_origin(origin) for origin in allow_origin or ())
    open_store(db).close()  # refuse a missing or foreign file in the command line's words
    check_free(host, port)  # and an address in use, before the server would say it in its own
    if "HEXLOG_LOG" not in os.environ:
        logs.configure("info")  # one line per request
    settings = Settings(
        db=db,
        rate=rate,
        burst=burst,
        max_body=max_body,
        heartbeat=heartbeat,
        allow_origins=origins,
        keep_replies=keep_replies,
        max_streams=max_streams,
    )
    out.print(f"serving {shown_db(db)} on http://{host}:{port} (API: /docs, /openapi.json)")
    http_server.run(create_app(settings), host=host, port=port)


def check_free(host: str, port: int) -> None:
    """Refuse, in one line, an address the service could not listen on: a port another program listens on, a host
    that is not this machine's. Each address the host names is bound as the server binds it, then let go."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        msg = f"cannot listen on {host}: {err.strerror}; choose another with --host"
        raise HexlogError(msg) from None
    for family, kind, proto, _, address in found:
        with contextlib.closing(socket.socket(family, kind, proto)) as probe:
            if os.name != "nt":  # as the server does: a port whose last connections are closing is free
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as err:
                if err.errno == errno.EADDRINUSE:
                    msg = f"port {port} on {host} is in use (another program listens there); choose another with --port"
                else:
                    msg = f"cannot listen on {host} port {port}: {err.strerror}"
                raise HexlogError(msg) from None


@token_app.command("create")
def token_create(
    role: Annotated[str, typer.Option(help="referee (everything in the campaign) or player (read, follow, seed)")],
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    label: Annotated[
        str, typer.Option(help="who the token is for (shown by 'token list')", callback=refuse_blank)
    ] = "",
) -> None:
    """Make a token for one campaign the database holds; it is printed once and only its hash is kept."""
    check_role(role)
    door = Door.open(db, campaign)
    door.table()  # a campaign that does not exist is refused, as by every other command: no token for it
    tokens = TokenStore(db, busy_timeout=busy_timeout())
    try:
        text, kept = tokens.create(door.campaign, role, label)
    finally:
        tokens.close()
    out.print(text)
    out.print(f"token {kept.id}: {kept.role} of campaign {kept.campaign} (shown once: only its hash is kept)")


@token_app.command("list")
def token_list(db: DbOption = Path("hexlog.db"), campaign: CampaignOption = None) -> None:
    """The tokens (of one campaign with --campaign): id, campaign, role, label, made, revoked."""
    if campaign is not None:
        check_campaign_id(campaign)
    open_store(db).close()
    tokens = TokenStore(db, busy_timeout=busy_timeout())
    try:
        listed = tokens.list(campaign)
    finally:
        tokens.close()
    if not listed:
        out.print("no tokens (hexlog token create --role referee|player)")
    for token in listed:
        state = f"revoked {token.revoked}" if token.revoked else "active"
        label = f" {token.label!r}" if token.label else ""
        out.print(f"{token.id}  {token.campaign}  {token.role}{label}  made {token.created}  {state}")


@token_app.command("revoke")
def token_revoke(
    token_id: Annotated[str, typer.Argument(help="the token's id (see 'hexlog token list')")],
    db: DbOption = Path("hexlog.db"),
) -> None:
    """Revoke a token: the next request made with it is refused."""
    open_store(db).close()
    tokens = TokenStore(db, busy_timeout=busy_timeout())
    try:
        token = tokens.revoke(token_id)
    finally:
        tokens.close()
    out.print(f"token {token.id} ({token.role} of campaign {token.campaign}) revoked {token.revoked}")


def install(app: typer.Typer) -> None:
    """Add ``hexlog serve`` and ``hexlog token``."""
    app.command()(serve)
    app.add_typer(token_app, name="token")
