"""Page reports round-trip; document and run summaries add up."""

from __future__ import annotations

import json

import pytest

from hsd_cli.datatypes import PageResult, PageStatus, StageReport
from hsd_cli.report.json import (
    SCHEMA_VERSION,
    doc_summary_to_json,
    page_from_json,
    page_to_json,
    run_summary_to_json,
)
from hsd_cli.report.markdown import render_document
from hsd_cli.report.summary import DocStatus, RunSummary, summarize_document

REQUIRED = {
    "method",
    "tau",
    "window",
    "tokens",
    "steps",
    "aal",
    "accepted_hist",
    "t_render",
    "t_draft",
    "t_prefill",
    "t_decode",
    "t_total",
    "draft_source",
    "status",
    "stage1",
    "stage2",
    "sr_decode",
    "sr_e2e",
    "identical_to_ar",
    "schema_version",
    "options",
}


def hsd_page(page: int = 1, **kw: object) -> PageResult:
    stage1 = StageReport(steps=3, tokens=12, accepted=6, accepted_hist=[3, 0, 3, 0], regions=2)
    stage2 = StageReport(steps=2, tokens=9, accepted=7, accepted_hist=[4, 3], t_decode=0.5)
    base = dict(
        source="a.pdf",
        page=page,
        status=PageStatus.OK,
        markdown="# Title\n\ntext",
        method="hsd",
        draft_source="text",
        tokens=21,
        steps=5,
        accepted_hist=[3, 0, 3, 0, 4, 3],
        t_decode=1.0,
        t_total=2.0,
        stage1=stage1,
        stage2=stage2,
        steps_ar=20,
        t_decode_ar=3.0,
        t_total_ar=4.0,
        identical_to_ar=True,
    )
    return PageResult(**{**base, **kw})


def test_page_report_has_the_required_keys() -> None:
    """The keys a reader of page-NNNN.json relies on, with stage AAL and options."""
    data = page_to_json(hsd_page(), {"method": "hsd", "window": (3, 1)})
    assert data.keys() >= REQUIRED
    assert data["schema_version"] == SCHEMA_VERSION and data["status"] == "ok"
    assert data["stage1"]["aal"] == 1.5  # 6 accepted over 4 sequence-steps (batched rows)
    assert data["options"] == {"method": "hsd", "window": [3, 1]}  # as JSON reads it back
    json.dumps(data)  # serializable as is


def test_page_report_round_trips() -> None:
    """PageResult -> JSON text -> PageResult is the identity (resume relies on it)."""
    result = hsd_page(status=PageStatus.TRUNCATED, first_divergence=7)
    again = page_from_json(json.loads(json.dumps(page_to_json(result, {}))))
    assert again == result and again.status is PageStatus.TRUNCATED


def test_page_report_of_another_schema_is_refused() -> None:
    data = page_to_json(hsd_page(), {})
    with pytest.raises(ValueError, match="schema_version"):
        page_from_json({**data, "schema_version": SCHEMA_VERSION + 1})
    del data["tokens"]
    with pytest.raises(KeyError):
        page_from_json(data)


def test_document_summary_totals() -> None:
    """Tokens add up, AAL is accepted over sequence-steps, speedups are time-weighted."""
    slow = hsd_page(1, t_decode=1.0, t_decode_ar=4.0)  # SR_decode 4
    fast = hsd_page(2, t_decode=3.0, t_decode_ar=6.0, identical_to_ar=False)  # SR_decode 2
    failed = PageResult("a.pdf", 3, PageStatus.FAILED, error="boom")
    s = summarize_document("a.pdf", "a", 3, [slow, fast, failed], resumed=1)
    assert s.status is DocStatus.FAILED and s.failed_pages == (3,)
    assert s.statuses == {"ok": 2, "truncated": 0, "degraded": 0, "failed": 1}
    data = doc_summary_to_json(s, {"method": "hsd"})
    totals = data["totals"]
    assert totals["tokens"] == 42 and totals["steps"] == 10
    assert totals["aal"] == pytest.approx(26 / 12)  # not 26 / 10: steps count batched forwards once
    assert totals["sr_decode"] == pytest.approx(10.0 / 4.0)  # not the mean of 4 and 2
    assert totals["identical_to_ar"] == 1
    assert data["markdown"] == "a.md" and data["resumed"] == 1


def test_summary_without_baseline_has_no_speedups() -> None:
    s = summarize_document("a.pdf", "a", 2, [hsd_page(1, steps_ar=None, t_decode_ar=None, t_total_ar=None)])
    assert s.status is DocStatus.INCOMPLETE  # one of two pages
    totals = doc_summary_to_json(s, {})["totals"]
    assert totals["sr_decode"] is None and totals["identical_to_ar"] is None


def test_run_summary_exit_codes() -> None:
    """0 all ok, 1 any document failed, 128 + signal when interrupted."""
    ok = summarize_document("a.pdf", "a", 1, [hsd_page()])
    bad = summarize_document("b.pdf", "b", 1, [PageResult("b.pdf", 1, PageStatus.FAILED)])
    assert RunSummary((ok,), {}).exit_code == 0
    assert RunSummary((ok, bad), {}).exit_code == 1
    interrupted = RunSummary((ok, bad), {}, interrupted_by=15)
    assert interrupted.exit_code == 143
    data = run_summary_to_json(interrupted)
    assert data["interrupted"] == "SIGTERM" and data["documents_failed"] == 1
    assert data["totals"]["tokens"] == 21 and data["statuses"]["failed"] == 1


def test_markdown_joins_pages_and_marks_failures() -> None:
    """Page order, one blank line between pages, a visible comment for failed pages."""
    pages = [
        hsd_page(2, markdown="two\n"),
        PageResult("a.pdf", 3, PageStatus.FAILED, error="RuntimeError: bad --> thing\nmore"),
        hsd_page(1, markdown="one"),
        hsd_page(4, markdown="", status=PageStatus.OK),  # an empty page adds nothing
    ]
    assert render_document(pages) == ("one\n\ntwo\n\n<!-- page 3 failed: RuntimeError: bad - -> thing more -->\n")
    truncated = hsd_page(1, markdown="cut", status=PageStatus.TRUNCATED)
    assert render_document([truncated]).startswith("cut\n\n<!-- page 1 truncated")
    assert render_document([]) == ""
