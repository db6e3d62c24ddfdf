"""Real-size architectures with random weights (no download): for timing, not for output.

The config comes from `hsd_cli.targets.runtime.sizes` (the published checkpoint's numbers) plus the
fields that change no parameter count but must agree with the tokenizer and processor of the
`--model` directory it is paired with (special token ids, M-RoPE sections).

`HSD_FULL_SIZE_LAYERS=N` keeps N decoder layers (widths and vocabulary as published): a dry run of
a full-size benchmark (benchmarks/gpu.py --dry-run) on a machine without the memory or the time.
"""

from __future__ import annotations

import os

import torch

from hsd_cli.errors import HsdError
from hsd_cli.targets.runtime.gemm import pack_linears

# M-RoPE sections (sum = head_dim / 2) of the published checkpoints: head_dim 128 everywhere here.
MROPE = {
    "hunyuan_vl": [16, 16, 16, 16],
    "qwen2_5_vl": [16, 24, 24],
    "qwen2_vl": [16, 24, 24],
    "qwen3_vl": [24, 20, 20],
    "paddleocr_vl": [16, 24, 24],
}


def full_size_config(family: str, like=None):
    """(hub id, config) of the family's default checkpoint at full size; token ids from `like`."""
    from hsd_cli.targets.runtime.registry import FAMILIES
    from hsd_cli.targets.runtime.sizes import full_size_config as published

    if family not in FAMILIES:
        raise HsdError(f"unknown family {family!r}; see `hsd models`")
    hub_id = FAMILIES[family][0].hub_ids[0]
    config = published(hub_id, family)
    if config is None:
        raise HsdError(f"no full-size config for {family!r} (hsd_cli/targets/runtime/sizes.py)")
    text = config.get_text_config()
    if os.environ.get("HSD_FULL_SIZE_LAYERS"):
        text.num_hidden_layers = int(os.environ["HSD_FULL_SIZE_LAYERS"])
    if family in MROPE:
        rope = dict(text.rope_parameters or {}, rope_type="default", mrope_section=MROPE[family])
        text.rope_parameters = {"rope_theta": 1e6, **rope}
    for name in dir(like.config) if like is not None else ():  # image/special token ids of the tokenizer
        if name.endswith("_id") and not name.startswith("_") and isinstance(getattr(like.config, name), int):
            setattr(config, name, getattr(like.config, name))
    config._attn_implementation = "sdpa"
    return hub_id, config


def build_model(family: str, device: str, dtype: torch.dtype, like=None, shrink_vision: bool = False):
    """The full-size model with random weights, in eval mode (vision tower of one block if asked)."""
    from transformers import AutoModelForImageTextToText

    hub_id, config = full_size_config(family, like)
    if shrink_vision:
        vision = config.vision_config
        for name in ("depth", "num_hidden_layers"):
            if hasattr(vision, name):
                setattr(vision, name, 1)
        if hasattr(vision, "fullatt_block_indexes"):
            vision.fullatt_block_indexes = [0]
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForImageTextToText.from_config(config, dtype=dtype)
    return hub_id, model.eval()


def decode_model(family: str, device: str, dtype: torch.dtype, shrink_vision: bool = False):
    """(hub id, model): the full-size network with the attention kernels and weight layout that
    load_target gives a real checkpoint, so what is timed on it is what the decode loop pays."""
    from hsd_cli.targets.runtime.attention import attention_for

    attention_for(device)
    hub_id, model = build_model(family, device, dtype, shrink_vision=shrink_vision)
    return hub_id, pack_linears(model)


def full_size_target(target, family: str):
    """`target` (tokenizer, processor, prompts of a `--model` directory) on a full-size network."""
    if target.family.model_type != family:
        raise HsdError(
            f"--full-size {family} needs a --model directory of the same family, got {target.family.model_type}"
        )
    _, model = build_model(family, str(target.device), target.model.dtype, like=target.model)
    model.generation_config = target.model.generation_config
    target.model = pack_linears(model)  # as load_target lays out the real checkpoint
    return target


def text_params(model) -> int:
    """Parameters outside the vision tower (the part every decode step reads)."""
    return sum(p.numel() for n, p in model.named_parameters() if ".visual." not in f".{n}" and "vision" not in n)
