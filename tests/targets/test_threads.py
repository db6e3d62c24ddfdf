"""The model's CPU threads beside drafting workers: the cores a worker drafts on go back to it,
idle ones compute the model; outputs do not change."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
import torch
from PIL import Image

from hsd_cli.pipeline import workers
from hsd_cli.pipeline.prepare import PrepareConfig
from hsd_cli.pipeline.workers import PrepareQueue
from hsd_cli.targets.runtime import threads

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"


@pytest.fixture
def share():
    before = torch.get_num_threads()
    share = threads.CoreShare(multiprocessing.Value("i", 0), 2)
    threads.lend(share)
    yield share
    threads.reclaim()
    torch.set_num_threads(before)


def test_the_model_takes_the_cores_no_worker_drafts_on(share):
    threads.fit()
    assert torch.get_num_threads() == 2
    with threads.drafting(share.busy, 1):
        threads.fit()
        assert torch.get_num_threads() == 1 and share.busy.value == 1
        with threads.drafting(share.busy, 3):  # busier than the model's cores: it keeps one
            threads.fit()
            assert torch.get_num_threads() == 1
    threads.fit()
    assert torch.get_num_threads() == 2 and share.busy.value == 0


def test_a_worker_that_fails_gives_its_cores_back(share):
    with pytest.raises(ValueError), threads.drafting(share.busy, 1):
        raise ValueError("the page's own failure")
    assert share.busy.value == 0


def test_after_the_workers_the_model_has_its_threads_back(share):
    with threads.drafting(share.busy, 1):
        threads.fit()
    threads.reclaim()
    assert torch.get_num_threads() == 2
    torch.set_num_threads(1)
    threads.fit()  # nothing lent: the threads stay as they are
    assert torch.get_num_threads() == 1


def test_a_worker_counts_its_cores_busy_while_it_prepares(monkeypatch):
    busy = multiprocessing.Value("i", 0)
    seen = []

    class Worker:
        cfg = PrepareConfig(ocr_threads=3)

        def __call__(self, path, page):
            seen.append(busy.value)
            raise RuntimeError("corrupt page")

    monkeypatch.setattr(workers, "_WORKER", Worker())
    monkeypatch.setattr(workers, "_BUSY", busy)
    with pytest.raises(RuntimeError):
        workers._prepare_in_worker(SAMPLES / "born_digital.pdf", 1)
    assert seen == [3] and busy.value == 0


def test_a_queue_beside_a_model_lends_its_idle_cores_and_takes_them_back():
    before = torch.get_num_threads()
    queue = PrepareQueue(PrepareConfig(dpi=72), 1, beside_model=True)
    lent = [
        (page.page.number, threads._share is not None)
        for page in queue.run([(SAMPLES / "born_digital.pdf", 1), (SAMPLES / "two_columns.pdf", 1)])
    ]
    assert lent == [(1, True), (1, True)] and threads._share is None
    assert torch.get_num_threads() == before


def test_prefill_and_steps_fit_the_threads_first(tiny_target, share):
    """A worker drafting while the model prefills and steps: both run on the cores it leaves."""
    target = tiny_target("qwen2_5_vl")
    image = Image.new("RGB", (64, 48), "white")
    with threads.drafting(share.busy, 1):
        torch.set_num_threads(2)
        session, _ = target.prefill([image], "OCR")
        assert torch.get_num_threads() == 1
    session.step(torch.tensor([[11]]), torch.ones(1, 1, 1, dtype=torch.bool), torch.zeros(1, 1, dtype=torch.long))
    assert torch.get_num_threads() == 2


def test_a_step_on_fewer_threads_is_not_held_against_its_price(tiny_target, share):
    """The cost model measured steps on every thread: a step that shared them with a drafting
    worker says nothing about its price."""
    target = tiny_target("qwen2_5_vl")
    session, _ = target.prefill([Image.new("RGB", (64, 48), "white")], "OCR")
    tree = (torch.ones(1, 1, 1, dtype=torch.bool), torch.zeros(1, 1, dtype=torch.long))
    priced = []
    for busy in (1, 0):
        share.busy.value = busy
        session.step(torch.tensor([[11]]), *tree)
        session.commit([[0]])
        priced.append(session.priced)
    assert priced == [False, True]


def test_a_worker_that_starts_drafting_mid_forward_gets_its_core_at_the_next_block(tiny_target, share):
    """A prefill is one long forward: the threads follow the workers block by block."""
    target = tiny_target("qwen2_5_vl")
    threads.follow(target.model)
    layers = target.model.model.language_model.layers
    seen = []
    first = layers[0].register_forward_pre_hook(lambda *_: setattr(share.busy, "value", 1))
    second = layers[1].register_forward_pre_hook(lambda *_: seen.append(torch.get_num_threads()))
    torch.set_num_threads(2)
    target.prefill([Image.new("RGB", (64, 48), "white")], "OCR")
    first.remove()
    second.remove()
    share.busy.value = 0
    assert seen == [1]
