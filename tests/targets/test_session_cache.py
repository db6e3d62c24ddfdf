"""A tree step appends into spare cache slots and a commit moves only the tree's slots: no step
copies the prompt's cache, and the logits are those of a cache rebuilt from scratch."""

from __future__ import annotations

import torch
from PIL import Image

from hsd_cli.targets.runtime.session import SPARE_SLOTS, roomy_layer


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
