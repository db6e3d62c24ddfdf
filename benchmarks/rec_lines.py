"""Drafting's recogniser in torch, one text line a call, as drafting runs it on a GPU: what a line
costs at a width the process has not seen yet and at one it has, with cuDNN's convolutions and
with torch's own, and whether each reads every frame as ONNX Runtime does.

    python benchmarks/rec_lines.py [--device cuda] [--widths 40]   (draft_rate.py runs it on CUDA)

Each line is recognised at its own width (drafts/rapid_engines.py), so a page brings dozens of
input shapes; cuDNN plans a convolution per shape, on the host, the first time it sees one. The
probe's lines are random pixels 48 high, widths drawn without repeats (each arm its own, so no
arm meets a width another planned). `first_ms` / `again_ms`: medians of wall ms a line, output
read back; `cpu_ms`: the process's CPU ms a first-seen line (a drafting worker's share of the
host); `frames_as_onnxruntime`: the share of CTC frames whose best class is ONNX Runtime's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

HEIGHT = 48  # the recogniser's input height
WIDTHS = (96, 1600)  # a line's input width, at least twice its height (rapid_engines.py)


def probe(device: str, widths: int = 40) -> dict:
    """Per arm (`cudnn`, `native`; on a CPU `torch` alone): ms a line first seen and again, CPU ms
    a first-seen line, and the share of frames read as ONNX Runtime reads them."""
    import onnxruntime as ort
    import torch

    from hsd_cli.drafts.rapid_engines import engine_options
    from hsd_cli.pages.torch_models import TorchModel

    path = Path(engine_options(0.5, None)[0]["Rec.model_path"])
    model = TorchModel(path, device)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    arms = ("cudnn", "native") if device.startswith("cuda") else ("torch",)
    rng = np.random.default_rng(0)
    drawn = rng.choice(np.arange(*WIDTHS), size=widths * len(arms), replace=False)
    out = {"device": device, "lines": widths}
    for i, arm in enumerate(arms):
        lines = [rng.random((1, 3, HEIGHT, int(w)), dtype=np.float32) for w in drawn[i :: len(arms)]]
        with torch.backends.cudnn.flags(enabled=arm != "native"):
            first = [_timed(model, x) for x in lines]
            again = [_timed(model, x) for x in lines]
            same = [_agreement(model(x)[0], session.run(None, {session.get_inputs()[0].name: x})[0]) for x in lines]
        out[arm] = {
            "first_ms": round(statistics.median(w for w, _ in first), 2),
            "again_ms": round(statistics.median(w for w, _ in again), 2),
            "cpu_ms": round(statistics.median(c for _, c in first), 2),
            "frames_as_onnxruntime": round(float(np.mean(same)), 5),
        }
    return out


def _timed(model, x: np.ndarray) -> tuple[float, float]:
    """Wall and process CPU ms of one call, its output read back (the host waits for it)."""
    wall, cpu = time.perf_counter(), time.process_time()
    model(x)
    return 1e3 * (time.perf_counter() - wall), 1e3 * (time.process_time() - cpu)


def _agreement(got: np.ndarray, want: np.ndarray) -> float:
    """The share of frames whose best class is the same in both outputs ([1, frames, classes])."""
    return float((got.argmax(-1) == want.argmax(-1)).mean())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda")
    p.add_argument("--widths", type=int, default=40, help="line widths an arm recognises")
    opts = p.parse_args(argv)
    print(json.dumps(probe(opts.device, opts.widths), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
