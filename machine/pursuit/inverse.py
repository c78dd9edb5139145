"""The inverse audit uses: the command that made a recorded pursuit decision (every one re-rolls as recorded).

A flight during a journey is decided by its secret heading (``HeadingRolled``); the public
``PursuitFled`` after it names no heading and is the re-run step's own record after that decision, so
one that follows no such decision is a finding (``follows_only``). A flight recorded before
``pursuit.fled`` version 2 rolled its heading in public even during a journey, and is re-run as it was
(``FleeInPublic``). A flight whose heading the players were told during a journey (``pursuit.fled`` version 3
names the hex the party believes it fled into) is re-run told (``Flee(told=True)``). One recorded before
``pursuit.heading_rolled`` version 2 (a told one, before ``pursuit.fled`` version 4) recorded no true hex where the
grid ends, and is re-run so (``FleeHeldUnrecorded``). An evasion roll, a catch
roll or a rest recorded before version 2 of its event read the terrain of the party's true hex during a journey,
and is re-run on it (``RollEvasionTrueHex``, ``CatchTrueHex``,
``RestTrueHex``); since then they read the hex the party believes it is in. An evasion roll recorded before version
3 was made for nobody, so exhaustion did not reach it, and is re-run so (``RollEvasionForNobody``, and
``RollEvasionTrueHex`` before version 2). A rest recorded before ``pursuit.rested`` version 3 read, off the map, the
row its OD&D terrain names in the table of the source in force (none under dolmenwood, whose rows are difficulties),
and is re-run so (``RestByName``, and ``RestTrueHex`` before version 2); one before version 4 read, off the map, its
OD&D row's reading whatever ground the pursuit was given (a tangled forest as woods, light ground under dolmenwood),
and is re-run so (``RestByRow``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import pursuit as ev
from hexlog.machine.kit.procedure import Inverse
from hexlog.machine.pursuit.commands import (
    Catch,
    CatchTrueHex,
    ContinueCheck,
    Flee,
    FleeHeldUnrecorded,
    FleeInPublic,
    Rest,
    RestByName,
    RestByRow,
    RestTrueHex,
    RollEvasion,
    RollEvasionForNobody,
    RollEvasionTrueHex,
)
from hexlog.machine.pursuit.hand import by_hand, by_hand_before

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.commands import Command

#: the first version of ``pursuit.fled`` whose heading is the referee's during a journey
SECRET_HEADING_SINCE = 2
#: the first version of ``pursuit.heading_rolled`` (of ``pursuit.fled``, for a flight the players were told of) after
#: which a flight during a journey records the party's true hex where the grid ends too
HELD_HEADING_RECORDED_SINCE = 2
HELD_TOLD_RECORDED_SINCE = 4
#: the first version of ``pursuit.evasion_rolled``, ``pursuit.catch_rolled`` and ``pursuit.rested`` that reads the
#: terrain of the hex the party believes it is in during a journey
BELIEVED_HEX_SINCE = 2
#: the first version of ``pursuit.evasion_rolled`` whose d100 is made for the party (exhaustion reaches it)
FOR_THE_PARTY_SINCE = 3
#: the first version of ``pursuit.rested`` that reads, off the map, the row its terrain reads under the source in force
SOURCE_ROW_SINCE = 3
#: the first version of ``pursuit.rested`` that reads, off the map, the ground the pursuit was given (and records the
#: row it read)
GROUND_SINCE = 4


def command_for(event: Event) -> Command | None:  # noqa: PLR0911 - one case per kind of decision
    """The command that made a recorded decision (None: not a dice-driven decision)."""
    match event:
        case ev.PursuitEvasionRolled():
            return RollEvasion()
        case ev.HeadingRolled():
            return Flee()
        case ev.PursuitFled():
            return None if event.secret else Flee(told=bool(event.believed))
        case ev.CatchRolled():
            return Catch()
        case ev.ContinueChecked():
            return ContinueCheck()
        case ev.PursuitRested():
            return Rest()
    return None


def _flight_before(event: Event, version: int) -> Command | None:
    """The command that made a flight recorded at an earlier schema version (None: the one ``command_for`` gives)."""
    if isinstance(event, ev.PursuitFled) and version < SECRET_HEADING_SINCE:
        return FleeInPublic()
    if isinstance(event, ev.HeadingRolled) and version < HELD_HEADING_RECORDED_SINCE:
        return FleeHeldUnrecorded()
    if isinstance(event, ev.PursuitFled) and version < HELD_TOLD_RECORDED_SINCE and not event.secret:
        return FleeHeldUnrecorded(told=bool(event.believed))
    return None


def command_before(event: Event, version: int) -> Command | None:
    """The command that made a decision recorded at an earlier schema version of its event: a flight before
    ``pursuit.fled`` version 2 rolled its heading in public, one before ``pursuit.heading_rolled`` version 2 (a
    told one before ``pursuit.fled`` version 4) recorded no true hex where the grid ends, and an evasion roll, a
    catch roll or a rest before version 2 of its event read the terrain of the party's true hex; an evasion roll
    before version 3 was made for nobody; a rest before version 3 read off the map the row its OD&D terrain names, and
    one before version 4 its OD&D row's reading whatever ground the pursuit was given."""
    flight = _flight_before(event, version)
    if flight is not None:
        return flight
    if version < BELIEVED_HEX_SINCE:
        match event:
            case ev.PursuitEvasionRolled():
                return RollEvasionTrueHex()
            case ev.CatchRolled():
                return CatchTrueHex()
            case ev.PursuitRested():
                return RestTrueHex()
    return _made_since_believed(event, version) or command_for(event)


def _made_since_believed(event: Event, version: int) -> Command | None:
    """The command that made a decision recorded after its event read the believed hex, at a version raised again
    since (None: the one ``command_for`` gives): an evasion roll made for nobody, a rest off the map by its row's
    name, or by its OD&D row's reading."""
    if isinstance(event, ev.PursuitEvasionRolled) and version < FOR_THE_PARTY_SINCE:
        return RollEvasionForNobody()
    if isinstance(event, ev.PursuitRested) and version < GROUND_SINCE:
        return RestByName() if version < SOURCE_ROW_SINCE else RestByRow()
    return None


def follows_only(event: Event) -> bool:
    """A flight whose heading is the referee's is recorded only right after that heading's decision."""
    return isinstance(event, ev.PursuitFled) and event.secret


INVERSE = Inverse(
    command_for=command_for,
    command_before=command_before,
    follows_only=follows_only,
    by_hand=by_hand,
    by_hand_before=by_hand_before,
    decides={
        "roll_evasion": (ev.PursuitEvasionRolled,),
        "flee": (ev.PursuitFled,),
        "catch": (ev.CatchRolled,),
        "continue_check": (ev.ContinueChecked,),
        "rest": (ev.PursuitRested,),
    },
)
