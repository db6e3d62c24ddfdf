"""Masked steps of grouped heads run on the K/V heads: the same attention, each K/V head read once."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward

from hsd_cli.targets.runtime import attention
from hsd_cli.targets.runtime.attention import folded_sdpa
from hsd_cli.targets.runtime.costs import _key, prefill_text, time_step
from hsd_cli.targets.runtime.registry import FAMILIES


def _mask(rows: int, queries: int, slots: int, gen: torch.Generator) -> torch.Tensor:
    """An additive tree mask: random slots hidden, each query's own slot (the last ones) seen."""
    hidden = torch.rand(rows, 1, queries, slots, generator=gen) < 0.4
    hidden[..., -queries:] = ~torch.eye(queries, dtype=torch.bool)
    return torch.zeros(hidden.shape).masked_fill_(hidden, torch.finfo(torch.float32).min)


@pytest.mark.parametrize("groups", [2, 8])  # HunyuanOCR's 16 query heads on 8; Qwen2.5-VL-3B's on 2
@pytest.mark.parametrize("queries", [1, 6])
def test_folded_attention_is_transformers_sdpa(groups, queries):
    gen = torch.Generator().manual_seed(groups * 10 + queries)
    module = SimpleNamespace(num_key_value_groups=groups, is_causal=True)
    query = torch.randn(3, 2 * groups, queries, 16, generator=gen)
    key, value = (torch.randn(3, 2, 11, 16, generator=gen) for _ in range(2))
    mask = _mask(3, queries, 11, gen)
    got, _ = folded_sdpa(module, query, key, value, mask, scaling=0.25)
    want, _ = sdpa_attention_forward(module, query, key, value, mask, scaling=0.25)
    torch.testing.assert_close(got, want)


def test_tree_steps_of_a_loaded_target_read_each_kv_head_once(tiny_target, monkeypatch):
    target = tiny_target("qwen2_5_vl")
    text = target.model.config.get_text_config()
    assert text.num_attention_heads > text.num_key_value_heads  # the tiny model groups its heads
    session = prefill_text(target.model, 8, FAMILIES["qwen2_5_vl"][0].n_axes)
    seen, sdpa = [], torch.nn.functional.scaled_dot_product_attention

    def spy(query, key, value, **kw):
        seen.append((query.shape[1], key.shape[1], kw.get("enable_gqa", False)))
        return sdpa(query, key, value, **kw)

    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", spy)
    time_step(session, 4)
    assert seen and all(q == k and not grouped for q, k, grouped in seen)


def test_cost_cache_tells_folded_attention_apart(tiny_target):
    """A curve measured with query heads on their own must not price steps folded onto K/V heads."""
    model = tiny_target("qwen2_5_vl").model
    folded = _key(model)
    AttentionInterface.register("sdpa", sdpa_attention_forward)
    try:
        assert _key(model) != folded
    finally:
        attention.fold_grouped_queries()
    assert _key(model) == folded
