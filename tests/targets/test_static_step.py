"""The static step compiles and captures: one graph per bucket with no graph break, no host sync
inside a step or a commit, and the same tokens as AR when compiled (CPU) or replayed as CUDA graphs."""

from __future__ import annotations

import contextlib
import random
from dataclasses import replace
from types import SimpleNamespace

import pytest
import torch
from decoding import run_ar, run_page
from make_tiny_model import SERVED
from test_batched import _page
from test_lossless import _random_drafts
from test_static_session import joining_one_at_a_time, static_target
from torch.utils._python_dispatch import TorchDispatchMode

from hsd_cli.config import SpecConfig
from hsd_cli.targets.runtime.static_cache import StaticKV
from hsd_cli.targets.runtime.static_step import StepRunner

# Ops that wait for the device: reading a scalar, or a result whose shape depends on the data.
SYNCS = {torch.ops.aten._local_scalar_dense.default, torch.ops.aten.item.default, torch.ops.aten.nonzero.default}


class CountingBackend:
    """A torch.compile backend that counts the graphs it is given and runs them as traced."""

    def __init__(self) -> None:
        self.graphs = 0

    def __call__(self, gm, example_inputs):
        self.graphs += 1
        return gm.forward


class SyncCounter(TorchDispatchMode):
    """Counts the ops that read a device value back to the host."""

    def __init__(self) -> None:
        super().__init__()
        self.syncs: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func in SYNCS:
            self.syncs.append(str(func))
        return func(*args, **(kwargs or {}))


def _buckets(monkeypatch, generations: list[int] | None = None) -> list[tuple[int, int, int]]:
    """The (rows, width, slots) bucket of every step the runners take from now on (and the pool's
    generation at each, into `generations`)."""
    seen: list[tuple[int, int, int]] = []
    real = StepRunner.__call__

    def call(self, ids, ancestry, depth):
        seen.append((*ids.shape, self.kv.slots))
        if generations is not None:
            generations.append(self.kv.generation)
        return real(self, ids, ancestry, depth)

    monkeypatch.setattr(StepRunner, "__call__", call)
    return seen


def test_compiled_step_is_one_graph_per_bucket(tiny_target, monkeypatch):
    """torch.compile(fullgraph=True) of the step: no graph break (fullgraph raises on one), one
    compile per bucket however positions, masks and trees change within it; tokens are AR's."""
    target = tiny_target("qwen2_5_vl")
    spec = SpecConfig(max_new_tokens=24, max_depth=6)
    page = _page(0)
    ref = run_ar(target, page, spec).tokens
    backend = CountingBackend()
    static = static_target(target, "compile", backend)
    seen = _buckets(monkeypatch)
    drafts = _random_drafts(ref, random.Random(3), len(target.tokenizer)) + [ref[:12]]
    assert run_page(static, page, drafts, spec).tokens == ref
    assert run_ar(static, page, replace(spec, max_new_tokens=8)).tokens == ref[:8]
    assert len(seen) > len(set(seen))  # buckets were reused
    assert backend.graphs == len(set(seen))  # Not one per step: positions and masks are inputs


def test_a_dynamic_compile_serves_buckets_it_has_not_seen(tiny_target, monkeypatch):
    """dynamic=True: the step compiles for any rows, widths and slots (sizes of 1 apart), so a batch
    whose rows join one at a time compiles a few times, not once per bucket; tokens are AR's."""
    target = tiny_target("qwen2_5_vl")
    backend = CountingBackend()
    static = static_target(target, "compile", backend)
    static.static_engine.dynamic = True
    seen = _buckets(monkeypatch)
    got, want = joining_one_at_a_time(target, static)
    assert got == want
    assert len(set(seen)) >= 8 and backend.graphs <= 4


@pytest.mark.parametrize("family", SERVED)
def test_no_host_sync_inside_a_step(family, tiny_target):
    """Step and commit queue device work only: no `.item()` or `_local_scalar_dense` (each a
    device-to-host wait on a GPU, which a CUDA graph cannot capture)."""
    target = static_target(tiny_target(family))
    session, first = target.prefill([_page(0).image], "OCR")
    tok = int(first.argmax(-1))
    ids = torch.tensor([[tok, 11, 12, 13]])
    ancestry = torch.tensor([[[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 0, 0, 1]]], dtype=torch.bool)
    depth = torch.tensor([[0, 1, 2, 1]])
    with SyncCounter() as counter:
        session.step(ids, ancestry, depth)
        session.commit([[0, 3]])  # a branch off the chain: the commit moves slots
        session.step(ids[:, :1], ancestry[:, :1, :1], depth[:, :1])
        session.commit([[0]])
    assert counter.syncs == []


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA graphs need a GPU")
@pytest.mark.parametrize("family", SERVED)
def test_cuda_graphs_equal_ar(family, tiny_target, monkeypatch):
    """Replayed CUDA graphs, one captured per bucket at its second use on a pool (none failing):
    the tokens of eager AR."""
    target = tiny_target(family)
    if target.device.type != "cuda":
        pytest.skip("run with HSD_TEST_DEVICE=cuda")
    spec = SpecConfig(max_new_tokens=32, max_depth=8)
    page = _page(1)
    ref = run_ar(target, page, spec).tokens
    static = static_target(target, "graphs")
    generations: list[int] = []
    seen = _buckets(monkeypatch, generations)
    assert run_page(static, page, [ref[:20]], spec).tokens == ref
    assert run_ar(static, page, spec).tokens == ref
    runner = static.static_engine.runner
    # DeepSeek-OCR2's step was not captured on an H200 in float32 (a copy between host and device
    # inside it; its mixture of experts is what the other families lack): such a step runs eager,
    # logged with the line that failed.
    experts = any(hasattr(m, "num_experts") for m in target.model.modules())
    assert experts or not runner.failed
    uses = list(zip(seen, generations, strict=True))
    reused = {bucket for bucket, generation in uses if uses.count((bucket, generation)) > 1}
    assert {key[1:] for key in [*runner.graphs, *runner.failed] if key[0] == "step"} == reused


