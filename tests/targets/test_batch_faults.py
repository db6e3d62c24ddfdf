"""Faults under batching: out of memory halves the batch before anything fails; a page that
does not fit even alone fails alone; every other page's output is its batch-1 output."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch
from decoding import OOM, FaultyTarget, decode_page
from test_batched import _page

from hsd_cli.config import SpecConfig
from hsd_cli.driver.batch import Batcher
from hsd_cli.methods.ar import AR
from hsd_cli.methods.base import PageDrafts, PageWork
from hsd_cli.methods.page import Page
from hsd_cli.targets.runtime.session import HFSession

SPEC = SpecConfig(max_new_tokens=24)


def _works(target, pages):
    ar = [decode_page(AR(), PageWork(target, p, [], PageDrafts([]), SPEC)).tokens for p in pages]
    drafts = [PageDrafts([[t[: len(t) // 2], t[len(t) // 2 :]]]) for t in ar]
    return ar, [
        (i, Page(), PageWork(target, p, [], d, SPEC)) for i, (p, d) in enumerate(zip(pages, drafts, strict=True))
    ]


def test_out_of_memory_in_a_step_halves_the_batch(tiny_target, monkeypatch):
    target = tiny_target("qwen2_5_vl")
    pages = [_page(i) for i in range(4)]
    ar, works = _works(target, pages)
    real_step = HFSession.step

    def step(self, ids, ancestry, depth):  # a device that holds two rows' trees at most
        if ids.shape[0] > 2:
            raise torch.OutOfMemoryError(OOM)
        return real_step(self, ids, ancestry, depth)

    monkeypatch.setattr(HFSession, "step", step)
    batcher = Batcher(target, 4)
    got = dict(batcher.run(works))
    assert [got[i].tokens for i in range(4)] == ar
    assert batcher.limit == 2 and max(batcher.rows_per_step) == 2


def test_a_page_that_never_fits_fails_alone(tiny_target):
    target = tiny_target("qwen2_5_vl")
    pages = [_page(i) for i in range(4)]
    ar, works = _works(target, pages)
    faulty = FaultyTarget(target, oom_sizes={pages[2].image.size})
    works = [(i, m, replace(w, target=faulty)) for i, m, w in works]
    got = dict(Batcher(faulty, 4).run(works))
    assert isinstance(got.pop(2), torch.OutOfMemoryError)
    assert {i: out.tokens for i, out in got.items()} == {i: ar[i] for i in (0, 1, 3)}


@pytest.mark.parametrize("pages", [1, 3])
def test_a_page_failing_in_its_method_leaves_the_others(tiny_target, pages):
    target = tiny_target("qwen2_5_vl")
    ar, works = _works(target, [_page(i) for i in range(3)])
    bad = PageWork(target, _page(4), [], PageDrafts([]), replace(SPEC, max_new_tokens=24))

    class Broken(AR):
        def start(self, work):
            yield from ()
            raise ValueError("broken method")

    got = dict(Batcher(target, pages).run([*works[:2], (9, Broken(), bad), works[2]]))
    assert isinstance(got.pop(9), ValueError)
    assert [got[i].tokens for i in range(3)] == ar
