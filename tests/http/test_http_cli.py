"""``hexlog token`` and ``hexlog serve`` as a user runs them, and the service's one log line per request."""

from __future__ import annotations

import contextlib
import json
import logging
import logging.handlers
import os
import shlex
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
from structlog.testing import capture_logs

from hexlog.service import http_app
from hexlog.service.logs import configure
from tests.conftest import run_hexlog
from tests.postgres_db import pg_url

from .conftest import free_port

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["pg_url"]  # the fixture, used by name

HEXLOG = Path(sys.executable).parent / "hexlog"


def test_tokens_are_made_listed_and_revoked_and_only_their_hash_is_kept(hexlog, tmp_path):
    assert hexlog("init", "--campaign", "main").returncode == 0
    made = hexlog("token", "create", "--role", "player", "--label", "Ana")
    assert made.returncode == 0, made.stderr
    token, about = made.stdout.splitlines()
    token_id = about.split()[1].rstrip(":")
    assert token.startswith(f"hxl_{token_id}_")
    assert "player of campaign main" in about
    listed = hexlog("token", "list").stdout
    assert token_id in listed
    assert "'Ana'" in listed
    assert "active" in listed
    with sqlite3.connect(tmp_path / "hexlog.db") as db:
        kept = db.execute("SELECT * FROM http_tokens").fetchall()
    assert token not in repr(kept)
    assert token.removeprefix(f"hxl_{token_id}_") not in repr(kept)  # the secret part (it may hold "_" too)
    assert hexlog("token", "create", "--role", "king").stderr.strip() == (
        "hexlog: error: --role must be referee or player, not 'king'"
    )
    assert hexlog("token", "revoke", token_id).returncode == 0
    assert "revoked" in hexlog("token", "list").stdout
    assert hexlog("token", "revoke", "nope").stderr.strip() == (
        "hexlog: error: no token with id 'nope' (see 'hexlog token list')"
    )


