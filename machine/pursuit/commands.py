"""The pursuit's commands (imperative names), the trigger each fires, and what each argument means."""

from __future__ import annotations

import attrs

from hexlog.events.errors import Advice
from hexlog.machine.commands import SPEED, Bounds, Command, arg, intelligent_arg

#: how many flee, and how many pursue
SIZE = Bounds(1, 10_000)
#: the small chance, in percent, the referee allows a surprised party (OSE)
REFEREE_PCT = Bounds(0, 100)


@attrs.frozen(kw_only=True)
class StartPursuit(Command):
    """Start a pursuit of the fleeing party with the facts it is decided by (an encounter hands them over)."""

    name: str = arg("", help="a name for the pursuit")
    party_size: int | None = arg(
        None, help="how many flee (default: the encounter's party, else its members)", least=1, within=SIZE
    )
    pursuers: int | None = arg(
        None, help="how many pursue (default: the encounter's monsters, else 1)", least=1, within=SIZE
    )
    party_speed: int | None = arg(
        None,
        help="the party's base rate, feet per turn (default: the encounter's, else the slowest member)",
        least=1,
        within=SPEED,
    )
    pursuers_speed: int | None = arg(
        None,
        help="the pursuers' base rate, feet per turn (default: the encounter's monsters', else 120)",
        least=1,
        within=SPEED,
    )
    terrain: str = arg(
        "", help="the terrain row (woods, swamp, clear, ...; default: the hex the party believes it is in)"
    )
    party_surprised: bool = arg(
        False,  # noqa: FBT003 - a default
        help="the pursuers surprised the party (with --pursuers-surprised: both sides were surprised, no advantage)",
    )
    pursuers_surprised: bool = arg(
        False,  # noqa: FBT003 - a default
        help="the party surprised the pursuers (with --party-surprised: both sides were surprised, no advantage)",
    )
    magic: bool = arg(False, help="the party uses magic to get away (seed 004)")  # noqa: FBT003 - a default
    referee_pct: int = arg(
        0,
        help="OSE: the small chance the referee allows a surprised party, % (the text's example: 10, dense woods)",
        least=0,
        within=REFEREE_PCT,
    )
    castle: str = arg("", help="a castle's force pursues: hostile or neutral (seed 004)")
    intelligent: bool = intelligent_arg("pursuers")
    evasion_failed: bool = arg(False, help="the party's evasion roll was already made and failed")  # noqa: FBT003 - a default
    encounter: int = arg(
        0,
        help="the encounter it comes from (0: none): the latest, ended with the party pursued in the wilderness; "
        "what is not given is its (the sides, their rates, surprise, magic, a failed evasion roll)",
        least=0,
    )


@attrs.frozen(kw_only=True)
class RollEvasion(Command):
    """The party rolls its evasion chance: passing ends the pursuit."""


@attrs.frozen(kw_only=True)
class Flee(Command):
    """The party flees into a random hex (1d6: N, NE, SE, S, SW, NW); under OSE a day of flight."""

    told: bool = arg(
        False,  # noqa: FBT003 - a default
        help="during a journey, the players are told which way the party ran: the d6 is public and the hex it "
        "believes it is in moves that way (by default the heading is the referee's)",
    )


@attrs.frozen(kw_only=True)
class FleeInPublic(Command):
    """Issued by the audit, never by a user: a flight recorded before ``pursuit.fled`` version 2, whose
    heading those releases rolled in public even during a journey, is re-run as they ran it."""


@attrs.frozen(kw_only=True)
class FleeHeldUnrecorded(Command):
    """Issued by the audit, never by a user: a flight during a journey recorded before ``pursuit.heading_rolled``
    version 2 (one the players were told of, before ``pursuit.fled`` version 4), whose releases recorded no true hex
    where the grid ends, is re-run as they ran it."""

    told: bool = False


@attrs.frozen(kw_only=True)
class Catch(Command):
    """Faster pursuers try to catch the party (3-in-6, 1-in-4 in woods or swamp; OSE 50 %)."""


@attrs.frozen(kw_only=True)
class ContinueCheck(Command):
    """A castle force that missed the party keeps up the pursuit by its disposition, or gives up."""


@attrs.frozen(kw_only=True)
class Stop(Command):
    """OSE: the party stops fleeing and is caught."""

    note: str = arg("", help="what happens, in words")


@attrs.frozen(kw_only=True)
class Rest(Command):
    """The party escaped: it rests half a day per hex fled, with a wilderness encounter roll per half day."""


@attrs.frozen(kw_only=True)
class RollEvasionTrueHex(Command):
    """Issued by the audit, never by a user: an evasion roll recorded before ``pursuit.evasion_rolled`` version 2,
    whose releases read the terrain of the party's true hex during a journey, is re-run as they ran it."""


@attrs.frozen(kw_only=True)
class RollEvasionForNobody(Command):
    """Issued by the audit, never by a user: an evasion roll recorded at ``pursuit.evasion_rolled`` version 2, whose
    releases rolled the d100 for nobody (exhaustion did not reach it), is re-run as they ran it."""


@attrs.frozen(kw_only=True)
class CatchTrueHex(Command):
    """Issued by the audit, never by a user: a catch roll recorded before ``pursuit.catch_rolled`` version 2, whose
    releases read the terrain of the party's true hex during a journey, is re-run as they ran it."""


@attrs.frozen(kw_only=True)
class RestTrueHex(Command):
    """Issued by the audit, never by a user: a rest recorded before ``pursuit.rested`` version 2, whose releases read
    the encounter chances of the party's true hex during a journey, is re-run as they ran it."""


@attrs.frozen(kw_only=True)
class RestByName(Command):
    """Issued by the audit, never by a user: a rest recorded before ``pursuit.rested`` version 3, whose releases read
    off the map the row the OD&D terrain names in the source's table (none under dolmenwood), is re-run as they ran
    it."""


@attrs.frozen(kw_only=True)
class RestByRow(Command):
    """Issued by the audit, never by a user: a rest recorded at ``pursuit.rested`` version 3, whose release read off
    the map its OD&D row's reading under the source in force whatever ground the pursuit was given, and recorded no
    row, is re-run as it ran it."""


#: the commands only hexlog gives, each with the refusal's words to a referee who gives one
def _audit(step: type[Command]) -> tuple[str | Advice, ...]:
    return "is made by hexlog's audit alone; use ", Advice(step.__name__, (), "pursuit")


INTERNAL: dict[type[Command], tuple[str | Advice, ...]] = {
    FleeInPublic: _audit(Flee),
    FleeHeldUnrecorded: _audit(Flee),
    RollEvasionTrueHex: _audit(RollEvasion),
    RollEvasionForNobody: _audit(RollEvasion),
    CatchTrueHex: _audit(Catch),
    RestTrueHex: _audit(Rest),
    RestByName: _audit(Rest),
    RestByRow: _audit(Rest),
}

#: each command's trigger, in the order a referee meets them
TRIGGERS: dict[type[Command], str] = {
    StartPursuit: "start",
    RollEvasion: "roll_evasion",
    Flee: "flee",
    Catch: "catch",
    ContinueCheck: "continue_check",
    Stop: "stop",
    Rest: "rest",
}
