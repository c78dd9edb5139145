"""Guards on the vocabulary: stable names, frozen keyword-only classes, old payloads still decode."""

from __future__ import annotations

import importlib.util
import json
import tomllib
import typing
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hexlog.machine.handler  # noqa: F401 - registers every procedure
from hexlog.events import base, catalogue, codec, registered, releases
from hexlog.events.base import Event
from hexlog.events.dice import DiceRolled
from hexlog.events.encounter import DistanceDetermined, ReactionResult, ReactionRolled, Unit
from hexlog.events.errors import CorruptLogError, UnknownEventTypeError
from hexlog.events.procedure import HandedOff, Resumed
from hexlog.events.session import SessionOpened

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "events"
FOLDERS = ("events", "machine", "projections", "replay", "service")


def _goldens() -> list[Path]:
    return sorted(GOLDEN.glob("*.json"))


class TestRegistry:
    def test_every_registered_type_has_a_golden_payload(self):
        """The registry equals the list of stored payloads: adding or renaming a type shows here."""
        names = {p.name.rsplit(".v", 1)[0] for p in _goldens()}
        assert names == set(registered())

    def test_every_type_has_a_golden_payload_at_its_current_schema_version(self):
        """A new schema version needs a payload of its own beside the older ones, which stay."""
        stored = {(p.name.rsplit(".v", 1)[0], int(p.name.rsplit(".v", 1)[1].removesuffix(".json"))) for p in _goldens()}
        current = {(name, cls.schema_version) for name, cls in registered().items()}
        assert current <= stored, sorted(current - stored)
        assert ("dice.rolled", 1) in stored

    @pytest.mark.parametrize("cls", sorted(registered().values(), key=lambda c: c.type_name), ids=lambda c: c.type_name)
    def test_event_classes_are_frozen_slotted_and_keyword_only(self, cls):
        """Every event class is immutable, slotted and takes keywords only."""
        assert attrs.has(cls)
        assert "__slots__" in cls.__dict__
        assert all(a.kw_only for a in attrs.fields(cls))
        assert cls.__setattr__.__name__ == "_frozen_setattrs"

    def test_a_duplicate_type_name_is_refused(self):
        """Two classes cannot share a wire name."""
        with pytest.raises(TypeError, match="is taken"):

            @attrs.frozen(kw_only=True)
            class Impostor(Event):
                type_name = "dice.rolled"

    def test_an_unknown_type_is_named(self):
        """Decoding a type no class carries raises UnknownEventTypeError."""
        with pytest.raises(UnknownEventTypeError, match=r"hexlog\.nope"):
            codec.from_data("hexlog.nope", 1, {})


