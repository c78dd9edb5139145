"""A browser page of another origin (``hexlog serve --allow-origin``): off by default; with an origin named, its
preflights are answered, the headers a client sends allowed and those it reads exposed, and every other origin is
refused with a problem document."""

from __future__ import annotations

from hexlog.service.http_cors import check_origin

VTT = "https://vtt.example"
SENT = "authorization, content-type, idempotency-key, if-match"


def preflight(client, path: str, origin: str, method: str = "POST", headers: str = SENT):
    return client.options(
        path,
        headers={"Origin": origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": headers},
    )


def test_without_allow_origin_no_other_origin_is_allowed(serve):
    served = serve()
    with served.client() as client:
        asked = preflight(client, "/campaigns/main/campaign/roll-dice", VTT)
        read = client.get("/campaigns/main", headers=served.headers("player", Origin=VTT))
    assert "access-control-allow-origin" not in asked.headers
    assert asked.status_code == 405
    assert read.status_code == 200
    assert "access-control-allow-origin" not in read.headers


def test_a_named_origin_calls_the_api_and_follows_the_stream(serve):
    served = serve(allow_origins=(VTT,))
    with served.client() as client:
        asked = preflight(client, "/campaigns/main/campaign/roll-dice", VTT)
        assert asked.status_code == 200
        assert asked.headers["access-control-allow-origin"] == VTT
        allowed = {h.strip().lower() for h in asked.headers["access-control-allow-headers"].split(",")}
        assert {"authorization", "content-type", "idempotency-key", "if-match", "last-event-id"} <= allowed
        assert "access-control-allow-credentials" not in asked.headers  # a bearer token, never a cookie
        sent = client.post(
            "/campaigns/main/campaign/roll-dice",
            headers=served.headers("referee", Origin=VTT, **{"Idempotency-Key": "r1"}),
            json={"expression": "1d6"},
        )
        assert sent.status_code == 200
        assert sent.headers["access-control-allow-origin"] == VTT
        exposed = {h.strip().lower() for h in sent.headers["access-control-expose-headers"].split(",")}
        assert {"etag", "idempotent-replayed", "retry-after"} <= exposed
        version = sent.json()["version"]
        local = client.options(  # a page on the internet calling the service on this machine (Private Network Access)
            "/campaigns/main",
            headers={
                "Origin": VTT,
                "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Private-Network": "true",
            },
        )
        assert local.status_code == 200
        assert local.headers["access-control-allow-private-network"] == "true"
        stream_asked = preflight(client, "/campaigns/main/stream", VTT, "GET", "authorization, last-event-id")
        assert stream_asked.status_code == 200
        with client.stream(
            "GET",
            f"/campaigns/main/stream?until={version}",
            headers=served.headers("player", Origin=VTT, **{"Last-Event-ID": str(version - 1)}),
        ) as stream:
            assert stream.headers["access-control-allow-origin"] == VTT
            ids = [line for line in stream.iter_lines() if line.startswith("id:")]
        assert ids == [f"id: {version}"]
        refused = client.get("/campaigns/main", headers={"Origin": VTT})  # a browser page reads the problem too
        assert refused.status_code == 401
        assert refused.headers["access-control-allow-origin"] == VTT


def test_a_preflight_of_another_origin_method_or_header_is_a_problem_document(serve):
    served = serve(allow_origins=(VTT,))
    with served.client() as client:
        before = client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]
        other = preflight(client, "/campaigns/main/campaign/roll-dice", "https://evil.example")
        method = preflight(client, "/campaigns/main/campaign/roll-dice", VTT, method="DELETE")
        header = preflight(client, "/campaigns/main/campaign/roll-dice", VTT, headers="authorization, x-secret")
        after = client.get("/campaigns/main", headers=served.headers("referee")).json()["version"]
    assert other.status_code == 403
    assert other.headers["content-type"] == "application/problem+json"
    assert "access-control-allow-origin" not in other.headers
    assert other.json()["detail"] == (
        "cross-origin request refused: origin 'https://evil.example' is not one --allow-origin names"
    )
    assert other.json()["instance"] == "/campaigns/main/campaign/roll-dice"
    assert other.json()["title"] == "This origin may not do that"  # not the token's refusal: no token was sent
    assert other.json()["type"] == "urn:hexlog:problem:cross-origin"
    assert method.json()["detail"] == "cross-origin request refused: method 'DELETE' is not GET or POST"
    assert header.json()["detail"] == (
        "cross-origin request refused: header x-secret is not one a client of the API sends"
    )
    assert after == before


def test_an_origin_is_kept_as_a_browser_sends_it_and_a_star_is_any():
    assert check_origin("*") == "*"
    assert check_origin("http://LocalHost:3000") == "http://localhost:3000"
    assert check_origin("http://[::1]:8080") == "http://[::1]:8080"
    assert check_origin("https://vtt.example:443") == "https://vtt.example"  # a browser never sends the default port
    assert check_origin("http://vtt.example:80") == "http://vtt.example"
    assert check_origin("http://vtt.example:443") == "http://vtt.example:443"


def test_an_origin_with_a_path_is_refused_in_one_line(hexlog):
    assert hexlog("init", "--campaign", "main").returncode == 0
    refused = hexlog("serve", "--allow-origin", "http://localhost:3000/")
    assert refused.returncode == 2  # a usage error, before anything is served
    assert refused.stderr == (
        "hexlog: error: --allow-origin 'http://localhost:3000/' is not an origin: write scheme://host[:port], "
        "without a path (http://localhost:3000), or *\n"
    )
    assert hexlog("serve", "--allow-origin", "vtt.example").stderr == (
        "hexlog: error: --allow-origin 'vtt.example' is not an origin: write scheme://host[:port], without a path "
        "(https://vtt.example or http://localhost:3000), or *\n"
    )


def test_the_help_names_the_option_by_what_it_takes(hexlog):
    shown = hexlog("serve", "--help", env={"COLUMNS": "200"}).stdout
    line = next(line for line in shown.splitlines() if "--allow-origin" in line)
    assert "ORIGIN" in line
    assert "list[str]" not in line
