"""The table: everything a command needs to decide, folded from the campaign's stream."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from hexlog.events.base import Event
from hexlog.events.campaign import CampaignStarted, RulesChanged
from hexlog.events.dice import DiceRolled
from hexlog.events.session import ClientSeedSet, SessionAbandoned, SessionClosed, SessionOpened
from hexlog.machine import ruleset as rulesets
from hexlog.projections import clock as clock_model
from hexlog.projections import party as party_model


def stream_for(campaign: str) -> str:
    """The stream id of a campaign."""
    return f"campaign-{campaign}"


def source_for(campaign: str) -> str:
    """The CloudEvents source of a campaign's events."""
    return f"hexlog:{campaign}"


@attrs.frozen(kw_only=True)
class SessionState:
    """The latest session: its dice state."""

    id: str
    commitment: str
    client_seed: str = ""
    next_nonce: int = 0
    open: bool = True
    #: ended without a reveal (its secret was lost): its rolls can never be verified
    abandoned: bool = False


@attrs.frozen(kw_only=True)
class Table:
    """The folded state of one campaign."""

    campaign: str = ""
    version: int = 0
    rules: rulesets.Ruleset | None = None
    session: SessionState | None = None
    session_count: int = 0
    #: the commitment of every session so far: a secret is never used twice
    commitments: tuple[str, ...] = ()
    party: party_model.Party = party_model.Party()
    clock: clock_model.Clock = clock_model.Clock()
    #: the procedures' own folded states, keyed by procedure name
    procedures: dict[str, Any] = attrs.field(factory=dict)

    @property
    def started(self) -> bool:
        """Whether the campaign exists."""
        return self.rules is not None


#: procedure name -> evolve(state | None, event) -> state | None; filled by the procedure modules
PROCEDURE_FOLDS: dict[str, Any] = {}


def evolve(table: Table, event: Event) -> Table:
    """The table after one event (parts an event does not touch are kept as they are)."""
    party = party_model.evolve(table.party, event)
    clock = clock_model.evolve(table.clock, event)
    if party is not table.party or clock is not table.clock:
        table = attrs.evolve(table, party=party, clock=clock)
    if PROCEDURE_FOLDS:
        procedures = dict(table.procedures)
        for name, fold in PROCEDURE_FOLDS.items():
            state = fold(procedures.get(name), event)
            if state is None:
                procedures.pop(name, None)
            else:
                procedures[name] = state
        same = procedures.keys() == table.procedures.keys() and all(
            procedures[k] is table.procedures[k] for k in procedures
        )
        if not same:
            table = attrs.evolve(table, procedures=procedures)
    match event:
        case CampaignStarted():
            rules = rulesets.from_recorded(event.ruleset, event.rules)
            return attrs.evolve(table, campaign=event.campaign, rules=rules)
        case RulesChanged():
            return attrs.evolve(table, rules=rulesets.from_recorded(event.ruleset, event.rules))
        case SessionOpened():
            session = SessionState(id=event.session, commitment=event.commitment)
            return attrs.evolve(
                table, session=session, session_count=table.session_count + 1,
                commitments=(*table.commitments, event.commitment),
            )
        case ClientSeedSet() if table.session is not None:
            return attrs.evolve(table, session=attrs.evolve(table.session, client_seed=event.client_seed))
        case SessionClosed() if table.session is not None:
            return attrs.evolve(table, session=attrs.evolve(table.session, open=False))
        case SessionAbandoned() if table.session is not None:
            return attrs.evolve(table, session=attrs.evolve(table.session, open=False, abandoned=True))
        case DiceRolled() if table.session is not None:
            return attrs.evolve(table, session=attrs.evolve(table.session, next_nonce=event.nonce + 1))
    return table


def fold(events: Iterable[Event], version: int = 0, initial: Table | None = None) -> Table:
    """Fold decoded events into a table; ``version`` is the stream version they reach."""
    table = initial or Table()
    for event in events:
        table = evolve(table, event)
    return attrs.evolve(table, version=version)
