"""One static-shape forward over a bucket of the KV pool, run eager, compiled or as a CUDA graph.

`tree_forward` is the whole step on the device: the additive mask [rows, 1, K, slots] and the
rope positions built from the pool's write pointers and next positions, the model's forward, its
logits. Its shapes depend only on the bucket (rows, K, slots), so `StepRunner` compiles it once
per bucket (`torch.compile`, dynamic=False; or a few times for all, dynamic=True) and, on CUDA,
captures it once per bucket (at its second use) in a `torch.cuda.CUDAGraph` over persistent input
buffers, replayed every later step of that bucket.
"""

from __future__ import annotations

import logging
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import torch

from hsd_cli.targets.runtime.attention import takes_block_masks
from hsd_cli.targets.runtime.ragged import block_mask as ragged_mask
from hsd_cli.targets.runtime.static_cache import StaticKV, allow_bucket_compiles, keep_paths

log = logging.getLogger(__name__)
_TORCH = Path(torch.__file__).parent

MODES = ("eager", "compile", "graphs")  # graphs: CUDA graphs (of the compiled step where compile is asked too)


def tree_forward(
    model,
    kv: StaticKV,
    ids: torch.Tensor,
    ancestry: torch.Tensor,
    depth: torch.Tensor,
    n_axes: int,
    ragged: bool = False,
) -> torch.Tensor:
    """ids [R, K], ancestry [R, K, K] bool, depth [R, K] -> logits [R, K, V] over the pool's rows [0, R).

    Node i of row r sits at slot ptr[r] + i: it sees the row's slots before ptr[r] and its
    ancestors' slots; its position is next_pos[r] + depth (text positions are equal on every
    M-RoPE axis). Padding rows and nodes see only themselves. `ragged`: the same mask as a block
    mask, each row's attention reading its own slots only (runtime/ragged.py)."""
    rows, k = ids.shape
    pos = kv.next_pos[:rows, None] + depth  # [R, K]
    if n_axes:
        pos = pos[None].expand(n_axes, rows, k)
    mask = ragged_mask(kv.ptr[:rows], ancestry, kv.slots) if ragged else dense_mask(kv, ancestry)
    kv.write_at = kv.ptr[:rows, None] + torch.arange(k, device=ids.device)
    try:
        out = model(input_ids=ids, attention_mask=mask, position_ids=pos, past_key_values=kv, use_cache=True)
    finally:
        kv.write_at = None
    return out.logits


def dense_mask(kv: StaticKV, ancestry: torch.Tensor) -> torch.Tensor:
    """The step's additive mask [R, 1, K, slots] (0 where a node sees a slot, the dtype's minimum elsewhere)."""
    rows, k = ancestry.shape[:2]
    dev = ancestry.device
    ptr = kv.ptr[:rows]
    rel = torch.arange(kv.slots, device=dev)[None, :] - ptr[:, None]  # [R, S]: slot - ptr
    col = rel.clamp(0, k - 1)[:, None, :].expand(rows, k, kv.slots)
    in_tree = ((rel >= 0) & (rel < k))[:, None, :] & ancestry.gather(2, col)  # [R, K, S]
    allowed = (rel < 0)[:, None, :] | in_tree
    dtype = kv.dtype
    # Additive float mask: eager attention adds a bool mask as 0/1 (silently wrong).
    mask = torch.zeros(allowed.shape, dtype=dtype, device=dev).masked_fill(~allowed, torch.finfo(dtype).min)
    return mask[:, None]


@dataclass
class _Graph:
    """A captured call: its input buffers and its output, valid for one pool generation."""

    graph: torch.cuda.CUDAGraph
    inputs: tuple[torch.Tensor, ...]
    output: torch.Tensor | None
    generation: int


