"""A page whose drafts were made but hardly verified says so; the run summary counts such pages."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from PIL import Image
from rich.console import Console

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import (
    PageDecode,
    PageImage,
    PageResult,
    PreparedPage,
    Region,
    RegionKind,
    StageReport,
)
from hsd_cli.report.json import page_from_json, page_to_json, run_summary_to_json, stage_from_json, stage_to_json
from hsd_cli.report.result import page_result
from hsd_cli.report.summary import RunSummary, speculation_line, summarize_document
from hsd_cli.report.table import print_table, run_table
from hsd_cli.spec.stats import SPEC_OFF_DRAFTED, drafted_per_step, speculation_off


def test_off_below_a_tenth_of_a_draft_token_per_step_and_why():
    assert drafted_per_step(30, 400) == 0.075 and drafted_per_step(3, 0) == 0.0
    cut = speculation_off(drafted=30, matched=350, seq_steps=400)
    assert "cut to the root" in cut and "350 of 400" in cut
    unmatched = speculation_off(drafted=0, matched=12, seq_steps=400)
    assert "matched the output on 12 of 400" in unmatched
    assert speculation_off(int(SPEC_OFF_DRAFTED * 400), 350, 400) == ""  # at the threshold: on
    assert speculation_off(0, 0, 0) == ""  # no decode step: nothing to say
    assert "\n" not in cut + unmatched  # one line


def _prepared(texts: tuple[str, ...]) -> PreparedPage:
    page = PageImage(Path("a.pdf"), 0, Image.new("RGB", (40, 40)), 72)
    regions = tuple(Region((0, 0, 10, 10), RegionKind.TEXT, i, t, source="text_layer") for i, t in enumerate(texts))
    return PreparedPage(page, regions, "text_layer")


def _result(method: str, texts: tuple[str, ...], drafted: int, matched: int) -> PageResult:
    target = SimpleNamespace(decode=lambda toks: "x", to_markdown=lambda s: s, boundary_ids=frozenset())
    stage = StageReport(steps=100, tokens=101, accepted_hist=[0] * 100, drafted=drafted, matched=matched)
    out = PageDecode([1] * 101, False, None, stage)
    return page_result(target, SpecConfig(), _prepared(texts), out, method, 0.0, with_drafts=method != "ar")


def test_a_page_with_drafts_and_root_only_trees_is_flagged():
    r = _result("page", ("Annual report",), drafted=4, matched=90)
    assert r.speculation_off and "cut to the root" in r.speculation_note
    assert not _result("page", ("Annual report",), drafted=50, matched=90).speculation_off  # 0.5 per step: on
    assert not _result("ar", ("Annual report",), drafted=0, matched=0).speculation_off  # AR makes no drafts
    assert not _result("page", ("  ",), drafted=0, matched=0).speculation_off  # no draft text: nothing to verify


def test_the_page_report_says_so_and_reads_back():
    r = _result("page", ("Annual report",), drafted=0, matched=90)
    data = json.loads(json.dumps(page_to_json(r, {})))
    keys = list(data)
    assert keys[keys.index("fault") + 1 : keys.index("fault") + 3] == ["speculation_off", "speculation_note"]
    assert data["speculation_off"] is True and page_from_json(data) == r
    on = page_to_json(_result("page", ("Annual report",), drafted=50, matched=90), {})
    assert "speculation_off" not in on  # pages that speculated keep the keys they had


def test_a_stage_report_without_matched_reads_back():
    stage = StageReport(steps=2, drafted=3, matched=1)
    old = {k: v for k, v in stage_to_json(stage).items() if k != "matched"}
    assert stage_from_json(old) == StageReport(steps=2, drafted=3)


def test_the_run_summary_names_how_many_pages():
    off = _result("page", ("Annual report",), drafted=0, matched=90)
    on = _result("page", ("Annual report",), drafted=50, matched=90)
    doc = summarize_document("a.pdf", "a", 2, [off, replace(on, page=2)])
    summary = RunSummary((doc,), {})
    line = speculation_line(summary.totals)
    assert line.startswith("speculation was effectively off on 1 of 2 pages") and "\n" not in line
    data = run_summary_to_json(summary)
    assert data["speculation_off"] == line and data["totals"]["speculation_off"] == 1
    out = io.StringIO()
    print_table(run_table(summary), Console(file=out))
    assert "effectively off on 1 of 2 pages" in out.getvalue()
    clean = RunSummary((summarize_document("a.pdf", "a", 1, [on]),), {})
    assert run_summary_to_json(clean)["speculation_off"] is None and speculation_line(clean.totals) == ""
