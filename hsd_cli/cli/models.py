"""`hsd models`: the supported checkpoints, whether each is cached, and their sizes."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer

from hsd_cli.cli.options import JsonOut, opt

Sizes = Annotated[bool, opt("--sizes", "Also count each architecture's parameters (slow: needs transformers).")]


def models(sizes: Sizes = False, json_output: JsonOut = False) -> None:
    """List the supported target models: family, hub id, cached locally, published size."""
    from hsd_cli.targets.runtime.registry import list_models

    rows = [asdict(r) for r in list_models(sizes)]
    if not sizes:  # counted only with --sizes: a column of None reads as "unknown size"
        for row in rows:
            row.pop("params")
    if json_output:
        typer.echo(json.dumps(rows, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(*(rows[0] if rows else ["model"]))
    for name in ("hub_id", "model_type"):  # ids are copied into --model: never cut or wrapped
        for column in table.columns:
            if column.header == name:
                column.no_wrap, column.overflow = True, "ignore"
    for row in rows:
        table.add_row(*(str(v) for v in row.values()))
    console = Console()
    if not console.is_terminal:  # a pipe gets the table's own width, not 80 columns
        from hsd_cli.report.table import print_table

        print_table(table, console)
    else:
        console.print(table)
