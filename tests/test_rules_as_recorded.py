"""Campaigns hexlog 0.1.0 recorded under house rules this release refuses: old play checks, new play is refused.

0.1.0 accepted a distance unit ``m``, a multiplier of 0 or 20,000, reaction bands and armor kinds of a
house's own. The log keeps those rules and what was decided under them: the audit re-derives each
decision by the rules as recorded (``Ruleset.as_recorded``), while new play under them is refused with
an error that names the keys and the way on (``hexlog rules change``), and nothing is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hexlog.events.errors import Advice, RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import ruleset as rulesets
from hexlog.machine.encounter.rules import EncounterOptions, EncounterTables
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.rules import RulesError
from hexlog.replay.export import import_envelopes, read_export

LOGS = Path(__file__).resolve().parent / "golden" / "logs"
#: OSE under house rules 0.1.0 accepted (the dungeon in metres, the waterborne distance x0 in fathoms)
HOUSE = {
    "distance": {
        "dungeon": {"unit": "m", "multiplier": 3},
        "waterborne": {"unit": "fathoms", "multiplier": 0},
    },
    "reaction": [
        {"at_least": -99, "result": "attacks", "text": "Attacks"},
        {"at_least": 7, "result": "wary", "text": "Wary"},
    ],
}


def _house_rules() -> rulesets.Ruleset:
    """The built-in ose with ``HOUSE`` laid over its tables, as a campaign event would record it."""
    content = rulesets.load("ose").content
    tables = dict(content["tables"])
    tables["distance"] = {k: {**v, **HOUSE["distance"].get(k, {})} for k, v in tables["distance"].items()}
    tables["reaction"] = HOUSE["reaction"]
    return rulesets.from_recorded("ose", {**content, "tables": tables})


class TestRulesAsRecorded:
    def test_new_play_refuses_the_recorded_rules_naming_each_key_and_the_way_on(self):
        """A part this release refuses is refused as the rules in force, each bad key named."""
        with pytest.raises(RulesError) as refused:
            _house_rules().part(EncounterTables)
        message = str(refused.value)
        assert message.startswith("the rules in force (ose, as the campaign recorded them) have values")
        for key in ("tables.distance.dungeon.unit", "tables.distance.waterborne.unit", "tables.reaction[1].result"):
            assert key in message
        assert refused.value.advice == Advice("ChangeRules")  # each door names the command its own way

    def test_read_as_recorded_they_keep_what_the_release_that_recorded_them_accepted(self):
        """As recorded: an unknown word stays the string recorded, a number out of today's range stays."""
        tables = _house_rules().as_recorded().part(EncounterTables)
        rows = {str(setting): row for setting, row in tables.distance.items()}
        assert (rows["dungeon"].unit, rows["dungeon"].multiplier) == ("m", 3)
        assert (rows["waterborne"].unit, rows["waterborne"].multiplier) == ("fathoms", 0)
        assert rows["wilderness"].unit == "yd"
        assert rows["wilderness"].unit is type(rows["wilderness"].unit).YD  # a known word is the word
        assert [band.result for band in tables.reaction] == ["attacks", "wary"]

    def test_rules_this_release_accepts_read_the_same_either_way(self):
        """Read as recorded, valid rules give the very part new play reads."""
        rules = rulesets.from_recorded("ose", rulesets.load("ose").content)
        assert rules.as_recorded().part(EncounterTables) == rules.part(EncounterTables)
        assert rules.as_recorded() is rules.as_recorded()

    def test_a_built_in_with_bad_house_rules_is_still_refused_plainly_at_load(self):
        """Checking a referee's house rules now is not reading recorded ones: the plain refusal, no 'in force'."""
        with pytest.raises(RulesError) as refused:
            rulesets.load("ose", {"tables": {"distance": {"dungeon": {"unit": "m"}}}}, parts=[EncounterTables])
        assert str(refused.value).startswith("tables.distance.dungeon.unit: 'm' is not one of ft, yd")


