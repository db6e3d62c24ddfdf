"""ONNX Runtime sessions as hsd runs them: every session's thread pool held to the threads hsd
gives it, and every model's denormal weights set to zero.

The draft models' own libraries take options (drafts/rapid_engines.py passes them); pymupdf-layout
opens its sessions with none, so pages/layout_model.py loads it inside `sessions_as_hsd_runs_them`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hsd_cli.config import cache_dir
from hsd_cli.cores import allowed_cpus

FLUSH_VERSION = 1  # part of a flushed copy's name: a change to `flush_denormals` makes new copies


def ort_threads() -> int | None:
    """Threads for the ONNX engines: the CPUs this process may run on where that is fewer than the
    machine has (taskset, a cpuset: a container, a batch scheduler's job); None keeps the default."""
    # ONNX Runtime sizes its pool by the machine's cores, not the process's: confined to one of
    # two cores, its two threads took 54.7 s to draft five dev pages against 38.4 s with one.
    allowed = allowed_cpus()
    return allowed if allowed < (os.cpu_count() or allowed) else None


def flushed(model: Path) -> Path:
    """`model`, or where it holds denormal float weights a copy with them set to zero, made once
    per model file (keyed by its hash) under $HSD_CACHE_DIR/onnx."""
    # PP-OCRv6's detector has two 1x1 convolutions with 63% and 24% denormal weights: on Intel
    # x86 each multiply by one takes a microcode assist (detection 3.4x slower, every draft the
    # same flushed). AMD Zen 4 handles them at full speed; zero costs nothing on either.
    digest = hashlib.sha256(model.read_bytes()).hexdigest()[:20]
    folder = cache_dir() / "onnx"
    copy = folder / f"{model.stem}-{digest}-v{FLUSH_VERSION}.onnx"
    clean = copy.with_suffix(".clean")  # the model holds none: the original is used
    if copy.exists():
        return copy
    if clean.exists():
        return model
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _write_flushed(model, copy, clean)
    except OSError:  # a read-only cache: the model as it is, only slower on some CPUs
        return model
    return copy if copy.exists() else model


def _write_flushed(model: Path, copy: Path, clean: Path) -> None:
    import onnx

    proto = onnx.load(str(model))
    target = copy if flush_denormals(proto) else clean
    partial = target.with_name(f"{target.name}.{os.getpid()}.part")  # workers may race: last rename wins
    if target is copy:
        onnx.save(proto, str(partial))
    else:
        partial.write_text("no denormal weights\n")
    os.replace(partial, target)


def flush_denormals(proto) -> int:
    """Set the denormal floats of `proto`'s weights (initializers, Constant nodes) to zero; how many."""
    import onnx

    tensors = list(proto.graph.initializer)
    for node in proto.graph.node:
        tensors += [a.t for a in node.attribute if a.type == onnx.AttributeProto.TENSOR]
    return sum(_flush_tensor(t) for t in tensors)


def _flush_tensor(tensor) -> int:
    import numpy as np
    from onnx import numpy_helper

    values = numpy_helper.to_array(tensor)
    if values.dtype.kind != "f":
        return 0
    denormal = (values != 0) & (np.abs(values) < np.finfo(values.dtype).tiny)
    count = int(denormal.sum())
    if count:
        tensor.CopyFrom(numpy_helper.from_array(np.where(denormal, values.dtype.type(0), values), tensor.name))
    return count


def cap_threads(options, threads: int | None) -> None:
    """`options` (onnxruntime.SessionOptions) runs `threads` intra-op threads and no inter-op pool
    (the sessions run their nodes in sequence); None keeps ONNX Runtime's default."""
    if threads:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1


@contextmanager
def sessions_as_hsd_runs_them(threads: int | None) -> Iterator[None]:
    """Every `onnxruntime.InferenceSession` opened inside runs `threads` threads on a flushed model:
    for libraries that open sessions without taking options (pymupdf-layout, at import)."""
    import onnxruntime as ort

    plain = ort.InferenceSession

    class HsdSession(plain):
        def __init__(self, model, sess_options=None, *args, **kwargs) -> None:
            options = ort.SessionOptions() if sess_options is None else sess_options
            cap_threads(options, threads)
            if isinstance(model, str | os.PathLike):
                model = str(flushed(Path(model)))
            super().__init__(model, options, *args, **kwargs)

    ort.InferenceSession = HsdSession
    try:
        yield
    finally:
        ort.InferenceSession = plain
