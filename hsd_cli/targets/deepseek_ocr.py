"""DeepSeek-OCR-2 (transformers `deepseek_ocr2`): SAM + Qwen2 visual causal flow, MoE decoder."""

from __future__ import annotations

import re

from hsd_cli.datatypes import DraftStyle
from hsd_cli.targets.convert import bare_tables, normalize_math, tidy
from hsd_cli.targets.plain_rope import PlainRopeTarget
from hsd_cli.targets.runtime.base import FamilySpec

# The model card's prompts, used without a chat template ("plain" conversation format).
PAGE_PROMPT = "<|grounding|>Convert the document to markdown."
REGION_PROMPT = "Free OCR."
# Markdown with `#` headings, HTML tables, LaTeX in \[..\] / \(..\); figures are boxes only.
STYLE = DraftStyle(table="html", heading="hash", formula="brackets", figure="", drop_furniture=True)

# The grounding tags are special tokens of the tokenizer: transformers' model doc decodes grounded
# output with skip_special_tokens=False (docs/source/en/model_doc/deepseek_ocr2.md, "Grounding with
# markdown conversion"), or the tags vanish and their boxes stay in the text as "title[[93, 61, ...]]".
GROUNDING_TOKENS = ("<|ref|>", "<|/ref|>", "<|det|>", "<|/det|>")

# Its processor cuts a page into 768 px tiles, the long side brought to 768: past about 768 to 1
# the short side rounds to no pixel at all (a few pixels are all a tile needs).
MAX_ASPECT = 100.0

# The card's "3B" is the MoE decoder (DeepSeek3B-MoE-A570M); with SAM + Qwen2-0.5B encoder the
# checkpoint is 3.4B (6.8 GB in bf16).
FAMILIES = (
    FamilySpec(
        "deepseek_ocr2",
        ("deepseek-community/DeepSeek-OCR-2",),
        PAGE_PROMPT,
        REGION_PROMPT,
        STYLE,
        n_axes=0,
        published_params="3.4B",
        markup_tokens=GROUNDING_TOKENS,
        max_aspect=MAX_ASPECT,
    ),
)

# Grounded output: <|ref|>label<|/ref|><|det|>[[x1, y1, x2, y2]]<|/det|> before each block.
_REF = re.compile(r"<\|ref\|>(.*?)<\|/ref\|><\|det\|>.*?<\|/det\|>[ \t]*\n?", re.S)
_FIGURES = ("image", "figure")
# A block cut off by the token budget inside its tags: the unfinished header goes, like a whole one.
_CUT = re.compile(r"<\|ref\|>(?:(?!<\|/det\|>).)*\Z", re.S)


class DeepseekOcrTarget(PlainRopeTarget):
    def chat_prompt(self, prompt: str) -> str:
        """`<image>\\n` + prompt: the model was trained on this plain format, not a chat."""
        return f"{self.processor.image_token}\n{prompt}"

    def to_markdown(self, text: str) -> str:
        """Grounding tags dropped (figure blocks entirely); math and tables normalized."""
        return tidy(bare_tables(normalize_math(strip_grounding(text))))


def strip_grounding(text: str) -> str:
    """Blocks without their <|ref|>/<|det|> tags; figure blocks (a box, no text) removed."""
    parts = _REF.split(_CUT.sub("", text))  # [before, label1, block1, label2, block2, ...]
    blocks = [parts[0]]
    for label, block in zip(parts[1::2], parts[2::2], strict=False):
        blocks.append("" if label.strip().lower() in _FIGURES else block)
    return "\n\n".join(b.strip() for b in blocks if b.strip())
