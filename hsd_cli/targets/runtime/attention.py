"""The attention kernels our decode loop wants, set for the process when a target loads.

Every tree step passes a mask, and a mask is where transformers' SDPA path and torch's kernels pay
most for grouped key/value heads (GQA): per layer per step they repeat or re-read every row's
cache once per query head. The choices here are kernel choices only: each query still attends to
the same keys under the same mask.
"""

from __future__ import annotations

import os

# Masked calls with at most this many queries a row run on the K/V heads (`folded_sdpa`): decode
# steps and their trees. A padded prefill's mask, copied once per group, would grow with the
# square of its prompt, and a prefill's keys are read once per block of queries anyway.
FOLD_MAX_QUERIES = 512


def attention_for(device: str) -> None:
    """The attention kernels our decode loop wants on `device` (set for the process)."""
    fold_grouped_queries()
    if device == "cpu":
        grouped_attention_on_cpu()
    elif device.startswith("cuda"):
        no_cudnn_attention()


def describe(device_type: str) -> str:
    """The attention path a model on `device_type` takes, as a step's price depends on it (cost curve keys)."""
    import torch

    from hsd_cli.targets.runtime import ragged

    path = os.environ.get("TRANSFORMERS_SDPA_FORCE_GQA", "")
    path += "|cudnn-sdp" if device_type == "cuda" and torch.backends.cuda.cudnn_sdp_enabled() else ""
    path += "|ragged" if device_type == "cuda" and ragged.wanted() else ""  # the static engine's (engine_for)
    return path + ("|fold" if _folding() else "")


def no_cudnn_attention() -> None:
    """Keep torch's SDPA off cuDNN's attention kernel.

    Given a mask (a tree step, padded rows), torch on Hopper picks cuDNN, which builds an execution
    plan for each new key length, and every decode step has a new one: full-size HunyuanOCR, bf16,
    H200, one step over a cache of ~1k tokens took 61 ms on cuDNN and 21 ms on the memory-efficient
    kernel (any tree of 1-64 tokens; the first GPU run, CHANGELOG.md). Set for the process."""
    import torch

    torch.backends.cuda.enable_cudnn_sdp(False)


def grouped_attention_on_cpu() -> None:
    """Let transformers' SDPA path hand grouped key/value heads to torch's CPU kernel as they are.

    With an attention mask (every tree step has one) transformers repeats the K/V heads to the
    query heads first (integrations/sdpa_attention.py, `use_gqa_in_sdpa`): a copy of every row's
    cache per layer per step, which grows with the batch and the page. torch's CPU kernel takes a
    mask with `enable_gqa`; transformers' own switch asks for it. Full-size HunyuanOCR (8 K/V heads
    for 16), 4 pages x 4 tree tokens, 1 thread: 0.36 -> 0.28 s a step; Qwen2.5-VL-3B repeats 8x.
    Set for the process: a CUDA target (whose kernels want no mask with GQA) is not loaded beside."""
    os.environ.setdefault("TRANSFORMERS_SDPA_FORCE_GQA", "1")


def fold_grouped_queries() -> None:
    """transformers' "sdpa" attention, with masked steps of grouped heads run on the K/V heads."""
    from transformers import AttentionInterface

    if not _folding():
        AttentionInterface.register("sdpa", folded_sdpa)


def folded_sdpa(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None, **kwargs):
    """SDPA over the K/V heads, each head's group of query heads stacked as more queries.

    torch's kernels, given grouped heads (`enable_gqa`), read a row's keys and values once per
    query head: twice for HunyuanOCR's 16 query heads on 8, eight times for Qwen2.5-VL-3B's 16 on 2.
    Stacked, the keys are read once per K/V head, and every query still attends to its own keys
    under its own mask row. Full-size, CPU, 2 threads, 700-slot caches (benchmarks/attention_fold.py,
    medians of interleaved steps): HunyuanOCR 16 rows x 1 token 214 -> 194 ms a step, 8 x 8 tree
    tokens 336 -> 312 ms; Qwen2.5-VL-3B, whose cache is small beside its weights, 490 -> 458 and
    1197 -> 1168 ms. A block mask (the static step's ragged attention) goes to FlexAttention
    (runtime/ragged.py). Other calls are transformers' own.
    """
    import torch
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    from hsd_cli.targets.runtime import ragged

    if attention_mask is not None and not isinstance(attention_mask, torch.Tensor):  # the static step's block mask
        return ragged.attend(query, key, value, attention_mask, scaling), None
    b, heads, queries, dim = query.shape
    groups = heads // key.shape[1]
    plain = groups == 1 or attention_mask is None or attention_mask.dim() != 4 or attention_mask.shape[1] != 1
    if plain or dropout or queries > FOLD_MAX_QUERIES or any(kwargs.get(k) is not None for k in _OWN_PATHS):
        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, is_causal=is_causal, **kwargs
        )
    # Query heads h*groups .. h*groups + groups - 1 share K/V head h (transformers' repeat_kv).
    stacked = query.reshape(b, key.shape[1], groups * queries, dim)
    rows, slots = attention_mask.shape[0], attention_mask.shape[-1]
    mask = attention_mask.expand(rows, groups, queries, slots).reshape(rows, 1, groups * queries, slots)
    out = torch.nn.functional.scaled_dot_product_attention(stacked, key, value, attn_mask=mask, scale=scaling)
    return out.reshape(b, heads, queries, dim).transpose(1, 2).contiguous(), None


_OWN_PATHS = ("position_bias", "softcap", "cache")  # what only transformers' function handles


def takes_block_masks(model) -> bool:
    """Whether `model`'s attention calls go through `folded_sdpa`, which hands a block mask to
    FlexAttention (transformers' own kernels would add it as a tensor, or fail)."""
    config = model.config.get_text_config()
    return _folding() and getattr(config, "_attn_implementation", None) == "sdpa"


def _folding() -> bool:
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    return ALL_ATTENTION_FUNCTIONS.get("sdpa") is folded_sdpa
