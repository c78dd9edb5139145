"""Fixtures of the HTTP service's tests: a database with campaigns and tokens, served on a loopback port.

The database is a SQLite file, or with ``@pytest.mark.parametrize("backend", BACKENDS, indirect=True)`` each
test runs once on a SQLite file and once on a PostgreSQL schema of its own (skipped, saying why, when no
server answers); the PostgreSQL database's key file is the test's own (``HEXLOG_KEY_FILE``).
"""

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

from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import FileKeeper
from hexlog.service.door import key_file, open_store
from hexlog.service.http_app import Settings, create_app
from hexlog.service.http_tokens import TokenStore
from tests.postgres_db import fresh_schema, unreachable

if TYPE_CHECKING:
    from collections.abc import Iterator

#: the stores a test parametrised with ``backend`` (indirectly) runs on
BACKENDS = ("sqlite", "postgresql")


@attrs.define
class Served:
    """A served database: its file (or PostgreSQL URL), the app, the base URL and a token per identity."""

    db: Path | str
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


def make_db(db: Path | str, campaigns: tuple[str, ...]) -> None:
    """A database (a SQLite file or a PostgreSQL URL) holding these campaigns, each started, with a session open
    (its secret in the key file the command line and the service use)."""
    store = open_store(Path(db), create=True)
    handler = Handler(store, FileKeeper(key_file(Path(db))))
    for campaign in campaigns:
        handler.execute(campaign, c.StartCampaign(ruleset="ose"))
        handler.execute(campaign, c.OpenSession())
    store.close()


def identities(db: Path | str) -> dict[str, str]:
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
def backend(request: pytest.FixtureRequest) -> str:
    """The store a test serves: ``sqlite`` unless the test is parametrised over ``BACKENDS`` (indirectly)."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
def database(backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path | str]:
    """Where the served database is: ``hexlog.db`` in the test's folder, or a PostgreSQL schema of the test's own
    (dropped after it) whose key file is in the test's folder."""
    if backend == "sqlite":
        yield tmp_path / "hexlog.db"
        return
    reason = unreachable()
    if reason is not None:
        pytest.skip(reason=reason)
    monkeypatch.setenv("HEXLOG_KEY_FILE", str(tmp_path / "postgresql.keys"))
    with fresh_schema() as url:
        yield url


@pytest.fixture
def serve(database: Path | str) -> Iterator[Any]:
    """Serve a database on 127.0.0.1 (campaigns ``main`` and ``other``); settings may be changed."""
    started: list[uvicorn.Server] = []
    made: list[bool] = []

    def run(campaigns: tuple[str, ...] = ("main", "other"), **settings: Any) -> Served:
        db = database
        if not made and not (isinstance(db, Path) and db.exists()):
            make_db(db, campaigns)
        made.append(True)
        tokens = identities(db)
        app = create_app(Settings(db=Path(db), **{"rate": 1000.0, "burst": 1000, **settings}))
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
