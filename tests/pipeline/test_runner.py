"""The conversion loop with a fake converter and real small PDFs."""

from __future__ import annotations

import io
import json
import os
import signal
from dataclasses import replace
from pathlib import Path

import pytest
from fakes import (
    FakeConverter,
    fail_first_render,
    make_corrupted_pdf,
    make_encrypted_pdf,
    make_pdf,
)
from PIL import Image

from hsd_cli.config import RunConfig
from hsd_cli.datatypes import PageResult, PageStatus, PreparedPage
from hsd_cli.errors import OutputError
from hsd_cli.pipeline.local import run
from hsd_cli.report.summary import DocStatus, RunSummary


def convert(
    tmp_path: Path, inputs: list[Path], fake: FakeConverter | None = None, **kw: object
) -> tuple[RunSummary, str]:
    """Run into tmp_path/out; returns the summary and what went to stderr."""
    cfg = RunConfig(inputs=tuple(inputs), out_dir=tmp_path / "out", method="draft", **kw)
    err = io.StringIO()
    summary = run(cfg, fake or FakeConverter(), err=err, quiet=True)  # err: error lines only
    return summary, err.getvalue()


def reports(out: Path) -> dict[str, float]:
    return {p.name: p.stat().st_mtime_ns for p in out.glob("page-*.json")}


def test_converts_pages_and_writes_all_outputs(tmp_path: Path) -> None:
    """Markdown in page order, one report per page, document and run summaries."""
    summary, err = convert(tmp_path, [make_pdf(tmp_path / "doc.pdf", 3)])
    out = tmp_path / "out"
    assert (summary.exit_code, err) == (0, "")
    md = (out / "doc.md").read_text()
    assert md.index("doc p1") < md.index("doc p2") < md.index("doc p3")
    assert sorted(reports(out / "doc")) == ["page-0001.json", "page-0002.json", "page-0003.json"]
    page = json.loads((out / "doc" / "page-0002.json").read_text())
    assert page["page"] == 2 and page["status"] == "ok" and page["t_render"] > 0
    doc = json.loads((out / "doc" / "summary.json").read_text())
    assert doc["statuses"]["ok"] == 3 and doc["totals"]["tokens"] == 30
    run_json = json.loads((out / "run-summary.json").read_text())
    assert run_json["exit_code"] == 0 and run_json["documents"][0]["markdown"] == "doc.md"


def test_rerun_skips_finished_pages(tmp_path: Path) -> None:
    """Resume: nothing is converted again and no report is rewritten."""
    pdf = make_pdf(tmp_path / "doc.pdf", 2)
    convert(tmp_path, [pdf])
    before = reports(tmp_path / "out" / "doc")
    fake = FakeConverter()
    summary, _ = convert(tmp_path, [pdf], fake)
    assert fake.calls == [] and summary.documents[0].resumed == 2
    assert reports(tmp_path / "out" / "doc") == before
    assert summary.exit_code == 0


def test_force_and_changed_options_redo_pages(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "doc.pdf", 2)
    convert(tmp_path, [pdf])
    forced = FakeConverter()
    convert(tmp_path, [pdf], forced, force=True)
    assert forced.calls == [("doc.pdf", 1), ("doc.pdf", 2)]
    retuned = FakeConverter(tag="v2")  # other options_key: earlier reports are stale
    convert(tmp_path, [pdf], retuned)
    assert len(retuned.calls) == 2


def test_failed_page_is_isolated_and_retried(tmp_path: Path) -> None:
    """Page 2 raises: pages 1 and 3 convert, page 2 is a visible comment, a rerun redoes only it."""
    pdf = make_pdf(tmp_path / "doc.pdf", 3)
    summary, err = convert(tmp_path, [pdf], FakeConverter(fail_pages=frozenset({2})))
    assert summary.exit_code == 1 and summary.documents[0].failed_pages == (2,)
    assert err == f"hsd: error: {pdf}: page 2: RuntimeError: boom on page 2\n"
    md = (tmp_path / "out" / "doc.md").read_text()
    assert "<!-- page 2 failed: RuntimeError: boom on page 2 -->" in md and "doc p3" in md
    retry = FakeConverter()
    summary, err = convert(tmp_path, [pdf], retry)
    assert retry.calls == [("doc.pdf", 2)] and summary.exit_code == 0 and err == ""


def test_bad_documents_do_not_stop_the_batch(tmp_path: Path) -> None:
    """One stderr line per bad file; the good files still convert; exit 1."""
    src = tmp_path / "in"
    make_pdf(src / "good.pdf", 1)
    make_corrupted_pdf(src / "corrupt.pdf")
    make_encrypted_pdf(src / "locked.pdf")
    (src / "empty.pdf").write_bytes(b"")
    (src / "text.pdf").write_text("just some notes\n")
    summary, err = convert(tmp_path, [src, tmp_path / "missing.pdf"])
    lines = err.splitlines()
    assert len(lines) == 5 and all(line.startswith("hsd: error: ") for line in lines)
    assert any("locked.pdf: encrypted PDF" in line and "--password" in line for line in lines)
    assert any("missing.pdf: no such file" in line for line in lines)
    assert (tmp_path / "out" / "good.md").exists()
    assert summary.exit_code == 1
    statuses = {d.key: d.status for d in summary.documents}
    assert statuses["good"] is DocStatus.OK and statuses["corrupt"] is DocStatus.FAILED
    failed = json.loads((tmp_path / "out" / "corrupt" / "summary.json").read_text())
    assert failed["status"] == "failed" and failed["error"]


