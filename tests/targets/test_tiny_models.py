"""Tiny random-weight checkpoints load like real ones and generate non-degenerate text."""

from __future__ import annotations

import pytest
import torch
from make_tiny_model import FAMILIES, SERVED, build_tiny_model, main
from PIL import Image, ImageDraw
from transformers import AutoModelForImageTextToText

from hsd_cli.errors import ModelNotFoundError
from hsd_cli.targets.runtime.processors import load_processor, model_type_of
from hsd_cli.targets.runtime.registry import families

PROMPT = "Convert the document to markdown."
MESSAGES = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": PROMPT}]}]

# The real families' prompt shapes (Qwen2/2.5-VL add a default system turn, Qwen3-VL does not).
_QWEN_USER = f"<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>{PROMPT}<|im_end|>\n<|im_start|>assistant\n"
_QWEN_SYSTEM = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
EXPECTED_PROMPTS = {
    "qwen2_vl": _QWEN_SYSTEM + _QWEN_USER,
    "qwen2_5_vl": _QWEN_SYSTEM + _QWEN_USER,
    "qwen3_vl": _QWEN_USER,
    "hunyuan_vl": "<｜hy_begin▁of▁sentence｜><｜hy_place▁holder▁no▁100｜><｜hy_place▁holder▁no▁102｜>"
    f"<｜hy_place▁holder▁no▁101｜>{PROMPT}<｜hy_User｜>",
    "paddleocr_vl": f"<|begin_of_sentence|>User: <|IMAGE_START|><|IMAGE_PLACEHOLDER|><|IMAGE_END|>{PROMPT}\nAssistant: ",  # noqa: E501
    "glm_ocr": f"[gMASK]<sop><|user|>\n<|begin_of_image|><|image|><|end_of_image|>{PROMPT}<|assistant|>\n",
    "lighton_ocr": f"<|im_start|>user\n<|image_pad|>{PROMPT}<|im_end|>\n<|im_start|>assistant\n",
    "deepseek_ocr2": f"<image>\n{PROMPT}",  # the "plain" format: no roles
}
# A 600x800 page is downscaled to an 18x12 patch grid = 54 merged tokens; HunYuanVL adds one
# newline token per merged row and a begin/end pair: 9 * (6 + 1) + 2 = 65.
PAGE_IMAGE_TOKENS = {"qwen2_vl": 54, "qwen2_5_vl": 54, "qwen3_vl": 54, "hunyuan_vl": 65, "paddleocr_vl": 54}
# GLM-OCR's processor counts both temporal frames against max_pixels: a 12x8 grid = 24 tokens.
# LightOnOCR (no grid): 252x196 px / 28 = 9x7 = 63. DeepSeek-OCR-2 (no grid): its learnable queries fix
# 144 tokens per 768-px view, and the processor always adds >= 2 tiles: (1 + 6 tiles) x 144 + 1 = 1009.
PAGE_IMAGE_TOKENS.update(glm_ocr=24, lighton_ocr=63, deepseek_ocr2=1009)
PAGE_GRIDS = {"glm_ocr": [1, 12, 8]}  # the others: [1, 18, 12]


