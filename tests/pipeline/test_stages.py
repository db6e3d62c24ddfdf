"""The prepare stage: drafting costs are t_draft, `ar` pays none, workers keep order and faults."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pymupdf
import pytest

from hsd_cli.config import RunConfig
from hsd_cli.datatypes import PreparedPage, RegionKind
from hsd_cli.methods.draft import DraftConverter
from hsd_cli.pipeline import local as runner
from hsd_cli.pipeline.prepare import PrepareConfig, Preparer
from hsd_cli.pipeline.workers import RENDERERS, PrepareQueue

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
TASKS = [(SAMPLES / "born_digital.pdf", 1), (SAMPLES / "missing.pdf", 1), (SAMPLES / "two_columns.pdf", 1)]


def test_no_drafts_means_no_text_layer_work():
    """`ar` (drafts=None) renders only: no regions, no text spans, no draft time."""
    got = Preparer(PrepareConfig(dpi=72, drafts=None))(SAMPLES / "born_digital.pdf", 1)
    assert got.regions == () and got.page.text_spans == () and got.t_draft == 0.0 and got.t_render > 0


def test_layout_analysis_is_charged_to_drafting(monkeypatch):
    """PyMuPDF's layout analysis runs inside t_draft, and only for text-layer drafts."""
    from hsd_cli.pages import render
    from hsd_cli.pipeline import prepare

    clock = [100.0]  # a fake clock: only layout analysis takes time, so no load can blur the split
    real = render.with_layout

    def timed(doc, page, threads):  # noqa: ANN001, ANN202
        clock[0] += 5.0
        return real(doc, page, threads)

    monkeypatch.setattr(prepare.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(render, "with_layout", timed)
    got = Preparer(PrepareConfig(dpi=72))(SAMPLES / "born_digital.pdf", 1)
    assert got.draft_source == "text_layer" and got.t_draft == 5.0 and got.t_render == 0.0


def sideways_table(path: Path) -> Path:
    """A portrait page whose content is a table turned a quarter counter-clockwise, with no
    /Rotate (LaTeX's sidewaystable): its lines run up the page."""
    src = pymupdf.open()
    flat = src.new_page(width=792, height=612)
    rows = [("Site", "Alpha", "Beta"), ("North", "12.1", "13.4"), ("South", "22.1", "23.4")]
    flat.insert_text((200, 150), "Table 1: Quokka counts at three sites", fontsize=11)
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            flat.insert_text((200 + 110 * c, 190 + 22 * r), cell, fontsize=11)
    note = "Counts were taken each spring by two observers walking the same fixed transects."
    for k in range(3):  # enough text for a text layer to draft from
        flat.insert_text((200, 300 + 16 * k), note, fontsize=11)
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.show_pdf_page(page.rect, src, 0, rotate=90)
    doc.save(path)
    return path


def test_a_sideways_page_is_drafted_turned_upright(tmp_path):
    """Its drafts read across (caption, then the table row by row); their boxes lie on the page
    as shown, as tall as the turned lines."""
    got = Preparer(PrepareConfig(dpi=72))(sideways_table(tmp_path / "s.pdf"), 1)
    text = "\n".join(r.text for r in sorted(got.regions, key=lambda r: r.order))
    assert got.draft_source == "text_layer"
    assert text.index("Table 1: Quokka") < text.index("Site") < text.index("North") < text.index("South")
    assert text.index("Alpha") < text.index("Beta") and text.index("12.1") < text.index("13.4") < text.index("Counts")
    width, height = got.page.image.size
    for r in got.regions:
        x0, y0, x1, y1 = r.bbox
        assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height and y1 - y0 > x1 - x0


def test_draft_crash_costs_only_the_drafts(monkeypatch):
    """A crashing draft source: the page comes back without drafts and says why."""
    from hsd_cli.drafts.text_layer import TextLayerSource

    def boom(self, page):  # noqa: ANN001, ANN202
        raise RuntimeError("layout model exploded")

    monkeypatch.setattr(TextLayerSource, "regions", boom)
    got = Preparer(PrepareConfig(dpi=72))(SAMPLES / "born_digital.pdf", 1)
    assert got.regions == () and "layout model exploded" in got.draft_error


@pytest.mark.parametrize("workers", [0, 1])
def test_queue_keeps_order_and_isolates_failures(workers):
    """Results come in task order; a failing task is its own exception, the next one still runs."""
    got = list(PrepareQueue(PrepareConfig(dpi=72), workers).run(TASKS))
    assert isinstance(got[0], PreparedPage) and got[0].page.source.name == "born_digital.pdf"
    assert isinstance(got[1], Exception) and "file not found" in str(got[1])
    assert isinstance(got[2], PreparedPage) and got[2].page.source.name == "two_columns.pdf"
    assert got[0].regions and got[0].page.text_spans == ()  # spans stay in the worker


@pytest.mark.parametrize("drafts", [None, "auto"])
def test_pages_rendered_ahead_are_the_pages_rendered_inline(drafts, monkeypatch):
    """Beside a model on a GPU, pages rendered alone (no drafts; or starting before their drafts)
    are rendered ahead in processes, the first ones here while those start: the same pages in task
    order, a failing one its own exception."""
    cfg = PrepareConfig(dpi=72, drafts=drafts)
    tasks = TASKS * 4
    inline = list(PrepareQueue(replace(cfg, drafts=None), 0).run(tasks))
    here = []
    real = Preparer.__call__
    monkeypatch.setattr(Preparer, "__call__", lambda self, *task: here.append(task) or real(self, *task))
    queue = PrepareQueue(cfg, 1, overlap=drafts is not None, render_ahead=True)
    ahead = []
    for page in queue.run(tasks):  # a consumer busy with each page (a model): the processes get ahead
        ahead.append(page)
        time.sleep(0.4)
    assert queue.renderers == RENDERERS and [type(p) for p in ahead] == [type(p) for p in inline]
    assert len(here) < len(tasks)  # some came from the processes
    for got, want in zip(ahead, inline, strict=True):
        if isinstance(want, PreparedPage):
            assert got.page.source == want.page.source and got.page.image.tobytes() == want.page.image.tobytes()
        else:
            assert str(got) == str(want)
    if drafts is None:
        assert all(p.regions == () for p in ahead if isinstance(p, PreparedPage))


def test_workers_give_the_same_markdown(tmp_path):
    """`--workers 1` (prepare in a background process) writes byte-identical Markdown."""
    outs = []
    for workers in (0, 1):
        cfg = RunConfig(inputs=(SAMPLES,), out_dir=tmp_path / f"o{workers}", method="draft", dpi=72, workers=workers)
        summary = runner.run(cfg, DraftConverter(), quiet=True)
        assert summary.exit_code == 0
        outs.append({p.name: p.read_text() for p in sorted(cfg.out_dir.glob("*.md"))})
    assert outs[0] == outs[1] and len(outs[0]) >= 4


def test_workers_share_the_cpus_left_beside_the_model(monkeypatch):
    """Each prepare worker's OCR engines get an equal share of the CPUs the run may use, one left
    to the model's process: ONNX Runtime alone would give every worker every core."""
    import os

    from hsd_cli.cores import default_workers, worker_threads

    monkeypatch.setattr(os, "cpu_count", lambda: 64)  # the machine's; the run may use fewer
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    assert [worker_threads(n) for n in (1, 4, 15, 32)] == [15, 3, 1, 1] and default_workers() == 4
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert PrepareQueue(PrepareConfig(), 1).cfg.ocr_threads == 1 and default_workers() == 1
    assert PrepareQueue(PrepareConfig(), 0).cfg.ocr_threads is None  # inline: the process's own CPUs
    assert PrepareQueue(PrepareConfig(drafts=None), 2).workers == 0  # rendering alone stays inline,
    assert PrepareQueue(PrepareConfig(drafts=None), 8, render_ahead=True).renderers == RENDERERS  # not beside a GPU
    assert PrepareQueue(PrepareConfig(ocr_threads=2), 1).cfg.ocr_threads == 2  # asked for: kept


@pytest.mark.parametrize(("cpus", "workers"), [(2, 1), (8, 4), (10, 4), (11, 8), (16, 11), (64, 15)])
def test_beside_a_gpu_a_large_host_drafts_on_its_cores_left(monkeypatch, cpus, workers):
    """A model on a GPU keeps one core and its input threads; where CPU_DRAFTING cores or more are
    left, and memory for a worker each, they all draft (on the CPU: torch_engines.follow_target),
    else at most 4 as beside any model."""
    import os

    from hsd_cli import cores
    from hsd_cli.cores import default_workers

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cpus)), raising=False)
    monkeypatch.setattr(cores, "available_gib", lambda: 64.0)
    assert default_workers(accelerator=True) == workers and default_workers() == min(4, cpus - 1)
    monkeypatch.setattr(cores, "available_gib", lambda: 6.0)  # memory for 6 workers: not a large host's 8+
    assert default_workers(accelerator=True) == min(4, cpus - 1)


