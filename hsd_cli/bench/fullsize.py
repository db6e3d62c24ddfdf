"""Real-size architectures with random weights (no download): for timing, not for output.

Uses `hsd_cli.targets.sizes.full_size_config` when present; otherwise a built-in copy of the
published Qwen2.5-VL-3B-Instruct config (text and vision). Only the language model is timed, so
the vision tower is shrunk to one block to save memory.
"""

from __future__ import annotations

import torch

from hsd_cli.errors import HsdError

# Qwen/Qwen2.5-VL-3B-Instruct config.json (published values).
QWEN2_5_VL_3B = {
    "text_config": dict(
        hidden_size=2048, intermediate_size=11008, num_hidden_layers=36, num_attention_heads=16,
        num_key_value_heads=2, vocab_size=151936, max_position_embeddings=128000,
        rms_norm_eps=1e-6, tie_word_embeddings=True,
        rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [16, 24, 24]},
    ),
    "vision_config": dict(
        depth=32, hidden_size=1280, intermediate_size=3420, num_heads=16, out_hidden_size=2048,
        patch_size=14, spatial_merge_size=2, temporal_patch_size=2, window_size=112,
        fullatt_block_indexes=[7, 15, 23, 31],
    ),
    "image_token_id": 151655, "video_token_id": 151656, "vision_start_token_id": 151652,
    "vision_end_token_id": 151653, "tie_word_embeddings": True,
}


def full_size_config(family: str):
    """(hub id, config) of the family's default checkpoint at full size."""
    from hsd_cli.targets.registry import FAMILIES

    if family not in FAMILIES:
        raise HsdError(f"unknown family {family!r}; see `hsd models`")
    hub_id = FAMILIES[family][0].hub_ids[0]
    try:
        from hsd_cli.targets.sizes import full_size_config as colleague_config

        config = colleague_config(hub_id, family)
    except ImportError:
        config = None
    if config is None and family == "qwen2_5_vl":
        from transformers import Qwen2_5_VLConfig

        config = Qwen2_5_VLConfig(**QWEN2_5_VL_3B)
    if config is None:
        raise HsdError(f"no full-size config for {family!r} here (hsd_cli.targets.sizes is missing)")
    return hub_id, config


def build_language_model(family: str, device: str, dtype: torch.dtype):
    """The full-size model with random weights and a one-block vision tower, in eval mode."""
    from transformers import AutoModelForImageTextToText

    hub_id, config = full_size_config(family)
    vision = config.vision_config
    for name in ("depth", "num_hidden_layers"):
        if hasattr(vision, name):
            setattr(vision, name, 1)
    if hasattr(vision, "fullatt_block_indexes"):
        vision.fullatt_block_indexes = [0]
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForImageTextToText.from_config(config, dtype=dtype)
    return hub_id, model.eval()


def text_params(model) -> int:
    """Parameters outside the vision tower (the part every decode step reads)."""
    return sum(p.numel() for n, p in model.named_parameters() if ".visual." not in f".{n}")
