"""An event read straight from its JSON text (``hexlog.events.text_decoder``) is the event the codec makes of that
text read as JSON, or the text is left to the codec (``SLOW``): never another event, and never an event where the
codec refuses the text."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hexlog.events.base import event_class, registered
from hexlog.events.chain import canonical_json
from hexlog.events.codec import converter, from_data, text_decoder_of, to_data
from hexlog.events.dice import DiceRolled, RollModifier, Visibility
from hexlog.events.errors import CorruptLogError
from hexlog.events.structure import SLOW
from hexlog.events.text_decoder import plain, text_decoder
from hexlog.machine import registry  # noqa: F401 - every procedure's events registered

from .conftest import golden_payloads

GOLDEN = Path(__file__).resolve().parent / "golden"
#: the classes with a field of a kind only the codec reads: an open word (``Unit | str``), kept as written, which
#: msgspec cannot read (a union of two kinds of string), and the rules' free-form JSON, which may be nested past what
#: ``json`` reads
WITHOUT_TEXT_DECODER = {
    "encounter.distance_determined",
    "encounter.reaction_rolled",
    "campaign.started",
    "campaign.rules_changed",
}


PAYLOADS = golden_payloads()
CURRENT = [(t, d) for t, v, d in PAYLOADS if v == event_class(t).schema_version]
ROLL = DiceRolled(
    session="s1",
    nonce=7,
    purpose="attack",
    sides=(20,),
    faces=(13,),
    modifier=1,
    total=14,
    modifiers=(RollModifier(source="bless", value=1),),
)


@attrs.frozen
class Node:
    """A class within itself: its JSON may be nested as deep as a writer likes."""

    name: str
    children: tuple[Node, ...] = ()


@attrs.frozen
class Leaf:
    """A class that holds another, nested one level."""

    name: str
    modifiers: tuple[RollModifier, ...] = ()


def _by_codec(cloud_type: str, text: str) -> Any:
    """What the codec makes of a payload's text read as JSON: the event, or None where it refuses it."""
    try:
        return from_data(cloud_type, event_class(cloud_type).schema_version, json.loads(text))
    except (CorruptLogError, ValueError):
        return None


def _roll_text(**changes: Any) -> str:
    data = to_data(ROLL)
    data.update(changes)
    return canonical_json(data)


def _decode_roll(text: str) -> Any:
    decoder = text_decoder_of(DiceRolled.cloud_type(), DiceRolled.schema_version)
    assert decoder is not None
    return decoder(text)


class TestWhichClasses:
    def test_every_class_but_those_with_an_open_word_has_a_text_decoder(self):
        """A regression that sent every event back to the slow way would show here."""
        without = {
            name
            for name, cls in registered().items()
            if not name.startswith("test.") and text_decoder_of(cls.cloud_type(), cls.schema_version) is None
        }
        assert without == WITHOUT_TEXT_DECODER

    def test_an_old_schema_version_has_none(self):
        """A payload of an older version is upcast by the codec, never read straight into the current class."""
        assert text_decoder_of(DiceRolled.cloud_type(), 2) is None
        assert text_decoder_of("hexlog.no.such.type", 1) is None

    def test_a_field_with_a_hook_of_hexlogs_own_is_not_plain(self):
        """The open word's hook is hexlog's: its field is read by the codec alone."""
        unit = typing.get_type_hints(event_class("hexlog.encounter.distance_determined"))["unit"]
        assert not plain(converter, unit)
        assert plain(converter, tuple[RollModifier, ...])
        assert plain(converter, dict[str, int | None])
        assert not plain(converter, dict[int, str])
        assert not plain(converter, bytes)

    def test_free_form_json_and_a_class_within_itself_are_not_plain(self):
        """JSON whose depth no type bounds is left to the codec, which reads it (or names it) as it always did."""
        assert not plain(converter, Any)
        assert not plain(converter, dict[str, Any])
        assert not plain(converter, tuple[Any, ...])
        assert text_decoder(converter, Node) is None
        assert text_decoder(converter, Leaf) is not None

    def test_a_class_with_a_converter_or_a_validator_has_none(self):
        """msgspec sets the fields as read, without an attrs converter or validator: such a class is the codec's."""

        @attrs.frozen
        class Converted:
            n: int = attrs.field(converter=int)

        @attrs.frozen
        class Validated:
            n: int = attrs.field(validator=attrs.validators.gt(0))

        @attrs.frozen
        class Plain:
            n: int

        assert text_decoder(converter, Converted) is None
        assert text_decoder(converter, Validated) is None
        decoder = text_decoder(converter, Plain)
        assert decoder is not None
        assert decoder('{"n":3}') == Plain(3)


class TestGoldenPayloads:
    def test_every_current_golden_payload_is_read_from_its_text_to_the_codecs_event(self):
        read = 0
        for cloud_type, data in CURRENT:
            decoder = text_decoder_of(cloud_type, event_class(cloud_type).schema_version)
            if decoder is None:
                assert cloud_type.removeprefix("hexlog.") in WITHOUT_TEXT_DECODER
                continue
            text = canonical_json(data)
            event = decoder(text)
            assert event is not SLOW, (cloud_type, text)
            expected = _by_codec(cloud_type, text)
            assert type(event) is type(expected)
            assert event == expected
            read += 1
        assert read > 80


