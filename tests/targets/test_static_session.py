"""Lossless on hsd's static KV cache: a page's tau = 1 output through StaticSession equals its
AR output on today's HFSession, token for token, with pages joining and leaving the batch at
random and drafts random (float32, every family)."""

from __future__ import annotations

import copy
import gc
import random
from dataclasses import replace

import pytest
from conftest import FAMILIES
from decoding import run_ar
from test_batched import BUDGET, SIZES, _page, _work
from test_lossless import _random_spec

from hsd_cli.driver.batch import Batcher
from hsd_cli.targets.runtime.static_session import StaticEngine, StaticSession


def static_target(target, mode: str = "eager", backend=None):
    """The same model and processor, decoding on a StaticEngine of its own."""
    out = copy.copy(target)
    out.static_engine = StaticEngine(mode, backend)
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_static_batches_equal_ar(family, tiny_target):
    """Random methods, drafts and batch sizes on the static engine: every page's tokens are its
    HFSession AR tokens; pool rows are freed and reused as pages leave and join."""
    target = tiny_target(family)
    static, rng = static_target(target), random.Random(f"static-{family}")
    pages = [_page(i) for i in range(len(SIZES))]
    refs = [run_ar(target, p, replace(_random_spec(rng), max_new_tokens=BUDGET)).tokens for p in pages]
    for _ in range(3):
        order = rng.sample(range(len(pages)), len(pages))
        works = [(i, *_work(static, pages[i], refs[i], rng)) for i in order]
        batcher = Batcher(static, rng.randint(2, 4))
        got = dict(batcher.run(works))
        assert {i: out.tokens for i, out in got.items()} == dict(enumerate(refs))
        assert max(batcher.rows_per_step) > 1  # pages really shared forward passes
    kv = static.static_engine.kv
    assert isinstance(batcher.stepper.session, StaticSession)
    del batcher, got  # the last rows stop without leaving: their session gives them back when it goes
    gc.collect()
    assert sorted(kv.free) == list(range(kv.capacity[0]))