def test_password_opens_encrypted_pdf(tmp_path: Path) -> None:
    summary, err = convert(tmp_path, [make_encrypted_pdf(tmp_path / "l.pdf")], password="secret")
    assert summary.exit_code == 0 and err == ""


def test_page_selection_and_range_past_the_end(tmp_path: Path) -> None:
    """--pages picks 1-based pages, --max-pages keeps the first N; a range past the end of a
    document skips it (issue 13.8: a batch's --pages 9 is not a failure of short documents)."""
    pdf = make_pdf(tmp_path / "doc.pdf", 5)
    fake = FakeConverter()
    convert(tmp_path, [pdf], fake, pages="2-4", max_pages=2)
    assert fake.calls == [("doc.pdf", 2), ("doc.pdf", 3)]
    summary, err = convert(tmp_path, [pdf], pages="9")
    assert summary.exit_code == 0 and err == "" and summary.documents[0].status is DocStatus.SKIPPED


def test_image_input(tmp_path: Path) -> None:
    Image.new("RGB", (40, 30), "white").save(tmp_path / "scan.png")
    summary, _ = convert(tmp_path, [tmp_path / "scan.png"])
    assert "image 40x30" in (tmp_path / "out" / "scan.md").read_text()


def test_unwritable_output_raises_output_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    cfg = RunConfig(inputs=(tmp_path,), out_dir=tmp_path / "file" / "out")
    with pytest.raises(OutputError):
        run(cfg, FakeConverter(), err=io.StringIO())


class SignalingConverter(FakeConverter):
    """Sends itself `signals` while converting page `at`."""

    def __init__(self, at: int, signals: list[int]) -> None:
        super().__init__()
        self.at, self.signals = at, signals

    def convert(self, prepared: PreparedPage) -> PageResult:
        if prepared.page.number == self.at:
            for s in self.signals:
                os.kill(os.getpid(), s)
        return super().convert(prepared)


def test_signal_finishes_the_page_in_flight(tmp_path: Path) -> None:
    """First SIGINT during page 2: page 2 is still written, page 3 is not started; exit 130."""
    pdf = make_pdf(tmp_path / "doc.pdf", 3)
    fake = SignalingConverter(2, [signal.SIGINT])
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN where the suite runs as a background job
    summary, err = convert(tmp_path, [pdf], fake)
    assert summary.exit_code == 130 and "interrupted by SIGINT" in err
    assert sorted(reports(tmp_path / "out" / "doc")) == ["page-0001.json", "page-0002.json"]
    assert summary.documents[0].status is DocStatus.INCOMPLETE
    assert signal.getsignal(signal.SIGINT) is before  # restored


def test_second_signal_abandons_the_page(tmp_path: Path) -> None:
    """Two SIGTERMs during page 2: page 2 is dropped (redone on resume); exit 143."""
    pdf = make_pdf(tmp_path / "doc.pdf", 3)
    summary, _ = convert(tmp_path, [pdf], SignalingConverter(2, [signal.SIGTERM] * 2))
    assert summary.exit_code == 143
    assert sorted(reports(tmp_path / "out" / "doc")) == ["page-0001.json"]
    resumed = FakeConverter()
    convert(tmp_path, [pdf], resumed)
    assert resumed.calls == [("doc.pdf", 2), ("doc.pdf", 3)]


def test_debug_adds_the_traceback(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "doc.pdf", 1)
    cfg = RunConfig(inputs=(pdf,), out_dir=tmp_path / "out")
    err = io.StringIO()
    run(cfg, FakeConverter(fail_pages=frozenset({1})), debug=True, err=err)
    assert "Traceback" in err.getvalue() and "boom on page 1" in err.getvalue()


def test_result_identity_comes_from_the_runner(tmp_path: Path) -> None:
    """source, page and t_render are the runner's, whatever the converter filled in."""

    class Sloppy(FakeConverter):
        def convert(self, prepared: PreparedPage) -> PageResult:
            return replace(super().convert(prepared), source="?", page=99)

    convert(tmp_path, [make_pdf(tmp_path / "doc.pdf", 1)], Sloppy())
    data = json.loads((tmp_path / "out" / "doc" / "page-0001.json").read_text())
    assert data["page"] == 1 and data["source"].endswith("doc.pdf")


def test_converter_failure_value_is_reported(tmp_path: Path) -> None:
    """A converter may return a failed PageResult instead of raising: same stderr line."""

    class Refuses(FakeConverter):
        def convert(self, prepared: PreparedPage) -> PageResult:
            page = prepared.page
            return PageResult(str(page.source), page.number, PageStatus.FAILED, error="no drafts")

    summary, err = convert(tmp_path, [make_pdf(tmp_path / "doc.pdf", 1)], Refuses())
    assert summary.exit_code == 1 and err.endswith("doc.pdf: page 1: no drafts\n")


def test_markdown_is_rebuilt_from_reports(tmp_path: Path) -> None:
    """A run killed between report and Markdown write: the rerun restores the Markdown."""
    pdf = make_pdf(tmp_path / "doc.pdf", 2)
    convert(tmp_path, [pdf])
    md = tmp_path / "out" / "doc.md"
    expected = md.read_text()
    md.unlink()
    convert(tmp_path, [pdf])
    assert md.read_text() == expected


def test_render_failure_fails_only_that_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page that cannot be rendered is a failed page; the next page still converts."""
    fail_first_render(monkeypatch, "page 1 too large: 99999 x 99999 px")
    summary, err = convert(tmp_path, [make_pdf(tmp_path / "doc.pdf", 2)])
    assert err.endswith("doc.pdf: page 1 too large: 99999 x 99999 px\n")
    assert summary.documents[0].failed_pages == (1,) and summary.documents[0].statuses["ok"] == 1
