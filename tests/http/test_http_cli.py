"""``hexlog token`` and ``hexlog serve`` as a user runs them, and the service's one log line per request."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
from structlog.testing import capture_logs

from hexlog.service.logs import configure

from .conftest import free_port

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


def test_serve_answers_on_the_loopback_address_and_logs_each_request_without_its_token(hexlog, tmp_path):
    assert hexlog("init", "--campaign", "main").returncode == 0
    token = hexlog("token", "create", "--role", "referee").stdout.splitlines()[0]
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEXLOG_")}
    server = subprocess.Popen(  # noqa: S603 - our own console script
        [str(HEXLOG), "serve", "--db", str(tmp_path / "hexlog.db"), "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{url}/health", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the service did not start"
                time.sleep(0.1)
        answer = httpx.post(
            f"{url}/campaigns/main/campaign/open-session", headers={"Authorization": f"Bearer {token}"}, json={}
        )
        assert answer.status_code == 200
    finally:
        server.terminate()
        out, err = server.communicate(timeout=30)
    assert f"serving {tmp_path / 'hexlog.db'} on http://127.0.0.1:{port}" in out
    assert token not in err
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    done = next(line for line in lines if line.get("path") == "/campaigns/main/campaign/open-session")
    assert done["campaign"] == "main"
    assert done["command"] == "campaign/open-session"
    assert done["outcome"] == "ok"
    assert done["status"] == 200
    assert done["duration_ms"] > 0


def test_a_refused_request_is_logged_with_its_outcome(serve):
    served = serve()
    configure("info")  # as 'hexlog serve' does
    with capture_logs() as logs, served.client() as client:
        client.post("/campaigns/main/encounter/check-surprise", headers=served.headers("referee"), json={})
        client.get("/campaigns/main", headers=served.headers("revoked"))
    asked = {"/campaigns/main/encounter/check-surprise", "/campaigns/main"}
    requests = [log for log in logs if log["event"] == "http.request" and log.get("path") in asked]  # this test's
    assert [(r["command"], r["status"], r["outcome"]) for r in requests] == [
        ("encounter/check-surprise", 409, "refused"),
        (None, 401, "unauthorized"),
    ]
    assert all(served.tokens[who] not in repr(logs) for who in served.tokens)
    configure()
