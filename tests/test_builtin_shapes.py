"""A campaign records the whole ruleset it starts under, so every shape a built-in was ever shipped in stays known
(``machine/rulesets/released``): a log written under an earlier build names no house rules where there were none,
and a built-in changed without keeping its earlier shape fails here."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from hexlog.events import releases
from hexlog.machine import ruleset as rulesets
from hexlog.machine import shapes
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import read_export

GOLDEN = Path(__file__).resolve().parent / "golden"
#: the hash of each built-in as this build ships it: change a built-in, and its shape before the change goes into
#: ``released/<release>/NAME.N.toml`` (so the logs recorded under it stay house-rule free); then update this
SHIPPED = {
    "adnd": "9474cf3880f386b6f29bb0551d0b5c10bea5fb4b401dcf193bf6994b8a18270c",
    "explore": "51d2c6b19f8582fcd7e9633b7b6904049e02c237382d3cc825e0d62ec97cfa02",
    "ose": "61c37453889781597318730c0fac27fda87687fb672e1576c084d46f109e389f",
}
#: the golden logs whose referee laid house rules over a built-in, and what they changed
HOUSE_RULED = {
    "both-surprised-evasion-v1.jsonl": "options.evasion_rules odd -> ose",
    "camp-ground-v1.jsonl": "options.lost_encounter_source odd_p18 -> dolmenwood",
    "delve-rest-v2.jsonl": "tables.rest.rest_every_travel_days 6 -> 1",
    "dvdm-search-v1.jsonl": "options.search_table default -> dvdm",
    "exhausted-evasion-v3.jsonl": "tables.rest.rest_every_travel_days 6 -> 1",
    "resting-dolmenwood-v2.jsonl": "options.lost_encounter_source odd_p18 -> dolmenwood",
    "resting-tangled-v3.jsonl": "options.lost_encounter_source odd_p18 -> dolmenwood",
    "exhaustion-v1.jsonl": "tables.rest.rest_every_travel_days 6 -> 1; tables.rest.exhaustion_per_day -1 -> -100",
    "two-dice-afloat-v3.jsonl": (
        "options.afloat_rule seed -> odd_two_dice; tables.afloat.odd_first_die_waterborne [5] -> [1, 2, 3, 4, 5, 6]; "
        "tables.afloat.odd_second_die_normal [6] -> [1, 2, 3, 4, 5, 6]"
    ),
}


def test_every_built_in_is_the_shape_this_build_ships():
    """A built-in whose content changed must keep its earlier shape among the released ones first."""
    for name in rulesets.builtin_names():
        assert rulesets.load(name).hash == SHIPPED[name], (
            f"{name} changed: keep its shape before the change as machine/rulesets/released/<release>/{name}.N.toml, "
            "move its floor in machine/shapes.py to that key, give today's len(RAISED), then update SHIPPED"
        )


def test_every_shape_has_the_floor_of_the_releases_its_builds_had_made():
    """Each shape a built-in was shipped in has a floor (``machine/shapes.py``), no floor names a shape that is not
    kept, and none is past the releases there are; a floor never falls from one shape of a built-in to today's."""
    keys = {key for name in rulesets.builtin_names() for key, _, _ in rulesets.shapes(name)}
    assert keys == set(shapes.FLOORS)
    assert all(0 <= made <= len(releases.RAISED) for made in shapes.FLOORS.values())
    for name in rulesets.builtin_names():
        assert shapes.FLOORS[name] == max(shapes.FLOORS[key] for key, _, _ in rulesets.shapes(name)), name


def test_rules_in_a_shape_give_its_floor_and_house_rules_none():
    today = rulesets.load("explore")
    assert shapes.floor("explore", today.content) == (shapes.FLOORS["explore"], "explore")
    kept = rulesets.RELEASED_DIR / "0.1.0" / "explore.11.toml"
    assert shapes.floor("explore", tomllib.loads(kept.read_text("utf-8"))) == (
        11,
        "explore 0.1.0 (kept from commit ed0c824, 2026-12-04)",
    )
    ruled = today.content | {"options": today.content["options"] | {"initiative_tie": "reroll"}}
    assert shapes.floor("explore", ruled) == (0, "")
    assert shapes.floor("explore-tourney", today.content) == (0, "")


def test_the_earlier_shapes_are_each_a_shape_of_their_own():
    """No two kept shapes of a built-in are the same (nor the same as today's), and each is read by its name alone."""
    for name in rulesets.builtin_names():
        hashes = [known for _, _, known in rulesets._known_builtins(name)]
        assert len(hashes) == len(set(hashes)), name
        assert len(hashes) > 1, name


@pytest.mark.parametrize("log", sorted(p.name for p in GOLDEN.glob("*-v*.jsonl")))
def test_a_log_of_an_earlier_build_names_only_the_house_rules_it_had(log):
    """Each golden log was written by an earlier build under the built-in as it was then: the audit's account of the
    referee's hand names the house rules its referee laid, and none where there were none."""
    report = audit_envelopes(read_export((GOLDEN / log).read_bytes().split(b"\n")))
    house = [
        line.split("house rules over ", 1)[1].split(": ", 1)[1] for line in report.by_hand if "house rules" in line
    ]
    assert house == ([HOUSE_RULED[log]] if log in HOUSE_RULED else []), json.dumps(report.by_hand, indent=1)
