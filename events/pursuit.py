"""Wilderness pursuit events (seed 004 §4.14 hex by hex; OSE §2.9 day by day).

The party flees; the pursuers are monsters or a castle's force. Every decision that used dice names
the nonces of its rolls in ``rolls`` (and a secret roll in ``referee_rolls``). The hex a fleeing party
enters is written as ``travel.true_position`` (the referee's), not here. During a journey the party's
true hex is the referee's, and so is the heading that moves it: it is a secret roll, recorded in
``pursuit.heading_rolled`` (the referee's until the session ends), and the public ``pursuit.fled`` that
follows names no heading.
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar

import attrs

from hexlog.events.base import Event


class Pursuers(enum.StrEnum):
    """Who pursues the party."""

    MONSTERS = "monsters"
    CASTLE = "castle"


class Disposition(enum.StrEnum):
    """A castle force's disposition (its chance to keep up a pursuit)."""

    NONE = ""
    HOSTILE = "hostile"
    NEUTRAL = "neutral"


@attrs.frozen(kw_only=True)
class PursuitStarted(Event):
    """A pursuit of the party began, and the facts it is decided by.

    Since version 2 the terrain of a pursuit during a journey is that of the hex the party believes it is in: before,
    a lost party's was its true hex's, which told the players its terrain. Since version 3 a pursuit off the map keeps
    the terrain it was given where that is not its OD&D row's own name (``ground``: tangled forest, read as woods),
    whose own row the rest after an escape reads under ``lost_encounter_source = dolmenwood``."""

    type_name: ClassVar[str] = "pursuit.started"
    schema_version: ClassVar[int] = 3
    #: 1 for the campaign's first pursuit, 2 for the next, ...
    number: int
    name: str = ""
    #: the ruleset in force, and its evasion rules (``odd`` or ``ose``)
    ruleset: str
    rules: str
    pursuers_kind: Pursuers = Pursuers.MONSTERS
    #: a castle force's disposition ("" for monsters)
    disposition: Disposition = Disposition.NONE
    #: how many flee (the party) and how many pursue
    party_size: int
    pursuers: int
    #: base rates, feet per turn
    party_speed: int
    pursuers_speed: int
    #: the pursuers are intelligent (the encounter that follows a catch says so)
    intelligent: bool = True
    #: the terrain row where the pursuit starts (``woods``, ``swamp``, ``clear``, ...): during a journey, the row of
    #: the hex the party believes it is in (version 2)
    terrain: str = ""
    #: off the map, the terrain the pursuit was given where its OD&D row (``terrain``) names it otherwise (``tangled
    #: forest``, read as ``woods``): the rest after an escape reads its own row where the source of chances rates
    #: ground so (Dolmenwood's difficulties); "" during a journey, or where the row is the terrain itself (version 3)
    ground: str = ""
    party_surprised: bool = False
    #: the party alone surprised the pursuers
    pursuers_surprised: bool = False
    #: seed 004: the party uses magic to get away
    magic: bool = False
    #: OSE: the small chance the referee allows a surprised party (0: none)
    referee_pct: int = 0
    #: the evasion roll was made (and failed) by the encounter it comes from
    evasion_failed: bool = False
    #: the encounter it comes from (0: started by the referee)
    encounter: int = 0

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 read the terrain of the party's true hex during a journey (the same hex unless
        the party was lost): its data reads as version 2 unchanged."""
        return dict(data)

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 kept off the map only the OD&D row of the terrain it was given: no ``ground``."""
        return {**data, "ground": ""}