def test_the_draft_pipeline_alone_drafts_on_every_core_by_default(monkeypatch):
    """No model in the run: its own process only writes pages, so the default puts every core the
    run may use to drafting (at most MAX_DRAFT_WORKERS); beside a model one core stays with it.
    An explicit --workers is kept either way."""
    import os
    from dataclasses import replace

    from hsd_cli.cores import MAX_DRAFT_WORKERS

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    default = RunConfig(inputs=(), out_dir=Path("out"), workers=None)
    model = type("TargetLike", (), {"uses_drafts": True})()
    assert runner.prepare_workers(default, DraftConverter()) == 2 and runner.prepare_workers(default, model) == 1
    assert runner.prepare_workers(replace(default, workers=0), DraftConverter()) == 0
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert runner.prepare_workers(default, DraftConverter()) == MAX_DRAFT_WORKERS
    assert runner.prepare_workers(default, model) == 4


def test_the_ocr_engines_take_the_threads_the_prepare_stage_gives(monkeypatch):
    """PrepareConfig.ocr_threads and draft_device reach the OCR engines (and the ONNX options)."""
    from hsd_cli.drafts import rapid_engines

    seen = []
    ocr = SimpleNamespace(text_rec=None, _load_rec_model=lambda: "recogniser")  # rapidocr's lazy loader
    load = lambda conf, threads, device: seen.append((threads, device)) or (ocr, None)  # noqa: E731
    monkeypatch.setattr(rapid_engines, "load_engines", load)
    preparer = Preparer(PrepareConfig(dpi=72, ocr_threads=3, draft_device="cpu"))
    preparer(SAMPLES / "born_digital.pdf", 1)  # builds the sources; OCR loads on first use
    preparer._sources.sources["ocr"]._engines()
    assert seen == [(3, "cpu")]
    params, layout = rapid_engines.engine_options(0.5, 3)
    assert (
        params["EngineConfig.onnxruntime.intra_op_num_threads"] == 3
        and layout["engine_cfg"]["intra_op_num_threads"] == 3
    )


