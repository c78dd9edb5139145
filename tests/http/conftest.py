"""Fixtures of the HTTP service's tests: a database with campaigns and tokens, served on a loopback port."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import httpx
import pytest
import uvicorn

from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import FileKeeper, key_file_for
from hexlog.service.http_app import Settings, create_app
from hexlog.service.http_tokens import TokenStore

if TYPE_CHECKING:
    from collections.abc import Iterator


@attrs.define
class Served:
    """A served database: its file, the app, the base URL and a token per identity."""

    db: Path
    app: Any
    url: str
    tokens: dict[str, str]
    server: Any = None

    def headers(self, who: str, **extra: str) -> dict[str, str]:
        """Request headers for an identity (``none``: no token)."""
        token = self.tokens.get(who)
        auth = {"Authorization": f"Bearer {token}"} if token else {}
        return {**auth, **extra}

    def client(self, **kwargs: Any) -> httpx.Client:
        """A client of the served address."""
        return httpx.Client(base_url=self.url, timeout=30, **kwargs)


def make_db(db: Path, campaigns: tuple[str, ...]) -> None:
    """A database holding these campaigns, each started, with a session open."""
    store = SQLiteStore(db)
    handler = Handler(store, FileKeeper(key_file_for(db)))
    for campaign in campaigns:
        handler.execute(campaign, c.StartCampaign(ruleset="ose"))
        handler.execute(campaign, c.OpenSession())
    store.close()


def identities(db: Path) -> dict[str, str]:
    """A token per identity: the referee and a player of ``main``, a player of ``other``, a revoked one."""
    tokens = TokenStore(db)
    made = {
        "referee": tokens.create("main", "referee")[0],
        "player": tokens.create("main", "player")[0],
        "other": tokens.create("other", "player")[0],
    }
    revoked, kept = tokens.create("main", "referee")
    tokens.revoke(kept.id)
    made["revoked"] = revoked
    tokens.close()
    return made


def free_port() -> int:
    """A free TCP port on the loopback address."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    """Serve a database on 127.0.0.1 (campaigns ``main`` and ``other``); settings may be changed."""
    started: list[uvicorn.Server] = []

    def run(campaigns: tuple[str, ...] = ("main", "other"), **settings: Any) -> Served:
        db = tmp_path / "hexlog.db"
        if not db.exists():
            make_db(db, campaigns)
        tokens = identities(db)
        app = create_app(Settings(db=db, **{"rate": 1000.0, "burst": 1000, **settings}))
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        started.append(server)
        return Served(db=db, app=app, url=f"http://127.0.0.1:{port}", tokens=tokens, server=server)

    yield run
    for server in started:
        server.should_exit = True
        server.force_exit = True
    time.sleep(0.1)
    for server in started:
        app_service = getattr(server.config.app, "state", None)
        if app_service is not None:
            app_service.service.close()
