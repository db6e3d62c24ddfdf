"""Element-level parsers: flagged as such, and their per-element outputs assemble into Markdown."""

from __future__ import annotations

import pytest

from hsd_cli.targets.runtime.registry import FAMILIES

ELEMENT_LEVEL = {"paddleocr_vl", "glm_ocr"}  # official pipelines: layout model first, a task prompt per element


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_element_level_flag(family):
    """Only the families trained on element crops say so; they carry a prompt per element kind."""
    data = FAMILIES[family][0]
    assert data.element_level == (family in ELEMENT_LEVEL)
    if data.element_level:
        assert {"table", "equation"} <= set(data.kind_prompts)


@pytest.mark.parametrize("family", sorted(ELEMENT_LEVEL))
def test_element_outputs_become_markdown_blocks(family, tiny_target):
    """A formula gets its display fence, a title its heading mark, through the real decode path."""
    target = tiny_target(family)

    def md(kind: str, text: str, level: int = 1) -> str:
        return target.element_markdown(kind, target.decode(target.encode(text)), level)

    assert md("equation", "\\frac{1}{3}") == "$$\n\\frac{1}{3}\n$$\n"
    assert md("equation", "$$E = mc^2$$") == "$$\nE = mc^2\n$$\n"
    assert md("title", "Annual  Report\n2024", 2) == "## Annual Report 2024\n"
    assert md("text", "The quick brown fox.") == "The quick brown fox.\n"


def test_hunyuan_prompt_has_the_model_cards_empty_system_turn(tiny_target):
    """The card prompts with [system "", user [image, prompt]]: the system separator comes first."""
    target = tiny_target("hunyuan_vl")
    prompt = target.chat_prompt("OCR")
    sep = "<｜hy_place▁holder▁no▁3｜>"
    assert prompt.startswith("<｜hy_begin▁of▁sentence｜>" + sep)
    assert prompt.endswith("OCR<｜hy_User｜>")


ELEMENT_SETS = 8  # random draft sets per family (each runs every element crop twice)


@pytest.mark.parametrize("family", sorted(ELEMENT_LEVEL))
def test_element_level_page_is_its_elements_and_lossless(family, tiny_target):
    """AR per element crop (kind prompts), assembled in reading order; verified elements equal it."""
    import random
    from pathlib import Path

    from decoding import rows as decode_rows
    from decoding import run_elements
    from test_lossless import REGIONS, _page, _random_drafts, _random_spec

    from hsd_cli.config import RunConfig
    from hsd_cli.methods.crops import crop_region

    target, page, rng = tiny_target(family), _page(), random.Random(7)
    cfg = RunConfig(inputs=(), out_dir=Path("."), spec=_random_spec(rng))
    ar = run_elements(target, page, REGIONS, None, cfg)
    blocks = []
    for r in REGIONS[:3]:  # the figure is no element to read
        (row,), _ = decode_rows(
            target, [crop_region(page.image, r.bbox)], target.family.prompt_for(r.kind.value), None, cfg.spec
        )
        text = target.decode([t for t in row.tokens if t not in target.eos_ids])
        blocks.append(target.element_markdown(r.kind.value, text, r.level or 1))
    assert ar.markdown == "\n".join(blocks) and ar.stage1 is None and ar.page.regions == 3
    vocab = target.model.config.get_text_config().vocab_size
    for _ in range(ELEMENT_SETS):
        drafts = [_random_drafts(ar.tokens, rng, vocab) for _ in REGIONS]
        out = run_elements(target, page, REGIONS, drafts, cfg)
        assert (out.tokens, out.markdown) == (ar.tokens, ar.markdown)


def test_element_level_ar_reads_the_layout(tiny_target):
    """`ar` on an element-level target needs the layout too: the prepare stage makes it."""
    from pathlib import Path

    from test_lossless import REGIONS, _page

    from hsd_cli.config import RunConfig, SpecConfig
    from hsd_cli.datatypes import PreparedPage
    from hsd_cli.driver.choose import converter_with

    cfg = RunConfig(inputs=(), out_dir=Path("."), method="ar", spec=SpecConfig(max_new_tokens=8))
    conv = converter_with(tiny_target("paddleocr_vl"), cfg)
    assert conv.uses_drafts
    result = conv.convert(PreparedPage(_page(), tuple(REGIONS), "test"))
    assert result.markdown.startswith("# ") and result.stage1 is None  # the title element's heading
    assert not converter_with(tiny_target("qwen2_5_vl"), cfg).uses_drafts