class TestGoldenPayloads:
    @pytest.mark.parametrize("path", _goldens(), ids=lambda p: p.name)
    def test_a_recorded_payload_decodes_to_the_current_class_and_back(self, path):
        """Payloads written by earlier releases still decode; a current-version payload round-trips."""
        golden = json.loads(path.read_text(encoding="utf-8"))
        event = codec.from_data(golden["type"], golden["schemaversion"], golden["data"])
        assert event.cloud_type() == golden["type"]
        if golden["schemaversion"] == type(event).schema_version:
            assert codec.to_data(event) == golden["data"]

    def test_a_version_1_roll_is_upcast_to_one_made_for_nobody_unmodified(self):
        """The dice.rolled v1 payload decodes by upcasting: same roll, no made_for, no modifiers."""
        old = json.loads((GOLDEN / "dice.rolled.v1.json").read_text(encoding="utf-8"))
        event = codec.from_data(old["type"], old["schemaversion"], old["data"])
        assert isinstance(event, DiceRolled)
        assert old["schemaversion"] == 1 < DiceRolled.schema_version
        assert (event.made_for, event.modifiers) == ("", ())
        assert codec.to_data(event) == {
            **old["data"],
            "made_for": "",
            "modifiers": [],
            "notation": "",
            "dropped": [],
            "low_is_good": False,
        }

    def test_a_version_2_roll_keeps_who_it_was_made_for_and_its_modifiers(self):
        """The dice.rolled v2 payload carries made_for and each modifier with its source."""
        new = json.loads((GOLDEN / "dice.rolled.v2.json").read_text(encoding="utf-8"))
        event = codec.from_data(new["type"], new["schemaversion"], new["data"])
        assert isinstance(event, DiceRolled)
        assert event.made_for == new["data"]["made_for"] != ""
        assert [(m.source, m.value) for m in event.modifiers] == [
            (m["source"], m["value"]) for m in new["data"]["modifiers"]
        ]
        assert event.total == sum(event.faces) + event.modifier
        assert (event.notation, event.dropped) == ("", ())
        assert codec.to_data(event) == {**new["data"], "notation": "", "dropped": [], "low_is_good": False}

    def test_a_version_3_roll_names_its_keep_and_the_dice_it_dropped(self):
        """dice.rolled v3: a keep or drop's notation and dropped dice; the total counts the others."""
        new = json.loads((GOLDEN / "dice.rolled.v3.json").read_text(encoding="utf-8"))
        assert new["schemaversion"] == 3
        event = codec.from_data(new["type"], new["schemaversion"], new["data"])
        assert isinstance(event, DiceRolled)
        assert (event.notation, event.dropped) == ("4d6kh3", (2,))
        assert event.total == event.counted + event.modifier == 5 + 3 + 6 - 1
        assert codec.to_data(event) == {**new["data"], "low_is_good": False}

    def test_a_version_3_roll_added_its_modifiers_as_given_and_version_4_says_when_low_is_good(self):
        """dice.rolled v3 counted no modifier against a low total; v4 records a roll where low is good, whose
        penalty raises the total."""
        new = json.loads((GOLDEN / "dice.rolled.v4.json").read_text(encoding="utf-8"))
        assert new["schemaversion"] == 4 == DiceRolled.schema_version
        event = codec.from_data(new["type"], new["schemaversion"], new["data"])
        assert isinstance(event, DiceRolled)
        assert event.low_is_good
        assert event.total == event.counted + event.modifier == 47 + 4
        assert codec.to_data(event) == new["data"]
        old = json.loads((GOLDEN / "dice.rolled.v3.json").read_text(encoding="utf-8"))
        assert not codec.from_data(old["type"], old["schemaversion"], old["data"]).low_is_good

    def test_a_version_1_session_opening_is_upcast_to_a_secret_not_known_to_be_supplied(self):
        """session.opened v1 did not record a supplied secret: it decodes as drawn, and v2 keeps the flag."""
        old = json.loads((GOLDEN / "session.opened.v1.json").read_text(encoding="utf-8"))
        new = json.loads((GOLDEN / "session.opened.v2.json").read_text(encoding="utf-8"))
        before = codec.from_data(old["type"], old["schemaversion"], old["data"])
        after = codec.from_data(new["type"], new["schemaversion"], new["data"])
        assert isinstance(before, SessionOpened)
        assert isinstance(after, SessionOpened)
        assert (before.scheme, before.supplied) == ("hexlog-dice-v1", False)
        assert (after.scheme, after.supplied) == ("hexlog-dice-v2", True)
        assert codec.to_data(before) == {**old["data"], "supplied": False, "release": 0}

    def test_a_session_opening_before_version_3_names_no_release(self):
        """session.opened v1 and v2 did not name the release that opened them: they read as release 0 (told from
        the stream's schema versions), and v3 keeps the release it names."""
        read = {}
        for version in (1, 2, 3):
            golden = json.loads((GOLDEN / f"session.opened.v{version}.json").read_text(encoding="utf-8"))
            event = codec.from_data(golden["type"], golden["schemaversion"], golden["data"])
            assert isinstance(event, SessionOpened)
            read[version] = event.release
        new = json.loads((GOLDEN / "session.opened.v3.json").read_text(encoding="utf-8"))
        assert read == {1: 0, 2: 0, 3: new["data"]["release"]}
        assert new["data"]["release"] == releases.raised_at(new["type"], 3)
        assert codec.to_data(codec.from_data(new["type"], 3, new["data"])) == new["data"]

    @pytest.mark.parametrize("cls", [HandedOff, Resumed], ids=lambda c: c.type_name)
    def test_a_hand_off_payload_names_the_parent_and_the_child(self, cls):
        """procedure.handed_off and procedure.resumed decode to their class with parent and child."""
        golden = json.loads((GOLDEN / f"{cls.type_name}.v1.json").read_text(encoding="utf-8"))
        event = codec.from_data(golden["type"], golden["schemaversion"], golden["data"])
        assert event == cls(parent=golden["data"]["parent"], child=golden["data"]["child"])

    def test_an_extra_field_is_a_corrupt_log(self):
        """forbid_extra_keys: a payload with an unknown field does not decode silently."""
        golden = json.loads((GOLDEN / "dice.rolled.v1.json").read_text(encoding="utf-8"))
        with pytest.raises(CorruptLogError, match="does not decode"):
            codec.from_data(golden["type"], 1, {**golden["data"], "fudged": True})

    def test_a_newer_schema_than_known_is_refused(self):
        """A payload from a future release is not guessed at."""
        with pytest.raises(CorruptLogError, match="newer than this hexlog knows"):
            codec.from_data("hexlog.dice.rolled", 99, {})

    def test_an_old_version_is_upcast_through_the_chain(self, monkeypatch):
        """A v1 payload is upcast, copy then change, to the class's current version."""

        @attrs.frozen(kw_only=True)
        class Tallied(Event):
            type_name = "test.tallied"
            schema_version = 2
            ticks: int

        def upcast_v1_v2(data):
            """v1 called the count n."""
            out = dict(data)
            out["ticks"] = out.pop("n")
            return out

        monkeypatch.setitem(codec.UPCASTERS, ("test.tallied", 1), upcast_v1_v2)
        try:
            assert codec.from_data("hexlog.test.tallied", 1, {"n": 3}) == Tallied(ticks=3)
            assert codec.from_data("hexlog.test.tallied", 2, {"ticks": 4}) == Tallied(ticks=4)
        finally:
            base._REGISTRY.pop("test.tallied")


