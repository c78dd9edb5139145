"""The OpenAPI document is valid, and a property-based run over it, in process, finds no 500 and no answer
that breaks it (schemathesis, derandomized: 15 examples per operation)."""

from __future__ import annotations

import re

import attrs
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from jsonschema import Draft202012Validator
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from hexlog.machine.commands import HELP, NEGATE, help_of_flag, unset_when_empty
from hexlog.machine.registry import REGISTRY
from hexlog.machine.text import NOT_TEXT, limit_of
from hexlog.service.http_app import Settings, create_app
from hexlog.service.http_commands import FILE_FIELDS, command_routes
from hexlog.service.http_tokens import TokenStore

from .conftest import make_db

checks = [schemathesis.checks.not_a_server_error, status_code_conformance, content_type_conformance]
checks.append(response_schema_conformance)


@pytest.fixture
def served_app(tmp_path):
    db = tmp_path / "hexlog.db"
    make_db(db, ("main",))
    tokens = TokenStore(db)
    referee, _ = tokens.create("main", "referee")
    tokens.close()
    app = create_app(Settings(db=db, rate=1e6, burst=1_000_000))
    app.state.referee = referee
    yield app
    app.state.service.close()


def test_the_document_is_openapi_3_1_and_its_bodies_are_json_schemas(served_app):
    from hexlog.service.http_openapi import document  # noqa: PLC0415

    doc = document(served_app.state.endpoints, served_app.state.service.registry)
    assert doc["openapi"] == "3.1.0"
    schemathesis.openapi.from_dict(doc).validate()  # against the OpenAPI 3.1 meta-schema
    for methods in doc["paths"].values():
        for operation in methods.values():
            body = operation.get("requestBody")
            if body is not None:
                Draft202012Validator.check_schema(body["content"]["application/json"]["schema"])
            assert "200" in operation["responses"]


