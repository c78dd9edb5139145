"""The cost of loading a map with many hidden features: ``hexlog map load`` on a SQLite campaign.

Each hidden feature is kept in the key file beside the database (its text and salt) and committed to
in the log. This writes a map file of ``--features`` hexes, each with one hidden feature, to a
temporary folder (never into the repository), starts an ``explore`` campaign there and times the
load through the command line's own entry point, ``--samples`` times on fresh databases.

    .venv/bin/python bench/hidden_map.py [--features 300] [--samples 3]

The last line on stdout is one JSON object: the median and each sample, in seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from hexlog.service.cli import app


def map_text(features: int) -> str:
    """A map of ``features`` meadow hexes in rows of 20, each hiding one feature."""
    lines = []
    for index in range(features):
        col, row = index % 20, index // 20
        lines += [f'[hex."{col},{row}"]', 'terrain = "meadow"', f'hidden = ["cache {index}"]', ""]
    return "\n".join(lines)


def sample(folder: Path, features: int) -> float:
    """Seconds one ``map load`` of the map takes on a fresh campaign in ``folder``."""
    runner = CliRunner()
    db = str(folder / "bench.db")
    path = folder / "map.toml"
    path.write_text(map_text(features), encoding="utf-8")
    for args in (["init", "--ruleset", "explore"], ["session", "open"]):
        result = runner.invoke(app, [*args, "--db", db])
        assert result.exit_code == 0, result.output  # noqa: S101 - a benchmark's own set-up
    start = time.perf_counter()
    result = runner.invoke(app, ["map", "load", str(path), "--db", db])
    spent = time.perf_counter() - start
    assert result.exit_code == 0, result.output  # noqa: S101 - a benchmark's own set-up
    return spent


def main() -> None:
    """Time the load and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--features", type=int, default=300)
    parser.add_argument("--samples", type=int, default=3)
    args = parser.parse_args()
    spent = []
    for _ in range(args.samples):
        with tempfile.TemporaryDirectory() as folder:
            spent.append(sample(Path(folder), args.features))
    figures = {"features": args.features, "median_s": round(statistics.median(spent), 3)}
    figures["samples_s"] = [round(s, 3) for s in spent]
    print(f"map load, {args.features} hidden features: median {figures['median_s']} s")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
