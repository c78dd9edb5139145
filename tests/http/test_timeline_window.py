"""The timeline's last lines (``/timeline?last=N``) cost the lines asked for, whatever the length of the campaign's
history, and read as the same lines of the whole timeline do: a secret roll of the open session hidden from a player,
the rolls of closed sessions shown, a pursuit's flight told in the rules its start (before the window) named."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import FileKeeper
from hexlog.machine.pursuit import commands as p
from hexlog.service.door import key_file, open_store
from hexlog.service.http_tokens import TokenStore

from .conftest import make_db
from .test_player_start import counting_stores

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

#: the sessions each campaign plays before its pursuit (each a secret roll, a public roll, a close, an open)
SESSIONS = {"main": 2, "other": 30}
#: the lines asked for: the pursuit's flight and what came after it, not its start
LAST = 6


def _played(db: Path) -> dict[str, int]:
    """Both campaigns played for ``SESSIONS`` sessions, then an OSE pursuit started and fled once, then a secret roll of
    the open session and a public roll; each one's head."""
    make_db(db, tuple(SESSIONS))
    store = open_store(db)
    handler = Handler(store, FileKeeper(key_file(db)))
    for campaign, sessions in SESSIONS.items():
        handler.execute(campaign, c.AddMember(name="Ana"))
        for number in range(sessions):
            handler.execute(campaign, c.RollDice(expression="d20", purpose=f"secret-{number}", secret=True))
            handler.execute(campaign, c.RollDice(expression="d6", purpose=f"public-{number}"))
            handler.execute(campaign, c.CloseSession())
            handler.execute(campaign, c.OpenSession())
        handler.execute(campaign, p.StartPursuit(party_surprised=True))
        handler.execute(campaign, p.RollEvasion())
        handler.execute(campaign, p.Flee())
        handler.execute(campaign, c.RollDice(expression="d20", purpose="secret-now", secret=True))
        handler.execute(campaign, c.RollDice(expression="d6", purpose="public-now"))
    heads = {campaign: store.stream_version(stream_for(campaign)) for campaign in SESSIONS}
    store.close()
    return heads


def test_the_last_lines_of_the_timeline_cost_what_they_show(
    serve: Any, database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For the referee and a player, ``?last=6`` gives the whole timeline's last 6 lines (the flight in days, as the
    pursuit's start named OSE's rules; the open session's secret roll hidden from the player alone), and reads as many
    events on a campaign of 2 sessions as on one of 30."""
    heads = _played(database)
    assert heads["other"] > 5 * heads["main"]
    stores = counting_stores(monkeypatch)
    served = serve()
    tokens = TokenStore(database)
    served.tokens["other-referee"] = tokens.create("other", "referee")[0]
    tokens.close()

    def lines(campaign: str, who: str, last: int) -> tuple[list[dict[str, Any]], int]:
        """The timeline's lines, and the events read for them."""
        served.app.state.service.player_views.clear()  # each read begins afresh, as after a start
        before = sum(store.events for store in stores)
        with served.client() as client:
            got = client.get(f"/campaigns/{campaign}/timeline", headers=served.headers(who), params={"last": last})
        assert got.status_code == 200, got.text
        return got.json()["lines"], sum(store.events for store in stores) - before

    read = {}
    for campaign, who in (("main", "referee"), ("main", "player"), ("other", "other-referee"), ("other", "other")):
        window, read[campaign, who] = lines(campaign, who, LAST)
        whole, _ = lines(campaign, who, 0)
        assert len(whole) == heads[campaign]
        assert window == whole[-LAST:], (campaign, who)
        assert [line["version"] for line in window] == list(range(heads[campaign] - LAST + 1, heads[campaign] + 1))
        texts = [line["text"] for line in window]
        assert any(": 1 day of flight so far;" in text for text in texts), texts
        secret = [text for text in texts if "secret-now" in text or "(hidden by the referee" in text]
        assert len(secret) == 1, texts
        assert ("(hidden by the referee" in secret[0]) is (who in {"player", "other"}), secret
    for who, other in (("referee", "other-referee"), ("player", "other")):
        assert read["main", who] == read["other", other], read
    assert max(read.values()) < 4 * LAST, read
