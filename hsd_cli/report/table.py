"""The run summary as a rich table for people (scripts read run-summary.json or --json)."""

from __future__ import annotations

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from hsd_cli.report.summary import DocSummary, RunSummary, Totals, speculation_line, sum_totals

_MODEL_COLUMNS = ("tokens", "steps", "AAL", "SR_decode", "SR_e2e")


def run_table(summary: RunSummary) -> Table:
    """One row per document and a total row: pages, tokens, steps, AAL, speedups, time.

    A run without model tokens (--method draft) has no token, step or AAL columns: zeros there
    would read as measurements. A document whose pages all came from an earlier run says
    "resumed" and shows no numbers: they were measured then, not now.
    """
    decoded = summary.totals.tokens > 0 or summary.totals.steps > 0
    table = Table(title="hsd run summary", title_justify="left")
    for col in ("document", "status", "pages", *(_MODEL_COLUMNS if decoded else ()), "time s"):
        table.add_column(col, justify="left" if col in ("document", "status") else "right")
    width = len(_MODEL_COLUMNS if decoded else ()) + 1
    for doc in summary.documents:
        numbers = ["-"] * width if _all_resumed(doc) else _numbers(doc.totals, decoded)
        table.add_row(doc.key, _status(doc), str(doc.pages), *numbers)
    if len(summary.documents) > 1:
        table.add_section()
        fresh = sum_totals(d.totals for d in summary.documents if not _all_resumed(d))
        numbers = _numbers(fresh, decoded) if fresh.pages else ["-"] * width
        table.add_row("total", "", str(summary.totals.pages), *numbers)
    table.caption = speculation_line(summary.totals) or None
    table.caption_justify = "left"
    return table


def print_table(table: Table, console: Console) -> None:
    """Print whole: a pipe or log file gets the table's own width, not rich's 80 columns."""
    if not console.is_terminal:  # measured against a wide page: console.measure caps at 80
        wide = console.options.update_width(10_000)
        console.width = max(80, Measurement.get(console, wide, table).maximum)
    console.print(table)


def _all_resumed(doc: DocSummary) -> bool:
    return doc.pages > 0 and doc.resumed >= doc.pages


def _status(doc: DocSummary) -> str:
    status = "resumed" if _all_resumed(doc) and doc.status.value == "ok" else doc.status.value
    if doc.resumed and not _all_resumed(doc):
        status += f" ({doc.resumed} resumed)"
    if doc.failed_pages:
        status += " (page " + ", ".join(map(str, doc.failed_pages)) + ")"
    return f"{status}: {doc.error}" if doc.error else status


def _numbers(t: Totals, decoded: bool) -> list[str]:
    def ratio(x: float | None) -> str:
        return f"{x:.2f}x" if x is not None else "-"

    model = [str(t.tokens), str(t.steps), f"{t.aal:.2f}", ratio(t.sr_decode), ratio(t.sr_e2e)]
    return [*(model if decoded else []), f"{t.t_total:.1f}"]