@attrs.frozen(kw_only=True)
class PursuitEvasionRolled(Event):
    """The party's evasion roll: d100 at most the chance evades; ``total`` 0 when a rule decided without dice.

    Since version 2 the woods of a pursuit during a journey are those of the hex the party believes it is in: before,
    a lost party's were its true hex's, which told the players its terrain (the audit re-runs a version 1 roll as its
    release made it). Since version 3 the d100 is made for the party, where a low total is good: its exhaustion
    raises the total, counted against it; before, it was made for nobody and an exhausted party evaded as a fresh
    one (the audit re-runs such a roll as its release made it)."""

    type_name: ClassVar[str] = "pursuit.evasion_rolled"
    schema_version: ClassVar[int] = 3
    chance: int
    base: int
    #: how the chance was made, in order
    steps: tuple[str, ...] = ()
    total: int = 0
    evaded: bool
    #: the terrain row it was rolled in: during a journey, the row of the hex the party believes it is in (version 2)
    terrain: str = ""
    rolls: tuple[int, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 read the terrain of the party's true hex during a journey (the same hex unless
        the party was lost): its data reads as version 2 unchanged."""
        return dict(data)

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 rolled the d100 for nobody, so exhaustion did not reach it: its data reads as version 3
        unchanged (the audit re-runs it as its release rolled it)."""
        return dict(data)


