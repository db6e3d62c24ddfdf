"""CPU float32 targets load with packed linear weights: same logits, same ties, no doubled memory."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForImageTextToText

from hsd_cli.targets.runtime import gemm
from hsd_cli.targets.runtime.costs import _key
from hsd_cli.targets.runtime.gemm import PackedLinear, pack_linears, weight_layout

needs_onednn = pytest.mark.skipif(not gemm.can_pack(), reason="torch built without oneDNN")


def _linears(model):
    return [m for m in model.modules() if isinstance(m, torch.nn.Linear)]


def _plain(path):
    return AutoModelForImageTextToText.from_pretrained(path, dtype=torch.float32).eval()


@needs_onednn
def test_loaded_target_packs_every_linear_and_keeps_ties(tiny_target, tiny_model_dir):
    model = tiny_target("qwen2_5_vl").model
    plain = _plain(tiny_model_dir("qwen2_5_vl"))
    assert all(isinstance(m, PackedLinear) for m in _linears(model))
    tied = plain.get_output_embeddings().weight is plain.get_input_embeddings().weight
    assert (model.get_output_embeddings().weight is model.get_input_embeddings().weight) == tied
    dense = {id(model.get_input_embeddings().weight), id(model.get_output_embeddings().weight)}
    for m in _linears(model):  # the packed copy holds the values: the dense one is one element
        assert m.weight.shape == (m.out_features, m.in_features)
        assert id(m.weight) in dense or m.weight.untyped_storage().nbytes() == 4
    assert sum(p.numel() for p in model.parameters()) == sum(p.numel() for p in plain.parameters())


@pytest.mark.parametrize("pack", [True, False], ids=["onednn", "column-major"])
@pytest.mark.parametrize("shape", [(1, 1), (2, 1), (2, 3), (1, 12)])  # (1, 1): the dense vocabulary path
def test_logits_match_the_row_major_model(tiny_model_dir, monkeypatch, pack, shape):
    if pack and not gemm.can_pack():
        pytest.skip("torch built without oneDNN")
    monkeypatch.setattr(gemm, "can_pack", lambda: pack)
    path = tiny_model_dir("qwen2_5_vl")
    plain, relaid = _plain(path), pack_linears(_plain(path))
    ids = torch.randint(10, plain.config.get_text_config().vocab_size, shape)
    with torch.inference_mode():
        a, b = plain(input_ids=ids).logits, relaid(input_ids=ids).logits
    torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    assert weight_layout(relaid) == ("onednn-packed" if pack else "column-major")


def test_cost_cache_tells_the_layouts_apart(tiny_model_dir):
    """A curve measured on row-major weights must not be reused for re-laid ones."""
    model = _plain(tiny_model_dir("qwen2_5_vl"))
    before = (weight_layout(model), _key(model))
    pack_linears(model)
    assert before[0] == "row-major" and weight_layout(model) != "row-major"
    assert _key(model) != before[1]


def test_cost_cache_tells_the_cpus_vector_units_apart(tiny_model_dir, monkeypatch):
    """A curve measured on a host with AVX-512 must not price steps on one with AVX2 alone."""
    from hsd_cli.targets.runtime import costs

    model = _plain(tiny_model_dir("qwen2_5_vl"))
    monkeypatch.setattr(costs, "cpu_isa", lambda: "AVX512")
    wide = _key(model)
    monkeypatch.setattr(costs, "cpu_isa", lambda: "AVX2")
    assert _key(model) != wide


def test_cpu_targets_hand_grouped_heads_to_sdpa_with_a_mask(tiny_target):
    """Tree steps always pass a mask: transformers must not copy the K/V heads per layer then."""
    from transformers.integrations.sdpa_attention import use_gqa_in_sdpa

    tiny_target("qwen2_5_vl")
    kv = torch.zeros(1, 2, 5, 8)
    assert use_gqa_in_sdpa(torch.zeros(1, 1, 3, 5), kv, kv)


def test_cost_cache_tells_the_attention_paths_apart(tiny_model_dir, monkeypatch):
    """A curve measured with K/V heads repeated per step must not be reused once SDPA takes them grouped."""
    model = _plain(tiny_model_dir("qwen2_5_vl"))
    monkeypatch.delenv("TRANSFORMERS_SDPA_FORCE_GQA", raising=False)
    repeated = _key(model)
    monkeypatch.setenv("TRANSFORMERS_SDPA_FORCE_GQA", "1")
    assert _key(model) != repeated


def test_cuda_targets_keep_attention_off_cudnn():
    """cuDNN's SDPA builds a plan per new key length: a decode step on CUDA would pay one per layer."""
    from hsd_cli.targets.runtime.attention import attention_for

    before = torch.backends.cuda.cudnn_sdp_enabled()
    try:
        torch.backends.cuda.enable_cudnn_sdp(True)
        attention_for("cpu")
        assert torch.backends.cuda.cudnn_sdp_enabled()
        attention_for("cuda:0")
        assert not torch.backends.cuda.cudnn_sdp_enabled()
    finally:
        torch.backends.cuda.enable_cudnn_sdp(before)
