"""50 clients sending commands to 10 campaigns at once: nothing lost or doubled, conflicts answered 409, audits clean."""

from __future__ import annotations

import threading
from collections import Counter

from hexlog.service.http_tokens import TokenStore

from .conftest import make_db

CAMPAIGNS = tuple(f"c{n}" for n in range(10))
CLIENTS, COMMANDS = 50, 10


def test_fifty_clients_ten_campaigns(serve, tmp_path):
    make_db(tmp_path / "hexlog.db", CAMPAIGNS)
    served = serve()
    store = TokenStore(served.db)
    tokens = {c: store.create(c, "referee")[0] for c in CAMPAIGNS}
    store.close()
    with served.client() as client:  # the players' seed, so that the audit can say the rolls protect them
        for campaign in CAMPAIGNS:
            seeded = client.post(
                f"/campaigns/{campaign}/campaign/set-client-seed",
                headers={"Authorization": f"Bearer {tokens[campaign]}"},
                json={"client_seed": f"table-{campaign}"},
            )
            assert seeded.status_code == 200
    added: dict[str, list[str]] = {c: [] for c in CAMPAIGNS}
    rolled: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    lock = threading.Lock()
    errors: list[BaseException] = []

    def client_run(n: int) -> None:
        campaign = CAMPAIGNS[n % len(CAMPAIGNS)]
        auth = {"Authorization": f"Bearer {tokens[campaign]}"}
        try:
            with served.client() as client:
                version = client.get(f"/campaigns/{campaign}", headers=auth).json()["version"]
                for k in range(COMMANDS):
                    if k % 2 == 0:  # an add that expects the version this client saw last
                        name = f"m{n}-{k}"
                        answer = client.post(
                            f"/campaigns/{campaign}/campaign/add-member",
                            headers={**auth, "If-Match": str(version)},
                            json={"name": name},
                        )
                        if answer.status_code == 200:
                            with lock:
                                added[campaign].append(name)
                        else:
                            assert answer.status_code == 409, answer.text
                            version = answer.json()["current_version"]
                    else:  # a roll sent twice under one key, as a client whose answer was lost would
                        key = {"Idempotency-Key": f"roll-{n}-{k}"}
                        body = {"expression": "d20", "purpose": f"roll {n}-{k}"}
                        url = f"/campaigns/{campaign}/campaign/roll-dice"
                        first = client.post(url, headers={**auth, **key}, json=body)
                        again = client.post(url, headers={**auth, **key}, json=body)
                        assert first.status_code == again.status_code == 200, first.text
                        assert first.json() == again.json()
                        with lock:
                            rolled[campaign] += 1
                    with lock:
                        statuses[answer.status_code if k % 2 == 0 else first.status_code] += 1
                    if k % 2 == 0 and answer.status_code == 200:
                        version = answer.json()["version"]
        except BaseException as err:  # noqa: BLE001 - reported by the test
            errors.append(err)

    threads = [threading.Thread(target=client_run, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors[:3]
    assert statuses[409] > 0, "five clients a campaign: some of them expected a version that had moved on"
    with served.client() as client:
        for campaign in CAMPAIGNS:
            auth = {"Authorization": f"Bearer {tokens[campaign]}"}
            closed = client.post(f"/campaigns/{campaign}/campaign/close-session", headers=auth, json={})
            assert closed.status_code == 200
            page = client.get(f"/campaigns/{campaign}/events", headers=auth, params={"limit": 1000}).json()
            events = page["events"]
            assert [e["streamversion"] for e in events] == list(range(1, page["head"] + 1))
            names = [e["data"]["name"] for e in events if e["type"] == "hexlog.party.member_added"]
            assert sorted(names) == sorted(added[campaign])  # every add answered 200 is there once, no other
            rolls = [e for e in events if e["type"] == "hexlog.dice.rolled"]
            assert len(rolls) == rolled[campaign]  # each roll once, though each was sent twice
            audit = client.get(f"/campaigns/{campaign}/audit", headers=auth).json()
            assert audit["verdict"] == "VERIFIED", audit["text"]
