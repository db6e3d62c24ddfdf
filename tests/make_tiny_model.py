"""Build a tiny random-weight checkpoint of a real VLM architecture, offline.

    python tests/make_tiny_model.py --family hunyuan_vl OUT_DIR

The directory loads like a real one: `AutoModelForImageTextToText.from_pretrained(dir)` and
`hsd_cli.targets.runtime.processors.load_processor(dir, family)`. Sizes:
text hidden 128, 2 layers; images are capped at <= 64 merged image tokens, except DeepSeek-OCR-2, whose
learnable queries fix 144 tokens per 768-px view. dots.ocr's modeling code exists only as remote code on
the hub: its tiny checkpoints carry a local stand-in (tests/dots_ocr_remote) as their remote code.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: E402
from tokenizers import processors as post_processors  # noqa: E402
from transformers import (  # noqa: E402
    DeepseekOcr2Config,
    DeepseekOcr2ForConditionalGeneration,
    DeepseekOcr2ImageProcessorPil,
    GenerationConfig,
    Glm46VImageProcessorPil,
    GlmOcrConfig,
    GlmOcrForConditionalGeneration,
    HunYuanVLConfig,
    HunYuanVLForConditionalGeneration,
    HunYuanVLImageProcessorPil,
    LightOnOcrConfig,
    LightOnOcrForConditionalGeneration,
    PaddleOCRVLConfig,
    PaddleOCRVLForConditionalGeneration,
    PaddleOCRVLImageProcessorPil,
    PixtralImageProcessorPil,
    PreTrainedTokenizerFast,
    Qwen2_5_VLConfig,
    Qwen2_5_VLForConditionalGeneration,
    Qwen2VLConfig,
    Qwen2VLForConditionalGeneration,
    Qwen2VLImageProcessorPil,
    Qwen3VLConfig,
    Qwen3VLForConditionalGeneration,
)
from transformers.utils import logging as hf_logging  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hsd_cli.targets.runtime.processors import PROCESSOR_CLASSES  # noqa: E402

FAMILIES = (
    "qwen2_vl",
    "qwen2_5_vl",
    "qwen3_vl",
    "hunyuan_vl",
    "paddleocr_vl",
    "glm_ocr",
    "lighton_ocr",
    "deepseek_ocr2",
)
# Remote-code families: their modeling code lives on the hub; tests/dots_ocr_remote stands in for it and is
# saved into the checkpoint as its remote code (loaded with trust_remote_code=True, AutoModelForCausalLM).
REMOTE_FAMILIES = ("dots_ocr",)
SERVED = FAMILIES + REMOTE_FAMILIES  # every family hsd serves: the lossless and batching tests run each
VOCAB_SIZE = 640  # model vocab; the trained tokenizer stays below it
TEXT = dict(
    hidden_size=128,
    intermediate_size=256,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=4096,
)
ROPE = {"rope_type": "default", "rope_theta": 1e4, "mrope_section": [4, 6, 6]}  # sum = head_dim / 2

# Training text for the BPE: the markup document-parsing targets write (Markdown, HTML tables, LaTeX, digits).
CORPUS = """\
# Annual Report 2024
## 1. Introduction
The quick brown fox jumps over the lazy dog. Page 12 of 345.
Convert the document to markdown. OCR: Table Recognition: Formula Recognition:
Extract all information from the main body of the document image and represent it in markdown format.
- item one
- item two with **bold** and *italic* text
1. first 2. second 3. third
| Year | Revenue | Profit |
|------|---------|--------|
| 2022 | 1,234.56 | 78.9 |
| 2023 | 2,345.67 | 89.0 |
<table><tr><th>Name</th><th>Value</th></tr><tr><td>alpha</td><td>0.125</td></tr></table>
<div class="header"><p>Section 3.2</p></div>
$E = mc^2$ and $$\\int_0^1 x^2 \\, dx = \\frac{1}{3}$$
\\begin{equation} \\sum_{i=1}^{n} i = \\frac{n(n+1)}{2} \\end{equation}
\\alpha + \\beta = \\gamma, \\mathbf{x} \\in \\mathbb{R}^{d}
Figure 4: Results on the test set (accuracy %, higher is better).
Tel: +49 30 1234567, Date: 2024-03-15, Amount: $99.99, Ref. No. 0042/7
References [1] A. Author, B. Author. Title of paper. Journal, 12(3):45-67, 2021.
0123456789 10 20 30 40 50 60 70 80 90 100 1000 2048 3.14159 2.71828
"""

_QWEN = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
]
_HY = {
    "bos": "<｜hy_begin▁of▁sentence｜>",
    "eos": "<｜hy_place▁holder▁no▁2｜>",
    "sys": "<｜hy_place▁holder▁no▁3｜>",
    "pad": "<｜hy_▁pad▁｜>",
    "user": "<｜hy_User｜>",
    "assistant": "<｜hy_Assistant｜>",
    "image_start": "<｜hy_place▁holder▁no▁100｜>",
    "image_end": "<｜hy_place▁holder▁no▁101｜>",
    "image": "<｜hy_place▁holder▁no▁102｜>",
    "newline": "<｜hy_place▁holder▁no▁103｜>",
}
# OTSL table tags as special tokens: the case in which skip_special_tokens=True would lose them.
_PADDLE = [
    "<unk>",
    "<s>",
    "</s>",
    "<|begin_of_sentence|>",
    "<|IMAGE_START|>",
    "<|IMAGE_END|>",
    "<|IMAGE_PLACEHOLDER|>",
    "<|VIDEO_PLACEHOLDER|>",
    "<fcel>",
    "<ecel>",
    "<lcel>",
    "<ucel>",
    "<xcel>",
    "<nl>",
]
_GLM = [
    "<|endoftext|>",
    "[MASK]",
    "[gMASK]",
    "[sMASK]",
    "<sop>",
    "<eop>",
    "<|system|>",
    "<|user|>",
    "<|assistant|>",
    "<|observation|>",
    "<|begin_of_image|>",
    "<|end_of_image|>",
    "<|begin_of_video|>",
    "<|end_of_video|>",
    "<|image|>",
    "<|video|>",
]
_LIGHTON = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>"]
# dots.ocr (tokenizer_config.json of rednote-hilab/dots.ocr): Qwen2 tokens plus its own role and image tokens.
_DOTS = [
    "<|endoftext|>",
    "<|imgpad|>",
    "<|img|>",
    "<|endofimg|>",
    "<|system|>",
    "<|endofsystem|>",
    "<|user|>",
    "<|endofuser|>",
    "<|assistant|>",
    "<|endofassistant|>",
    "<|video_pad|>",
]
_DEEPSEEK = [
    "<｜begin▁of▁sentence｜>",
    "<｜end▁of▁sentence｜>",
    "<｜▁pad▁｜>",
    "<image>",
    "<|grounding|>",
    "<|ref|>",
    "<|/ref|>",
    "<|det|>",
    "<|/det|>",
]

# Chat templates shaped like the real ones (Qwen2/2.5-VL insert a default system turn, Qwen3-VL does not).
_QWEN_TURNS = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for c in message['content'] %}"
    "{% if c['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
_QWEN2_TEMPLATE = (
    "{% if messages[0]['role'] != 'system' %}<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    + _QWEN_TURNS
)
# HunyuanOCR: role markers follow the content; the generation prompt ends with <｜hy_User｜>.
_HY_TEMPLATE = (
    _HY["bos"] + "{% for message in messages %}"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for c in message['content'] %}"
    "{% if c['type'] == 'image' %}"
    + _HY["image_start"]
    + _HY["image"]
    + _HY["image_end"]
    + "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{% if message['role'] == 'system' %}"
    + _HY["sys"]
    + "{% elif message['role'] == 'user' %}"
    + _HY["user"]
    + "{% else %}"
    + _HY["eos"]
    + "{% endif %}{% endfor %}"
)
# GLM-OCR: "[gMASK]<sop><|user|>\n<image>PROMPT<|assistant|>\n"; a turn ends at the next role token.
_GLM_TEMPLATE = (
    "[gMASK]<sop>{% for message in messages %}<|{{ message['role'] }}|>\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for c in message['content'] %}"
    "{% if c['type'] == 'image' %}<|begin_of_image|><|image|><|end_of_image|>"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
# LightOnOCR: Qwen3 turns with a bare <|image_pad|>, which the processor expands to the image tokens.
_LIGHTON_TEMPLATE = _QWEN_TURNS.replace("<|vision_start|><|image_pad|><|vision_end|>", "<|image_pad|>")
# DeepSeek-OCR-2 is prompted without roles ("plain" format): "<image>\nPROMPT", BOS added by the tokenizer.
_DEEPSEEK_TEMPLATE = (
    "{% for message in messages %}{% for c in message['content'] %}{% if c['type'] == 'image' %}<image>\n"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endfor %}"
)
# dots.ocr: "<|user|><|img|><|imgpad|><|endofimg|>PROMPT<|endofuser|><|assistant|>" (its chat_template.json).
_DOTS_TEMPLATE = (
    "{% for message in messages %}{% if message['role'] == 'user' %}<|user|>{% else %}<|assistant|>{% endif %}"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for c in message['content'] %}"
    "{% if c['type'] == 'image' %}<|img|><|imgpad|><|endofimg|>"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{% if message['role'] == 'user' %}<|endofuser|>{% else %}<|endofassistant|>{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
# PaddleOCR-VL: "User: <image>PROMPT\nAssistant: ", assistant turns end with </s>.
_PADDLE_TEMPLATE = (
    "<|begin_of_sentence|>{% for message in messages %}"
    "{% if message['role'] == 'user' %}User: {% elif message['role'] == 'assistant' %}Assistant: {% endif %}"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for c in message['content'] %}"
    "{% if c['type'] == 'image' %}<|IMAGE_START|><|IMAGE_PLACEHOLDER|><|IMAGE_END|>"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{% if message['role'] == 'assistant' %}</s>{% else %}{{ '\\n' }}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}Assistant: {% endif %}"
)

# Per family: special tokens, tokenizer roles (bos/eos/pad + named extras the processors look up), template.
_QWEN_SPEC = dict(special=_QWEN, roles=dict(eos_token="<|im_end|>", pad_token="<|endoftext|>"), extra={})
TOKENIZER_SPECS = {
    "qwen2_vl": dict(_QWEN_SPEC, template=_QWEN2_TEMPLATE),
    "qwen2_5_vl": dict(_QWEN_SPEC, template=_QWEN2_TEMPLATE),
    "qwen3_vl": dict(_QWEN_SPEC, template=_QWEN_TURNS),
    "hunyuan_vl": dict(
        special=list(_HY.values()),
        template=_HY_TEMPLATE,
        roles=dict(bos_token=_HY["bos"], eos_token=_HY["eos"], pad_token=_HY["pad"]),
        extra={
            "image_token": _HY["image"],
            "image_start_token": _HY["image_start"],
            "image_end_token": _HY["image_end"],
        },
    ),
    "paddleocr_vl": dict(
        special=_PADDLE,
        template=_PADDLE_TEMPLATE,
        roles=dict(bos_token="<s>", eos_token="</s>", pad_token="<unk>", unk_token="<unk>"),
        extra={"image_token": "<|IMAGE_PLACEHOLDER|>"},
    ),
    "glm_ocr": dict(
        special=_GLM, template=_GLM_TEMPLATE, extra={}, roles=dict(eos_token="<|user|>", pad_token="<|endoftext|>")
    ),
    "lighton_ocr": dict(
        special=_LIGHTON,
        template=_LIGHTON_TEMPLATE,
        roles=dict(eos_token="<|im_end|>", pad_token="<|endoftext|>"),
        extra={
            "image_token": "<|image_pad|>",
            "image_break_token": "<|vision_pad|>",
            "image_end_token": "<|vision_end|>",
        },
    ),
    "dots_ocr": dict(
        special=_DOTS,
        template=_DOTS_TEMPLATE,
        extra={},
        roles=dict(eos_token="<|endofassistant|>", pad_token="<|endoftext|>"),
    ),
    "deepseek_ocr2": dict(
        special=_DEEPSEEK,
        template=_DEEPSEEK_TEMPLATE,
        extra={"image_token": "<image>"},
        roles=dict(bos_token=_DEEPSEEK[0], eos_token=_DEEPSEEK[1], pad_token=_DEEPSEEK[2]),
    ),
}

# Image processors: max_pixels keeps a page at <= 64 merged image tokens (8x8 merged patches of 2x2).
_SIZE_14 = {"shortest_edge": 56 * 56, "longest_edge": 28 * 28 * 64}
_SIZE_16 = {"shortest_edge": 64 * 64, "longest_edge": 32 * 32 * 64}
IMAGE_PROCESSORS = {
    "qwen2_vl": lambda: Qwen2VLImageProcessorPil(size=_SIZE_14),
    "qwen2_5_vl": lambda: Qwen2VLImageProcessorPil(size=_SIZE_14),
    "qwen3_vl": lambda: Qwen2VLImageProcessorPil(
        size=_SIZE_16, patch_size=16, image_mean=[0.5] * 3, image_std=[0.5] * 3
    ),
    "hunyuan_vl": lambda: HunYuanVLImageProcessorPil(size=_SIZE_16),
    "paddleocr_vl": lambda: PaddleOCRVLImageProcessorPil(size=_SIZE_14),
    "glm_ocr": lambda: Glm46VImageProcessorPil(size=_SIZE_14),
    # Pixtral resizes to multiples of patch_size; 28 = 14 x spatial merge keeps the merger exact.
    "lighton_ocr": lambda: PixtralImageProcessorPil(size={"longest_edge": 252}, patch_size=28),
    # The learnable queries fix the views at 768 px (144 tokens each); the processor adds >= 2 tiles.
    "deepseek_ocr2": lambda: DeepseekOcr2ImageProcessorPil(size={"height": 768, "width": 768}),
    "dots_ocr": lambda: Qwen2VLImageProcessorPil(size=_SIZE_14),
}


def build_tokenizer(family: str, text: list[str] | None = None, vocab: int = 600) -> PreTrainedTokenizerFast:
    """Train a byte-level BPE on CORPUS (or `text`) with the family's special tokens (ids 0..k-1)."""
    spec = TOKENIZER_SPECS[family]
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        special_tokens=spec["special"],
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator(text or CORPUS.splitlines(), trainer=trainer)
    if family == "deepseek_ocr2":  # a Llama-style tokenizer: BOS on every encode
        bos = spec["roles"]["bos_token"]
        bpe.post_processor = post_processors.TemplateProcessing(single=f"{bos} $A", special_tokens=[(bos, 0)])
    return PreTrainedTokenizerFast(
        tokenizer_object=bpe, extra_special_tokens=spec["extra"], chat_template=spec["template"], **spec["roles"]
    )


