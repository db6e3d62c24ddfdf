"""A tree step appends into spare cache slots and a commit moves only the tree's slots: no step
copies the prompt's cache, and the logits are those of a cache rebuilt from scratch."""

from __future__ import annotations

import torch
from PIL import Image

from hsd_cli.targets.runtime.room import SPARE_SLOTS, roomy_layer


def _tree(ids: list[int]):
    """A root with two children (a branch), as packed [1, K] ids, ancestry and depth."""
    anc = torch.tensor([[[1, 0, 0], [1, 1, 0], [1, 0, 1]]], dtype=torch.bool)
    return torch.tensor([ids]), anc, torch.tensor([[0, 1, 1]])


def test_steps_reuse_the_cache_and_commit_the_right_branch(tiny_target):
    target = tiny_target("qwen2_5_vl")
    image = Image.new("RGB", (64, 48), "white")
    session, _ = target.prefill([image], "OCR")
    assert all(isinstance(layer, roomy_layer()) for layer in session.cache.layers)
    session.step(*_tree([11, 12, 13]))
    session.commit([[0, 2]])  # the root and its second child
    layer = session.cache.layers[0]
    base = layer.keys.data_ptr()
    for _ in range(SPARE_SLOTS // 3 - 1):  # appends fit the slots allocated ahead: no new cache
        session.step(*_tree([11, 12, 13]))
        session.commit([[0, 2]])
        assert layer.keys.data_ptr() == base
    got = session.step(torch.tensor([[14]]), torch.ones(1, 1, 1, dtype=torch.bool), torch.zeros(1, 1, dtype=torch.long))

    fresh, _ = target.prefill([image], "OCR")
    for _ in range(SPARE_SLOTS // 3):  # the same tokens as chains: 11, 13 each time
        fresh.step(torch.tensor([[11, 13]]), torch.ones(1, 2, 2, dtype=torch.bool).tril(), torch.tensor([[0, 1]]))
        fresh.commit([[0, 1]])
    want = fresh.step(torch.tensor([[14]]), torch.ones(1, 1, 1, dtype=torch.bool), torch.zeros(1, 1, dtype=torch.long))
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_rows_decode_in_any_cache_row_after_one_leaves(tiny_target):
    """The first of three rows leaves: the last row's cache moves into its place (batch order is no
    longer cache order) and a newcomer is written into the room's row past the batch; every row's
    logits stay those of its page decoded alone."""
    target = tiny_target("qwen2_5_vl")
    images = [Image.new("RGB", (64 + 16 * i, 48 + 24 * i), (60 * i, 255 - 50 * i, 90)) for i in range(3)]
    alone = [target.prefill([image], "OCR")[0] for image in images]
    batch = target.prefill([images[0]], "OCR")[0]
    for image in images[1:3]:
        batch.extend(target.prefill([image], "OCR")[0])
    rows = [0, 1, 2]

    def step(tokens: list[int]) -> None:
        k = len(tokens)
        tree = (torch.tensor([tokens]), torch.ones(1, k, k, dtype=torch.bool).tril(), torch.arange(k)[None])
        got = batch.step(*(t.expand(len(rows), *t.shape[1:]) for t in tree))
        batch.commit([list(range(k))] * len(rows))
        for b, page in enumerate(rows):
            want = alone[page].step(*tree)
            alone[page].commit([list(range(k))])
            torch.testing.assert_close(got[b : b + 1], want, rtol=1e-4, atol=1e-4)

    step([11, 12])
    batch.select_rows([1, 2])
    rows = [1, 2]
    assert batch.live == [1, 0]  # the last row now decodes in the first's cache row
    step([13])
    small = Image.new("RGB", (40, 40), "black")
    newcomer = target.prefill([small], "OCR")[0]
    alone.append(target.prefill([small], "OCR")[0])
    ptr = batch.cache.layers[0].keys.data_ptr()
    batch.extend(newcomer)
    rows = [1, 2, 3]
    # written into the room's row past the batch, in place: no join copied the cache
    assert batch.live == [1, 0, 2] and batch.cache.layers[0].keys.data_ptr() == ptr
    step([14, 15, 16])
