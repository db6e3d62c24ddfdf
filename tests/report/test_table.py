"""The run summary table: statuses people can trust, whole when piped, no fake numbers."""

from __future__ import annotations

import io
import json
import os

from rich.console import Console

from hsd_cli.datatypes import PageResult, PageStatus
from hsd_cli.report.json import doc_summary_to_json, page_to_json
from hsd_cli.report.summary import (
    DocStatus,
    RunSummary,
    failed_document,
    summarize_document,
)
from hsd_cli.report.table import print_table, run_table


def page(n: int, status: PageStatus = PageStatus.OK, tokens: int = 0) -> PageResult:
    return PageResult("a.pdf", n, status, markdown=f"p{n}", tokens=tokens, steps=tokens)


def render(summary: RunSummary) -> str:
    out = io.StringIO()
    print_table(run_table(summary), Console(file=out))  # a StringIO is not a terminal
    return out.getvalue()


def test_truncated_pages_do_not_show_as_ok() -> None:
    """Issue 13.12: a document with a truncated page says so (and still exits 0)."""
    doc = summarize_document("a.pdf", "a", 2, [page(1), page(2, PageStatus.TRUNCATED)])
    assert doc.status is DocStatus.TRUNCATED
    summary = RunSummary((doc,), {})
    assert summary.exit_code == 0 and " truncated " in render(summary)


def test_piped_table_is_not_cut_at_80_columns() -> None:
    """Issue 13.12: a long error stays on one line of the table when stdout is a pipe."""
    error = "corrupted PDF, cannot be opened (" + "word " * 30 + ")"
    failed = failed_document("deep/folder/name/of/a/document.pdf", "deep/folder/name/of/a/document", error)
    text = render(RunSummary((failed,), {}))
    assert " ".join(error.split()) in text and max(map(len, text.splitlines())) > 80


def test_draft_runs_show_no_token_columns() -> None:
    """Issue 13.12: without a model there are no tokens, steps or AAL to show."""
    draft = render(RunSummary((summarize_document("a.pdf", "a", 1, [page(1)]),), {}))
    model = render(RunSummary((summarize_document("a.pdf", "a", 1, [page(1, tokens=9)]),), {}))
    assert "AAL" not in draft and "tokens" not in draft and "AAL" in model


def test_reports_of_non_utf8_sources_are_valid_json() -> None:
    """Issue 13.3: a source name with undecodable bytes is written escaped, not crashed on."""
    source = os.fsdecode(b"in/x\xff.pdf")
    report = page_to_json(PageResult(source, 1, PageStatus.OK), {})
    summary = doc_summary_to_json(failed_document(source, "x_-1", "bad"), {})
    for data in (report, summary):
        text = json.dumps(data, ensure_ascii=False)
        text.encode("utf-8")  # would raise on a lone surrogate
        assert json.loads(text)["source"] == "in/x\\xff.pdf"
