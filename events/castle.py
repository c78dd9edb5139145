"""Castle events (seed 004, U&WA p.15): castles on the map, their garrisons riding out, demands and tolls.

A castle is known by its hex. Its type and disposition are given when it is placed, or rolled when it
is first met and remembered from then on. Every decision that used dice names the nonces of its
public rolls in ``rolls`` and of its secret rolls (the referee's ride-out check of a castle passed
by) in ``referee_rolls``. Gold is in gold pieces.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from hexlog.events.base import Event


@attrs.frozen(kw_only=True)
class CastlePlaced(Event):
    """A castle stands on a hex; its type and disposition are given, or left to be rolled when it is first met.

    Since version 2 its garrison is checked on every travel day (``daily``), whatever the party's true path: a
    check of a castle out of its reach is rolled for show, so that the players see the same secret rolls wherever
    the party truly is. A castle placed before was checked only on a day the party passed within its range, as
    then: the checks told a lost party that it had strayed near one."""

    type_name: ClassVar[str] = "castle.placed"
    schema_version: ClassVar[int] = 2
    hex: str
    #: lord, superhero, wizard, necromancer, patriarch, evil_high_priest ("" to be rolled)
    castle_type: str = ""
    #: hostile, neutral or friendly ("" to be rolled)
    disposition: str = ""
    name: str = ""
    #: its garrison is checked every travel day, for show when out of the party's reach (version 2)
    daily: bool = True

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """A castle placed before version 2 is checked only on a day the party passes within its range."""
        return {**data, "daily": False}


@attrs.frozen(kw_only=True)
class Passed:
    """One castle the party passed within range of today, and whether its garrison rode out; or, with no
    ``ride_out_on``, a castle checked every day that is out of reach (or checked already today), rolled for show."""

    hex: str
    #: hexes between the castle and the nearest hex the party was in today (0: the same hex)
    distance: int
    #: the faces of the d6 on which the garrison rides out at this distance
    ride_out_on: tuple[int, ...]
    face: int
    rides_out: bool


@attrs.frozen(kw_only=True)
class CastlesPassed(Event):
    """The referee's ride-out check for each castle within range of the party's path today (seed: by distance)."""

    type_name: ClassVar[str] = "castle.passed"
    #: hidden from players like a secret roll, until the session ends (it tells where the party truly is)
    referee_only: ClassVar[str] = "session"
    #: the travel day (the journey's day number) the party passed them
    day: int
    passed: tuple[Passed, ...]
    rolls: tuple[int, ...] = ()
    referee_rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class CastleHailed(Event):
    """The party hailed a castle: its garrison rides out to meet it unless the party looks quarrelsome."""

    type_name: ClassVar[str] = "castle.hailed"
    hex: str
    quarrelsome: bool = False
    rides_out: bool = True
    reason: str = ""


@attrs.frozen(kw_only=True)
class GarrisonMet(Event):
    """The garrison of a castle meets the party; the castle's type and disposition are rolled if not known yet."""

    type_name: ClassVar[str] = "castle.garrison_met"
    #: 1 for the campaign's first meeting with a garrison, 2 for the next, ...
    number: int
    hex: str
    #: hailed or passing
    how: str
    castle_type: str
    #: fighter, magic_user or cleric: what the castle demands
    kind: str
    disposition: str
    #: the faces rolled for the type and the disposition (0: not rolled: known, or always so for the type)
    type_face: int = 0
    disposition_face: int = 0
    #: the riders who came out and their base rate in feet per turn (the referee's)
    riders: int = 1
    speed: int = 120
    #: the demand, in words
    demand: str = ""
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class JoustFought(Event):
    """A castle's champion jousted with a party fighter: the winner is the referee's, or rolled (even chances); a
    champion who wins takes the loser's armor (the ``party.member_edited`` after it records the change).

    Since version 3 a rolled total that a penalty on the fighter takes below the die's lowest face reads as that
    face, one of the champion's; before it the total was read as it was, and the champion lost such a joust."""

    type_name: ClassVar[str] = "castle.joust_fought"
    schema_version: ClassVar[int] = 3
    hex: str
    fighter: str
    #: castle or party
    winner: str
    #: the rolled total, with the modifiers on the fighter (0 when the referee gave the winner)
    face: int = 0
    #: the castle's champion won: the loser's armor is taken
    armor_lost_by: str = ""
    #: the armor the champion took, as the party's record had it (``none``: the loser wore none); "" when the
    #: party won, or before version 2, whose lost jousts changed no member's armor
    armor: str = ""
    #: the party won: days of hospitality, days of rations, warhorses if needed
    hospitality_days: int = 0
    rations_days: int = 0
    warhorses: bool = False
    rolls: tuple[int, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 named who lost their armor, not which, and changed no member's armor: no armor is named."""
        return {**data, "armor": ""}

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 read the total as it was: its data reads as version 3 unchanged (the audit re-runs it as its
        release ran it)."""
        return dict(data)


@attrs.frozen(kw_only=True)
class TollDemanded(Event):
    """The castle names its toll: gold rolled on the kind's dice (fighter, magic-user) or a tithe (cleric)."""

    type_name: ClassVar[str] = "castle.toll_demanded"
    hex: str
    kind: str
    gold: int
    #: a magic-user takes a magic item instead of the gold, if the party offers one
    item_instead: bool = False
    #: the cleric's tithe: percent of the coin and jewels the party carries, and their worth as given
    tithe_pct: int = 0
    worth: int = 0
    reason: str = ""
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class TollPaid(Event):
    """The party paid the toll: the gold, or a magic item."""

    type_name: ClassVar[str] = "castle.toll_paid"
    hex: str
    gold: int = 0
    item: str = ""


@attrs.frozen(kw_only=True)
class QuestAccepted(Event):
    """The party accepted the castle's quest (a magic-user's by geas: the castle keeps a share of the treasure)."""

    type_name: ClassVar[str] = "castle.quest_accepted"
    hex: str
    kind: str
    geas: bool = False
    #: the share of the treasure brought back the castle keeps (0: none named)
    keeps_fraction: float = 0.0
    quest: str = ""


@attrs.frozen(kw_only=True)
class DemandRefused(Event):
    """The party refused what the castle demands."""

    type_name: ClassVar[str] = "castle.demand_refused"
    hex: str
    reason: str = ""


@attrs.frozen(kw_only=True)
class GarrisonFled(Event):
    """The party fled the garrison: the castle's forces pursue on their disposition's chance in 6."""

    type_name: ClassVar[str] = "castle.fled"
    hex: str
    disposition: str
    #: the faces on which the forces pursue (none: they never do, and nothing is rolled)
    pursue_on: tuple[int, ...]
    face: int = 0
    pursued: bool = False
    #: what a pursuit needs: the riders and their base rate in feet per turn
    riders: int = 1
    speed: int = 120
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class MeetingEnded(Event):
    """The meeting with a castle's garrison is over."""

    type_name: ClassVar[str] = "castle.meeting_ended"
    number: int
    hex: str
    #: parted, jousted_won, jousted_lost, paid, quest, fought, pursued, escaped
    outcome: str
    reason: str = ""