@contextlib.contextmanager
def serving(db: str, port: int, env: dict[str, str], cwd: Path | None = None) -> Iterator[tuple[str, list[str]]]:
    """``hexlog serve --db DB --port PORT`` as its own process, once it answers: its URL, and (once it has stopped)
    its standard output and error."""
    server = subprocess.Popen(  # noqa: S603 - our own console script
        [str(HEXLOG), "serve", "--db", db, "--port", str(port)],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    said: list[str] = []
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{url}/health", timeout=1)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.communicate()
                assert time.monotonic() < deadline, "the service did not start"
                time.sleep(0.1)
        yield url, said
    finally:
        server.terminate()
        said.extend(server.communicate(timeout=30))


def test_serve_on_a_port_in_use_says_so_in_one_line(hexlog, tmp_path):
    """A port another program listens on is refused in the command line's words (exit 1, as a refusal), not with
    the server's own log line and its start-up failure's exit code (3, which means an INCOMPLETE audit)."""
    assert hexlog("init", "--campaign", "main").returncode == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = subprocess.run(  # noqa: S603 - our own console script
            [str(HEXLOG), "serve", "--port", str(port)],
            cwd=tmp_path,
            env={k: v for k, v in os.environ.items() if not k.startswith("HEXLOG_")},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert refused.returncode == 1
    assert refused.stderr == (
        f"hexlog: error: port {port} on 127.0.0.1 is in use (another program listens there); "
        "choose another with --port\n"
    )
    assert refused.stdout == ""


def test_serve_answers_on_the_loopback_address_and_logs_each_request_without_its_token(hexlog, tmp_path):
    assert hexlog("init", "--campaign", "main").returncode == 0
    token = hexlog("token", "create", "--role", "referee").stdout.splitlines()[0]
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEXLOG_")}
    with serving(str(tmp_path / "hexlog.db"), port, env) as (url, said):
        answer = httpx.post(
            f"{url}/campaigns/main/campaign/open-session", headers={"Authorization": f"Bearer {token}"}, json={}
        )
        assert answer.status_code == 200
    out, err = said
    assert f"serving {tmp_path / 'hexlog.db'} on http://127.0.0.1:{port}" in out
    assert token not in err
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    done = next(line for line in lines if line.get("path") == "/campaigns/main/campaign/open-session")
    assert done["campaign"] == "main"
    assert done["command"] == "campaign/open-session"
    assert done["outcome"] == "ok"
    assert done["status"] == 200
    assert done["duration_ms"] > 0


def test_serve_on_postgresql_keeps_the_sessions_secrets_in_the_command_lines_key_file(pg_url, tmp_path):
    """``hexlog serve --db postgresql://...``: tokens made by ``hexlog token``, a session opened over HTTP and
    closed by the command line (which finds its secret in the same key file), a revoked token refused at once."""
    assert run_hexlog("--db", pg_url, "init", cwd=tmp_path).returncode == 0
    referee = run_hexlog("--db", pg_url, "token", "create", "--role", "referee", cwd=tmp_path).stdout.split()[0]
    player = run_hexlog("--db", pg_url, "token", "create", "--role", "player", cwd=tmp_path).stdout.split()[0]
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEXLOG_")}
    env["XDG_DATA_HOME"] = str(tmp_path / ".data")  # where run_hexlog's commands keep the key file
    with serving(pg_url, port, env, cwd=tmp_path) as (url, said), httpx.Client(base_url=url) as client:
        opened = client.post(
            "/campaigns/main/campaign/open-session", headers={"Authorization": f"Bearer {referee}"}, json={}
        )
        assert opened.status_code == 200, opened.text
        refused = client.post(
            "/campaigns/main/campaign/close-session", headers={"Authorization": f"Bearer {player}"}, json={}
        )
        assert refused.status_code == 403
        closed = run_hexlog("--db", pg_url, "session", "close", cwd=tmp_path)
        assert closed.returncode == 0, closed.stderr
        state = client.get("/campaigns/main", headers={"Authorization": f"Bearer {player}"}).json()
        assert state["session"]["status"] == "closed"
        token_id = player.split("_")[1]
        assert run_hexlog("--db", pg_url, "token", "revoke", token_id, cwd=tmp_path).returncode == 0
        assert client.get("/campaigns/main", headers={"Authorization": f"Bearer {player}"}).status_code == 401
    out, err = said
    assert f"serving {shlex.quote(pg_url)} on http://127.0.0.1:{port}" in out
    assert referee not in err
    assert player not in err
    keys = tmp_path / ".data" / "hexlog" / "keys"
    assert len(list(keys.glob("*.keys"))) == 1


def test_a_refused_request_is_logged_with_its_outcome(serve):
    served = serve()
    configure("info")  # as 'hexlog serve' does
    asked = {"/campaigns/main/encounter/check-surprise", "/campaigns/main"}

    def logged() -> list[dict]:
        return [log for log in logs if log["event"] == "http.request" and log.get("path") in asked]  # this test's

    with capture_logs() as logs, served.client() as client:
        client.post("/campaigns/main/encounter/check-surprise", headers=served.headers("referee"), json={})
        client.get("/campaigns/main", headers=served.headers("revoked"))
        deadline = time.monotonic() + 10
        while len(logged()) < 2 and time.monotonic() < deadline:  # a request is logged once its answer has gone
            time.sleep(0.01)
    requests = logged()
    assert [(r["command"], r["status"], r["outcome"]) for r in requests] == [
        ("encounter/check-surprise", 409, "refused"),
        (None, 401, "unauthorized"),
    ]
    assert all(served.tokens[who] not in repr(logs) for who in served.tokens)
    configure()


def test_a_fault_of_the_service_is_one_log_line_and_a_problem_a_browser_page_reads(serve, monkeypatch):
    """A route that fails (a fault of hexlog, not a refusal) answers a 500 problem document, with the CORS headers of
    an allowed origin, and is logged once, as one line whose ``exception`` holds the traceback: the server prints no
    multi-line traceback of its own in the JSON lines of the log."""

    async def failing(*_: object) -> None:
        fault = "a fault"
        raise RuntimeError(fault)

    monkeypatch.setattr(http_app, "_receipt", failing)
    served = serve(allow_origins=("https://vtt.example",))
    printed = logging.handlers.BufferingHandler(100)  # what uvicorn itself logs (it does not propagate)
    monkeypatch.setattr(logging.getLogger("uvicorn.error"), "handlers", [printed])
    configure("info")  # as 'hexlog serve' does
    with capture_logs() as logs, served.client() as client:
        failed = client.get("/campaigns/main/receipt", headers=served.headers("referee", Origin="https://vtt.example"))
        deadline = time.monotonic() + 10
        while not any(log["event"] == "http.request" for log in logs) and time.monotonic() < deadline:
            time.sleep(0.01)
    assert failed.status_code == 500
    assert failed.headers["content-type"] == "application/problem+json"
    assert failed.json()["detail"] == "the service failed: RuntimeError"
    assert failed.headers["access-control-allow-origin"] == "https://vtt.example"
    crashed = [log for log in logs if log["event"] == "http.crashed"]
    assert len(crashed) == 1
    assert isinstance(crashed[0]["exc_info"], RuntimeError)
    assert [(log["status"], log["outcome"]) for log in logs if log["event"] == "http.request"] == [(500, "internal")]
    assert not [record for record in printed.buffer if "Exception in ASGI application" in record.getMessage()]
    configure()


FOLLOW = Path(__file__).resolve().parents[2] / "examples" / "follow.py"


def test_a_stopping_service_ends_its_streams_at_once_and_the_example_follower_resumes_when_it_runs_again(
    hexlog, tmp_path
):
    """Told to stop, the service ends every stream (no wait for its grace period, no task cancelled mid-write in the
    log); ``examples/follow.py`` reads an early end as a dropped connection, not as the end it asked for, and goes on
    from where it was once the service runs again, every event once and linked."""
    assert hexlog("init", "--campaign", "main").returncode == 0
    assert hexlog("session", "open").returncode == 0
    token = hexlog("token", "create", "--role", "referee").stdout.splitlines()[0]
    first = hexlog("roll", "1d6")
    assert first.returncode == 0, first.stderr
    version = int(hexlog("receipt").stdout.split("@")[1].split(":")[0])
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEXLOG_")}
    db = str(tmp_path / "hexlog.db")
    with serving(db, port, env) as (url, said):
        follower = subprocess.Popen(  # noqa: S603 - our own example
            [sys.executable, str(FOLLOW), url, "main", "--token", token, "--until", str(version + 2)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert follower.stdout is not None
        assert f"{version:>5}  roll #0 1d6" in follower.stdout.readline()  # following
    _, err = said
    assert "Traceback" not in err
    assert "CancelledError" not in err
    assert "graceful shutdown exceeded" not in err
    assert follower.poll() is None  # the stream ended early: the follower waits for the service
    for _ in range(2):
        assert hexlog("roll", "1d8").returncode == 0
    try:
        with serving(db, port, env):
            rest, complaints = follower.communicate(timeout=60)
    finally:
        follower.kill()
    assert follower.returncode == 0, complaints
    assert [line.split()[0:3] for line in rest.splitlines()] == [
        [str(version + 1), "roll", "#1"],
        [str(version + 2), "roll", "#2"],
    ]
    assert "resuming" in complaints
