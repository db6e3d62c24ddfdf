"""Lossless with drafts that arrive mid-decode: a page that started without its drafts
(methods/late.py), whose drafts joined its running row at a random step, equals its own batch-1
AR output, beside other pages and with the checkpoint's repetition penalty (float32)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from decoding import run_ar
from make_tiny_model import SERVED
from test_batched import SIZES, _page, _work
from test_lossless import _random_drafts, _random_spec

from hsd_cli.config import SpecConfig
from hsd_cli.driver.batch import Batcher
from hsd_cli.methods.base import PageDrafts, PageWork
from hsd_cli.methods.late import Late

BUDGET = 32
PAGES = 3


class Arriving:
    """A page's drafts made after `after` polls (the driver polls once before each forward pass)."""

    def __init__(self, drafts: list[list[int]], after: int) -> None:
        self.drafts, self.after, self.polls, self.dropped = PageDrafts([drafts]), after, 0, False

    def fetch(self):
        self.polls += 1
        return (self.drafts, "rapidocr") if self.polls > self.after else None

    def drop(self) -> None:
        self.dropped = True


def _late(target, page, ref: list[int], spec: SpecConfig, rng: random.Random, mid: bool) -> tuple:
    """A page that starts without drafts; random drafts of it arrive at a random step (or never;
    `mid`: before the middle of its AR decode)."""
    drafts = _random_drafts(ref, rng, len(target.tokenizer)) or [list(ref)]
    middle = rng.randint(2, max(2, len(ref) // 2))
    arriving = Arriving(drafts, middle if mid else rng.choice([0, 1, middle, rng.randint(2, BUDGET), 10 * BUDGET]))
    work = PageWork(target, page, [], PageDrafts([]), spec)
    return Late("page", arriving.fetch, arriving.drop), work, arriving


@pytest.mark.parametrize("family", SERVED)
def test_drafts_arriving_mid_decode_equal_ar(family, tiny_target):
    """Pages whose drafts join at random steps, beside pages of every method: their own AR tokens."""
    _late_pages_equal_ar(tiny_target(family), random.Random(f"late-{family}"))


@pytest.mark.parametrize("family", ["hunyuan_vl", "qwen2_5_vl"])
def test_drafts_arriving_mid_decode_on_the_static_engine_equal_ar(family, tiny_target):
    """The same on hsd's static cache (a GPU's engine; CUDA graphs there), its AR on transformers'."""
    from test_static_session import static_target

    target = tiny_target(family)
    _late_pages_equal_ar(target, random.Random(f"late-static-{family}"), static_target(target))


def _late_pages_equal_ar(target, rng: random.Random, batched=None) -> None:
    """Late pages decoded on `batched` (default `target`) equal their AR tokens alone on `target`."""
    batched = batched or target
    pages = [_page(i) for i in range(PAGES)]
    refs = [run_ar(target, p, SpecConfig(max_new_tokens=BUDGET)).tokens for p in pages]
    joined_mid_decode = False
    for _ in range(2):
        works, late = [], {}
        for n, i in enumerate(rng.sample(range(PAGES), PAGES)):
            if n == 0 or rng.random() < 0.7:
                method, work, late[i] = _late(batched, pages[i], refs[i], _spec(rng), rng, mid=n == 0)
            else:  # another page of the batch, with its drafts from the start
                method, work = _work(batched, pages[i], refs[i], rng)
                work = replace(work, spec=replace(work.spec, max_new_tokens=BUDGET))
            works.append((i, method, work))
        got = dict(Batcher(batched, rng.randint(1, PAGES)).run(works))
        assert {i: out.tokens for i, out in got.items()} == dict(enumerate(refs))
        for i, arriving in late.items():
            method = next(m for k, m, _ in works if k == i)
            assert method.joined == (arriving.polls > arriving.after)  # they joined once they came
            assert arriving.dropped == (not method.joined)  # else the prepare stage may stop making them
            joined_mid_decode |= method.joined and arriving.after > 1
    assert joined_mid_decode  # drafts really joined a running row
    assert batched is target or batched.static_engine.kv is not None  # the static pool decoded them


def _spec(rng: random.Random) -> SpecConfig:
    return replace(_random_spec(rng), max_new_tokens=BUDGET)


def test_late_drafts_with_the_repetition_penalty_equal_ar(tmp_path_factory):
    """qwen2_5_vl with repetition penalty 1.05: drafts joining mid-decode keep the penalized AR tokens."""
    from make_tiny_model import build_tiny_model

    from hsd_cli.targets.runtime.registry import load_target

    path = build_tiny_model("qwen2_5_vl", tmp_path_factory.mktemp("penalized"), generation={"repetition_penalty": 1.05})
    target = load_target(str(path), "cpu", "fp32")
    assert target.repetition_penalty == 1.05
    rng = random.Random("late-penalty")
    pages = [_page(i) for i in range(len(SIZES))][:PAGES]
    spec = SpecConfig(max_new_tokens=BUDGET, repeat_guard=0)
    refs = [run_ar(target, p, spec).tokens for p in pages]
    for _ in range(3):
        arrivals = [Arriving(_penalty_drafts(ref, rng), rng.randint(0, BUDGET // 2)) for ref in refs]
        works = [
            (i, Late("page", a.fetch, a.drop), PageWork(target, p, [], PageDrafts([]), spec))
            for i, (p, a) in enumerate(zip(pages, arrivals, strict=True))
        ]
        got = dict(Batcher(target, rng.randint(1, PAGES)).run(works))
        assert [got[i].tokens for i in range(PAGES)] == refs


def _penalty_drafts(ref: list[int], rng: random.Random) -> list[list[int]]:
    """The AR output itself, corrupted, or cut in pieces (as the penalty parity test drafts)."""
    noisy = [t if i % 7 else 3 for i, t in enumerate(ref)]
    return rng.choice([[ref], [noisy], [ref[10:], ref[:10]]])
