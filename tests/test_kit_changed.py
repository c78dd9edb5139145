"""``changed``: what ``attrs.evolve`` makes of an instance and its changes, for any attrs class."""

from __future__ import annotations

import attrs
import pytest

from hexlog.machine.encounter.state import EncounterState, Phase
from hexlog.machine.kit.changed import changed
from hexlog.service import simulation


def _positive(instance: object, attribute: attrs.Attribute[int], value: int) -> None:  # noqa: ARG001 - attrs' signature
    if value < 0:
        msg = f"{attribute.name} must not be negative"
        raise ValueError(msg)


@attrs.frozen(kw_only=True)
class Odd:
    """Every kind of field ``attrs.evolve`` treats in its own way."""

    count: int = attrs.field(default=0, validator=_positive)
    names: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    _hidden: str = "h"
    made: list[int] = attrs.field(factory=list)
    seen: int = attrs.field(init=False, default=7)


class TestChanged:
    def test_it_makes_what_attrs_evolve_makes(self):
        """Validators, converters, private fields (by their init name), factories and fields not in init."""
        odd = Odd(count=2, names=["a"], hidden="x", made=[1])
        for changes in ({}, {"count": 3}, {"names": ["b", "c"]}, {"hidden": "y", "made": [2]}):
            assert changed(odd, **changes) == attrs.evolve(odd, **changes)
        assert changed(odd, names=["b"]).names == ("b",)
        assert changed(odd, count=5)._hidden == "x"
        assert changed(odd, count=5).seen == 7

    def test_a_value_the_class_refuses_is_refused_as_attrs_evolve_refuses_it(self):
        """The class's validators run, and an argument it does not take is refused in attrs' words."""
        odd = Odd()
        with pytest.raises(ValueError, match="count must not be negative"):
            changed(odd, count=-1)
        with pytest.raises(TypeError, match="unexpected keyword argument 'seen'"):
            changed(odd, seen=1)
        with pytest.raises(TypeError, match="unexpected keyword argument '_hidden'"):
            changed(odd, _hidden="z")
        with pytest.raises(attrs.exceptions.NotAnAttrsClassError):
            changed(object())

    def test_an_encounter_changed_is_the_encounter_attrs_evolve_gives(self):
        """A real folded state: the same value, and a new instance, whatever field changes."""
        handler = simulation.handler_for("ose", "c")
        handler.execute("c", simulation.BENCH_ENCOUNTER[0])
        state = handler.load("c").procedures["encounter"]
        assert isinstance(state, EncounterState)
        for changes in ({"phase": Phase.ACTIONS}, {"rounds": 2, "in_combat": True}, {}):
            made = changed(state, **changes)
            assert made == attrs.evolve(state, **changes)
            assert made is not state
