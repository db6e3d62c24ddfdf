"""Nothing lost without a word: a PDF cut short, a page whose drafts found nothing on its ink and a
text layer of garbage each give one warning line naming the file and page and a `degraded`
page; the batch goes on, and a rerun keeps them (the input is the same)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from damaged_pdfs import SAMPLES, cut_short, garbage_layer_pdf

from hsd_cli.config import RunConfig
from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.rapid import RapidOcrSource
from hsd_cli.methods.draft import NOTHING_FOUND, DraftConverter
from hsd_cli.pipeline.local import run
from hsd_cli.report.summary import DocStatus


def convert(tmp_path: Path, inputs: list[Path], converter=None, **kw: object):  # noqa: ANN001, ANN201
    """`hsd convert --method draft` into tmp_path/out: the summary and stderr's lines."""
    cfg = RunConfig(inputs=tuple(inputs), out_dir=tmp_path / "out", method="draft", **kw)
    err = io.StringIO()
    summary = run(cfg, converter or DraftConverter(cfg.draft_source), err=err, quiet=True)
    return summary, err.getvalue().splitlines()


def status(tmp_path: Path, key: str, page: int = 1) -> str:
    return json.loads((tmp_path / "out" / key / f"page-{page:04d}.json").read_text())["status"]


def test_pdfs_cut_short_are_degraded_with_one_line_per_page_and_the_batch_goes_on(tmp_path) -> None:
    """Not a 0-byte Markdown with status ok: each damaged page says what it lost, once."""
    scan = cut_short("scanned.pdf", 3000, tmp_path / "scan.pdf")
    paper = cut_short("born_digital.pdf", 3500, tmp_path / "paper.pdf")
    summary, lines = convert(tmp_path, [scan, paper, SAMPLES / "two_columns.pdf"], draft_source="text")
    assert summary.exit_code == 0 and all(line.startswith("hsd: warning: ") for line in lines)
    assert [line.split(": ")[2:4] for line in lines] == [
        [str(scan), "page 1"],
        [str(paper), "page 1"],
        [str(paper), "page 2"],
    ]
    assert "content stream" in lines[0] and "repaired" in lines[1] and "content stream" in lines[2]
    assert [status(tmp_path, "scan"), status(tmp_path, "paper", 2), status(tmp_path, "two_columns")] == [
        "degraded",
        "degraded",
        "ok",
    ]
    assert "<!-- page 1 degraded: damaged page:" in (tmp_path / "out" / "scan.md").read_text()
    docs = {d.key: d.status for d in summary.documents}
    assert docs == {"scan": DocStatus.DEGRADED, "paper": DocStatus.DEGRADED, "two_columns": DocStatus.OK}


def test_a_degraded_page_is_finished_for_resume(tmp_path) -> None:
    """A rerun reads the same damaged file: the page is kept, not redone (--force redoes it)."""
    calls = []

    class Counting(DraftConverter):
        def convert(self, prepared):  # noqa: ANN001, ANN202
            calls.append(prepared.page.number)
            return super().convert(prepared)

    scan = cut_short("scanned.pdf", 3000, tmp_path / "scan.pdf")
    convert(tmp_path, [scan], Counting("text"), draft_source="text")
    summary, lines = convert(tmp_path, [scan], Counting("text"), draft_source="text")
    assert calls == [1] and lines == [] and summary.documents[0].status is DocStatus.DEGRADED


def test_a_page_with_ink_whose_drafts_found_nothing_is_degraded(tmp_path, monkeypatch) -> None:
    """OCR that reads nothing on a scan (faint print, a hand it cannot read) is no empty page."""
    monkeypatch.setattr(RapidOcrSource, "read_page", lambda self, image: ([], 0.0))
    monkeypatch.setattr(RapidOcrSource, "_layout_boxes", lambda self, image: ([], []))
    summary, lines = convert(tmp_path, [SAMPLES / "scanned.pdf"])
    assert lines == [f"hsd: warning: {SAMPLES / 'scanned.pdf'}: page 1: {NOTHING_FOUND}"]
    assert status(tmp_path, "scanned") == "degraded" and summary.exit_code == 0


def test_a_garbage_text_layer_goes_to_ocr_and_is_degraded(tmp_path, monkeypatch) -> None:
    """The layer's Latin-1 soup is not the draft: OCR's text is, and the page says why."""
    pdf = tmp_path / "textbook.pdf"
    pdf.write_bytes(garbage_layer_pdf())
    read = [TextSpan((140, 200, 900, 230), "第一章 函数与极限", score=0.98)]
    monkeypatch.setattr(RapidOcrSource, "read_page", lambda self, image: (list(read), 0.0))
    monkeypatch.setattr(RapidOcrSource, "_layout_boxes", lambda self, image: ([], []))
    summary, lines = convert(tmp_path, [pdf])
    assert len(lines) == 1 and lines[0].startswith(f"hsd: warning: {pdf}: page 1: text layer unreadable")
    report = json.loads((tmp_path / "out" / "textbook" / "page-0001.json").read_text())
    assert report["status"] == "degraded" and report["draft_source"] == "rapidocr"
    markdown = (tmp_path / "out" / "textbook.md").read_text()
    assert markdown.startswith("第一章 函数与极限") and "PRSTU" not in markdown and "\ufffd" not in markdown
