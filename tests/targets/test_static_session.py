"""Lossless on hsd's static KV cache: a page's tau = 1 output through StaticSession equals its
AR output on today's HFSession, token for token, with pages joining and leaving the batch at
random and drafts random (float32, every family)."""

from __future__ import annotations

import copy
import gc
import random

import pytest
import torch
from decoding import ar_decode
from make_tiny_model import SERVED
from test_batched import SIZES, _batches_equal_their_own_ar, _page

from hsd_cli.config import SpecConfig
from hsd_cli.spec.decode import SpecStepper
from hsd_cli.spec.stop import StopRule
from hsd_cli.targets.runtime import costs
from hsd_cli.targets.runtime.static_session import StaticEngine, StaticSession, engine_for


def static_target(target, mode: str | None = None, backend=None):
    """The same model and processor, decoding on a StaticEngine of its own (CUDA graphs on a GPU)."""
    mode = mode or ("graphs" if target.device.type == "cuda" else "eager")
    out = copy.copy(target)
    out.static_engine = StaticEngine(mode, backend)
    return out


@pytest.mark.parametrize("family", SERVED)
def test_static_batches_equal_ar(family, tiny_target):
    """Random methods, drafts and batch sizes on the static engine: every page's tokens are its
    HFSession AR tokens; pool rows are freed and reused as pages leave and join."""
    target = tiny_target(family)
    static = static_target(target)
    batcher = _batches_equal_their_own_ar(target, random.Random(f"static-{family}"), static)
    kv = static.static_engine.kv
    assert isinstance(batcher.stepper.session, StaticSession)
    del batcher  # the last rows stop without leaving: their session gives them back when it goes
    gc.collect()
    assert sorted(kv.free) == list(range(kv.capacity[0]))


def test_cost_curve_is_measured_on_the_static_step(tiny_target):
    """A target on the static engine prices trees by its own steps, not by transformers' eager ones."""
    target = tiny_target("qwen2_5_vl")
    engine = StaticEngine()
    points = costs.measure(target.model, target.family.n_axes, sizes=(1, 8), reps=1, fit=False, engine=engine)
    assert [k for k, _ in points] == [1, 8] and engine.kv is not None
    batch = costs._batch(target.model, 16, target.family.n_axes, 3, engine)
    assert isinstance(batch, StaticSession) and len(batch.live) == 3


def test_the_engine_is_cudas_unless_graphs_are_off():
    assert engine_for(torch.device("cpu"), True) is None  # CPU: transformers' cache, as before
    assert engine_for(torch.device("cuda"), False) is None
    assert engine_for(torch.device("cuda"), True).mode == "graphs"


def joining_one_at_a_time(target, static, rows: int = 10) -> tuple[list, list]:
    """`rows` pages' rows join `static`'s batch one a pass, every other one with drafts: their
    tokens, and each page's AR tokens on `target`."""
    rule = StopRule(target.eos_ids, 12)
    images = [_page(i % len(SIZES)).image.rotate(90 * (i // len(SIZES)), expand=True) for i in range(rows)]
    want = [ar_decode(*target.prefill([im], "OCR"), rule)[0].tokens for im in images]
    stepper = SpecStepper()
    for i, image in enumerate(images):
        drafts = [[want[i][: i + 2]]] if i % 2 else [[]]
        stepper.add(*static.prefill([image], "OCR"), drafts, SpecConfig(max_new_tokens=12), rule)
        stepper.step()
    while not stepper.done:
        stepper.step()
    return [r.tokens for r in stepper.results()], want


def test_rows_joining_past_the_first_allocation(tiny_target):
    """Ten rows join one at a time, some with drafts: the pool grows its rows (reallocated once,
    rows kept) and every row decodes its own AR tokens, as before and after the growth."""
    target = tiny_target("qwen2_5_vl")
    static = static_target(target)
    got, want = joining_one_at_a_time(target, static)
    assert got == want
    assert static.static_engine.kv.generation > 1  # the pool really grew