def _letter_png() -> bytes:
    """A letter scanned at 150 dpi: ten lines of printed prose."""
    src = pymupdf.open()
    page = src.new_page()
    text = "We write to confirm the delivery of forty crates of apples to the northern depot. " * 8
    page.insert_textbox(pymupdf.Rect(60, 60, 540, 400), text, fontsize=12)
    return page.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY).tobytes("png")


@pytest.mark.parametrize("layout", ["exhibit", "watermark"])
def test_scanned_text_in_a_text_layer_page_is_read(tmp_path, layout):
    """A letter scanned into an exhibit under a paragraph of the page's own text, or a scan under
    a watermark paragraph: the page is drafted from its text layer, and the picture by OCR (it
    was an empty figure, its words in no draft). Asked for text-layer drafts, no OCR runs."""
    doc = pymupdf.open()
    page = doc.new_page()
    own = "Exhibit 4, received by the clerk of the court and reproduced as it was received, without corrections."
    if layout == "exhibit":
        page.insert_textbox(pymupdf.Rect(50, 110, 560, 190), own * 2, fontsize=10)
        page.insert_image(pymupdf.Rect(50, 200, 560, 760), stream=_letter_png())
    else:
        page.insert_image(page.rect, stream=_letter_png())
        page.insert_textbox(pymupdf.Rect(60, 500, 540, 560), own * 2, fontsize=10, color=(0.6, 0.6, 0.6))
    doc.save(tmp_path / "p.pdf")
    got = Preparer(PrepareConfig(dpi=72))(tmp_path / "p.pdf", 1)
    text = " ".join(r.text for r in sorted(got.regions, key=lambda r: r.order))
    assert got.draft_source == "text_layer" and "Exhibit 4" in text
    assert text.count("forty crates of apples") >= 4
    assert not any(r.kind is RegionKind.FIGURE for r in got.regions)
    layer_only = Preparer(PrepareConfig(dpi=72, drafts="text"))(tmp_path / "p.pdf", 1)
    assert "forty crates" not in " ".join(r.text for r in layer_only.regions)


def test_a_sideways_pages_annotations_and_fields_are_drafted(tmp_path):
    """The turned copy a sideways page is read from carries its form fields' values and its
    comments (they are drawn from the page's annotations, not its content)."""
    doc = pymupdf.open(sideways_table(tmp_path / "s.pdf"))
    page = doc[0]
    field = pymupdf.Widget()
    field.field_type, field.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, "observer"
    field.rect, field.field_value, field.text_fontsize = pymupdf.Rect(100, 600, 500, 620), "Margaret Ellington", 11
    page.add_widget(field)
    page.add_freetext_annot(pymupdf.Rect(100, 650, 500, 690), "Reviewer: recount the southern site.", fontsize=11)
    doc.save(tmp_path / "f.pdf")
    got = Preparer(PrepareConfig(dpi=72))(tmp_path / "f.pdf", 1)
    text = " ".join(r.text for r in got.regions)
    assert "Quokka" in text and "Margaret Ellington" in text and "recount the southern site" in text
