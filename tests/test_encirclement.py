"""OSE §2.2: a party surprised in the wilderness by 3 or more monsters "may" be encircled.

Under ``encirclement = "referee"`` (ose) the surprise step encircles nobody; the referee says so with the step
``encircle``, offered only where the rules allow it, and the audit names it as the referee's call. Under
``"always"`` (the code's default, which rules recorded before the option keep) the surprise step encircles.
"""

from __future__ import annotations

import tomllib

import attrs
import pytest

from hexlog.events import encounter as ev
from hexlog.events.chain import Envelope, reseal
from hexlog.events.errors import RuleRefusedError
from hexlog.machine import encounter as enc
from hexlog.machine import ruleset as rulesets
from hexlog.machine.encounter.rules import Encirclement, EncounterOptions
from hexlog.machine.registry import REGISTRY
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import export_lines, read_export
from hexlog.service import render
from tests.test_encounter_rules import CAMPAIGN, Table, only

ALWAYS = {"options": {"encirclement": "always"}}
RELEASED = rulesets.RELEASED_DIR
RUNNER = REGISTRY.runner("encounter")


def surprised_in_the_open(t: Table, monsters: int = 3, setting: str = "wilderness") -> list[ev.Event]:
    """The monsters know of the party; its d6 of 2 surprises it."""
    t.run(enc.StartEncounter(setting=setting, monster_count=monsters, monsters_aware=True))
    return t.run(enc.CheckSurprise(), 2)


def allowed(t: Table) -> set[str]:
    """The steps the encounter offers now (either side)."""
    table = t.handler.load(CAMPAIGN)
    return {trigger for trigger, _ in RUNNER.allowed(table.procedures["encounter"], table)}


def test_under_ose_the_surprise_leaves_the_encirclement_to_the_referee() -> None:
    """ose: surprised by 3, nobody is encircled by the dice; encircle is offered, and once taken is recorded as the
    referee's call (and not offered again); the audit finds nothing wrong and names the call."""
    t = Table(ruleset="ose")
    events = surprised_in_the_open(t)
    assert only(events, ev.SurpriseChecked).party_surprised
    assert not [e for e in events if isinstance(e, ev.PartySurrounded)]
    assert "encircle" in allowed(t)
    surrounded = only(t.run(enc.Encircle(note="the wolves circle")), ev.PartySurrounded)
    assert (surrounded.monster_count, surrounded.at_least) == (3, 3)
    assert surrounded.reason.endswith("encircled at the referee's call: the wolves circle")
    said = "the party is surrounded at the referee's call: 3 monsters surprised it in the open: the wolves circle"
    assert render.describe(surrounded) == said
    assert t.state.surrounded == surrounded
    assert t.state.phase is enc.Phase.DISTANCE
    assert "encircle" not in allowed(t)
    with pytest.raises(RuleRefusedError, match="already encircled"):
        t.run(enc.Encircle())
    t.run(enc.DetermineDistance(), 3)
    t.run(enc.RollInitiative())
    t.run(enc.ConcludeEncounter())
    report = audit_store(t.handler.store, CAMPAIGN)
    assert not report.findings, report.findings
    assert any("encircled by 3 monsters at the referee's call" in line for line in report.by_hand)


def test_without_the_call_the_party_is_not_encircled() -> None:
    """The default at the table: the referee says nothing, the encounter goes on with the party not encircled."""
    t = Table(ruleset="ose")
    surprised_in_the_open(t)
    t.run(enc.DetermineDistance(), 3)
    assert t.state.surrounded is None
    with pytest.raises(RuleRefusedError, match=r"encircle.*not allowed|allowed"):
        t.run(enc.Encircle())


@pytest.mark.parametrize(
    ("monsters", "setting", "face", "words"),
    [
        (2, "wilderness", 2, "2 monsters cannot encircle a party \\(at least 3 can\\)"),
        (3, "wilderness", 3, "only a party surprised in the open"),
        (3, "dungeon", 2, "only a party surprised in the open"),
    ],
)
def test_encircle_is_refused_where_the_rules_allow_none(monsters: int, setting: str, face: int, words: str) -> None:
    """Too few monsters, a party not surprised, or not in the open: refused with the reason, nothing written."""
    t = Table(ruleset="ose")
    t.run(enc.StartEncounter(setting=setting, monster_count=monsters, monsters_aware=True))
    t.run(enc.CheckSurprise(), face)
    assert "encircle" not in allowed(t)
    version = t.version
    with pytest.raises(RuleRefusedError, match=words):
        t.run(enc.Encircle())
    assert t.version == version


