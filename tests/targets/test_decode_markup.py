"""Markup carried by special tokens survives the real decode path: token ids -> decode -> to_markdown."""

from __future__ import annotations

import random

import pytest
from make_tiny_model import SERVED

# DeepSeek-OCR-2 grounded output as transformers' model doc prints it (skip_special_tokens=False).
GROUNDED = (
    "<|ref|>title<|/ref|><|det|>[[93, 61, 904, 105]]<|/det|>\n# Annual Report 2024\n\n"
    "<|ref|>text<|/ref|><|det|>[[93, 130, 904, 300]]<|/det|>\nThe quick brown fox jumps over the lazy dog.\n\n"
    "<|ref|>image<|/ref|><|det|>[[100, 320, 500, 600]]<|/det|>\n\n"
    "<|ref|>table<|/ref|><|det|>[[93, 620, 904, 800]]<|/det|>\n"
    "<table><tr><td>alpha</td><td>0.125</td></tr></table>"
)
GROUNDED_MD = (
    "# Annual Report 2024\n\nThe quick brown fox jumps over the lazy dog.\n\n"
    "<table><tr><td>alpha</td><td>0.125</td></tr></table>\n"
)
OTSL = "<fcel>Year<fcel>Revenue<nl><fcel>2022<fcel>1,234.56<nl>"
OTSL_MD = "| Year | Revenue |\n|---|---|\n| 2022 | 1,234.56 |\n"


def _ids(target, text: str) -> list[int]:
    """The token ids the model emits for `text`, ending with EOS as generation does."""
    return target.encode(text) + [min(target.eos_ids)]


def _is_special(target, token: str) -> bool:
    tok = target.tokenizer
    i = tok.convert_tokens_to_ids(token)
    return tok.added_tokens_decoder[i].special


def test_deepseek_grounding_boxes_do_not_reach_the_markdown(tiny_target):
    """The <|ref|>/<|det|> tags are special tokens; decode keeps them so to_markdown drops the boxes."""
    target = tiny_target("deepseek_ocr2")
    ids = _ids(target, GROUNDED)
    assert all(_is_special(target, t) for t in ("<|ref|>", "<|/ref|>", "<|det|>", "<|/det|>"))
    # What skip_special_tokens=True did: the tags vanish and the boxes end up in the Markdown.
    stripped = target.tokenizer.decode(ids, skip_special_tokens=True)
    assert "[[93, 61, 904, 105]]" in target.to_markdown(stripped)
    markdown = target.to_markdown(target.decode(ids))
    assert markdown == GROUNDED_MD
    assert "[[" not in markdown and "<|" not in markdown


def test_deepseek_block_cut_inside_its_tags_leaves_no_tag(tiny_target):
    """A page cut off by the budget inside a grounding header: the partial header is dropped."""
    target = tiny_target("deepseek_ocr2")
    ids = target.encode(GROUNDED + "\n\n<|ref|>text<|/ref|><|det|>[[93, 8")  # no EOS: truncated
    markdown = target.to_markdown(target.decode(ids))
    assert markdown == GROUNDED_MD
    assert "<|" not in markdown and "[[" not in markdown


def test_paddle_otsl_table_survives_decode(tiny_target):
    """OTSL cell tags (special tokens in the tiny tokenizer) reach to_markdown as a table."""
    target = tiny_target("paddleocr_vl")
    ids = _ids(target, OTSL)
    assert _is_special(target, "<fcel>")
    assert "<fcel>" not in target.tokenizer.decode(ids, skip_special_tokens=True)
    assert target.to_markdown(target.decode(ids)) == OTSL_MD


@pytest.mark.parametrize("family", SERVED)
def test_decode_drops_special_tokens_like_skip_special_tokens(family, tiny_target):
    """Outside the markup tokens, decode is exactly decode(skip_special_tokens=True) minus EOS."""
    target, rng = tiny_target(family), random.Random(family)
    markup = {target.tokenizer.convert_tokens_to_ids(t) for t in target.family.markup_tokens}
    vocab = [i for i in range(len(target.tokenizer)) if i not in markup]
    for _ in range(20):
        ids = [rng.choice(vocab) for _ in range(rng.randint(1, 30))]
        expected = target.tokenizer.decode([t for t in ids if t not in target.eos_ids], skip_special_tokens=True)
        assert target.decode(ids) == expected
