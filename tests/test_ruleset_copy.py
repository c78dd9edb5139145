"""A recorded ruleset holds its own copy of the content it was given, as a deep copy would make it."""

from __future__ import annotations

import copy

from hexlog.machine import ruleset as rulesets


def test_the_recorded_content_is_an_equal_copy_sharing_no_container():
    content = rulesets.load("ose").content
    recorded = rulesets.from_recorded("ose", content)
    assert recorded.content == copy.deepcopy(content)
    assert recorded.hash == rulesets.load("ose").hash
    stack = [(recorded.content, content)]
    while stack:
        mine, theirs = stack.pop()
        assert mine is not theirs
        pairs = (
            zip(mine.values(), theirs.values(), strict=True)
            if isinstance(mine, dict)
            else zip(mine, theirs, strict=True)
        )
        stack += [(a, b) for a, b in pairs if isinstance(a, dict | list)]


def test_values_that_are_not_json_are_deep_copied():
    inner = [1, 2]
    content = {"pair": (inner, "x"), "words": ["a", {"b": 1.5, "c": None, "d": True}]}
    recorded = rulesets.from_recorded("homebrew", content)
    assert recorded.content == content
    assert recorded.content["pair"][0] is not inner
    inner.append(3)
    assert recorded.content["pair"] == ([1, 2], "x")
