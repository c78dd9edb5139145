"""``hexlog bench``: what hexlog costs on this machine, as one JSON line (progress on stderr)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from hexlog.events.errors import UsageError
from hexlog.events.postgres_schema import is_database_url
from hexlog.service import benchmark
from hexlog.service.bench_postgres import PostgresSchemas

err = Console(stderr=True, highlight=False)


def bench(
    events: Annotated[int, typer.Option(min=100, help="events of the store figures' log")] = 100_000,
    repeat: Annotated[int, typer.Option(min=1, help="samples behind each median")] = 3,
    quick: Annotated[  # noqa: FBT002 - a flag
        bool, typer.Option("--quick", help="a run of seconds: every key, figures not to be trusted")
    ] = False,
    db: Annotated[
        str | None,
        typer.Option("--db", help="run the store figures on this PostgreSQL database (postgresql://...)"),
    ] = None,
) -> None:
    """Measure appends, reads, replay, audit, commands, whole procedures and the machine layer; print one JSON line.

    Each figure is a rate per second, the median of the samples (``spread`` gives their range);
    ``peak_rss_mb`` is the peak memory of a process that replays a log of a million events. Without --db the
    store figures run on SQLite files in a temporary folder; with a PostgreSQL URL, on new schemas of that
    database, each dropped after its sample (the result's ``name`` is then ``project_postgres``).
    """
    schemas: PostgresSchemas | None = None
    if db is not None:
        if not is_database_url(db):
            scheme = db.split(":", 1)[0] if ":" in db else "such"
            msg = (
                f"hexlog has no {scheme} store to measure: --db takes a postgresql:// URL "
                "(without it the store figures run on SQLite in a temporary folder)"
            )
            raise UsageError(msg)
        schemas = PostgresSchemas(db)
    params = benchmark.Params.quick() if quick else benchmark.Params(events=events, repeat=repeat)
    stores = benchmark.SQLiteFiles if schemas is None else (lambda _folder: schemas)
    try:
        if err.is_terminal:
            with err.status("measuring") as status:
                result = benchmark.run(params, note=lambda what: status.update(f"measuring: {what}"), stores=stores)
        else:  # a log file: one line per step
            result = benchmark.run(params, note=lambda what: err.print(f"hexlog bench: {what}"), stores=stores)
    finally:
        if schemas is not None:
            schemas.drop_all()
    typer.echo(benchmark.line(result))


def install(app: typer.Typer) -> None:
    """Add ``hexlog bench`` to the command line."""
    app.command("bench")(bench)
