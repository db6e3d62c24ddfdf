"""Lossless under batching: a page's tau = 1 output equals its own batch-1 AR output, whatever
pages share its forward passes (other documents' sizes and prompts, rows joining and leaving)."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
from decoding import decode_page, run_ar
from make_tiny_model import SERVED
from PIL import Image, ImageDraw
from test_lossless import REGIONS, _random_drafts, _random_spec

from hsd_cli.datatypes import PageImage
from hsd_cli.driver.batch import Batcher
from hsd_cli.methods.ar import AR
from hsd_cli.methods.base import PageDrafts, PageWork
from hsd_cli.methods.hsd import HSD
from hsd_cli.methods.page import Page

BUDGET = 40
SIZES = [(480, 640), (400, 520), (560, 420), (320, 480), (500, 700)]


def _page(i: int) -> PageImage:
    img = Image.new("RGB", SIZES[i], "white")
    draw = ImageDraw.Draw(img)
    draw.text((30, 20), f"Document {i}", fill="black")
    for j in range(4 + 2 * i):
        draw.text((30, 60 + 36 * j), f"Row {j * i}: figures {i + j} and {j * 7}", fill="black")
    return PageImage(Path(f"doc{i}.png"), 0, img, 72)


def _work(target, page: PageImage, ref: list[int], rng: random.Random) -> tuple:
    """A random method on the page with random drafts and settings."""
    spec = replace(_random_spec(rng), max_new_tokens=BUDGET)
    vocab = len(target.tokenizer)
    kind = rng.choice(["ar", "page", "hsd"])
    if kind == "ar":
        return AR(), PageWork(target, page, [], PageDrafts([]), spec)
    if kind == "page":
        return Page(), PageWork(target, page, [], PageDrafts([_random_drafts(ref, rng, vocab)]), spec)
    drafts = [_random_drafts(ref, rng, vocab) for _ in REGIONS] + [[ref[: rng.randint(0, len(ref))]]]
    return HSD(), PageWork(target, page, list(REGIONS), PageDrafts(drafts), spec)


@pytest.mark.parametrize("family", SERVED)
def test_batched_pages_equal_their_own_ar(family, tiny_target):
    _batches_equal_their_own_ar(tiny_target(family), random.Random(f"batch-{family}"))


@pytest.mark.parametrize("family", ["hunyuan_vl", "paddleocr_vl"])
def test_inputs_made_in_a_thread_decode_as_before(family, tiny_target, monkeypatch):
    """Every request's inputs made by a copy of the processor in the driver's thread while the
    model prefills the request before it: each page still decodes as its own AR."""
    import threading

    from hsd_cli.targets.runtime.base import VisionTarget

    made_in = []
    real = VisionTarget.model_inputs

    def model_inputs(self, images, prompt, processor=None):
        made_in.append((threading.current_thread().name, processor is None))
        return real(self, images, prompt, processor)

    monkeypatch.setattr(VisionTarget, "model_inputs", model_inputs)
    _batches_equal_their_own_ar(tiny_target(family), random.Random(f"ahead-{family}"), inputs_ahead=True)
    ahead = [own for name, own in made_in if name.startswith("hsd-inputs")]
    assert ahead and not any(ahead)  # made in the thread, by the copied processor


@pytest.mark.parametrize("family", ["qwen2_5_vl", "hunyuan_vl"])
def test_rows_moved_to_the_cache_end_decode_as_before(family, tiny_target, monkeypatch):
    """With the rows' slots packed after every commit that left fillers, outputs are unchanged."""
    from hsd_cli.targets.runtime import session

    monkeypatch.setattr(session, "PACK_WASTE", 0.0)
    moved = []
    real = session.HFSession._pack

    def pack(self) -> None:
        before = self.slots()  # _compact ran first: only a pack shortens the cache here
        real(self)
        moved.append(self.slots() < before)

    monkeypatch.setattr(session.HFSession, "_pack", pack)
    _batches_equal_their_own_ar(tiny_target(family), random.Random(f"pack-{family}"))
    assert any(moved)  # the slots really moved


@pytest.mark.parametrize("family", ["qwen2_5_vl"])  # hunyuan_vl's test pages never fit a freed row
def test_rows_that_leave_hand_their_cache_rows_on(family, tiny_target, monkeypatch):
    """A row that leaves gives its cache row to a row past the new batch size (a copy of that row),
    a forward computes only the rows that decode, and a newcomer is written into the room's rows
    past the batch in place: outputs are unchanged."""
    from hsd_cli.targets.runtime import session

    placed, moved = [], []
    real_place, real_move, real_step = session.HFSession._place, session.HFSession._move_rows, session.HFSession.step

    def place(self, other) -> None:
        placed.append(other.valid.shape[0])
        real_place(self, other)

    def move(self, src, dst) -> None:
        moved.append(src)
        real_move(self, src, dst)

    def step(self, ids, *args):
        assert all(layer.keys.shape[0] == ids.shape[0] for layer in self.cache.layers)  # no idle rows
        return real_step(self, ids, *args)

    monkeypatch.setattr(session.HFSession, "_place", place)
    monkeypatch.setattr(session.HFSession, "_move_rows", move)
    monkeypatch.setattr(session.HFSession, "step", step)
    _batches_equal_their_own_ar(tiny_target(family), random.Random(f"place-{family}"))
    assert placed and moved  # rows really moved down and newcomers really took room rows in place


def _batches_equal_their_own_ar(target, rng: random.Random, batched=None, inputs_ahead=None) -> Batcher:
    """Random methods, drafts and batch sizes on `batched` (default `target`): every page's tokens
    are its AR tokens alone on `target`; the processor's work in a thread beside the model (a GPU's
    default, in 1-3 threads) or inline (the CPU's), at random unless `inputs_ahead` says. Returns the
    last batcher."""
    batched = batched or target
    pages = [_page(i) for i in range(len(SIZES))]
    refs = [run_ar(target, p, replace(_random_spec(rng), max_new_tokens=BUDGET)).tokens for p in pages]
    for _ in range(3):
        order = rng.sample(range(len(pages)), len(pages))
        works = [(i, *_work(batched, pages[i], refs[i], rng)) for i in order]
        ahead = rng.random() < 0.5 if inputs_ahead is None else inputs_ahead
        batcher = Batcher(batched, rng.randint(2, 4), inputs_ahead=ahead, ahead_threads=rng.randint(1, 3))
        got = dict(batcher.run(works))
        assert {i: out.tokens for i, out in got.items()} == dict(enumerate(refs))
        assert max(batcher.rows_per_step) > 1  # pages really shared forward passes
    return batcher


def test_ar_batched_equals_ar_alone(tiny_target):
    """Plain AR over a batch of different pages: every row as it is decoded alone, step for step."""
    target = tiny_target("qwen2_5_vl")
    pages = [_page(i) for i in range(4)]
    spec = replace(_random_spec(random.Random(0)), max_new_tokens=BUDGET)
    alone = [decode_page(AR(), PageWork(target, p, [], PageDrafts([]), spec)) for p in pages]
    batcher = Batcher(target, 4)
    got = dict(batcher.run([(i, AR(), PageWork(target, p, [], PageDrafts([]), spec)) for i, p in enumerate(pages)]))
    assert [got[i].tokens for i in range(4)] == [a.tokens for a in alone]
    assert [got[i].page.steps for i in range(4)] == [a.page.steps for a in alone]
    assert batcher.rows_per_step[0] == 4