QWEN_VOCAB_FAMILIES = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl", "dots_ocr")  # the real Qwen BPE is theirs
REAL_VOCAB_ROWS = 151936  # the Qwen VL checkpoints' embedding rows (padding beyond the tokenizer's entries)


def load_real_tokenizer(family: str, folder: Path) -> PreTrainedTokenizerFast:
    """The real byte-level BPE in `folder` (tokenizer.json) with the family's roles and chat template."""
    if family not in QWEN_VOCAB_FAMILIES:
        raise ValueError(f"--tokenizer: {folder} is the Qwen vocabulary; {family} has a tokenizer of its own")
    spec = TOKENIZER_SPECS[family]
    bpe = Tokenizer.from_file(str(folder / "tokenizer.json"))
    missing = [t for t in spec["special"] if bpe.token_to_id(t) is None]
    if missing:
        raise ValueError(f"--tokenizer: {folder} lacks the special tokens {missing}")
    return PreTrainedTokenizerFast(
        tokenizer_object=bpe, extra_special_tokens=spec["extra"], chat_template=spec["template"], **spec["roles"]
    )


def build_config(family: str, tok: PreTrainedTokenizerFast, vocab_rows: int = VOCAB_SIZE):
    """A tiny config of the family's real architecture with every token id taken from `tok`."""
    if family not in CONFIG_BUILDERS:
        raise ValueError(f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    text = dict(
        TEXT,
        vocab_size=vocab_rows,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
    )
    return CONFIG_BUILDERS[family](text, tok.convert_tokens_to_ids)


def _hunyuan(text, ids):
    text.update(
        head_dim=32,
        eod_token_id=text["eos_token_id"],
        sep_token_id=ids(_HY["sys"]),
        rope_parameters={"rope_type": "default", "rope_theta": 1e4, "mrope_section": [4, 4, 4, 4]},
    )
    vision = dict(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        out_hidden_size=128,
        patch_size=16,
        spatial_merge_size=2,
    )
    return HunYuanVLConfig(
        text_config=text,
        vision_config=vision,
        image_token_id=ids(_HY["image"]),
        im_start_id=ids(_HY["image_start"]),
        im_end_id=ids(_HY["image_end"]),
        im_newline_id=ids(_HY["newline"]),
    )


def _paddle(text, ids):
    text.update(head_dim=32, rope_parameters=ROPE)
    vision = dict(
        hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2, image_size=56, patch_size=14
    )
    return PaddleOCRVLConfig(
        text_config=text,
        vision_config=vision,
        image_token_id=ids("<|IMAGE_PLACEHOLDER|>"),
        video_token_id=ids("<|VIDEO_PLACEHOLDER|>"),
        vision_start_token_id=ids("<|IMAGE_START|>"),
        vision_end_token_id=ids("<|IMAGE_END|>"),
    )


def _qwen_ids(ids) -> dict:
    return dict(
        image_token_id=ids("<|image_pad|>"),
        video_token_id=ids("<|video_pad|>"),
        vision_start_token_id=ids("<|vision_start|>"),
        vision_end_token_id=ids("<|vision_end|>"),
    )


def _qwen2(text, ids):
    vision = dict(depth=2, embed_dim=64, hidden_size=128, num_heads=2, mlp_ratio=2, patch_size=14)
    return Qwen2VLConfig(text_config=dict(text, rope_parameters=ROPE), vision_config=vision, **_qwen_ids(ids))


def _qwen2_5(text, ids):
    vision = dict(
        depth=2,
        hidden_size=64,
        intermediate_size=128,
        num_heads=2,
        out_hidden_size=128,
        patch_size=14,
        window_size=56,
        fullatt_block_indexes=[1],
    )
    return Qwen2_5_VLConfig(text_config=dict(text, rope_parameters=ROPE), vision_config=vision, **_qwen_ids(ids))


def _qwen3(text, ids):
    text.update(head_dim=32, rope_parameters=dict(ROPE, mrope_interleaved=True))
    vision = dict(
        depth=2,
        hidden_size=64,
        intermediate_size=128,
        num_heads=2,
        out_hidden_size=128,
        patch_size=16,
        num_position_embeddings=64,
        deepstack_visual_indexes=[0],
    )
    return Qwen3VLConfig(text_config=text, vision_config=vision, **_qwen_ids(ids))


def _glm_ocr(text, ids):
    text.update(head_dim=32, rope_parameters=dict(ROPE, partial_rotary_factor=1.0))
    vision = dict(
        depth=2,
        hidden_size=64,
        intermediate_size=128,
        num_heads=2,
        out_hidden_size=128,
        patch_size=14,
        spatial_merge_size=2,
        image_size=56,
    )
    return GlmOcrConfig(
        text_config=text,
        vision_config=vision,
        image_token_id=ids("<|image|>"),
        video_token_id=ids("<|video|>"),
        image_start_token_id=ids("<|begin_of_image|>"),
        image_end_token_id=ids("<|end_of_image|>"),
        video_start_token_id=ids("<|begin_of_video|>"),
        video_end_token_id=ids("<|end_of_video|>"),
    )


def _lighton_ocr(text, ids):
    # Sub-configs by model_type, as the real checkpoint stores them: Qwen3 text, Pixtral vision.
    text.update(model_type="qwen3", head_dim=32, rope_parameters={"rope_type": "default", "rope_theta": 1e4})
    vision = dict(
        model_type="pixtral",
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        head_dim=32,
        patch_size=14,
        image_size=1540,
    )
    return LightOnOcrConfig(text_config=text, vision_config=vision, image_token_id=ids("<|image_pad|>"))


def _deepseek_ocr2(text, ids):
    # SAM feeds a Qwen2 encoder that appends 144 learnable queries per 768-px view (the processor's token
    # count). Patches of 64 px (real: 16) give SAM 12x12 tokens instead of 48x48, 2x2 after its two
    # stride-2 convs: the same query path at 1/16 of the cost. The decoder is MoE: layer 0 dense,
    # layer 1 with 4 routed experts (top 2) + 1 shared.
    sam = dict(
        hidden_size=32,
        output_channels=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        image_size=768,
        patch_size=64,
        window_size=14,
        global_attn_indexes=[1],
        downsample_channels=[32, 64],
        mlp_dim=64,
    )
    encoder = dict(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=4096,
    )
    text.update(
        num_key_value_heads=4,
        moe_intermediate_size=64,
        n_routed_experts=4,
        num_experts_per_tok=2,
        n_shared_experts=1,
        mlp_layer_types=["dense", "sparse"],
        rope_parameters={"rope_type": "default", "rope_theta": 1e4},
    )
    return DeepseekOcr2Config(
        vision_config=dict(sam_config=sam, encoder_config=encoder), text_config=text, image_token_id=ids("<image>")
    )


def _dots_ocr(text, ids):
    from dots_ocr_remote.configuration_dots import DotsOCRConfig

    # The real tower: depth 42, hidden 1536, 12 heads, patch 14, merge 2 (see sizes.py); tiny here.
    vision = dict(
        depth=2,
        hidden_size=64,
        intermediate_size=128,
        num_heads=2,
        out_hidden_size=128,
        patch_size=14,
        window_size=56,
        fullatt_block_indexes=[0, 1],
    )
    return DotsOCRConfig(
        **text,
        rope_parameters={"rope_type": "default", "rope_theta": 1e4},
        image_token_id=ids("<|imgpad|>"),
        video_token_id=ids("<|video_pad|>"),
        vision_config=vision,
        tie_word_embeddings=False,
    )


CONFIG_BUILDERS = {
    "qwen2_vl": _qwen2,
    "qwen2_5_vl": _qwen2_5,
    "qwen3_vl": _qwen3,
    "hunyuan_vl": _hunyuan,
    "paddleocr_vl": _paddle,
    "glm_ocr": _glm_ocr,
    "lighton_ocr": _lighton_ocr,
    "deepseek_ocr2": _deepseek_ocr2,
    "dots_ocr": _dots_ocr,
}


def _dots_model_class():
    from dots_ocr_remote.configuration_dots import DotsOCRConfig
    from dots_ocr_remote.modeling_dots_ocr import DotsOCRForCausalLM

    # Registered for the Auto classes, save_pretrained copies both files and writes config.json's auto_map.
    DotsOCRConfig.register_for_auto_class()
    DotsOCRForCausalLM.register_for_auto_class("AutoModelForCausalLM")
    return DotsOCRForCausalLM


MODEL_CLASSES = {
    "qwen2_vl": Qwen2VLForConditionalGeneration,
    "qwen2_5_vl": Qwen2_5_VLForConditionalGeneration,
    "qwen3_vl": Qwen3VLForConditionalGeneration,
    "hunyuan_vl": HunYuanVLForConditionalGeneration,
    "paddleocr_vl": PaddleOCRVLForConditionalGeneration,
    "glm_ocr": GlmOcrForConditionalGeneration,
    "lighton_ocr": LightOnOcrForConditionalGeneration,
    "deepseek_ocr2": DeepseekOcr2ForConditionalGeneration,
}


_QK_NORMS = ("q_norm", "k_norm", "query_layernorm", "key_layernorm")  # Qwen3-VL, HunYuanVL text attention


# DeepSeek-OCR-2 has no QK norm but ~1000 image tokens per page (7 views x 144): attention over them is
# near-uniform and greedy output repeats 3-4 tokens in 20. q and k x sqrt(3) (logits x 3): 12-19 distinct.
_SHARP_QK = {"deepseek_ocr2": ("q_proj.weight", "k_proj.weight")}


def _reinit(model: torch.nn.Module, seed: int, sharp_qk: tuple[str, ...] = ()) -> None:
    # The default init (std 0.02) makes greedy output degenerate (one repeated token, or EOS at once).
    # std 0.15 gave 75-95 distinct tokens in 100 on every family (0.1: 20-60 on Paddle/Qwen2.5).
    # QK-norm gains x3: unit-RMS q and k cap attention logits at sqrt(head_dim), so attention is
    # near-uniform over the image tokens and Qwen3-VL / HunYuanVL repeat one token for 100 steps.
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.ndim >= 2:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.15)
            elif name.startswith("model.language_model.") and name.endswith(tuple(f"{n}.weight" for n in _QK_NORMS)):
                p.mul_(3.0)
            if name.startswith("model.language_model.") and name.endswith(sharp_qk):
                p.mul_(3.0**0.5)


