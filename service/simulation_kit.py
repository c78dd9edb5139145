"""What every question of ``hexlog simulate`` is made of: a trial's play on the real procedures (``Play``), the
declaration of a question (``Scenario``), and why a house rule no trial reads changes nothing (``unplayed``).

A trial plays the real procedures through the command handler on the in-memory store, on committed dice, in a
campaign with a party of two (``PARTY``): nothing here rolls a die or reads a rule. Each procedure's questions are
declared on this kit, in ``hexlog.service.simulation`` and the modules beside it (``simulation_camp``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from hexlog.events.base import Event
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine.evasion import EvasionOptions, EvasionTables
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.rules import keys_of
from hexlog.machine.pursuit import commands as pc
from hexlog.machine.registry import REGISTRY
from hexlog.machine.ruleset import Ruleset

#: a trial's outcome: measure -> a flag (a rate), a number (a distribution) or a name (a category);
#: None when the trial did not reach it (a distance never rolled)
Value = bool | int | float | str | None
Outcome = dict[str, Value]
CAMPAIGN = "sim"
PARTY = (c.AddMember(name="Ann", cha=13, strength=16), c.AddMember(name="Bo"))


def secret_for(seed: int, index: int) -> str:
    """The session secret (hex) of trial ``index`` of a simulation seeded ``seed``."""
    return hashlib.sha256(f"hexlog simulate|{seed}|{index}".encode()).hexdigest()


def handler_for(ruleset: str, campaign: str, overrides: Mapping[str, Any] | None = None) -> Handler:
    """A handler on the in-memory store with a campaign under ``ruleset``, a session open and a party of two."""
    handler = Handler(MemoryStore(), MemoryKeeper())
    handler.execute(campaign, c.StartCampaign(ruleset=ruleset, overrides=dict(overrides or {})))
    handler.execute(campaign, c.OpenSession())
    for member in PARTY:
        handler.execute(campaign, member)
    return handler


class Play:
    """Issues a trial's commands on one campaign and keeps every event they recorded."""

    def __init__(self, handler: Handler, campaign: str = CAMPAIGN) -> None:
        self.handler = handler
        self.campaign = campaign
        self.events: list[Event] = []

    def run(self, command: c.Command) -> tuple[Event, ...]:
        """Execute one command; its events."""
        events = self.handler.execute(self.campaign, command).events
        self.events.extend(events)
        return events

    def state(self, procedure: str) -> Any:
        """A procedure's folded state."""
        return self.handler.load(self.campaign).procedures.get(procedure)

    def allowed(self, procedure: str) -> set[str]:
        """The triggers of ``procedure`` allowed now."""
        table = self.handler.load(self.campaign)
        runner = REGISTRY.runner(procedure)
        return {trigger for trigger, _ in runner.allowed(table.procedures.get(procedure), table)}

    def first_allowed(self, procedure: str, triggers: Iterable[str]) -> str | None:
        """The first of ``triggers`` allowed now, judged one by one."""
        table = self.handler.load(self.campaign)
        runner, proc = REGISTRY.runner(procedure), table.procedures.get(procedure)
        return next((trigger for trigger in triggers if runner.allows(trigger, proc, table)), None)

    def finish(
        self,
        procedure: str,
        steps: Mapping[str, c.Command],
        last: c.Command,
        once: Mapping[str, c.Command] | None = None,
    ) -> None:
        """Play ``procedure`` to its end: at each turn the first of ``steps`` (by trigger, in order) allowed now,
        else each of ``once`` allowed now if not taken yet, else ``last`` (the step that concludes it)."""
        final, once = REGISTRY.procedure(procedure).final, once or {}
        taken: set[str] = set()
        while self.state(procedure).phase not in final:
            trigger = self.first_allowed(procedure, steps)
            step = None if trigger is None else steps[trigger]
            if step is None:
                trigger = self.first_allowed(procedure, [t for t in once if t not in taken])
                if trigger is not None:
                    taken.add(trigger)
                    step = self.spoken(once[trigger])
            self.run(step or last)

    def spoken(self, step: c.Command) -> c.Command:
        """A reaction with nobody speaking while the party is held in the first round (seed 000 §2.2: a surprised
        party cannot act in it, nor speak), any other step as it is."""
        if isinstance(step, enc.RollReaction) and not enc.party_may_speak(self.handler.load(self.campaign)):
            return attrs.evolve(step, speaker="")
        return step

    def finish_encounter(self) -> None:
        """Play the encounter under way to its end: surprise, distance, a free action, initiative, one reaction,
        then conclude."""
        self.finish("encounter", ENCOUNTER_STEPS, enc.ConcludeEncounter(outcome="resolved"), ONCE)


#: the encounter's steps a trial takes, in order of preference
ENCOUNTER_STEPS: dict[str, c.Command] = {
    "check_surprise": enc.CheckSurprise(),
    "determine_distance": enc.DetermineDistance(),
    "take_free_action": enc.TakeFreeAction(action="attack"),
    "roll_initiative": enc.RollInitiative(),
}
#: the steps taken once each when nothing above is allowed
ONCE: dict[str, c.Command] = {"react": enc.RollReaction(speaker="Ann")}
#: a trial whose party has fled this often is refused (house rules under which nothing ends the pursuit)
MAX_FLIGHTS = 1000
#: the pursuit's steps a trial takes, in order of preference: the party rolls its evasion again rather than stop
PURSUIT_STEPS: dict[str, c.Command] = {
    "roll_evasion": pc.RollEvasion(),
    "flee": pc.Flee(),
    "catch": pc.Catch(),
    "continue_check": pc.ContinueCheck(),
    "rest": pc.Rest(),
}


