"""One game clock: durations and moments on one calendar, ``hexlog clock advance``, and the state as it was."""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest

from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import to_data
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.errors import RuleRefusedError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.campaign import CAMPAIGN
from hexlog.machine.encounter import ENCOUNTER, StartEncounter
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit import calendar
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.kit.procedure import DueCheck, Procedure
from hexlog.machine.kit.registry import Registry
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.timekeeping import CLOCK, AdvanceClock
from hexlog.replay.rebuild import table_at, version_at_time

OSE = ClockOptions(round_seconds=10, turn_seconds=600)
EXPLORE = ClockOptions(round_seconds=60, turn_seconds=600, watch_seconds=7200)


class TestDurations:
    @pytest.mark.parametrize(
        ("text", "count", "unit"),
        [
            ("3 turns", 3, calendar.Unit.TURN),
            ("1 turn", 1, calendar.Unit.TURN),
            ("2h", 2, calendar.Unit.HOUR),
            ("1 day", 1, calendar.Unit.DAY),
            ("10 rounds", 10, calendar.Unit.ROUND),
            ("4 watches", 4, calendar.Unit.WATCH),
            ("90 min", 90, calendar.Unit.MINUTE),
            (" 7D ", 7, calendar.Unit.DAY),
        ],
    )
    def test_the_forms_a_referee_writes(self, text, count, unit):
        assert calendar.duration(text) == calendar.Duration(count=count, unit=unit)

    @pytest.mark.parametrize(
        ("unit", "options", "seconds"),
        [
            (calendar.Unit.ROUND, OSE, 10),
            (calendar.Unit.ROUND, EXPLORE, 60),
            (calendar.Unit.TURN, OSE, 600),
            (calendar.Unit.WATCH, EXPLORE, 7200),
            (calendar.Unit.WATCH, attrs.evolve(EXPLORE, watch_seconds=14400), 14400),
            (calendar.Unit.HOUR, OSE, 3600),
            (calendar.Unit.DAY, OSE, 86400),
        ],
    )
    def test_each_unit_lasts_what_the_rules_say(self, unit, options, seconds):
        assert unit.seconds(options) == seconds

    @pytest.mark.parametrize(
        ("text", "named"),
        [
            ("3", "not a whole number and a unit"),
            ("turns", "not a whole number and a unit"),
            ("3 fortnights", "not a whole number and a unit"),
            ("-1 turn", "not a whole number and a unit"),
            ("1.5 h", "not a whole number and a unit"),
            ("0 turns", "the count must be 1 to 10000"),
            ("10001 rounds", "the count must be 1 to 10000"),
        ],
    )
    def test_anything_else_is_refused_naming_the_form(self, text, named):
        with pytest.raises(UsageError, match=named):
            calendar.duration(text)

    def test_more_than_a_year_at_once_is_refused(self):
        calendar.check_length(calendar.duration("366 days"), OSE)
        with pytest.raises(UsageError, match="longer than one command may let pass"):
            calendar.check_length(calendar.duration("367 days"), OSE)

    def test_a_duration_reads_in_words(self):
        assert calendar.duration("1 watch").text == "1 watch"
        assert calendar.duration("3 w").text == "3 watches"
        assert calendar.duration("2h").text == "2 hours"


class TestMoments:
    @pytest.mark.parametrize(
        ("text", "seconds"),
        [
            ("day 1 turn 3", 1800),
            ("day 4 turn 3", 3 * 86400 + 1800),
            ("day 4", 4 * 86400),
            ("day 2 14:30", 86400 + 14 * 3600 + 30 * 60),
            ("day 2, watch 2", 86400 + 14400),
            ("Day 1 round 6", 360),
            ("day 1 hour 24", 86400),
        ],
    )
    def test_a_moment_is_the_end_of_what_it_names(self, text, seconds):
        assert calendar.moment(text, EXPLORE) == seconds

    @pytest.mark.parametrize(
        ("text", "named"),
        [
            ("turn 3", "is not 'day N'"),
            ("day x", "is not 'day N'"),
            ("day 0", "days count from day 1"),
            ("day 1 25:00", "is not a time of day"),
            ("day 1 12:75", "is not a time of day"),
            ("day 1 turn 145", "past the end of day 1"),
        ],
    )
    def test_anything_else_is_refused(self, text, named):
        with pytest.raises(UsageError, match=named):
            calendar.moment(text, EXPLORE)


@attrs.frozen(kw_only=True)
class Light(c.Command):
    pass