class StepRunner:
    """Runs `tree_forward` and `keep_paths` per bucket: eager, compiled once per bucket (the step),
    or captured once per bucket (at its second use) as CUDA graphs and replayed.

    `backend` is torch.compile's (tests pass a counting backend); None: inductor. `dynamic`:
    torch.compile's: True compiles the step once for any rows, widths and slots (sizes of 1 apart:
    at most four compiles), instead of once per bucket; a graph is still captured per bucket.
    `ragged`: each row's attention reads its own slots (runtime/ragged.py), where the model's
    attention takes a block mask; else the dense mask."""

    def __init__(
        self,
        model,
        kv: StaticKV,
        n_axes: int,
        mode: str = "eager",
        backend=None,
        dynamic: bool = False,
        ragged: bool = False,
    ):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        self.model, self.kv, self.n_axes, self.mode = model, kv, n_axes, mode
        self.ragged = ragged and takes_block_masks(model)
        if ragged and not self.ragged:
            log.warning("ragged attention needs the model on transformers' sdpa attention: the step reads dense")
        self.graphs: dict[tuple, _Graph] = {}
        self.failed: set[tuple] = set()  # buckets whose capture failed: run eager
        self.used: dict[tuple, int] = {}  # bucket -> pool generation of its eager first use
        # Captures so far and their seconds (warm-up runs included): a bucket's second pass, and its
        # second again after the pool is reallocated, costs an eager step or two (benchmarks report it).
        self.captures, self.capture_s = 0, 0.0
        # One memory pool for every bucket's graph: a replay rewrites its intermediates before it
        # reads them, and what outlives a replay (inputs, logits, the KV pool) is held, never reused.
        self.pool = torch.cuda.graph_pool_handle() if mode == "graphs" and torch.cuda.is_available() else None
        self.forward = tree_forward
        if mode == "compile" or backend is not None:
            allow_bucket_compiles()
            self.forward = torch.compile(tree_forward, backend=backend or "inductor", dynamic=dynamic, fullgraph=True)

    def __call__(self, ids: torch.Tensor, ancestry: torch.Tensor, depth: torch.Tensor) -> torch.Tensor:
        """Logits [R, K, V] of the bucket; a graph's output buffer is overwritten by its next replay.
        Warm-up runs of a capture are harmless: a step writes only slots past each row's pointer."""
        key = ("step", *ids.shape, self.kv.slots)
        inputs = (ids, ancestry, depth)
        return self._run(key, self._step, inputs, inputs)

    def commit(self, paths: torch.Tensor, lengths: torch.Tensor, moved: bool) -> None:
        """static_cache.keep_paths over the bucket's rows; warmed up on paths that keep every slot
        where it is and lengths 0 (a commit run twice would advance the pointers twice)."""
        if not moved:  # two additions: nothing to capture
            with torch.inference_mode():
                keep_paths(self.kv, paths, lengths, False)
            return
        still = (torch.arange(paths.shape[1], device=paths.device).expand_as(paths), torch.zeros_like(lengths))
        self._run(("commit", *paths.shape), self._commit, (paths, lengths), still)

    def _step(self, ids: torch.Tensor, ancestry: torch.Tensor, depth: torch.Tensor) -> torch.Tensor:
        return self.forward(self.model, self.kv, ids, ancestry, depth, self.n_axes, self.ragged)

    def _commit(self, paths: torch.Tensor, lengths: torch.Tensor) -> None:
        keep_paths(self.kv, paths, lengths, True)

    def _graphs_on(self, t: torch.Tensor) -> bool:
        return self.mode == "graphs" and t.device.type == "cuda"

    def _run(self, key: tuple, fn, inputs: tuple, warm: tuple):
        """`fn(*inputs)`: replayed from its bucket's graph, or eager where graphs are off or its
        capture failed. A bucket's first use on a pool runs eager and its second captures it (again
        once the pool was reallocated): a capture costs about two eager steps, and while pages join
        or leave a batch, a bucket is often used once (the eager use also warms it up)."""
        if not self._graphs_on(inputs[0]) or key in self.failed:
            with torch.inference_mode():
                return fn(*inputs)
        graph = self.graphs.get(key)
        if graph is None or graph.generation != self.kv.generation:
            if self.used.get(key) != self.kv.generation:
                self.used[key] = self.kv.generation
                with torch.inference_mode():
                    return fn(*inputs)
            t0 = time.perf_counter()
            graph = self._capture(key, fn, warm, warmups=0 if self.graphs else 1)
            if inputs[0].is_cuda:  # the capture's own time, not the work queued before it
                torch.cuda.synchronize(inputs[0].device)
            self.captures, self.capture_s = self.captures + 1, self.capture_s + time.perf_counter() - t0
            if graph is None:
                return self._run(key, fn, inputs, warm)
        for buf, x in zip(graph.inputs, inputs, strict=True):
            buf.copy_(x)
        graph.graph.replay()
        return graph.output

    def _capture(self, key: tuple, fn, warm: tuple, warmups: int) -> _Graph | None:
        """Capture `fn` over input buffers, after `warmups` runs on a side stream: the runner's
        first capture warms up the device's libraries; later buckets were warmed by their eager
        first use, and retry with a warm-up if their capture fails. A bucket that cannot be
        captured runs eager from then on (logged: lossless either way, only slower)."""
        bufs = tuple(w.clone() for w in warm)
        try:
            with torch.inference_mode():
                stream = torch.cuda.Stream()
                stream.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(stream):
                    for _ in range(warmups):
                        fn(*bufs)
                torch.cuda.current_stream().wait_stream(stream)
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph, pool=self.pool):
                    output = fn(*bufs)
        except torch.cuda.OutOfMemoryError:
            raise  # the driver's to handle (a smaller batch), not a reason to run eager
        except RuntimeError as exc:  # dynamo's and inductor's errors are RuntimeErrors too
            if not warmups:
                return self._capture(key, fn, warm, 1)
            if self.forward is not tree_forward:
                log.warning("the compiled step failed for %s, capturing it uncompiled: %s", key, _told(exc))
                self.forward = tree_forward
                return self._capture(key, fn, warm, warmups)
            log.warning("CUDA graph capture failed for %s, running it eager: %s", key, _told(exc))
            self.failed.add(key)
            return None
        self.graphs[key] = _Graph(graph, bufs, output, self.kv.generation)
        return self.graphs[key]


def _told(exc: Exception) -> str:
    """The error and the last call outside torch that raised it (the model's line or hsd's), as
    text: a log record holding the exception would keep its frames, and the sessions in them, alive."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not Path(f.filename).is_relative_to(_TORCH)]
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno}: {frames[-1].line})" if frames else ""
    return f"{exc}{where}"