def _page(width: int = 600, height: int = 800) -> Image.Image:
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    draw.text((40, 30), "Annual Report 2024", fill="black")
    for i in range(1, height // 40):
        draw.text((40, 40 * i + 30), f"Line {i}: revenue 1,234.56 and $x^2$", fill="black")
    draw.rectangle([width // 4, height // 3, width // 2, height // 2], outline="blue", width=3)
    return img


@pytest.fixture(scope="module")
def loaded(tiny_model_dir):
    """family -> (model, processor) loaded from the built directory."""
    cache = {}

    def get(family: str):
        if family not in cache:
            path = str(tiny_model_dir(family))
            model = AutoModelForImageTextToText.from_pretrained(path).eval()
            cache[family] = model, load_processor(path, model_type_of(path))
        return cache[family]

    return get


def _inputs(processor, image: Image.Image):
    prompt = processor.apply_chat_template(MESSAGES, add_generation_prompt=True, tokenize=False)
    return processor(images=[image], text=[prompt], return_tensors="pt")


def test_a_tiny_model_for_every_family_hsd_serves():
    """The lossless and batching tests (SERVED) cover each registered family."""
    assert set(SERVED) == set(families())


@pytest.mark.parametrize("family", FAMILIES)
def test_model_type_is_the_family(tiny_model_dir, family):
    """config.json names the transformers model_type we built."""
    assert model_type_of(str(tiny_model_dir(family))) == family


@pytest.mark.parametrize("family", FAMILIES)
def test_chat_template_has_the_real_shape(loaded, family):
    """The generation prompt matches the real family's template, special tokens included."""
    _, processor = loaded(family)
    prompt = processor.apply_chat_template(MESSAGES, add_generation_prompt=True, tokenize=False)
    assert prompt == EXPECTED_PROMPTS[family]


@pytest.mark.parametrize("family", FAMILIES)
def test_page_image_is_capped_at_64_merged_tokens(loaded, family):
    """A 600x800 page gives a fixed, small number of image placeholder tokens."""
    model, processor = loaded(family)
    enc = _inputs(processor, _page())
    assert int((enc["input_ids"] == model.config.image_token_id).sum()) == PAGE_IMAGE_TOKENS[family]
    if "image_grid_thw" not in enc:  # 1D-rope families (LightOnOCR, DeepSeek-OCR-2) have no grid
        return
    (grid,) = enc["image_grid_thw"].tolist()
    assert grid == PAGE_GRIDS.get(family, [1, 18, 12])
    assert enc["mm_token_type_ids"].sum() == PAGE_IMAGE_TOKENS[family]  # get_rope_index needs them


@pytest.mark.parametrize("family", FAMILIES)
def test_greedy_output_is_not_degenerate(loaded, family):
    """Greedy decoding neither stops at once nor repeats one token (the std-0.02 failure)."""
    model, processor = loaded(family)
    enc = _inputs(processor, _page())
    out = model.generate(**enc, do_sample=False, max_new_tokens=20)
    new = out[0, enc["input_ids"].shape[1] :].tolist()
    assert len(new) == 20  # no EOS within 20 tokens
    assert len(set(new)) >= 10
    assert model.generation_config.eos_token_id == processor.tokenizer.eos_token_id
    assert processor.tokenizer.pad_token_id not in (None, processor.tokenizer.eos_token_id)


@pytest.mark.parametrize("family", FAMILIES)
def test_checkpoint_round_trips(loaded, family, tmp_path):
    """Saving a loaded checkpoint and loading it again gives the same inputs and bit-identical logits."""
    model, processor = loaded(family)
    model.save_pretrained(tmp_path)
    processor.save_pretrained(tmp_path)
    again = AutoModelForImageTextToText.from_pretrained(tmp_path).eval()
    enc, enc_again = _inputs(processor, _page()), _inputs(load_processor(str(tmp_path), family), _page())
    assert all(torch.equal(enc[k], enc_again[k]) for k in enc)
    with torch.no_grad():
        assert torch.equal(model(**enc).logits, again(**enc).logits)


def test_build_is_deterministic_per_seed(tmp_path):
    """Same seed, same weights; another seed, other weights."""
    weights = [
        (build_tiny_model("qwen2_5_vl", tmp_path / name, seed) / "model.safetensors").read_bytes()
        for name, seed in [("a", 0), ("b", 0), ("c", 1)]
    ]
    assert weights[0] == weights[1]
    assert weights[0] != weights[2]


def test_model_type_of_a_missing_model_raises(tmp_path):
    """No config.json (or no network for a hub id) is a ModelNotFoundError, not a traceback."""
    with pytest.raises(ModelNotFoundError):
        model_type_of(str(tmp_path))
    with pytest.raises(ModelNotFoundError):
        model_type_of("no-such-org/no-such-model")


def test_cli_prints_the_output_dir(tmp_path, capsys):
    """`python tests/make_tiny_model.py --family F OUT` prints OUT and leaves a loadable directory."""
    main(["--family", "hunyuan_vl", str(tmp_path / "hy")])
    assert capsys.readouterr().out.strip() == str(tmp_path / "hy")
    assert model_type_of(str(tmp_path / "hy")) == "hunyuan_vl"


@pytest.mark.parametrize("size", [(40, 12_000), (10, 28_928)], ids=["receipt", "receipt-over-max-pixels"])
@pytest.mark.parametrize("family", FAMILIES)
def test_a_page_far_longer_than_wide_reaches_the_processor(loaded, family, size):
    """A till receipt 300 times as long as wide is padded to what the processor takes (Qwen2-VL's
    smart_resize refuses over 200), not failed; also one that padding takes past max_pixels."""
    from hsd_cli.targets.runtime import registry
    from hsd_cli.targets.runtime.base import model_image

    model, processor = loaded(family)
    image = model_image(Image.new("RGB", size, "white"), registry.FAMILIES[family][0])
    assert int((_inputs(processor, image)["input_ids"] == model.config.image_token_id).sum()) > 0