#: a distance as hexlog 0.1.0 wrote it under house rules (``unit`` replaced in the tests)
DISTANCE: dict[str, object] = {
    "value": 24,
    "unit": "ft",
    "melee": False,
    "missiles_possible": True,
    "rule": "ose.dungeon 2d6x3m",
    "steps": [],
    "rolls": [2],
}


class TestOpenFields:
    """A distance's unit and a reaction's band: today's words, or what hexlog 0.1.0's house rules wrote."""

    def test_a_known_value_decodes_to_its_word(self):
        event = codec.from_data("hexlog.encounter.distance_determined", 1, DISTANCE)
        assert isinstance(event, DistanceDetermined)
        assert event.unit is Unit.FT

    @pytest.mark.parametrize("unit", ["m", "fathoms", "FT", ""])
    def test_any_other_string_decodes_as_written_and_encodes_the_same(self, unit):
        """0.1.0 wrote the unit its house rules named: it is kept, and re-encoded byte for byte."""
        data = {**DISTANCE, "unit": unit}
        event = codec.from_data("hexlog.encounter.distance_determined", 1, data)
        assert isinstance(event, DistanceDetermined)
        assert type(event.unit) is str
        assert event.unit == unit
        assert codec.to_data(event) == data

    def test_a_reaction_band_of_the_house_decodes_as_written(self):
        data = {"dice": 7, "total": 8, "result": "wary", "text": "Wary, keeps its distance", "rolls": [5]}
        event = codec.from_data("hexlog.encounter.reaction_rolled", 1, data)
        assert isinstance(event, ReactionRolled)
        assert (type(event.result), event.result) == (str, "wary")
        assert codec.from_data("hexlog.encounter.reaction_rolled", 1, {**data, "result": "uncertain"}).result is (
            ReactionResult.UNCERTAIN
        )

    @pytest.mark.parametrize("unit", [3, None, ["m"]])
    def test_a_value_that_is_not_a_string_is_a_corrupt_log(self, unit):
        with pytest.raises(CorruptLogError, match=r"distance_determined does not decode: .*\$\.unit"):
            codec.from_data("hexlog.encounter.distance_determined", 1, {**DISTANCE, "unit": unit})

    def test_the_published_schema_names_the_words_and_admits_any_string(self):
        """The catalogue shows today's words first, then any string, with the field's comment saying why."""
        unit = catalogue.schema(DistanceDetermined)["properties"]["unit"]
        assert unit["anyOf"] == [{"type": "string", "enum": ["ft", "yd"]}, {"type": "string"}]
        assert "0.1.0" in unit["description"]


