"""CPU float32 targets load with column-major linear weights: same values, same ties, same logits."""

from __future__ import annotations

import torch
from transformers import AutoModelForImageTextToText

from hsd_cli.targets.runtime.costs import _key
from hsd_cli.targets.runtime.gemm import prefer_plain_gemm, weight_layout


def _linears(model):
    return [m.weight for m in model.modules() if isinstance(m, torch.nn.Linear)]


def test_loaded_target_has_column_major_linears_and_keeps_ties(tiny_target, tiny_model_dir):
    model = tiny_target("qwen2_5_vl").model
    assert all(w.t().is_contiguous() and not w.is_contiguous() for w in _linears(model))
    plain = AutoModelForImageTextToText.from_pretrained(tiny_model_dir("qwen2_5_vl"), dtype=torch.float32).eval()
    tied = plain.get_output_embeddings().weight is plain.get_input_embeddings().weight
    assert (model.get_output_embeddings().weight is model.get_input_embeddings().weight) == tied


def test_logits_match_the_row_major_model(tiny_model_dir):
    path = tiny_model_dir("qwen2_5_vl")
    plain = AutoModelForImageTextToText.from_pretrained(path, dtype=torch.float32).eval()
    relaid = prefer_plain_gemm(AutoModelForImageTextToText.from_pretrained(path, dtype=torch.float32).eval())
    ids = torch.randint(10, plain.config.get_text_config().vocab_size, (2, 12))
    with torch.inference_mode():
        a, b = plain(input_ids=ids).logits, relaid(input_ids=ids).logits
    torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    assert all(torch.equal(x, y) for x, y in zip(_linears(plain), _linears(relaid), strict=False))  # values untouched


def test_cost_cache_tells_the_layouts_apart(tiny_model_dir):
    """A curve measured on row-major weights must not be reused for column-major ones."""
    model = AutoModelForImageTextToText.from_pretrained(tiny_model_dir("qwen2_5_vl"), dtype=torch.float32).eval()
    before = (weight_layout(model), _key(model))
    prefer_plain_gemm(model)
    assert before[0] == "row-major" and weight_layout(model) == "column-major"
    assert _key(model) != before[1]
