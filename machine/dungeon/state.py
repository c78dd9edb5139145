"""The delve's folded state: its phase, its lights, doors spiked, the wandering monster due, built from events only."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import dungeon as ev
from hexlog.events.procedure import HandedOff, PhaseChanged

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.kit.context import StepContext

PROCEDURE = "dungeon"


class Phase(enum.Enum):
    """Where a delve stands."""

    OUTSIDE = "outside"
    EXPLORING = "exploring"
    ENCOUNTER = "encounter"
    #: an encounter ended in pursuit: the chase runs, and the delve waits for it
    CHASE = "chase"
    LEFT = "left"


@attrs.frozen(kw_only=True)
class Light:
    """A light a party member carries; ``out_at_seconds`` 0 once it has gone out (a lantern may be refilled)."""

    carrier: str
    kind: ev.LightKind
    out_at_seconds: int

    @property
    def lit(self) -> bool:
        """Whether it burns."""
        return self.out_at_seconds > 0


@attrs.frozen(kw_only=True)
class KnownDoor:
    """What the party knows of a labelled door from what happened at it."""

    #: locked, and no key or pick has opened it yet
    locked: bool = False
    #: its lock was opened (a key, or a pick that succeeded)
    unlocked: bool = False
    #: an attempt to force it failed: it sticks
    stuck: bool = False
    #: it was forced open: known to stick (a try that failed, or a spike shut) when a later try opened it; it
    #: no longer sticks
    forced: bool = False
    #: it was opened (at its first try, with or without a roll, or forced later)
    opened: bool = False
    #: it had to be forced to open (a roll): where doors stick again, it sticks once it swings shut
    sticks: bool = False
    #: ``open`` (held open by a spike) or ``shut`` (spiked shut: it counts as stuck); "" for neither
    spiked: str = ""

    @property
    def text(self) -> str:
        """How the state shows it."""
        facts = ["locked" if self.locked else "unlocked" if self.unlocked else ""]
        if self.spiked:
            facts.append(f"spiked {self.spiked}" + (" (counts as stuck)" if self.spiked == "shut" else ""))
        else:
            facts.append("forced open" if self.forced else "opened" if self.opened else "stuck" if self.stuck else "")
        return ", ".join(f for f in facts if f) or "closed"


def _door(door: KnownDoor, event: ev.DoorOpened | ev.DoorSpiked) -> KnownDoor:
    """A door's condition after an attempt to open it or a spike.

    A door that opens is forced open only when the party knew it to stick before this try (a try that
    failed, or a spike shut): one that opens at its first try, rolled or not, is opened.
    """
    if isinstance(event, ev.DoorSpiked):
        if event.how == "shut":
            return attrs.evolve(door, spiked="shut")
        return attrs.evolve(door, spiked="" if event.slipped else "open")
    if event.locked and event.unlocked is ev.Unlock.NONE:
        return attrs.evolve(door, locked=True)
    door = attrs.evolve(door, locked=False, unlocked=door.unlocked or event.locked)
    if event.opened:
        known_stuck = door.stuck or door.spiked == "shut"
        spiked = "" if door.spiked == "shut" else door.spiked
        forced = door.forced or (event.stuck and known_stuck)
        sticks = door.sticks or event.stuck
        return attrs.evolve(door, forced=forced, opened=True, stuck=False, spiked=spiked, sticks=sticks)
    return attrs.evolve(door, stuck=True, forced=False, opened=False) if event.stuck else door


@attrs.frozen(kw_only=True)
class DelveState:
    """The latest delve of a campaign."""

    entered: ev.DelveEntered
    phase: Phase = Phase.OUTSIDE
    lights: tuple[Light, ...] = ()
    #: a wandering check found a monster that has not been met yet
    monster_due: bool = False
    #: doors spiked shut (they count as stuck) and spiked open (held open), by label
    spiked_shut: tuple[str, ...] = ()
    spiked_open: tuple[str, ...] = ()
    #: what the party knows of each labelled door (locked, unlocked, stuck, opened, forced open, spiked), by label
    doors: dict[str, KnownDoor] = attrs.field(factory=dict)
    moves: int = 0
    encounters: int = 0
    #: when the party last rested (or entered), seconds since the campaign began
    rested_at: int = 0
    left: ev.DelveLeft | None = None

    @property
    def lit(self) -> bool:
        """Whether the party carries a burning light."""
        return any(light.lit for light in self.lights)

    def light_of(self, carrier: str) -> Light | None:
        """The light a member carries, if any."""
        return next((light for light in self.lights if light.carrier == carrier), None)

    def turn_at(self, seconds: int, turn_seconds: int) -> int:
        """Whole turns of the delve passed at ``seconds``."""
        return max(0, seconds - self.entered.at_seconds) // turn_seconds

    def next_check(self, seconds: int, turn_seconds: int) -> int:
        """The next wandering check after ``seconds`` (seconds since the campaign began)."""
        every = self.entered.check_every_turns * turn_seconds
        done = max(0, seconds - self.entered.at_seconds) // every
        return self.entered.at_seconds + (done + 1) * every


def _without(items: tuple[str, ...], item: str) -> tuple[str, ...]:
    return tuple(i for i in items if i != item)


def _lights(state: DelveState, carrier: str, light: Light | None) -> tuple[Light, ...]:
    kept = tuple(one for one in state.lights if one.carrier != carrier)
    return kept if light is None else (*kept, light)


#: the events ``evolve`` reads: it leaves the state as it is at any other
READS: tuple[type[Event], ...] = (
    ev.DelveEntered,
    ev.DoorOpened,
    ev.DoorSpiked,
    PhaseChanged,
    HandedOff,
    ev.LightLit,
    ev.LanternRefilled,
    ev.LightBurnedOut,
    ev.WanderingChecked,
    ev.PartyMoved,
    ev.PartyRested,
    ev.DelveLeft,
)


def evolve(state: DelveState | None, event: Event) -> DelveState | None:  # noqa: C901, PLR0912 - one case per event
    """The delve after one event; a new ``DelveEntered`` replaces a concluded one."""
    if isinstance(event, ev.DelveEntered):
        return DelveState(entered=event, rested_at=event.at_seconds)
    if state is None:
        return None
    changes: dict[str, Any] = {}
    if isinstance(event, ev.DoorOpened | ev.DoorSpiked) and event.door:
        changes["doors"] = {**state.doors, event.door: _door(state.doors.get(event.door, KnownDoor()), event)}
    match event:
        case PhaseChanged(procedure="dungeon", dest=dest):
            changes["phase"] = Phase[dest]
        case HandedOff(parent="dungeon", child="encounter"):
            changes.update(monster_due=False, encounters=state.encounters + 1)
        case ev.LightLit(carrier=carrier):
            changes["lights"] = _lights(
                state, carrier, Light(carrier=carrier, kind=event.kind, out_at_seconds=event.out_at_seconds)
            )
        case ev.LanternRefilled(carrier=carrier):
            lantern = Light(carrier=carrier, kind=ev.LightKind.LANTERN, out_at_seconds=event.out_at_seconds)
            changes["lights"] = _lights(state, carrier, lantern)
        case ev.LightBurnedOut(carrier=carrier, kind=kind):
            spent = Light(carrier=carrier, kind=kind, out_at_seconds=0) if kind is ev.LightKind.LANTERN else None
            changes["lights"] = _lights(state, carrier, spent)
        case ev.WanderingChecked(monster=True):
            changes["monster_due"] = True
        case ev.PartyMoved():
            changes["moves"] = state.moves + 1
        case ev.PartyRested():
            changes["rested_at"] = event.at_seconds
        case ev.DoorSpiked(door=door, how="shut"):
            changes.update(
                spiked_shut=(*_without(state.spiked_shut, door), door), spiked_open=_without(state.spiked_open, door)
            )
        case ev.DoorSpiked(door=door, slipped=False):
            changes.update(
                spiked_open=(*_without(state.spiked_open, door), door), spiked_shut=_without(state.spiked_shut, door)
            )
        case ev.DoorOpened(door=door, opened=True) if door in state.spiked_shut:
            changes["spiked_shut"] = _without(state.spiked_shut, door)
        case ev.DelveLeft():
            changes["left"] = event
    return attrs.evolve(state, **changes) if changes else state


def under_way(ctx: StepContext) -> DelveState:
    """The delve a step works on (the kit has fired a trigger only a delve allows)."""
    state = ctx.state(PROCEDURE)
    assert isinstance(state, DelveState)  # noqa: S101 - only ``enter`` is allowed without a delve
    return state