def test_no_500_and_every_answer_matches_the_document(served_app):
    api = schemathesis.openapi.from_asgi("/openapi.json", served_app)
    headers = {"Authorization": f"Bearer {served_app.state.referee}"}
    operations = [result.ok() for result in api.get_all_operations()]
    explored = 0
    for operation in operations:
        if operation.path.endswith("/stream"):  # it never ends by itself: its paged twin, /events, is explored
            continue

        @given(case=operation.as_strategy())
        @settings(max_examples=15, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
        def explore(case):
            if "campaign" in (case.path_parameters or {}):
                case.path_parameters["campaign"] = "main"
            case.call_and_validate(headers=headers, checks=checks)

        explore()
        explored += 1
    assert explored == len(operations) - 1


def test_every_body_field_is_described_as_the_field_not_as_a_flag_that_says_its_opposite(served_app):
    """A field the command line sets with a flag saying the opposite (``--unintelligent`` sets ``intelligent``
    false) is described by what the field means, never by the flag's sentence: ``intelligent`` (default true)
    reads "the monsters are intelligent". Every body field's description is its own sentence."""
    from hexlog.service.http_openapi import document  # noqa: PLC0415

    doc = document(served_app.state.endpoints, served_app.state.service.registry)
    negated = 0
    for route in command_routes(served_app.state.service.registry):
        operation = doc["paths"].get(route.path, {}).get("post")
        if operation is None:
            continue
        properties = operation["requestBody"]["content"]["application/json"]["schema"]["properties"]
        for field in attrs.fields(route.cls):
            described = properties[field.name].get("description", "")
            if field.name not in FILE_FIELDS:
                assert described == field.metadata.get(HELP, ""), (route.name, field.name)
            if field.metadata.get(NEGATE):
                negated += 1
                assert described != help_of_flag(field), (route.name, field.name)
                assert f"not {field.name.replace('_', ' ')}" not in described, (route.name, field.name)
                if properties[field.name].get("default") is True:
                    assert described.endswith(field.name.replace("_", " ")), (route.name, field.name, described)
    assert negated >= 4  # encounter/start, dungeon/meet, camp/meet, pursuit/start: intelligent


def test_a_field_the_step_cannot_go_without_is_required_and_non_empty_in_the_document(serve):
    """A cancel's reason, the firewood's gatherers and the night's watches have empty defaults the steps refuse: the
    document marks them required and non-empty, so a client generated from it knows before it sends, and the body
    is refused (422) naming the field, nothing written."""
    served = serve()
    with served.client() as client:
        doc = client.get("/openapi.json").json()

        def body_schema(path: str) -> dict:
            operation = doc["paths"][f"/campaigns/{{campaign}}/{path}"]["post"]
            return operation["requestBody"]["content"]["application/json"]["schema"]

        cancel, firewood = body_schema("encounter/cancel"), body_schema("camp/firewood")
        watches = body_schema("camp/watches")
        assert (cancel["required"], cancel["properties"]["reason"]["minLength"]) == (["reason"], 1)
        assert (firewood["required"], firewood["properties"]["gatherers"]["minItems"]) == (["gatherers"], 1)
        assert (watches["required"], watches["properties"]["watches"]["minItems"]) == (["watches"], 1)
        assert "default" not in cancel["properties"]["reason"]
        headers = served.headers("referee")
        before = client.get("/campaigns/main", headers=headers).json()["version"]
        for path, body, said in (
            ("encounter/cancel", {}, "body has no field 'reason'"),
            ("encounter/cancel", {"reason": ""}, "body.reason must not be empty"),
            ("camp/firewood", {"gatherers": []}, "body.gatherers must name at least 1"),
        ):
            refused = client.post(f"/campaigns/main/{path}", headers=headers, json=body)
            assert refused.status_code == 422, refused.text
            assert said in refused.json()["detail"]
        assert client.get("/campaigns/main", headers=headers).json()["version"] == before


def test_a_field_that_empty_text_leaves_unset_takes_no_empty_text(serve):
    """A name, a note, a door, a speaker: empty text is how the command says the field was not given, so a body giving
    it empty (or only spaces) is refused (422) naming the field, nothing written, as the command line refuses
    ``--name ""``; the document says so (non-empty, and no empty default a client would send back)."""
    unset = 0
    for route in command_routes(REGISTRY):
        schema = route.schema()
        for field in attrs.fields(route.cls):
            if unset_when_empty(field):
                prop = schema["properties"][field.name]
                assert (prop["minLength"], prop["pattern"], "default" in prop) == (1, r"\S", False), route.name
                unset += 1
    assert unset >= 40
    served = serve()
    with served.client() as client:
        headers = served.headers("referee")
        before = client.get("/campaigns/main", headers=headers).json()["version"]
        for path, field in (
            ("encounter/start", "name"),
            ("encounter/start", "setting"),
            ("campaign/roll-dice", "made_for"),
            ("dungeon/door", "door"),
            ("encounter/react", "speaker"),
        ):
            for value in ("", "  "):
                body = {"expression": "1d6", field: value} if path == "campaign/roll-dice" else {field: value}
                refused = client.post(f"/campaigns/main/{path}", headers=headers, json=body)
                assert refused.status_code == 422, refused.text
                assert f"body.{field} is empty: give a value, or leave it out" in refused.json()["detail"]
        assert client.get("/campaigns/main", headers=headers).json()["version"] == before
        rolled = client.post("/campaigns/main/campaign/roll-dice", headers=headers, json={"expression": "1d6"})
        assert rolled.status_code == 200, rolled.text


def test_every_free_text_field_has_the_cores_longest_text_as_its_max_length(serve):
    """A generated client (a form of a virtual tabletop) knows before it sends how long a purpose, a name or a note
    may be: each string of a body, and each string item of a list, has the ``maxLength`` the core refuses past, and a
    body past it is refused in the core's words, nothing written."""
    limited = 0
    for route in command_routes(REGISTRY):
        for name, prop in route.schema()["properties"].items():
            if name in FILE_FIELDS or name in NOT_TEXT:
                continue
            strings = [prop, prop.get("items", {}), *prop.get("anyOf", ())]
            for schema in strings:
                if schema.get("type") == "string" and "enum" not in schema:
                    assert schema.get("maxLength") == limit_of(name), (route.name, name)
                    limited += 1
    assert limited >= 40
    served = serve()
    with served.client() as client:
        doc = client.get("/openapi.json").json()
        body = doc["paths"]["/campaigns/{campaign}/campaign/roll-dice"]["post"]["requestBody"]
        assert body["content"]["application/json"]["schema"]["properties"]["purpose"]["maxLength"] == 100
        headers = served.headers("referee")
        before = client.get("/campaigns/main", headers=headers).json()["version"]
        long = client.post(
            "/campaigns/main/campaign/roll-dice", headers=headers, json={"expression": "1d6", "purpose": "p" * 101}
        )
        assert long.status_code == 422
        assert long.json()["detail"] == "body.purpose is 101 characters long; at most 100"
        assert client.get("/campaigns/main", headers=headers).json()["version"] == before


def test_a_body_is_required_in_the_document_exactly_when_the_command_has_a_field_a_body_must_give(serve):
    """A command with a field a body must give (``travel/start``'s hex) is refused without a body (422, naming the
    field): the document says its body is required; one whose every field may be left out is answered without a
    body (the body is then ``{}``), and its body is not required."""
    served = serve()
    with served.client() as client:
        doc = client.get("/openapi.json").json()
        bodies = {
            path: methods["post"]["requestBody"]
            for path, methods in doc["paths"].items()
            if "requestBody" in methods.get("post", {})
        }
        needed = {
            path for path, body in bodies.items() if body["content"]["application/json"]["schema"].get("required")
        }
        assert "/campaigns/{campaign}/travel/start" in needed
        assert {path for path, body in bodies.items() if body["required"]} == needed
        headers = served.headers("referee")
        before = client.get("/campaigns/main", headers=headers).json()["version"]
        bare = client.post("/campaigns/main/travel/start", headers=headers)
        assert bare.status_code == 422
        assert bare.json()["detail"] == "body has no field 'hex'"
        assert client.get("/campaigns/main", headers=headers).json()["version"] == before
        assert not bodies["/campaigns/{campaign}/campaign/close-session"]["required"]


def test_the_headers_and_whole_numbers_the_service_reads_are_described_as_it_reads_them(serve):
    """``If-Match`` and ``Last-Event-ID`` have the pattern of what the service takes (a client generated from the
    document sends no empty or wordy one, which is refused 400), and each whole-number query parameter the most
    digits it reads (a longer one is refused 400, not taken as a larger number)."""
    served = serve()
    with served.client() as client:
        doc = client.get("/openapi.json").json()
        referee = served.headers("referee")

        def parameter(path: str, method: str, name: str) -> dict:
            (found,) = [p for p in doc["paths"][path][method]["parameters"] if p["name"] == name]
            return found["schema"]

        if_match = re.compile(parameter("/campaigns/{campaign}/campaign/roll-dice", "post", "If-Match")["pattern"])
        version = client.get("/campaigns/main", headers=referee).json()["version"]
        for taken in (str(version), f'"{version}"', f'W/"{version}"', "*"):
            assert if_match.fullmatch(taken), taken
        for refused in ("", "abc", "-1", '"1", "2"', "1" * 16):
            assert not if_match.fullmatch(refused), refused
            sent = client.post(
                "/campaigns/main/campaign/roll-dice",
                headers={**referee, "If-Match": refused},
                json={"expression": "d6"},
            )
            assert sent.status_code == 400, refused
        resume = re.compile(parameter("/campaigns/{campaign}/stream", "get", "Last-Event-ID")["pattern"])
        assert resume.fullmatch("0")
        assert not resume.fullmatch("")
        assert not resume.fullmatch("x")
        most = parameter("/campaigns/{campaign}/events", "get", "limit")["maximum"]
        assert client.get(f"/campaigns/main/events?limit={most}", headers=referee).json()["limit"] == 1000
        assert client.get(f"/campaigns/main/events?limit={most + 1}", headers=referee).status_code == 400
        assert client.get("/campaigns/main", headers=referee).json()["version"] == version