def build_tiny_model(
    family: str,
    out_dir: Path,
    seed: int = 0,
    generation: dict | None = None,
    text: list[str] | None = None,
    vocab: int = 600,
    real_images: bool = False,
    tokenizer: Path | None = None,
) -> Path:
    """Write a tiny random-weight checkpoint of `family` (a transformers model_type) to `out_dir`.

    `generation` adds generation_config.json fields, e.g. {"repetition_penalty": 1.05} as Qwen2.5-VL sets.
    `tokenizer`: a folder with a real tokenizer.json (../shared/tokenizers/qwen3) used instead of a
    trained one; the model then has the real vocabulary's rows and vision token ids.
    """
    if family not in FAMILIES + REMOTE_FAMILIES:
        raise ValueError(f"unknown family {family!r}; expected one of {', '.join(FAMILIES + REMOTE_FAMILIES)}")
    out_dir = Path(out_dir)
    tok = load_real_tokenizer(family, Path(tokenizer)) if tokenizer else build_tokenizer(family, text, vocab)
    rows = max(REAL_VOCAB_ROWS, len(tok)) if tokenizer else len(tok) if vocab > VOCAB_SIZE else VOCAB_SIZE
    config = build_config(family, tok, rows)
    torch.manual_seed(seed)
    model_class = _dots_model_class() if family == "dots_ocr" else MODEL_CLASSES[family]
    model = model_class(config).eval()
    _reinit(model, seed, _SHARP_QK.get(family, ()))
    gen = dict(bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    if family == "dots_ocr":  # its generation_config.json: eos_token_id [<|endoftext|>, <|endofassistant|>]
        gen["eos_token_id"] = [tok.convert_tokens_to_ids(t) for t in ("<|endoftext|>", "<|endofassistant|>")]
    model.generation_config = GenerationConfig(**{**gen, **(generation or {})})
    model.save_pretrained(out_dir)
    images = type(IMAGE_PROCESSORS[family]())() if real_images else IMAGE_PROCESSORS[family]()
    processor = PROCESSOR_CLASSES[family](image_processor=images, tokenizer=tok, chat_template=tok.chat_template)
    processor.save_pretrained(out_dir)
    return out_dir


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", required=True, choices=FAMILIES + REMOTE_FAMILIES, help="transformers model_type")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tokenizer-text", type=Path, help="train the tokenizer on the .md files below this folder")
    parser.add_argument("--vocab", type=int, default=600, help="tokenizer vocabulary size")
    parser.add_argument(
        "--tokenizer", type=Path, help="a folder with a real tokenizer.json to use (the Qwen families' vocabulary)"
    )
    parser.add_argument(
        "--real-images",
        action="store_true",
        help="the processor's own image sizes (full-size page images; for hsd bench --full-size)",
    )
    parser.add_argument(
        "--repetition-penalty", type=float, help="generation_config.json's repetition_penalty (Qwen2.5-VL ships 1.05)"
    )
    parser.add_argument("out_dir", type=Path)
    args = parser.parse_args(argv)
    hf_logging.disable_progress_bar()  # stdout carries only the output directory
    text = None
    if args.tokenizer_text:
        text = [line for f in sorted(args.tokenizer_text.rglob("*.md")) for line in f.read_text("utf-8").splitlines()]
    print(
        build_tiny_model(
            args.family,
            args.out_dir,
            args.seed,
            text=text,
            vocab=args.vocab,
            real_images=args.real_images,
            tokenizer=args.tokenizer,
            generation={"repetition_penalty": args.repetition_penalty} if args.repetition_penalty else None,
        )
    )


if __name__ == "__main__":
    main()
