"""Output fixes: title blocks hold the heading text, reports keep the source path as given,
and resume treats a report with an unknown status (the retired "skipped") as not finished."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner

from hsd_cli.cli.app import app
from hsd_cli.datatypes import PageResult, PageStatus, Region, RegionKind
from hsd_cli.report import store
from hsd_cli.report.blocks import block_text, draft_blocks, model_blocks
from hsd_cli.report.json import page_to_json

ROOT = Path(__file__).resolve().parents[2]
TITLE = Region((0, 0, 10, 10), RegionKind.TITLE, 0, "Annual Report", level=2)
TEXT = Region((0, 10, 10, 20), RegionKind.TEXT, 1, "# not a heading marker of a title")


def test_title_block_text_has_no_heading_markers():
    """The Markdown keeps `## Title`; the block's text is the heading alone."""
    blocks = draft_blocks([TITLE, TEXT])
    assert [b.text for b in blocks] == ["Annual Report", TEXT.text]  # Not "## Annual Report"
    assert block_text(RegionKind.TITLE, "### A\n# B") == "A\nB"
    assert block_text(RegionKind.TITLE, "#hashtag") == "#hashtag"  # no space: not a heading


def test_verified_title_block_text_has_no_heading_markers():
    text = {1: "## Annual Report\n\n", 2: "Body.\n"}  # token -> decoded piece
    blocks = model_blocks(
        [TITLE, TEXT], [1, 2], [0, 1], (10, 20), lambda toks: "".join(text[t] for t in toks), lambda s: s, frozenset()
    )
    assert [b.text for b in blocks] == ["Annual Report", "Body."]


def test_reports_keep_the_source_path_as_given(tmp_path, monkeypatch):
    """A relative input stays relative in the page report and the document JSON."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "out"
    argv = ["convert", "sample_docs/page.png", "-o", str(out), "--method", "draft", "--workers", "0", "--quiet"]
    result = CliRunner().invoke(app, [*argv, "--format", "md,json"])
    assert result.exit_code == 0, result.output
    page = json.loads((out / "page" / "page-0001.json").read_text())
    assert page["source"] == "sample_docs/page.png"  # Not the absolute path
    assert json.loads((out / "page.json").read_text())["source"] == "sample_docs/page.png"
    # The resume identity is the resolved path on purpose: a rerun from another folder resumes.
    assert page["options"]["source"]["path"] == os.path.realpath("sample_docs/page.png")


def test_resume_redoes_a_page_whose_report_has_a_retired_status(tmp_path):
    options = {"method": "draft"}
    for page, status in ((1, PageStatus.OK), (2, PageStatus.OK)):
        data = page_to_json(PageResult("a.pdf", page, status, markdown="x"), options)
        if page == 2:
            data["status"] = "skipped"  # PageStatus.SKIPPED was never produced, and is gone
        store.write_json(store.page_report_path(tmp_path, page), data)
    assert sorted(store.finished_pages(tmp_path, [1, 2], options)) == [1]