class TestTextsLeftToTheCodec:
    @pytest.mark.parametrize(
        "text",
        [
            _roll_text(extra=1),  # a key the class does not have: the codec refuses it
            _roll_text(modifiers=[{"source": "bless", "value": 1, "extra": 2}]),  # the same, nested
            _roll_text(nonce=True),  # cattrs would make 1 of it
            _roll_text(nonce=7.0),  # cattrs would make 7 of it
            _roll_text(purpose=3),  # cattrs would make "3" of it
            _roll_text(visibility="secret"),  # no such word
            _roll_text(faces=[13.5]),
            json.dumps(to_data(ROLL)),  # not canonical: spaces
            canonical_json(to_data(ROLL))[:-1] + ',"nonce":8}',  # a key twice: JSON keeps the last
            json.dumps(dict(reversed(list(to_data(ROLL).items()))), separators=(",", ":")),  # keys not sorted
            canonical_json({k: v for k, v in to_data(ROLL).items() if k != "notation"}),  # a default left out
            "[1, 2]",
            "{bad",
            '{"nonce": NaN}',
            "",
        ],
    )
    def test_a_text_an_event_does_not_write_is_left_to_the_codec(self, text):
        assert _decode_roll(text) is SLOW

    def test_a_lone_surrogate_is_left_to_the_codec(self):
        assert _decode_roll("\ud800") is SLOW

    @pytest.mark.parametrize("depth", [10, 990, 5000, 100_000])
    def test_a_key_the_class_does_not_have_is_left_to_the_codec_however_deep_it_is_nested(self, depth):
        """msgspec skips an unknown key's value by recursing into it: nested past the interpreter's depth, that is
        still a text left to the codec, never an error of its own."""
        text = _roll_text()[:-1] + ',"zz":' + "[" * depth + "]" * depth + "}"
        assert _decode_roll(text) is SLOW

    def test_numbers_past_64_bits_are_read_exactly(self):
        """What ``orjson`` would read as a float is read as the integer written."""
        text = _roll_text(nonce=2**70, total=-(2**65))
        event = _decode_roll(text)
        assert event is not SLOW
        assert (event.nonce, event.total) == (2**70, -(2**65))
        assert event == _by_codec(DiceRolled.cloud_type(), text)


def _resolved(cls: type) -> type:
    """``cls`` with its annotations (and those of the attrs classes its fields hold) resolved for hypothesis."""
    if attrs.has(cls):
        attrs.resolve_types(cls)
        for field in attrs.fields(cls):
            for inner in [field.type, *typing.get_args(field.type)]:
                if isinstance(inner, type) and attrs.has(inner):
                    _resolved(inner)
    return cls


def _finite_floats(cls: type) -> dict[str, st.SearchStrategy[float]]:
    return {f.name: st.floats(allow_nan=False, allow_infinity=False) for f in attrs.fields(cls) if f.type is float}


#: every event class hypothesis builds (a campaign's rules payload is free-form JSON: the golden payloads cover it)
DECODED = sorted(
    (cls for name, cls in registered().items() if not name.startswith(("test.", "campaign."))),
    key=lambda c: c.type_name,
)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_event_reads_back_from_its_canonical_text(data):
    """Whatever event hypothesis builds, its canonical JSON text reads back to it, or is left to the codec (which
    then reads it back to it); for an event without a float, never left."""
    cls = data.draw(st.sampled_from(DECODED))
    decoder = text_decoder_of(cls.cloud_type(), cls.schema_version)
    event = data.draw(st.builds(cls, **_finite_floats(_resolved(cls))))
    text = canonical_json(to_data(event))
    assert _by_codec(cls.cloud_type(), text) == event
    if decoder is None:
        return
    read = decoder(text)
    if read is SLOW:
        assert any(f.type is float for f in attrs.fields(cls)) or "\\ud" in text, text
    else:
        assert read == event


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_a_changed_payload_reads_as_the_codec_reads_it_or_is_left_to_it(data):
    """A golden payload with a field changed, added or taken away, written canonically or not: the text decoder
    gives the codec's event or leaves the text, and leaves every text the codec refuses."""
    cloud_type, payload = data.draw(st.sampled_from(CURRENT))
    decoder = text_decoder_of(cloud_type, event_class(cloud_type).schema_version)
    if decoder is None:
        return
    changed = dict(payload)
    how = data.draw(st.sampled_from(["set", "add", "drop", "none"]))
    if how == "set" and changed:
        changed[data.draw(st.sampled_from(sorted(changed)))] = data.draw(_JSON)
    elif how == "add":
        changed[data.draw(st.text(max_size=8))] = data.draw(_JSON)
    elif how == "drop" and changed:
        changed.pop(data.draw(st.sampled_from(sorted(changed))))
    canonical = data.draw(st.booleans())
    text = canonical_json(changed) if canonical else json.dumps(changed)
    read = decoder(text)
    expected = _by_codec(cloud_type, text)
    if read is not SLOW:
        assert expected is not None, text
        assert read == expected
        assert type(read) is type(expected)


def test_a_roll_with_every_field_set_reads_back():
    roll = attrs.evolve(ROLL, visibility=Visibility.REFEREE, made_for="Ann", notation="2d20kh1", dropped=(1,))
    assert _decode_roll(canonical_json(to_data(roll))) == roll