def _resolved(cls: type) -> type:
    """``cls`` with the annotations of it and of every attrs class its fields hold resolved (they are written as
    strings), so that hypothesis can build it whichever test ran before."""
    if attrs.has(cls):
        attrs.resolve_types(cls)
        for field in attrs.fields(cls):
            for inner in _classes_in(field.type):
                _resolved(inner)
    return cls


def _classes_in(hint: object) -> list[type]:
    """The classes a type hint names, however nested (``tuple[Rest, ...]`` names ``Rest``)."""
    found = [hint] if isinstance(hint, type) else []
    for arg in typing.get_args(hint):
        found.extend(_classes_in(arg))
    return found


def _finite_floats(cls: type) -> dict[str, st.SearchStrategy[float]]:
    """A strategy of finite floats for each float field (an event never holds NaN or an infinity, which JSON
    has no words for, and NaN is not equal to itself)."""
    return {f.name: st.floats(allow_nan=False, allow_infinity=False) for f in attrs.fields(cls) if f.type is float}


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_registered_event_round_trips_through_its_payload(data):
    """Any event hypothesis can build survives to_data then from_data unchanged, and so does the JSON a log holds of
    it: decoding is strict (a value of another JSON type than its field's is refused), and every value an event
    writes is of its field's type."""
    cls = data.draw(st.sampled_from(sorted(registered().values(), key=lambda c: c.type_name)))
    if cls.type_name.startswith("campaign."):
        return  # its rules payload is free-form JSON: covered by the golden payloads
    event = data.draw(st.builds(cls, **_finite_floats(_resolved(cls))))
    payload = codec.to_data(event)
    assert codec.from_data(cls.cloud_type(), cls.schema_version, payload) == event
    assert codec.from_data(cls.cloud_type(), cls.schema_version, json.loads(json.dumps(payload))) == event


class TestLayout:
    @pytest.mark.parametrize("folder", FOLDERS)
    def test_a_bare_folder_name_is_not_importable(self, folder):
        """The folders are only ever hexlog.<folder>, never a top-level package that could clash."""
        assert importlib.util.find_spec(folder) is None
        assert importlib.util.find_spec(f"hexlog.{folder}") is not None

    def test_the_packages_in_pyproject_match_the_folders(self):
        """Every folder holding an __init__.py is packaged, nested ones too, and nothing else is."""
        config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
        packages = config["tool"]["setuptools"]["packages"]
        data_only = ["hexlog.machine.rulesets"]  # the ruleset files: data, no modules
        assert not list((ROOT / "machine" / "rulesets").glob("*.py"))
        found = sorted(
            "hexlog." + ".".join(init.parent.relative_to(ROOT).parts)
            for folder in FOLDERS
            for init in (ROOT / folder).rglob("__init__.py")
        )
        assert {"hexlog.machine.encounter", "hexlog.machine.kit"} <= set(found)
        assert sorted(packages) == sorted([*found, *data_only])
        assert sorted(config["tool"]["setuptools"]["package-dir"]) == sorted(packages)
        for package, folder in config["tool"]["setuptools"]["package-dir"].items():
            assert package == "hexlog." + ".".join(Path(folder).parts)
