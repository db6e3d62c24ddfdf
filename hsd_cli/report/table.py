"""The run summary as a rich table for people (scripts read run-summary.json or --json)."""

from __future__ import annotations

from rich.table import Table

from hsd_cli.report.summary import RunSummary, Totals


def run_table(summary: RunSummary) -> Table:
    """One row per document and a total row: pages, tokens, steps, AAL, speedups, time."""
    table = Table(title="hsd run summary", title_justify="left")
    for col in ("document", "status", "pages", "tokens", "steps", "AAL", "SR_decode", "SR_e2e", "time s"):
        table.add_column(col, justify="left" if col in ("document", "status") else "right")
    for doc in summary.documents:
        status = doc.status.value if not doc.error else f"failed: {doc.error}"[:60]
        table.add_row(doc.key, status, str(doc.pages), *_numbers(doc.totals))
    if len(summary.documents) > 1:
        table.add_section()
        table.add_row("total", "", str(summary.totals.pages), *_numbers(summary.totals))
    return table


def _numbers(t: Totals) -> list[str]:
    def ratio(x: float | None) -> str:
        return f"{x:.2f}x" if x is not None else "-"

    return [str(t.tokens), str(t.steps), f"{t.aal:.2f}", ratio(t.sr_decode), ratio(t.sr_e2e), f"{t.t_total:.1f}"]