class _FakeGraph:
    """torch.cuda.CUDAGraph's calls without a GPU: counts captures and replays."""

    captured = 0
    inside = False  # within a capture

    def __init__(self) -> None:
        self.replays = 0

    def replay(self) -> None:
        self.replays += 1


@contextlib.contextmanager
def _capturing(graph, pool=None):
    _FakeGraph.captured += 1
    _FakeGraph.inside = True
    try:
        yield
    finally:
        _FakeGraph.inside = False


def _fake_cuda(monkeypatch) -> None:
    """StepRunner's graph path on the CPU: its capture and replay calls, not their effect."""
    _FakeGraph.captured = 0
    monkeypatch.setattr(torch.cuda, "CUDAGraph", _FakeGraph)
    monkeypatch.setattr(torch.cuda, "graph", _capturing)
    stream = SimpleNamespace(wait_stream=lambda other: None)
    monkeypatch.setattr(torch.cuda, "Stream", lambda: stream)
    monkeypatch.setattr(torch.cuda, "stream", lambda s: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "current_stream", lambda: stream)
    monkeypatch.setattr(StepRunner, "_graphs_on", lambda self, t: True)


def test_a_bucket_runs_eager_first_and_is_captured_at_its_second_use(monkeypatch):
    """Once per bucket and again after a reallocation; the runner's first capture is warmed up on a
    side stream, later ones by their bucket's eager first use; a bucket used once is never captured."""
    _fake_cuda(monkeypatch)
    kv = StaticKV([(1, 1, 1)], torch.float32, "cpu", 2, 64)
    runner = StepRunner(None, kv, 0, "graphs")
    calls = []

    def fn(x: torch.Tensor) -> torch.Tensor:
        calls.append(x.clone())
        return x * 2

    x = torch.ones(2)
    assert runner._run(("a",), fn, (x,), (x,)).tolist() == [2.0, 2.0]
    assert len(calls) == 1 and _FakeGraph.captured == 0  # eager
    out = runner._run(("a",), fn, (torch.full((2,), 5.0),), (x,))
    assert len(calls) == 3 and _FakeGraph.captured == 1  # a warm-up run, then the capture
    graph = runner.graphs[("a",)]
    assert graph.graph.replays == 1 and graph.inputs[0].tolist() == [5.0, 5.0]
    assert torch.equal(out, graph.output)  # the output buffer a replay rewrites
    runner._run(("a",), fn, (x,), (x,))
    assert len(calls) == 3 and graph.graph.replays == 2
    runner._run(("b",), fn, (x,), (x,))  # used once: eager
    runner._run(("b",), fn, (x,), (x,))
    assert len(calls) == 5 and _FakeGraph.captured == 2  # no warm-up: its first use warmed it up
    kv.reserve(3, 64)  # reallocated: graphs over the old tensors are stale
    for _ in range(2):
        runner._run(("a",), fn, (x,), (x,))
    assert _FakeGraph.captured == 3 and runner.captures == 3 and runner.capture_s > 0  # benchmarks report them


def test_a_bucket_whose_capture_fails_runs_eager_and_out_of_memory_is_raised(monkeypatch, caplog):
    """A capture that fails without a warm-up is tried again after one, then the bucket runs eager.
    The warning names the line that failed and holds text only: a record holding the exception
    kept its frames, and a session in them never gave its pool rows back (seen on an H200)."""
    _fake_cuda(monkeypatch)
    runner = StepRunner(None, StaticKV([(1, 1, 1)], torch.float32, "cpu", 2, 64), 0, "graphs")
    runner.graphs[("old",)] = None  # an earlier capture: later ones start without a warm-up
    capturing = []

    def flaky(x: torch.Tensor) -> torch.Tensor:
        if _FakeGraph.inside:
            capturing.append(True)
            raise RuntimeError("operation not permitted when stream is capturing")
        return x + 1

    for _ in range(3):
        assert runner._run(("a",), flaky, (torch.zeros(1),), (torch.zeros(1),)).tolist() == [1.0]
    assert len(capturing) == 2  # without a warm-up, then with one
    assert runner.failed == {("a",)} and set(runner.graphs) == {("old",)}
    (record,) = caplog.records
    assert "test_static_step.py" in record.getMessage() and "raise RuntimeError" in record.getMessage()
    assert not any(isinstance(a, BaseException) for a in record.args)

    def oom(x):
        if _FakeGraph.inside:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory")
        return x

    runner._run(("b",), oom, (torch.zeros(1),), (torch.zeros(1),))
    with pytest.raises(torch.cuda.OutOfMemoryError):
        runner._run(("b",), oom, (torch.zeros(1),), (torch.zeros(1),))
