"""Drafting's models in torch: on real dev pages (the repository's samples where the corpus is
not beside the checkout) their raw outputs are ONNX Runtime's within float rounding and the
drafts are the same; lines of one width share a batch. The CUDA variants run with
HSD_TEST_DEVICE=cuda (benchmarks/gpu.py's CUDA tests)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from hsd_cli.cores import CPU_DRAFTING
from hsd_cli.drafts import rapid_engines, torch_engines
from hsd_cli.drafts.auto import AutoSource
from hsd_cli.drafts.rapid import RapidOcrSource
from hsd_cli.pages import torch_models

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus" / "dev"
# A scan (a few long lines) and the top of a page image (a table's short cells: many share a width).
SCAN = "docling/ocr_test.pdf"
PAGE_IMAGE = "omnidocbench/images/notes_1ba14cb325bc448f7201b20502ecf2b5_15.jpg"
TEST_DEVICE = os.environ.get("HSD_TEST_DEVICE", "cpu")
DEVICES = [
    "cpu",
    pytest.param("cuda", marks=pytest.mark.skipif(not TEST_DEVICE.startswith("cuda"), reason="HSD_TEST_DEVICE=cuda")),
]
# Float rounding only: other kernels summing in another order. The largest gap on these pages is
# the detector's map, 1.1e-4 near 0.47 (its threshold 0.3), rec 3e-6, layout 2e-5 (CPU).
TOLERANCE = {"cpu": 5e-4, "cuda": 2e-3}

needs_models = pytest.mark.skipif(not torch_models.available(), reason="onnx2torch is not installed")
# Where the dev corpus is not beside the checkout (a lent GPU machine), the repository's own samples.
PAGES = (CORPUS / SCAN, CORPUS / PAGE_IMAGE)
SAMPLES = tuple(REPO / "sample_docs" / name for name in ("scanned.pdf", "page.png"))
PAGES = PAGES if all(p.is_file() for p in PAGES) else SAMPLES


def page(path: Path):
    """Page 1 of a dev file as rapid.py reads it: the OCR render of a PDF, a page image's top half."""
    from hsd_cli.pages.render import open_document, render_for_ocr, render_page

    with open_document(path, None) as doc:
        image = render_for_ocr(doc, render_page(doc, 0, 144))
    if path.suffix == ".jpg":
        im = image.image
        image = replace(image, image=im.crop((0, 0, im.width, im.height // 2)))
    return image


class Recorded:
    """An engine's session that keeps every input it was given and the output it gave."""

    def __init__(self, session) -> None:
        self.session, self.calls = session, []

    def __call__(self, x):
        y = self.session(x)
        self.calls.append((x, y))
        return y

    def __getattr__(self, name: str):
        return getattr(self.session, name)


def loaded(device: str | None) -> RapidOcrSource:
    """A source whose engines rapid.py loads (its own wrappers around them included): ONNX
    Runtime's (None), or with the models in torch on `device`."""
    source = RapidOcrSource(threads=1)
    plain = rapid_engines.load_engines
    with pytest.MonkeyPatch.context() as mp:
        if device is not None:  # "cpu" to load_engines is ONNX Runtime: the torch models are put in here
            moved = lambda conf, threads, _=None: rapid_engines.in_torch(plain(conf, threads, "cpu"), device)  # noqa: E731
            mp.setattr(rapid_engines, "load_engines", moved)
        mp.setenv(torch_engines.DEVICE_ENV, "cpu")
        source._engines()
    source.device = device
    return source


@pytest.fixture(scope="module")
def onnx_source() -> RapidOcrSource:
    return loaded(None)


@pytest.fixture(scope="module", params=DEVICES)
def torch_source(request) -> RapidOcrSource:
    return loaded(request.param)


def recognizer(engine):
    """rapidocr's own TextRecognizer under the wrappers hsd puts around it (ExactWidthRecognizer,
    rapid.py's second look)."""
    while hasattr(engine, "recognizer"):
        engine = engine.recognizer
    return engine


def exact_width(engine) -> torch_engines.ExactWidthRecognizer:
    while not isinstance(engine, torch_engines.ExactWidthRecognizer):
        engine = engine.recognizer
    return engine


def test_the_draft_device_follows_the_setting(monkeypatch) -> None:
    monkeypatch.setenv(torch_engines.DEVICE_ENV, "cpu")
    assert torch_engines.draft_device() == "cpu"
    assert torch_engines.draft_device("cuda:1") == "cuda:1"  # an explicit device before the variable
    monkeypatch.setenv(torch_engines.DEVICE_ENV, "gpu")
    with pytest.raises(ValueError, match="HSD_DRAFT_DEVICE must be"):
        torch_engines.draft_device()
    monkeypatch.delenv(torch_engines.DEVICE_ENV)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert torch_engines.draft_device() == "cpu"  # auto where every GPU is hidden: ONNX Runtime
    monkeypatch.setattr(torch_engines, "_may_have_cuda", lambda: True)
    monkeypatch.setattr(torch_models, "available", lambda: False)
    assert torch_engines.draft_device() == "cpu"  # auto without onnx2torch: ONNX Runtime


def test_drafts_run_where_the_target_does(monkeypatch) -> None:
    """--device cuda:N drafts on that GPU (one hsd process per GPU), cpu or mps on the CPU; auto
    and plain cuda leave it to HSD_DRAFT_DEVICE's auto, as does any HSD_DRAFT_DEVICE set."""
    monkeypatch.delenv(torch_engines.DEVICE_ENV, raising=False)
    follows = {d: torch_engines.follow_target(d) for d in ("cuda:1", "cpu", "mps", "auto", "cuda")}
    assert follows == {"cuda:1": "cuda:1", "cpu": "cpu", "mps": "cpu", "auto": None, "cuda": None}
    few, many = CPU_DRAFTING - 1, CPU_DRAFTING  # many workers beside a GPU draft on the host's cores
    assert [torch_engines.follow_target(d, few) for d in ("cuda:1", "auto", "cuda")] == ["cuda:1", None, None]
    assert {torch_engines.follow_target(d, many) for d in ("cuda:1", "auto", "cuda", "cpu")} == {"cpu"}
    monkeypatch.setenv(torch_engines.DEVICE_ENV, "cuda:0")
    assert torch_engines.follow_target("cpu") is None and torch_engines.follow_target("cuda", many) is None
    source = AutoSource("auto", 1, "cuda:1").sources["ocr"]
    assert (source.threads, source.device) == (1, "cuda:1")


@needs_models
@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_outputs_and_drafts_are_onnx_runtimes(onnx_source, torch_source, path: Path, monkeypatch) -> None:
    """Each model's output for each input drafting gave it on the page (detection once, every
    line, the layout), ONNX Runtime's against torch's, within float rounding; and the regions,
    kinds, order, text and boxes drafted from them the same."""
    ocr, layout = onnx_source._ocr, onnx_source._layout
    tocr, tlayout = torch_source._ocr, torch_source._layout
    pairs = (
        (ocr._load_det_model(), tocr.text_det.session),
        (recognizer(ocr.text_rec), recognizer(tocr.text_rec).session),
        (layout.model_handler.model_processors, tlayout.session),
    )
    for owner, session in pairs:
        monkeypatch.setattr(owner, "session", Recorded(owner.session))
        monkeypatch.setattr(session, "model", Recorded(session.model))
    image = page(path)
    want, got = onnx_source.regions(image), torch_source.regions(image)
    tolerance = TOLERANCE[torch_source.device]
    for owner, session in pairs:
        assert owner.session.calls
        rows = {_key(x[i]): [y[i] for y in ys] for x, ys in session.model.calls for i in range(len(x))}
        for x, expected in owner.session.calls:  # batches of one; torch's may hold several lines
            expected = expected if isinstance(expected, list) else [expected]  # rapidocr's: the first output
            for e, g in zip(expected, rows[_key(x[0])], strict=False):
                np.testing.assert_allclose(g, e[0], rtol=0, atol=tolerance)
    assert [(r.kind, r.order, r.level, r.text) for r in got] == [(r.kind, r.order, r.level, r.text) for r in want]
    np.testing.assert_allclose([r.bbox for r in got], [r.bbox for r in want], atol=0.5)


@needs_models
def test_lines_of_one_width_share_a_batch(onnx_source, torch_source, monkeypatch) -> None:
    """Three crops of one width run as one batch, the fourth alone; each reads as it reads alone."""
    from rapidocr.ch_ppocr_rec import TextRecInput

    crops = [np.array(Image.new("RGB", (200, 40), "white")) for _ in range(3)]
    crops.append(np.array(Image.new("RGB", (300, 40), "white")))
    crops[0][10:30, 20:180] = 0  # not all alike: one dark bar
    batches = []
    model = exact_width(torch_source._ocr.text_rec).session.model
    monkeypatch.setattr(model, "module", _counting(model.module, batches))
    got = exact_width(torch_source._ocr.text_rec)(TextRecInput(img=crops))
    want = recognizer(onnx_source._ocr.text_rec)(TextRecInput(img=crops))
    assert sorted(batches) == [1, 3]  # Not [1, 1, 1, 1]: one run per width
    assert got.txts == want.txts
    np.testing.assert_allclose(got.scores, want.scores, atol=1e-3)


def _key(x: np.ndarray) -> tuple:
    return x.shape, x.tobytes()


def _counting(module, batches: list[int]):
    def run(x):
        batches.append(x.shape[0])
        return module(x)

    return run


class FakeModel:
    """A model whose output is its input's row sums, counting the batches it ran."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def __call__(self, x: np.ndarray) -> list[np.ndarray]:
        self.batches.append(len(x))
        return [x.sum(axis=(2, 3))]


def test_a_shape_runs_as_one_batch_when_its_first_input_is_asked_for() -> None:
    """Expected inputs run by shape on first demand, one shape's outputs held at a time; an input
    asked for twice (two identical crops) gets its output twice; an unexpected one runs alone."""
    model = FakeModel()
    session = torch_engines.OcrSession(model)
    wide = [np.full((1, 1, 2, 4), v, np.float32) for v in (1, 2, 2)]
    narrow = [np.full((1, 1, 2, 3), 5, np.float32)]
    session.expect([wide[0], narrow[0], wide[1], wide[2]])
    assert model.batches == []  # nothing runs before it is asked for
    assert session(wide[1]).tolist() == [[16.0]] and model.batches == [3]
    assert session(wide[0]).tolist() == [[8.0]] and session(wide[2]).tolist() == [[16.0]]
    assert session(narrow[0]).tolist() == [[30.0]] and model.batches == [3, 1]
    assert session(np.zeros((1, 1, 2, 5), np.float32)).tolist() == [[0.0]] and model.batches == [3, 1, 1]
