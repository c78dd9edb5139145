"""The OpenAPI 3.1 document of the HTTP service, made from its endpoints, and a page that shows it."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Any

from hexlog.service import http_app
from hexlog.service.http_problems import KINDS, MEDIA_TYPE

if TYPE_CHECKING:
    from hexlog.machine.kit.registry import Registry
    from hexlog.service.http_app import Endpoint

VERSION = "0.1.0"
STYLE = (
    "<style>body{font-family:sans-serif;max-width:60em;margin:auto}code{background:#eee}"
    "h3{margin-bottom:0}td{padding:0 .6em;vertical-align:top}</style></head><body>"
)

_PROBLEM = {
    "type": "object",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
        "current_version": {"type": "integer"},
        "allowed": {"type": "array", "items": {"type": "string"}},
    },
}
_EVENT = {
    "type": "object",
    "description": "a CloudEvents 1.0 envelope of hexlog-chain-v1; a player's placeholder has redacted: true "
    "and no id (its hash must not be open to trying the few contents it may hide)",
    "required": ["specversion", "source", "type", "subject", "time", "data", "streamversion", "hash"],
    "properties": {
        "specversion": {"type": "string"},
        "id": {"type": "string"},
        "source": {"type": "string"},
        "type": {"type": "string"},
        "subject": {"type": "string"},
        "time": {"type": "string"},
        "datacontenttype": {"type": "string"},
        "data": {"type": "object"},
        "streamversion": {"type": "integer"},
        "schemaversion": {"type": "integer"},
        "prevhash": {"type": "string"},
        "hash": {"type": "string"},
        "redacted": {"type": "boolean"},
    },
}
_COMMAND_ANSWER = {
    "type": "object",
    "required": ["campaign", "command", "first_version", "version", "replayed", "events", "text"],
    "properties": {
        "campaign": {"type": "string"},
        "command": {"type": "string"},
        "first_version": {"type": "integer"},
        "version": {"type": "integer"},
        "replayed": {"type": "boolean"},
        "events": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}},
        "text": {"type": "array", "items": {"type": "string"}},
        "receipt": {"type": ["string", "null"]},
        "phase": {"type": ["string", "null"]},
        "next": {"type": "array", "items": {"type": "string"}},
        "resumed": {"type": "object", "additionalProperties": {"type": "object"}},
        "after": {"type": "array", "items": {"type": "string"}},
    },
}
_ANSWERS: dict[str, dict[str, Any]] = {
    "/health": {"type": "object", "properties": {"status": {"type": "string"}}},
    "/openapi.json": {"type": "object"},
    "/campaigns": {
        "type": "object",
        "required": ["campaigns", "token"],
        "properties": {"campaigns": {"type": "array"}, "token": {"type": "object"}},
    },
    "/campaigns/{campaign}": {
        "type": "object",
        "required": ["campaign", "view", "version", "latest", "lines"],
        "properties": {
            "campaign": {"type": "string"},
            "view": {"enum": ["referee", "player"]},
            "version": {"type": "integer"},
            "latest": {"type": "integer"},
            "receipt": {"type": "string"},
            "lines": {"type": "array", "items": {"type": "string"}},
            "session": {"type": ["object", "null"]},
            "party": {"type": "array", "items": {"type": "string"}},
            "clock": {"type": "object"},
            "procedures": {"type": "object"},
        },
    },
    "/campaigns/{campaign}/timeline": {
        "type": "object",
        "required": ["campaign", "lines"],
        "properties": {"campaign": {"type": "string"}, "lines": {"type": "array"}},
    },
    "/campaigns/{campaign}/events": {
        "type": "object",
        "required": ["campaign", "events", "next", "head"],
        "properties": {
            "campaign": {"type": "string"},
            "events": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}},
            "next": {"type": "integer", "description": "the version the next page starts at"},
            "head": {
                "type": "integer",
                "description": "the log's version as the page read it: every event a player's page shows in full was "
                "revealed at head or before",
            },
        },
    },
    "/campaigns/{campaign}/audit": {
        "type": "object",
        "required": ["campaign", "text"],
        "properties": {
            "campaign": {"type": "string"},
            "verdict": {"type": "string"},
            "ok": {"type": "boolean"},
            "roll": {"type": "integer"},
            "text": {"type": "string"},
        },
    },
    "/schemas": {
        "type": "object",
        "required": ["types"],
        "properties": {"types": {"type": "array", "items": {"type": "object"}}},
    },
    "/schemas/{type}": {"type": "object"},
    "/campaigns/{campaign}/map": {
        "type": "object",
        "required": ["campaign", "lines"],
        "properties": {"campaign": {"type": "string"}, "lines": {"type": "array", "items": {"type": "string"}}},
    },
    "/campaigns/{campaign}/receipt": {
        "type": "object",
        "required": ["campaign", "receipt"],
        "properties": {"campaign": {"type": "string"}, "receipt": {"type": "string"}},
    },
}


def _problem(status: int) -> dict[str, Any]:
    titles = sorted({title for code, title in KINDS.values() if code == status})
    return {
        "description": "; ".join(titles) or "a problem",
        "content": {MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }


def _operation(endpoint: Endpoint) -> dict[str, Any]:
    params = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}, "description": text}
        for name, text in (("campaign", "the campaign's id"), ("type", "an event type"))
        if f"{{{name}}}" in endpoint.path
    ]
    params.extend(
        {"name": name, "in": where, "required": False, "schema": schema, "description": text}
        for name, where, schema, text in endpoint.params
    )
    if endpoint.body is not None:
        ok_schema: dict[str, Any] = {"$ref": "#/components/schemas/CommandAnswer"}
    elif endpoint.answers == "application/json":
        ok_schema = _ANSWERS.get(endpoint.path, {"type": "object"})
    else:
        ok_schema = {"type": "string"}
    responses: dict[str, Any] = {"200": {"description": "done", "content": {endpoint.answers: {"schema": ok_schema}}}}
    codes = {400, 404, 409, 422}
    if endpoint.access != http_app.PUBLIC:
        codes |= {401, 403, 429, 503}
    if endpoint.body is not None:
        codes |= {409, 413, 415}
    if endpoint.path.endswith("/stream") or endpoint.path.endswith("/events") or endpoint.path.endswith("/audit"):
        codes |= {409}
    for code in sorted(codes):
        responses[str(code)] = _problem(code)
    if endpoint.path.endswith("/stream"):
        responses["204"] = {"description": "nothing to send: the stream starts after its ?until= (do not reconnect)"}
    operation: dict[str, Any] = {
        "summary": endpoint.summary,
        "operationId": re.sub(r"[^A-Za-z0-9]+", "_", f"{endpoint.method} {endpoint.path}").strip("_").lower(),
        "parameters": params,
        "responses": responses,
        "x-hexlog-access": endpoint.access,
    }
    if endpoint.access != http_app.PUBLIC:
        operation["security"] = [{"bearer": []}]
    if endpoint.body is not None:
        route = endpoint.body
        operation["tags"] = [route.procedure.name]
        operation["description"] = (route.cls.__doc__ or "").strip()
        schema = route.schema()
        # a body may be left out (it is then {}) only when the command has no field a body must give
        operation["requestBody"] = {
            "required": bool(schema.get("required")),
            "content": {"application/json": {"schema": schema}},
        }
    return operation


def document(listed: list[Endpoint], registry: Registry) -> dict[str, Any]:
    """The OpenAPI 3.1 document of these endpoints."""
    paths: dict[str, Any] = {}
    for endpoint in listed:
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = _operation(endpoint)
    procedures = [{"name": p.name, "description": p.title} for p in registry]
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "hexlog",
            "version": VERSION,
            "description": "A referee engine for old-school procedures: committed dice, a hash-chained log. "
            "Every command of the command line is a POST; every campaign is a live stream.",
        },
        "tags": procedures,
        "paths": paths,
        "components": {
            "schemas": {"Problem": _PROBLEM, "Event": _EVENT, "CommandAnswer": _COMMAND_ANSWER},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


def page(doc: dict[str, Any]) -> str:
    """The document as one HTML page: every route, who may call it, its parameters and body fields."""
    e = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>hexlog API</title>",
        STYLE,
        f"<h1>{e(doc['info']['title'])} {e(doc['info']['version'])}</h1><p>{e(doc['info']['description'])}</p>",
        "<p>The machine-readable document: <a href='/openapi.json'>/openapi.json</a> (OpenAPI 3.1).</p>",
    ]
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            parts.append(f"<h3><code>{e(method.upper())} {e(path)}</code></h3>")
            parts.append(f"<p>{e(op['summary'])} <em>({e(op['x-hexlog-access'])})</em></p>")
            rows = [(p["name"], p["in"], p.get("description", "")) for p in op["parameters"]]
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body is not None:
                required = set(body.get("required", []))
                rows += [
                    (name, "body" + (", required" if name in required else ""), prop.get("description", ""))
                    for name, prop in body["properties"].items()
                ]
            if rows:
                parts.append("<table>")
                parts.extend(f"<tr><td><code>{e(n)}</code></td><td>{e(w)}</td><td>{e(t)}</td></tr>" for n, w, t in rows)
                parts.append("</table>")
    parts.append("</body></html>")
    return "".join(parts)