class TestContinuingA010Campaign:
    @pytest.fixture
    def imported(self) -> tuple[Handler, MemoryStore]:
        """``house_rules_ose`` imported into a store (its rules in force: explore with house rules)."""
        store = MemoryStore()
        envelopes = read_export((LOGS / "house_rules_ose.jsonl").read_bytes().split(b"\n"))
        import_envelopes(store, envelopes)
        return Handler(store, MemoryKeeper()), store

    def test_starting_an_encounter_is_refused_naming_the_rule_and_nothing_is_written(self, imported):
        """The encounter's rules cannot be read by this release: a refusal naming the keys, the log unchanged."""
        handler, store = imported
        handler.execute("main", c.OpenSession())
        before = store.stream_version(stream_for("main"))
        with pytest.raises(RulesError, match=r"tables\.distance\.dungeon\.unit: 'm' is not one of ft, yd"):
            handler.execute("main", enc.StartEncounter(setting="dungeon"))
        assert store.stream_version(stream_for("main")) == before

    def test_rules_this_release_accepts_let_play_go_on(self, imported):
        """The way on the refusal names: a change of rules, then the encounter starts."""
        handler, _ = imported
        handler.execute("main", c.OpenSession())
        handler.execute("main", c.ChangeRules(ruleset="explore", reason="rules this hexlog accepts"))
        outcome = handler.execute("main", enc.StartEncounter(setting="dungeon"))
        assert outcome.table.procedures["encounter"].phase.name == "SURPRISE"


class TestAnEncounterCutShortUnderRefusedRules:
    """A 0.1.0 log that ends inside an encounter whose next step reads rules this release refuses."""

    @pytest.fixture
    def mid_encounter(self) -> tuple[Handler, MemoryStore]:
        """The first 11 events of ``house_rules_ose``: a dungeon encounter (in metres) before its distance."""
        lines = (LOGS / "house_rules_ose.jsonl").read_bytes().split(b"\n")[:11]
        store = MemoryStore()
        import_envelopes(store, read_export(lines))
        handler = Handler(store, MemoryKeeper())
        assert handler.load("main").procedures["encounter"].phase.name == "DISTANCE"
        return handler, store

    def test_the_step_is_refused_and_the_rules_may_change_under_way_so_play_goes_on(self, mid_encounter):
        """The next step is refused naming the rule; the rules may then change mid-encounter (only because
        the rules in force are refused) and the encounter plays on to its end."""
        handler, _ = mid_encounter
        handler.execute("main", c.AbandonSession(reason="the 0.1.0 key file was not kept"))
        handler.execute("main", c.OpenSession())
        with pytest.raises(RulesError, match=r"tables\.distance\.dungeon\.unit"):
            handler.execute("main", enc.DetermineDistance())
        handler.execute("main", c.ChangeRules(ruleset="ose", reason="rules this hexlog accepts"))
        outcome = handler.execute("main", enc.DetermineDistance())
        assert outcome.table.procedures["encounter"].phase.name != "DISTANCE"

    def test_rules_this_release_accepts_still_cannot_change_mid_encounter(self, mid_encounter):
        """Once the rules in force are usable, the usual invariant holds again."""
        handler, _ = mid_encounter
        handler.execute("main", c.AbandonSession(reason="the 0.1.0 key file was not kept"))
        handler.execute("main", c.OpenSession())
        handler.execute("main", c.ChangeRules(ruleset="ose", reason="rules this hexlog accepts"))
        with pytest.raises(RuleRefusedError, match="cannot change while a procedure is under way"):
            handler.execute("main", c.ChangeRules(ruleset="explore"))


def test_the_command_line_refuses_new_play_once_without_a_traceback(hexlog):
    """``encounter start`` on the imported campaign: exit 2, one line naming the rule and the way on."""
    assert hexlog("import", str(LOGS / "house_rules_adnd.jsonl")).returncode == 0
    assert hexlog("session", "open").returncode == 0
    before = hexlog("log").stdout
    refused = hexlog("encounter", "start", "--setting", "indoors")
    assert refused.returncode == 2
    assert "Traceback" not in refused.stderr
    assert refused.stderr.count("hexlog: error:") == 1
    assert "the rules in force (adnd, as the campaign recorded them)" in refused.stderr
    assert "tables.armor_kind.plate: 'elven' is not one of cloth, leather, metal, plated" in refused.stderr
    assert "'hexlog rules change'" in refused.stderr
    assert hexlog("log").stdout == before


@pytest.mark.parametrize(("section", "value", "kind"), [("tables", [], "an array"), ("options", "x", "a string")])
def test_a_recorded_section_that_is_no_table_is_refused_by_name(section: str, value: object, kind: str) -> None:
    """Rules a log records with a section that is not a table (a referee's hand-made ``campaign.started``) are refused
    naming the section, even read as recorded, so the audit reports them as a finding instead of failing inside."""
    content = rulesets.load("ose").content | {section: value}
    for rules in (rulesets.from_recorded("ose", content), rulesets.from_recorded("ose", content).as_recorded()):
        part = EncounterTables if section == "tables" else EncounterOptions
        with pytest.raises(RulesError, match=f"^{section}: the rules cannot be read: expected a table, got {kind}$"):
            rules.part(part)
