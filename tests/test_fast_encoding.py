"""The fast way an event is encoded gives what cattrs alone gives: a ``tuple[X, ...]`` field is unstructured to the
list of its items, each as the converter unstructures it, by the codec's converter and by its copies alike."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cattrs.preconf.json import make_converter

from hexlog.events.base import event_class
from hexlog.events.codec import converter, from_data, to_data
from hexlog.events.dice import DiceRolled, RollModifier
from hexlog.machine.table import PARTS

from .conftest import golden_payloads

#: what cattrs alone makes of an event: the codec's converter as cattrs builds it, with none of hexlog's hooks
STOCK = make_converter(forbid_extra_keys=True)


def _as_stock(value: Any) -> tuple[Any, str]:
    """What cattrs alone makes of ``value``: its data and that data's JSON text (types and order shown)."""
    data = STOCK.unstructure(value)
    return data, json.dumps(data, default=repr)


def _as_codec(value: Any) -> tuple[Any, str]:
    data = to_data(value)
    return data, json.dumps(data, default=repr)


def _roll(modifiers: tuple[RollModifier, ...]) -> DiceRolled:
    return DiceRolled(
        session="s1",
        nonce=3,
        purpose="attack",
        sides=(20,),
        faces=(11,),
        modifier=sum(m.value for m in modifiers),
        total=11 + sum(m.value for m in modifiers),
        modifiers=modifiers,
    )


class TestToData:
    def test_every_golden_event_is_encoded_as_cattrs_alone_encodes_it(self) -> None:
        events = [from_data(t, v, d) for t, v, d in golden_payloads() if v == event_class(t).schema_version]
        assert len({type(e) for e in events}) > 50
        for event in events:
            assert _as_codec(event) == _as_stock(event), type(event).__name__

    @pytest.mark.parametrize(
        "modifiers",
        [
            (),
            (RollModifier(source="exhaustion (2 days without rest)", value=-2),),
            (RollModifier(source="a", value=1), RollModifier(source="b", value=-3), RollModifier(source="a", value=1)),
        ],
    )
    def test_a_tuple_of_attrs_objects_is_the_list_of_their_data(self, modifiers: tuple[RollModifier, ...]) -> None:
        data, _ = _as_codec(_roll(modifiers))
        assert data["modifiers"] == [{"source": m.source, "value": m.value} for m in modifiers]
        assert type(data["modifiers"]) is list
        assert (data["sides"], data["faces"], data["dropped"]) == ([20], [11], [])
        assert _as_codec(_roll(modifiers)) == _as_stock(_roll(modifiers))

    @pytest.mark.parametrize(
        ("hint", "value"),
        [
            (tuple[int, ...], (3, 1, 2)),
            (tuple[tuple[str, str], ...], (("a", "b"), ("c", "d"))),
            (tuple[RollModifier, ...], (RollModifier(source="x", value=2),)),
            (tuple[DiceRolled, ...], ()),
        ],
    )
    def test_a_tuple_of_any_item_type_is_unstructured_as_cattrs_unstructures_it(self, hint: Any, value: Any) -> None:
        assert converter.unstructure(value, hint) == STOCK.unstructure(value, hint)
        assert type(converter.unstructure(value, hint)) is type(STOCK.unstructure(value, hint))

    def test_a_copy_of_the_converter_unstructures_the_items_with_its_own_hooks(self) -> None:
        """The table's parts converter remembers the data of each event it unstructures, in a tuple too."""
        roll = _roll(())
        first, second = PARTS.unstructure((roll, roll), tuple[DiceRolled, ...])
        assert first is second
        assert first == to_data(roll)
