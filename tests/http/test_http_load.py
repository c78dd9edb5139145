"""50 clients sending commands to 10 campaigns at once: nothing lost or doubled, conflicts 409, audits clean."""

from __future__ import annotations

import threading
from collections import Counter

from hexlog.service.http_tokens import TokenStore

from .conftest import make_db

CAMPAIGNS = tuple(f"c{n}" for n in range(10))
CLIENTS, COMMANDS = 50, 10


class Tally:
    """What the clients were answered: names added, rolls made, statuses, errors."""

    def __init__(self) -> None:
        self.added: dict[str, list[str]] = {c: [] for c in CAMPAIGNS}
        self.rolled: Counter[str] = Counter()
        self.statuses: Counter[int] = Counter()
        self.errors: list[BaseException] = []
        self.lock = threading.Lock()

    def client(self, served, tokens: dict[str, str], n: int) -> None:
        """One client: adds that expect the version it saw last, and rolls each sent twice under one key."""
        campaign = CAMPAIGNS[n % len(CAMPAIGNS)]
        auth = {"Authorization": f"Bearer {tokens[campaign]}"}
        try:
            with served.client() as client:
                version = client.get(f"/campaigns/{campaign}", headers=auth).json()["version"]
                for k in range(COMMANDS):
                    if k % 2 == 0:
                        version = self.add(client, auth, campaign, f"m{n}-{k}", version)
                    else:
                        self.roll(client, auth, campaign, f"roll-{n}-{k}")
        except BaseException as err:  # noqa: BLE001 - reported by the test
            self.errors.append(err)

    def add(self, client, auth, campaign: str, name: str, version: int) -> int:
        answer = client.post(
            f"/campaigns/{campaign}/campaign/add-member",
            headers={**auth, "If-Match": str(version)},
            json={"name": name},
        )
        with self.lock:
            self.statuses[answer.status_code] += 1
        if answer.status_code == 200:
            with self.lock:
                self.added[campaign].append(name)
            return int(answer.json()["version"])
        assert answer.status_code == 409, answer.text
        return int(answer.json()["current_version"])

    def roll(self, client, auth, campaign: str, key: str) -> None:
        body = {"expression": "d20", "purpose": key}
        url = f"/campaigns/{campaign}/campaign/roll-dice"
        first = client.post(url, headers={**auth, "Idempotency-Key": key}, json=body)
        again = client.post(url, headers={**auth, "Idempotency-Key": key}, json=body)
        assert first.status_code == again.status_code == 200, first.text
        assert again.json() == {**first.json(), "replayed": True}
        with self.lock:
            self.statuses[first.status_code] += 1
            self.rolled[campaign] += 1


def test_fifty_clients_ten_campaigns(serve, tmp_path):
    make_db(tmp_path / "hexlog.db", CAMPAIGNS)
    served = serve()
    store = TokenStore(served.db)
    tokens = {c: store.create(c, "referee")[0] for c in CAMPAIGNS}
    players = {c: store.create(c, "player")[0] for c in CAMPAIGNS}
    store.close()
    with served.client() as client:  # the players' seed, so that the audit can say the rolls protect them
        for campaign in CAMPAIGNS:
            seeded = client.post(
                f"/campaigns/{campaign}/campaign/set-client-seed",
                headers={"Authorization": f"Bearer {players[campaign]}"},
                json={"client_seed": f"table-{campaign}"},
            )
            assert seeded.status_code == 200
    tally = Tally()

    threads = [threading.Thread(target=tally.client, args=(served, tokens, n)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not tally.errors, tally.errors[:3]
    assert tally.statuses[409] > 0, "five clients a campaign: some of them expected a version that had moved on"
    with served.client() as client:
        for campaign in CAMPAIGNS:
            auth = {"Authorization": f"Bearer {tokens[campaign]}"}
            closed = client.post(f"/campaigns/{campaign}/campaign/close-session", headers=auth, json={})
            assert closed.status_code == 200
            page = client.get(f"/campaigns/{campaign}/events", headers=auth, params={"limit": 1000}).json()
            events = page["events"]
            assert [e["streamversion"] for e in events] == list(range(1, page["head"] + 1))
            names = [e["data"]["name"] for e in events if e["type"] == "hexlog.party.member_added"]
            assert sorted(names) == sorted(tally.added[campaign])  # every add answered 200 is there once, no other
            rolls = [e for e in events if e["type"] == "hexlog.dice.rolled"]
            assert len(rolls) == tally.rolled[campaign]  # each roll once, though each was sent twice
            audit = client.get(f"/campaigns/{campaign}/audit", headers=auth).json()
            assert audit["verdict"] == "VERIFIED", audit["text"]