def burn(ctx: Any, start: int, end: int) -> None:
    """A die at each second turn boundary passed, as a light burning down would check."""
    for boundary in range(start // 1200 + 1, end // 1200 + 1):
        ctx.roll("1d6", f"lamp.check.{boundary}", visibility=Visibility.REFEREE)


def light(ctx: Any, command: Light) -> None:
    """Nothing to record: the lamp only checks as time passes."""


LAMP = Procedure(
    name="lamp",
    title="A test procedure.",
    steps={Light: light},
    purposes=("lamp",),
    due_checks=(DueCheck(name="burn", run=burn),),
)
REGISTRY = Registry((CAMPAIGN, CLOCK, LAMP, ENCOUNTER))


def handler() -> Handler:
    h = Handler(MemoryStore(), MemoryKeeper(), registry=REGISTRY, roller=lambda _t: ScriptedRoller([3] * 500))
    for command in (c.StartCampaign(ruleset="ose"), c.OpenSession(secret_hex="7" * 64), c.AddMember(name="Ann")):
        h.execute("k", command)
    return h


def data(events: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(e.type_name, to_data(e)) for e in events]


class TestAdvance:
    def test_each_unit_is_a_clock_event_followed_by_the_checks_it_brings_due(self):
        events = handler().execute("k", AdvanceClock(duration="5 turns")).events
        kinds = [e.purpose if isinstance(e, DiceRolled) else e.type_name for e in events]
        tick = ClockAdvanced.type_name
        assert kinds == [tick, tick, "lamp.check.1", tick, tick, "lamp.check.2", tick]
        assert all(e.seconds == 600 and e.turns == 1 for e in events if isinstance(e, ClockAdvanced))

    @pytest.mark.parametrize(("n", "unit"), [(1, "turns"), (4, "turns"), (7, "turns"), (3, "hours"), (2, "days")])
    def test_n_units_at_once_record_what_one_unit_n_times_records(self, n, unit):
        at_once, one_by_one = handler(), handler()
        together = at_once.execute("k", AdvanceClock(duration=f"{n} {unit}", reason="r")).events
        apart = [
            e for _ in range(n) for e in one_by_one.execute("k", AdvanceClock(duration=f"1 {unit}", reason="r")).events
        ]
        assert data(together) == data(apart)
        assert at_once.load("k").clock == one_by_one.load("k").clock

    def test_the_reason_given_is_recorded_and_a_default_one_says_how_long(self):
        h = handler()
        given = h.execute("k", AdvanceClock(duration="1 turn", reason="the party rests")).events[0]
        default = h.execute("k", AdvanceClock(duration="2 hours")).events[0]
        assert given.reason == "the party rests"
        assert default.reason == "the referee lets 2 hours pass"

    @pytest.mark.parametrize("duration", ["soon", "0 turns", "400 days"])
    def test_a_bad_duration_writes_nothing(self, duration):
        h = handler()
        before = h.load("k").version
        with pytest.raises(UsageError):
            h.execute("k", AdvanceClock(duration=duration))
        assert h.load("k").version == before

    def test_time_cannot_pass_by_the_clock_during_an_encounter(self):
        h = handler()
        h.execute("k", StartEncounter(party_aware=True, monsters_aware=True))
        before = h.load("k").version
        with pytest.raises(RuleRefusedError, match="an encounter is under way"):
            h.execute("k", AdvanceClock(duration="1 turn"))
        assert h.load("k").version == before


class TestTheStateAsItWas:
    def test_a_moment_names_the_last_event_before_the_clock_passed_it(self):
        h = handler()
        h.execute("k", AdvanceClock(duration="3 turns"))  # v4 tick 600, v5 tick 1200, v6 its check, v7 tick 1800
        store = h.store
        versions = {s: version_at_time(store, "k", s, REGISTRY) for s in (0, 599, 600, 1200, 1799, 1800, 99999)}
        assert versions == {0: 3, 599: 3, 600: 4, 1200: 6, 1799: 6, 1800: 7, 99999: 7}
        assert table_at(store, "k", versions[1200], REGISTRY).clock.seconds == 1200


def _shown(result: Any) -> list[str]:
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


class TestCommandLine:
    @pytest.fixture
    def played(self, hexlog):
        _shown(hexlog("init", "--ruleset", "explore"))
        _shown(hexlog("session", "open", "--secret-file", "-", input_text="5" * 64))
        _shown(hexlog("party", "add", "Aldric"))
        return hexlog

    def test_advance_prints_each_event_and_the_time_reached(self, played):
        lines = _shown(played("clock", "advance", "3 turns", "--reason", "searching the hall"))
        assert lines[:3] == ["clock advances 1 turn / 10 rounds (600 s): searching the hall"] * 3
        assert lines[-1] == "clock: day 1 00:30 (1800 s = 3 turns)"
        assert _shown(played("clock", "show")) == [lines[-1]]

    def test_the_time_passed_a_round_at_a_time_reads_as_the_turns_and_rounds_it_makes(self, played):
        """44 rounds of a minute (a long chase) are 4 turns and 4 rounds, whichever way they passed; the state's
        document keeps counting the advances by the round and by the turn."""
        lines = _shown(played("clock", "advance", "44 rounds"))
        assert lines[-1] == "clock: day 1 00:44 (2640 s = 4 turns 4 rounds)"
        assert "clock: day 1 00:44 (2640 s = 4 turns 4 rounds)" in _shown(played("state"))
        clock = json.loads(played("state", "--json").stdout)["clock"]
        assert (clock["seconds"], clock["turns"], clock["rounds"]) == (2640, 0, 44)

    def test_no_time_passed_reads_as_none(self, played):
        assert _shown(played("clock", "show")) == ["clock: day 1 00:00 (0 s)"]

    @pytest.mark.parametrize(
        ("duration", "named"),
        [("soon", "is not a whole number and a unit"), ("0 t", "must be 1 to"), ("500 days", "366 days")],
    )
    def test_a_bad_duration_is_one_error_line_and_writes_nothing(self, played, duration, named):
        before = _shown(played("state"))
        refused = played("clock", "advance", duration)
        assert refused.returncode == 2
        assert refused.stderr.startswith("hexlog: error:")
        assert named in refused.stderr
        assert "Traceback" not in refused.stderr
        assert _shown(played("state")) == before

    def test_state_at_a_version_equals_the_state_of_the_log_cut_there(self, played, tmp_path):
        _shown(played("clock", "advance", "2 turns"))
        _shown(played("roll", "1d6", "--purpose", "torch"))
        _shown(played("clock", "advance", "1 watch"))
        export = tmp_path / "all.jsonl"
        _shown(played("export", "--out", str(export)))
        lines = export.read_text(encoding="utf-8").splitlines()
        for version in range(1, len(lines) + 1):
            cut = tmp_path / f"cut{version}"
            cut.mkdir()
            (cut / "log.jsonl").write_text("\n".join(lines[:version]) + "\n", encoding="utf-8")
            db = str(cut / "hexlog.db")
            _shown(played("import", str(cut / "log.jsonl"), "--db", db))
            then = _shown(played("state", "--at", str(version)))
            assert then[0] == f"as it was at version {version} of {len(lines)}"
            assert then[1:] == _shown(played("state", "--db", db)), version

    def test_state_at_a_moment_of_game_time(self, played):
        _shown(played("clock", "advance", "3 turns"))
        then = _shown(played("state", "--at", "day 1 turn 2"))
        assert "clock: day 1 00:20 (1200 s = 2 turns)" in then
        now = _shown(played("state"))
        assert "clock: day 1 00:30 (1800 s = 3 turns)" in now

    @pytest.mark.parametrize(
        ("at", "named"),
        [("0", "outside campaign"), ("999", "outside campaign"), ("day 0", "from day 1"), ("noon", "is not 'day N'")],
    )
    def test_a_bad_at_is_refused(self, played, at, named):
        refused = played("state", "--at", at)
        assert refused.returncode != 0
        assert named in refused.stderr
        assert refused.stdout == ""

    @pytest.mark.parametrize("at", ["day 999", "day 3", "day 2 00:31", "day 2 turn 4", "day 3 00:00"])
    def test_a_moment_the_clock_has_not_reached_is_refused_naming_where_it_stands(self, played, at):
        """It printed the latest state as the state at day 999, as if the clock had got there."""
        _shown(played("clock", "advance", "1 day"))
        _shown(played("clock", "advance", "3 turns"))
        refused = played("state", "--at", at)
        assert refused.returncode == 2
        assert refused.stdout == ""
        assert refused.stderr == (
            f"hexlog: error: moment {at!r} is past the present of campaign 'main', "
            "whose clock has reached day 2 00:30 (version 7)\n"
        )

    @pytest.mark.parametrize("at", ["day 2", "day 2 00:30", "day 2 turn 3", " day 2 "])
    def test_the_present_and_the_day_the_clock_stands_in_are_the_state_now(self, played, at):
        _shown(played("clock", "advance", "1 day"))
        _shown(played("clock", "advance", "3 turns"))
        now = _shown(played("state"))
        then = _shown(played("state", "--at", at))
        assert then == ["as it was at version 7 of 7", *now]

    def test_the_day_the_clock_has_just_begun_is_the_state_now(self, played):
        _shown(played("clock", "advance", "1 day"))
        assert "clock: day 2 00:00" in "\n".join(_shown(played("state", "--at", "day 2")))
        assert played("state", "--at", "day 2 turn 1").returncode == 2
