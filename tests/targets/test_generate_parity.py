"""`ar` is the checkpoint's own greedy decoding: model.generate(do_sample=False), token for token."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TEST_DEVICE
from decoding import run_ar
from make_tiny_model import SERVED
from PIL import Image, ImageDraw

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageImage
from hsd_cli.targets.runtime.base import model_image

N = 40  # tokens compared per family
# Processors the core applies per tree node (VisionTarget.repetition_penalty), so tau = 1 stays
# equal to generate(do_sample=False) with them.
MODELED_PROCESSORS = frozenset({"RepetitionPenaltyLogitsProcessor"})


def unmodeled_processors(target) -> tuple[str, ...]:
    """Greedy logits processors of the checkpoint the speculative core does not apply."""
    return tuple(p for p in target.greedy_processors if p not in MODELED_PROCESSORS)


def _page() -> PageImage:
    img = Image.new("RGB", (480, 640), "white")
    draw = ImageDraw.Draw(img)
    for i in range(12):
        draw.text((40, 40 + 40 * i), f"Line {i}: revenue 1,234.56 and $x^2$", fill="black")
    return PageImage(Path("parity.png"), 0, img, 72)


def generate_tokens(target, page: PageImage, max_new_tokens: int) -> list[int]:
    """New tokens of `generate(do_sample=False)` on the inputs `ar` prefills (prompt, image size)."""
    image = model_image(page.image, target.family)
    text = target.chat_prompt(target.family.page_prompt)
    inputs = target.processor(images=[image], text=[text], return_tensors="pt").to(target.device)
    out = target.model.generate(**inputs, do_sample=False, max_new_tokens=max_new_tokens)
    return out[0, inputs["input_ids"].shape[1] :].tolist()


def ar_tokens(target, page: PageImage, max_new_tokens: int) -> list[int]:
    return run_ar(target, page, SpecConfig(max_new_tokens=max_new_tokens, repeat_guard=0)).tokens


@pytest.mark.parametrize("family", SERVED)
def test_ar_equals_generate(family, tiny_target):
    """With the checkpoint's generation config, `ar` == `generate(do_sample=False)`."""
    target, page = tiny_target(family), _page()
    assert target.greedy_processors == ()  # the tiny checkpoints set no logits processor
    ref = generate_tokens(target, page, N)
    assert len(set(ref)) > 5  # a degenerate model would make this trivial
    assert ar_tokens(target, page, N) == ref


def test_checkpoint_processors_are_read_from_generation_config(tmp_path):
    """Qwen2.5-VL's generation_config.json sets repetition_penalty 1.05: the target reads it."""
    from make_tiny_model import build_tiny_model

    from hsd_cli.targets.runtime.registry import load_target

    path = build_tiny_model(
        "qwen2_5_vl", tmp_path / "q", generation={"repetition_penalty": 1.05, "no_repeat_ngram_size": 3}
    )
    target = load_target(str(path), "cpu", "fp32")
    assert target.repetition_penalty == 1.05
    assert target.greedy_processors == ("RepetitionPenaltyLogitsProcessor", "NoRepeatNGramLogitsProcessor")
    assert unmodeled_processors(target) == ("NoRepeatNGramLogitsProcessor",)  # the core applies only the penalty


PENALTY_FAMILIES = ("qwen2_5_vl", "hunyuan_vl", "deepseek_ocr2")  # Qwen2.5-VL's checkpoints set 1.05


@pytest.fixture(scope="module")
def penalized(tmp_path_factory):
    """family -> a tiny target whose generation_config.json sets repetition_penalty 1.05."""
    from make_tiny_model import build_tiny_model

    from hsd_cli.targets.runtime.registry import load_target

    loaded = {}

    def get(family: str):
        if family not in loaded:
            path = build_tiny_model(family, tmp_path_factory.mktemp(family), generation={"repetition_penalty": 1.05})
            loaded[family] = load_target(str(path), TEST_DEVICE, "fp32")
        return loaded[family]

    return get


@pytest.mark.parametrize("family", PENALTY_FAMILIES)
def test_ar_equals_generate_with_repetition_penalty(family, penalized, tiny_target):
    """repetition_penalty 1.05 changes greedy output; `ar` follows it exactly."""
    target, page = penalized(family), _page()
    assert target.repetition_penalty == 1.05 and unmodeled_processors(target) == ()
    ref = generate_tokens(target, page, 2 * N)
    assert ref != generate_tokens(tiny_target(family), page, 2 * N)  # same weights, no penalty: other tokens
    assert ar_tokens(target, page, 2 * N) == ref


@pytest.mark.parametrize("family", PENALTY_FAMILIES)
def test_spec_methods_equal_ar_with_repetition_penalty(family, penalized):
    """page and hsd at tau = 1 stay equal to the penalized AR (the penalty per tree node, over its ancestry)."""
    from decoding import run_hsd, run_page

    from hsd_cli.config import RunConfig
    from hsd_cli.datatypes import Region, RegionKind

    target, page = penalized(family), _page()
    spec = SpecConfig(max_new_tokens=2 * N, repeat_guard=0)
    ref = ar_tokens(target, page, 2 * N)
    noisy = [t if i % 7 else 3 for i, t in enumerate(ref)]  # a corrupted self-draft
    for drafts in ([ref], [noisy], [ref[10:], ref[:10]]):
        assert run_page(target, page, drafts, spec).tokens == ref
    regions = [Region((30, 30, 450, 300), RegionKind.TEXT, 0, ""), Region((30, 310, 450, 600), RegionKind.TEXT, 1, "")]
    cfg = RunConfig(inputs=(), out_dir=Path("."), spec=spec)
    assert run_hsd(target, page, regions, [[ref[:20]], [ref[20:]]], cfg).tokens == ref