@attrs.frozen(kw_only=True)
class Scenario:
    """One question a designer asks of a procedure, declared for ``hexlog simulate``."""

    #: the subcommand (``hexlog simulate NAME``)
    name: str
    #: one line of help
    title: str
    #: the ruleset asked by default
    ruleset: str
    #: the attrs class whose fields are the situation's parameters (declared with ``machine.commands.arg``)
    situation: type
    #: play one trial of the situation (the session of its dice is open)
    trial: Callable[[Play, Any], None]
    #: what one trial's events come to, under the rules in force (which name what they measure)
    measure: Callable[[Sequence[Event], Any, Ruleset], Outcome]
    #: what is set up once on a worker's campaign before its first trial (a map)
    prepare: Callable[[Play, Any], None] | None = None
    #: what brings the campaign back, between two trials, to where the first trial began (a party's rest), so that a
    #: trial's outcome is its seed's and index's alone, whatever trials ran before it on the campaign
    reset: Callable[[Play, Any], None] | None = None
    #: the situation's fields no trial's outcome depends on (an encounter's monster speed: a trial never evades);
    #: they are not offered as options, and keep their defaults
    unread: tuple[str, ...] = ()
    #: the options of a situation the rules in force never read (each with why), where it sets them from their defaults:
    #: refused before any trial, as the procedure refuses a fact it does not read
    unheeded: Callable[[Any, Ruleset], dict[str, str]] | None = None
    #: what the situation itself decides under the rules in force, in sentences printed beside the measures: an
    #: outcome no dice decide is told, never shown as a rate of 0 % or 100 %
    notes: Callable[[Any, Ruleset], tuple[str, ...]] | None = None
    #: the procedures a trial plays (the campaign's clock always): a house rule none of them reads changes nothing
    procedures: tuple[str, ...] = ("campaign", "encounter")
    #: the parts of those procedures' rules no trial reaches (each read only by steps its trials never take), and why:
    #: a house rule read only in them changes nothing either
    unreached: tuple[type, ...] = ()
    unreached_why: str = ""
    #: the options and tables (section, key) its procedures read only where the rules in force never take them (a
    #: pursuit's chances of an encounter while resting, under rules that owe no rest), each with where they are read:
    #: whether a trial reads a house rule depends on the reading of the rules, not only on the procedures it plays
    unread_under: Callable[[Ruleset], dict[tuple[str, str], str]] | None = None
    #: the procedures a trial of the situation plays under the rules in force, where some situations play fewer than
    #: ``procedures`` (a castle yielded to plays no pursuit): a house rule only the others read changes nothing there
    plays: Callable[[Any, Ruleset], tuple[str, ...]] | None = None


#: the rules of a flight from a meeting and of the pursuit after it (the encounter's evade and roll-evasion): the
#: encounters of a trial that plays no pursuit never take those steps (``ENCOUNTER_STEPS``: each ends resolved)
EVASION_PARTS: tuple[type, ...] = (EvasionOptions, EvasionTables)
NEVER_EVADES = (
    "a party flees a meeting (evade, roll-evasion), which no trial of simulate {name} does: every encounter it plays "
    "ends resolved"
)


def unplayed(scenario: Scenario, section: str, key: str, rules: Ruleset | None = None, situation: Any = None) -> str:
    """Why no trial of ``scenario`` reads the option or table ``section.key``, in words ("" when one does, and for a
    key no procedure reads, which the rules refuse by name): none of the procedures it plays reads it, or they read it
    only in parts of their rules its trials never reach (the procedures' own declaration of what they read), or, with
    ``rules``, only where those rules never take them (``Scenario.unread_under``: per reading, not per procedure), or,
    with ``situation`` too, none of the procedures a trial of that situation plays reads it (``Scenario.plays``)."""
    readers = REGISTRY.readers(section, key)
    if readers and rules is not None and situation is not None and scenario.plays is not None:
        plays = scenario.plays(situation, rules)
        if not any(name in plays for name in readers):
            return (
                f"{section}.{key} is read by {', '.join(readers)}, which no trial of simulate {scenario.name} plays "
                f"in this situation (it plays {', '.join(plays)})"
            )
    played = [name for name in readers if name in scenario.procedures]
    where = {} if rules is None or scenario.unread_under is None or not played else scenario.unread_under(rules)
    if (section, key) in where:
        return f"{section}.{key} is read by {', '.join(played)} only for {where[section, key]}"
    return _unplayed(scenario, section, key, readers)


def _unplayed(scenario: Scenario, section: str, key: str, readers: list[str]) -> str:
    """Why no trial reads ``section.key`` whatever the rules: ``unplayed`` without the rules' reading."""
    played = [name for name in readers if name in scenario.procedures]
    if not readers:
        return ""
    if not played:
        return (
            f"{section}.{key} is read by {', '.join(readers)}, which simulate {scenario.name} does not play "
            f"({', '.join(scenario.procedures)})"
        )
    parts = [
        part
        for name in played
        for part in REGISTRY.procedure(name).rules
        if getattr(part, "section", None) == section and key in keys_of(part)
    ]
    if all(part in scenario.unreached for part in parts):
        where = scenario.unreached_why.format(name=scenario.name)
        return f"{section}.{key} is read by {', '.join(played)} only where {where}"
    return ""
