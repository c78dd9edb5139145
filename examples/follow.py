"""Follow a campaign's live stream and print each roll with its meaning (the standard library only).

    python3 examples/follow.py http://127.0.0.1:8000 main --token hxl_...   (or HEXLOG_TOKEN=hxl_...)

Each event arrives as a Server-Sent Event whose ``id:`` is its stream version and whose data is its
CloudEvents envelope (hexlog-chain-v1). The follower checks that each envelope links to the one
before it (``prevhash``), prints a roll's purpose, dice, faces and total, and the decision that used
it (every decision names its rolls' nonces), and after a dropped connection resumes with
``Last-Event-ID`` where it stopped. A player's token receives a secret roll as a placeholder
(``redacted``): the roll was made, its faces are shown once its session closes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from typing import Any


def events(base: str, campaign: str, token: str, after: int, until: int | None) -> Any:
    """Yield each event's CloudEvents object from version ``after + 1`` on, reconnecting when dropped."""
    while True:
        query = f"?until={until}" if until is not None else ""
        request = urllib.request.Request(  # noqa: S310 - the URL the user gave
            f"{base}/campaigns/{campaign}/stream{query}",
            headers={"Authorization": f"Bearer {token}", "Last-Event-ID": str(after), "Accept": "text/event-stream"},
        )
        try:
            with urllib.request.urlopen(request) as response:  # noqa: S310 - as above
                data = ""
                for raw in response:
                    line = raw.decode("utf-8").rstrip("\n")
                    if line.startswith("data: "):
                        data = line[6:]
                    elif not line and data:
                        event = json.loads(data)
                        after, data = event["streamversion"], ""
                        yield event
        except (urllib.error.URLError, ConnectionError) as err:
            refused = isinstance(err, urllib.error.HTTPError) and err.code < 500 and err.code != 429  # noqa: PLR2004
            if refused:  # refused (a bad token, a campaign not there): no retry
                sys.exit(f"follow: {err.code} {json.loads(err.read() or b'{}').get('detail', err.reason)}")
            print(f"(connection lost after version {after}: {err}; resuming)", file=sys.stderr)
            wait = err.headers.get("Retry-After", "1") if isinstance(err, urllib.error.HTTPError) else "1"
            time.sleep(int(wait) if wait.isdigit() else 1)  # a 429 or a 503 says when to ask again
        else:
            if until is not None and after >= until:
                return  # the stream ended where it was asked to (?until=)
            # the stream ended early: the service stopped (or restarted); a revoked token is refused on resuming
            print(f"(the stream ended after version {after}; resuming)", file=sys.stderr)
            time.sleep(1)


def describe(event: dict[str, Any], rolls: dict[tuple[str, int], str]) -> str | None:
    """A roll as a line (kept by lane and nonce for the decision that uses it), or the decision that used rolls."""
    data, kind = event["data"], event["type"].removeprefix("hexlog.")
    if kind == "session.opened":
        rolls.clear()  # each session counts its nonces from 0
    if kind == "dice.rolled":
        # a secret roll is named #r0, apart from the public #0 (the referee's lane counts its own nonces)
        name = f"#{'r' if data.get('visibility') == 'referee' else ''}{data['nonce']}"
        if event.get("redacted"):
            text = f"secret roll {name} ({data['purpose']}): hidden until the session closes"
        else:
            dice = f"{len(data['sides'])}d{data['sides'][0]}" if data["sides"] else "no dice"
            faces = "+".join(map(str, data["faces"]))
            text = f"roll {name} {dice} for {data['purpose']}: {faces} -> {data['total']}"
        rolls[data.get("visibility", "public"), data["nonce"]] = text
        return text
    named = [("public", n) for n in data.get("rolls", [])] + [("referee", n) for n in data.get("referee_rolls", [])]
    if any(n in rolls for n in named):
        shown = ", ".join(
            f"{k}={v}" for k, v in data.items() if k not in {"rolls", "referee_rolls"} and v not in ("", [])
        )
        return f"  => {kind}: {shown}"
    return None


def main() -> None:
    """Follow until interrupted (or until --until)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the service, e.g. http://127.0.0.1:8000")
    parser.add_argument("campaign")
    parser.add_argument("--token", default=os.environ.get("HEXLOG_TOKEN", ""))
    parser.add_argument("--after", type=int, default=0, help="start after this stream version")
    parser.add_argument("--until", type=int, default=None, help="stop after this stream version")
    args = parser.parse_args()
    rolls: dict[tuple[str, int], str] = {}
    previous = None
    for event in events(args.base.rstrip("/"), args.campaign, args.token, args.after, args.until):
        if previous is not None and event["prevhash"] != previous:
            sys.exit(f"follow: version {event['streamversion']} does not link to the event before it")
        previous = event["hash"]
        line = describe(event, rolls)
        if line is not None:
            print(f"{event['streamversion']:>5}  {line}", flush=True)


if __name__ == "__main__":
    main()
