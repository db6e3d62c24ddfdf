"""Full-size architectures of the supported checkpoints, as configs built from published values.

The numbers are copied from each checkpoint's config.json (no download at run time); a config
built from them, instantiated on the meta device, gives the parameter count `hsd models --sizes`
prints. Only the fields that change a parameter count are written down.
"""

from __future__ import annotations

# Text decoders: (hidden, intermediate, layers, heads, kv_heads, vocab, tie_word_embeddings).
_QWEN2_1_5B = (1536, 8960, 28, 12, 2, 151936, True)
_QWEN2_3B = (2048, 11008, 36, 16, 2, 151936, True)
_QWEN2_7B = (3584, 18944, 28, 28, 4, 152064, False)


def _text(dims: tuple, **extra) -> dict:
    hidden, inter, layers, heads, kv, vocab, tie = dims
    return dict(
        hidden_size=hidden,
        intermediate_size=inter,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv,
        vocab_size=vocab,
        tie_word_embeddings=tie,
        **extra,
    )


_QWEN2_VL_VISION = dict(depth=32, embed_dim=1280, mlp_ratio=4, num_heads=16, patch_size=14)
_QWEN2_5_VL_VISION = dict(depth=32, hidden_size=1280, intermediate_size=3420, num_heads=16, patch_size=14)
_QWEN3_VL_VISION = dict(
    depth=24,
    hidden_size=1024,
    intermediate_size=4096,
    num_heads=16,
    patch_size=16,
    num_position_embeddings=2304,
    deepstack_visual_indexes=[5, 11, 17],
)
_QWEN3_VL_8B_VISION = dict(
    depth=27,
    hidden_size=1152,
    intermediate_size=4304,
    num_heads=16,
    patch_size=16,
    num_position_embeddings=2304,
    deepstack_visual_indexes=[8, 16, 24],
)


def _qwen2_vl(dims: tuple) -> dict:
    return dict(
        text_config=_text(dims), vision_config=dict(_QWEN2_VL_VISION, hidden_size=dims[0]), tie_word_embeddings=dims[-1]
    )


def _qwen2_5_vl(dims: tuple) -> dict:
    return dict(
        text_config=_text(dims),
        vision_config=dict(_QWEN2_5_VL_VISION, out_hidden_size=dims[0]),
        tie_word_embeddings=dims[-1],
    )


def _qwen3_vl(dims: tuple, vision: dict) -> dict:
    return dict(
        text_config=_text(dims, head_dim=128),
        vision_config=dict(vision, out_hidden_size=dims[0]),
        tie_word_embeddings=dims[-1],
    )


# hub id -> (transformers config class, its constructor kwargs)
FULL_SIZE: dict[str, tuple[str, dict]] = {
    "Qwen/Qwen2-VL-2B-Instruct": ("Qwen2VLConfig", _qwen2_vl(_QWEN2_1_5B)),
    "Qwen/Qwen2-VL-7B-Instruct": ("Qwen2VLConfig", _qwen2_vl(_QWEN2_7B)),
    "Qwen/Qwen2.5-VL-3B-Instruct": ("Qwen2_5_VLConfig", _qwen2_5_vl(_QWEN2_3B)),
    "Qwen/Qwen2.5-VL-7B-Instruct": ("Qwen2_5_VLConfig", _qwen2_5_vl(_QWEN2_7B)),
    "Qwen/Qwen3-VL-2B-Instruct": ("Qwen3VLConfig", _qwen3_vl((2048, 6144, 28, 16, 8, 151936, True), _QWEN3_VL_VISION)),
    "Qwen/Qwen3-VL-4B-Instruct": ("Qwen3VLConfig", _qwen3_vl((2560, 9728, 36, 32, 8, 151936, True), _QWEN3_VL_VISION)),
    "Qwen/Qwen3-VL-8B-Instruct": (
        "Qwen3VLConfig",
        _qwen3_vl((4096, 12288, 36, 32, 8, 151936, False), _QWEN3_VL_8B_VISION),
    ),
    "tencent/HunyuanOCR": (
        "HunYuanVLConfig",
        dict(
            text_config=_text((1024, 3584, 24, 16, 8, 120818, True), head_dim=128),
            vision_config=dict(
                hidden_size=1152,
                intermediate_size=4304,
                num_hidden_layers=27,
                num_attention_heads=16,
                num_key_value_heads=16,
                out_hidden_size=1024,
                text_hidden_size=1024,
                patch_size=16,
            ),
        ),
    ),
    "PaddlePaddle/PaddleOCR-VL": (
        "PaddleOCRVLConfig",
        dict(
            text_config=_text((1024, 3072, 18, 16, 2, 103424, False), head_dim=128),
            vision_config=dict(
                hidden_size=1152,
                intermediate_size=4304,
                num_hidden_layers=27,
                num_attention_heads=16,
                patch_size=14,
                image_size=384,
            ),
            tie_word_embeddings=False,
        ),
    ),
    "zai-org/GLM-OCR": (
        "GlmOcrConfig",
        dict(
            text_config=_text((1536, 4608, 16, 16, 8, 59392, False), head_dim=128),
            vision_config=dict(
                depth=24,
                hidden_size=1024,
                intermediate_size=4096,
                num_heads=16,
                out_hidden_size=1536,
                patch_size=14,
                image_size=336,
            ),
        ),
    ),
    # LightOnOcrConfig's defaults are the 1B checkpoints (Pixtral 24 x 1024 + Qwen3 28 x 1024).
    "lightonai/LightOnOCR-2-1B": ("LightOnOcrConfig", {}),
    "lightonai/LightOnOCR-1B-1025": ("LightOnOcrConfig", {}),
    "deepseek-community/DeepSeek-OCR-2": (
        "DeepseekOcr2Config",
        dict(
            text_config=_text(
                (1280, 6848, 12, 10, 10, 129280, False),
                moe_intermediate_size=896,
                n_routed_experts=64,
                num_experts_per_tok=6,
                n_shared_experts=2,
                mlp_layer_types=["dense"] + ["sparse"] * 11,
            ),
            vision_config=dict(encoder_config=_text((896, 4864, 24, 14, 2, 151936, True))),
        ),
    ),
    # dots.ocr's classes are remote code; its vision tower (42 RMSNorm/SwiGLU blocks, 2x2 patch merger) and
    # Qwen2 decoder have Qwen2.5-VL's shapes, so that native class counts them (a stand-in, not its code).
    "rednote-hilab/dots.ocr": (
        "Qwen2_5_VLConfig",
        dict(
            text_config=_text(_QWEN2_1_5B[:-1] + (False,)),
            vision_config=dict(
                depth=42, hidden_size=1536, intermediate_size=4224, num_heads=12, out_hidden_size=1536, patch_size=14
            ),
        ),
    ),
}


def full_size_config(hub_id: str, model_type: str):
    """The transformers config of `hub_id`'s full-size architecture; None when we have no numbers."""
    import transformers

    entry = FULL_SIZE.get(hub_id)
    if entry is None:
        return None
    cls_name, kwargs = entry
    return getattr(transformers, cls_name)(**kwargs)