@pytest.mark.parametrize(("ruleset", "overrides", "words"), [("ose", ALWAYS, "themselves"), ("adnd", None, "never")])
def test_encircle_is_refused_where_the_rules_decide_themselves(
    ruleset: str, overrides: dict | None, words: str
) -> None:
    """encirclement = "always" encircles at surprise (the step is refused), and AD&D encircles nobody."""
    t = Table(ruleset=ruleset, overrides=overrides)
    setting = "outdoors" if ruleset == "adnd" else "wilderness"
    t.run(enc.StartEncounter(setting=setting, monster_count=3, monsters_aware=True))
    events = t.run(enc.CheckSurprise(), 2)
    assert bool([e for e in events if isinstance(e, ev.PartySurrounded)]) is (ruleset == "ose")
    with pytest.raises(RuleRefusedError, match=words):
        t.run(enc.Encircle())


def test_rules_recorded_without_the_new_keys_keep_the_old_behaviour() -> None:
    """The last shapes of ose and adnd the builds before the keys shipped lack them: read as recorded, they encircle
    at surprise, count noise outdoors and cap nothing for a light without a radius, as those builds did (the golden
    logs, whose ose encounter is encircled at surprise, audit and replay on this)."""
    for name, kept in (("ose", "ose.9"), ("adnd", "adnd.4")):
        path = RELEASED / "0.1.0" / f"{kept}.toml"
        content = tomllib.loads(path.read_text("utf-8"))
        assert "encirclement" not in content["options"], path.name
        options = rulesets.from_recorded(name, content).part(EncounterOptions)
        found = (options.encirclement, options.noise_outdoors, options.default_light_radius_ft)
        assert found == (Encirclement.ALWAYS, True, 0), path.name


def _envelopes(t: Table) -> list[Envelope]:
    return read_export(list(export_lines(t.handler.store, CAMPAIGN)))


def _encircled_in(t: Table, at: str) -> list[Envelope]:
    """``t``'s log with the referee's encirclement of another table (its event and phase change) spliced in after the
    first event of type ``at`` (and the phase change that follows it), the chain sealed again."""
    other = Table(ruleset="ose")
    surprised_in_the_open(other)
    other.run(enc.Encircle())
    theirs = _envelopes(other)
    first = next(i for i, env in enumerate(theirs) if env.type == "hexlog.encounter.party_surrounded")
    block = theirs[first : first + 2]
    ours = _envelopes(t)
    i = next(i for i, env in enumerate(ours) if env.type == at) + 2
    base = ours[i - 1].streamversion + 1
    spliced = [attrs.evolve(env, streamversion=base + k) for k, env in enumerate(block)]
    later = [attrs.evolve(env, streamversion=env.streamversion + len(block)) for env in ours[i:]]
    return reseal([*ours[:i], *spliced, *later])


@pytest.mark.parametrize(
    ("face", "found"),
    [
        (2, []),
        (
            6,
            [
                (
                    "encounter.party_surrounded: the party encircled at the referee's call, but only a party "
                    "surprised in the open (wilderness, outdoors) may be encircled"
                )
            ],
        ),
    ],
)
def test_the_audit_holds_the_referee_s_encirclement_to_the_step_s_guard(face: int, found: list[str]) -> None:
    """A referee's encirclement is no dice's decision, so the audit re-runs none for it: a database's owner who
    splices one into an encounter whose party was not surprised (which ``encircle`` refuses) is found out, by the
    guard's own words; spliced where the step allows it, it verifies."""
    t = Table(ruleset="ose")
    t.run(enc.StartEncounter(setting="wilderness", monster_count=3, monsters_aware=True))
    t.run(enc.CheckSurprise(), face)
    forged = _encircled_in(t, "hexlog.encounter.surprise_checked")
    assert [f.reason for f in audit_envelopes(forged).findings] == found


def test_the_audit_finds_an_encirclement_the_surprise_step_did_not_record() -> None:
    """Under ``encirclement = "always"`` only the surprise step encircles: one spliced in after it is a finding."""
    t = Table(ruleset="ose", overrides=ALWAYS)
    t.run(enc.StartEncounter(setting="wilderness", monster_count=3, monsters_aware=True))
    t.run(enc.CheckSurprise(), 6)
    reasons = [f.reason for f in audit_envelopes(_encircled_in(t, "hexlog.encounter.surprise_checked")).findings]
    assert (
        "encounter.party_surrounded: the party encircled, but the rules in force record it only by the surprise step"
        in reasons
    )
