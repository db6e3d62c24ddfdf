"""Drafting beside decoding (pipeline/drafting.py): pages come rendered without waiting for their
drafts, which follow; the workers draft text-layer pages first; HSD_DRAFT_DELAY slows drafting."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from pathlib import Path

from fakes import make_pdf
from PIL import Image

from hsd_cli.config import RunConfig
from hsd_cli.datatypes import PreparedPage
from hsd_cli.pipeline import local
from hsd_cli.pipeline import prepare as stages
from hsd_cli.pipeline.drafting import DraftingPool
from hsd_cli.pipeline.prepare import PrepareConfig, Preparer
from hsd_cli.pipeline.workers import PrepareQueue

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
DELAY = 5.0  # seconds each page's drafts are held back: far longer than rendering a page


def test_the_draft_delay_knob_slows_each_pages_drafts(monkeypatch):
    """HSD_DRAFT_DELAY reaches the prepare stage and is drafting time (a fake sleep records it)."""
    monkeypatch.setenv("HSD_DRAFT_DELAY", "2.5")
    converter = type("Drafting", (), {"uses_drafts": True})()
    cfg = local.prepare_config(RunConfig(inputs=(), out_dir=Path("out")), converter)
    assert cfg.draft_delay == 2.5
    slept = []
    monkeypatch.setattr(stages.time, "sleep", slept.append)
    got = Preparer(PrepareConfig(dpi=72, draft_delay=2.5))(SAMPLES / "born_digital.pdf", 1)
    assert slept == [2.5] and got.regions
    slept.clear()
    Preparer(PrepareConfig(dpi=72, drafts=None, draft_delay=2.5))(SAMPLES / "born_digital.pdf", 1)
    assert slept == []  # `ar` makes no drafts, so nothing is slowed


def test_drafts_follow_the_targets_device(monkeypatch):
    """--device reaches the drafting models' device (drafts/torch_engines.follow_target)."""
    monkeypatch.delenv("HSD_DRAFT_DEVICE", raising=False)
    converter = type("Drafting", (), {"uses_drafts": True})()
    for device, drafts_on in (("cuda:1", "cuda:1"), ("cpu", "cpu"), ("auto", None)):
        cfg = RunConfig(inputs=(), out_dir=Path("out"), device=device)
        assert local.prepare_config(cfg, converter).draft_device == drafts_on
        assert local.prepare_config(cfg, converter, workers=11).draft_device == "cpu"  # a large host's cores


def test_pages_come_rendered_before_their_slow_drafts():
    """With drafting slowed, every page comes at once, rendered, its drafts still to come; they
    arrive as the inline prepare stage makes them; a failing page is its own exception."""
    tasks = [(SAMPLES / "born_digital.pdf", 1), (SAMPLES / "missing.pdf", 1), (SAMPLES / "two_columns.pdf", 1)]
    queue = PrepareQueue(PrepareConfig(dpi=72, draft_delay=DELAY), 1, overlap=True)
    try:
        got = list(queue.run(tasks))
        first, missing, last = got
        assert isinstance(missing, Exception) and "file not found" in str(missing)
        for page in (first, last):
            assert isinstance(page, PreparedPage) and page.regions == () and page.page.image.size
            assert page.later is not None and page.later.poll() is None  # no page waited for its drafts
        last.later.drop()  # decoded without them: never drafted
        drafted = first.later.wait()
        inline = Preparer(PrepareConfig(dpi=72))(*tasks[0])
        assert drafted.regions == inline.regions and drafted.draft_source == "text_layer"
        assert drafted.t_draft >= DELAY
    finally:
        queue.close()


def test_text_layer_pages_are_drafted_first(tmp_path):
    """One worker: pages with a text layer go to it first, the rest after, each in input order;
    a page dropped before its turn is never drafted."""
    scan = make_pdf(tmp_path / "scan.pdf", 2)  # no fonts: to OCR
    photo = tmp_path / "photo.png"
    Image.new("RGB", (64, 64), "white").save(photo)
    text = SAMPLES / "born_digital.pdf"
    submitted, futures, moved = [], [], threading.Condition()

    def submit(path: Path, page: int) -> Future:
        with moved:
            submitted.append((path.name, page))
            futures.append(Future())
            moved.notify_all()
        return futures[-1]

    pool = DraftingPool(submit, slots=1)
    entries = [pool.add(*task) for task in [(scan, 1), (photo, 1), (text, 1), (scan, 2), (text, 2)]]
    entries[3].drop()
    pool.start()
    try:
        for n in range(1, 5):
            with moved:
                assert moved.wait_for(lambda n=n: len(submitted) == n, timeout=30)
            futures[-1].set_result(None)  # the worker is free again
        with moved:
            assert not moved.wait_for(lambda: len(submitted) > 4, timeout=0.3)
    finally:
        pool.close()
    assert submitted == [("born_digital.pdf", 1), ("born_digital.pdf", 2), ("scan.pdf", 1), ("photo.png", 1)]


def test_a_run_beside_slow_drafts_writes_the_markdown_of_a_run_that_waited(tmp_path, tiny_target, monkeypatch):
    """`hsd convert` with a drafting worker held back by HSD_DRAFT_DELAY: its pages start without
    their drafts, and the Markdown is byte-identical to `--workers 0` (drafts before each page)."""
    from hsd_cli.config import SpecConfig
    from hsd_cli.driver.choose import converter_with

    target = tiny_target("qwen2_5_vl")
    markdown, methods = {}, {}
    for workers in (0, 1):
        monkeypatch.setenv("HSD_DRAFT_DELAY", str(DELAY if workers else 0))
        out = tmp_path / f"out{workers}"
        spec = SpecConfig(max_new_tokens=24)
        cfg = RunConfig(inputs=(SAMPLES / "born_digital.pdf",), out_dir=out, workers=workers, batch_pages=2, spec=spec)
        summary = local.run(cfg, converter_with(target, cfg), quiet=True)
        assert summary.exit_code == 0
        markdown[workers] = (out / "born_digital.md").read_bytes()
        reports = sorted((out / "born_digital").glob("page-*.json"))
        methods[workers] = {(r["method"], r["draft_source"]) for r in map(_json, reports)}
    assert markdown[1] == markdown[0]
    assert methods[0] == {("page", "text_layer")}
    assert methods[1] <= {("ar", ""), ("page", "text_layer")}  # drafts that came joined, or the page was ar's


def _json(path: Path) -> dict:
    import json

    return json.loads(path.read_text())
