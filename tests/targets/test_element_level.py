"""Element-level parsers: flagged as such, and their per-element outputs assemble into Markdown."""

from __future__ import annotations

import pytest

from hsd_cli.targets.registry import FAMILIES

ELEMENT_LEVEL = {"paddleocr_vl", "glm_ocr"}  # official pipelines: layout model first, a task prompt per element


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_element_level_flag(family):
    """Only the families trained on element crops say so; they carry a prompt per element kind."""
    spec = FAMILIES[family][0]
    assert spec.element_level == (family in ELEMENT_LEVEL)
    if spec.element_level:
        assert {"table", "equation"} <= set(spec.kind_prompts)


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