@attrs.frozen(kw_only=True)
class HeadingRolled(Event):
    """The referee's secret heading of a flight during a journey (1d6), and the hex it leads the party to.

    Since version 2 ``travel.true_position`` follows the flight where the grid ends too (the party's own hex), so
    that the events a player sees held back are the same wherever the party truly runs."""

    type_name: ClassVar[str] = "pursuit.heading_rolled"
    schema_version: ClassVar[int] = 2
    #: hidden from players like a secret roll, until the session ends: it leads to the party's true hex
    referee_only: ClassVar[str] = "session"
    #: N, NE, SE, S, SW or NW, and its face of the d6
    heading: str
    face: int
    #: the party's true hex after the flight (its own when the grid ends that way)
    hex: str
    #: the grid ends that way: the party runs along its edge and keeps to its hex
    held: bool = False
    #: public rolls (none: the heading is the referee's) and the secret one
    rolls: tuple[int, ...] = ()
    referee_rolls: tuple[int, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 recorded no true hex after a flight where the grid ends: its data reads as version 2 unchanged."""
        return dict(data)


@attrs.frozen(kw_only=True)
class PursuitFled(Event):
    """The party fled into the next hex (seed 004: heading by 1d6) or through another day (OSE).

    During a journey the heading is the referee's, unless the players are told which way the party ran (version 3):
    the hex it believes it is in then moves that way (``believed``). Since version 4 ``travel.true_position``
    follows such a told flight where the grid ends too (the party's own hex)."""

    type_name: ClassVar[str] = "pursuit.fled"
    schema_version: ClassVar[int] = 4
    #: N, NE, SE, S, SW or NW; "" during a journey, when the heading is the referee's (``pursuit.heading_rolled``)
    heading: str = ""
    #: the heading's d6 (0 when it is the referee's)
    face: int = 0
    #: hexes (or days) fled so far, this one included
    hexes_fled: int
    #: the pursuers are faster: they may catch the party
    pursuers_faster: bool
    #: the grid ends that way: the party runs along its edge and keeps to its hex (false when the heading is
    #: the referee's: ``pursuit.heading_rolled`` says so; when the players were told it during a journey, the map
    #: ends that way from the hex the party believes it is in, which it keeps to)
    held: bool = False
    rolls: tuple[int, ...] = ()
    #: during a journey, told which way it ran: the hex the party believes it fled into (version 3; "" otherwise)
    believed: str = ""

    @property
    def secret(self) -> bool:
        """The heading is the referee's: this event names none (the ``pursuit.heading_rolled`` before it does)."""
        return not self.heading and not self.rolls

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 named every heading, in public, journey or not: its data reads as version 2 unchanged."""
        return dict(data)

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 never told the players the heading during a journey: no believed hex moved."""
        return {**data, "believed": ""}

    @staticmethod
    def upcast_v3_v4(data: dict[str, Any]) -> dict[str, Any]:
        """Version 3 recorded no true hex after a told flight where the grid ends: its data reads as version 4
        unchanged."""
        return dict(data)


@attrs.frozen(kw_only=True)
class CatchRolled(Event):
    """Faster pursuers try to catch the party: ``caught`` on the faces ``catch_on`` of ``dice``.

    Since version 2 the terrain of a pursuit during a journey is that of the hex the party believes it is in: before,
    a lost party's was its true hex's, which told the players its terrain (the audit re-runs a version 1 roll as its
    release made it)."""

    type_name: ClassVar[str] = "pursuit.catch_rolled"
    schema_version: ClassVar[int] = 2
    dice: str
    #: seed 004: the faces that catch
    catch_on: tuple[int, ...] = ()
    #: OSE: a d100 total at most this catches (0: not used)
    at_most: int = 0
    total: int
    caught: bool
    #: the terrain row it was rolled in: during a journey, the row of the hex the party believes it is in (version 2)
    terrain: str = ""
    rolls: tuple[int, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 read the terrain of the party's true hex during a journey (the same hex unless
        the party was lost): its data reads as version 2 unchanged."""
        return dict(data)


@attrs.frozen(kw_only=True)
class ContinueChecked(Event):
    """A castle force that did not catch the party keeps up the pursuit on ``continue_on``, or gives up."""

    type_name: ClassVar[str] = "pursuit.continue_checked"
    disposition: Disposition
    continue_on: tuple[int, ...]
    total: int
    continues: bool
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class PursuitStopped(Event):
    """OSE: the party stops fleeing and is caught."""

    type_name: ClassVar[str] = "pursuit.stopped"
    note: str = ""


@attrs.frozen(kw_only=True)
class PursuitRested(Event):
    """The party escaped and rests ``days`` (half a day per hex fled), with an encounter roll per half day.

    Since version 2 a rest during a journey reads the row of the hex the party believes it is in: before, a lost
    party's was its true hex's, which told the players its terrain (the audit re-runs a version 1 rest as its release
    made it). Since version 3 a rest off the map reads the row its terrain reads under the source of chances in force,
    as a hex of it does: before, it looked up the OD&D row's name in that source's table, and found none under
    dolmenwood, whose rows are difficulties (the audit re-runs a version 2 rest as its release made it). Since version
    4 a rest off the map reads the row of the ground the pursuit was given (``pursuit.started``'s ``ground``: a
    tangled forest is moderate ground under dolmenwood), and every rest records the row it read (``row``): before, it
    read its OD&D row's (woods, light ground there), and recorded none (the audit re-runs a version 3 rest as its
    release made it)."""

    type_name: ClassVar[str] = "pursuit.rested"
    schema_version: ClassVar[int] = 4
    hexes_fled: int
    days: float
    #: the terrain row whose encounter chances were read, and its faces: during a journey, the row of the hex the
    #: party believes it is in (version 2)
    terrain: str = ""
    #: the row of the source of chances in force read (``woods`` under odd_p18, ``moderate`` under dolmenwood); ""
    #: where no encounter was checked (version 4)
    row: str = ""
    encounter_on: tuple[int, ...] = ()
    #: each half day's encounter die
    faces: tuple[int, ...] = ()
    encounters: int = 0
    rolls: tuple[int, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 read the encounter chances of the party's true hex during a journey (the same hex unless
        the party was lost): its data reads as version 2 unchanged."""
        return dict(data)

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 read off the map the row its OD&D terrain names (none under dolmenwood): its data reads as
        version 3 unchanged."""
        return dict(data)

    @staticmethod
    def upcast_v3_v4(data: dict[str, Any]) -> dict[str, Any]:
        """Version 3 read off the map its OD&D row's reading, whatever ground the pursuit was given, and recorded no
        row: ``row`` is empty."""
        return {**data, "row": ""}


@attrs.frozen(kw_only=True)
class PursuitEnded(Event):
    """The pursuit is over: ``escaped`` or ``caught``."""

    type_name: ClassVar[str] = "pursuit.ended"
    number: int
    outcome: str
    hexes_fled: int = 0
    reason: str = ""
