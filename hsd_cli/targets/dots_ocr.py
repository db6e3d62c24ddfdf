"""dots.ocr (rednote-hilab, `dots_ocr`): remote-code model, Qwen2 decoder with 1D rope.

Its modeling code lives only on the hub (`trust_remote_code=True`). The tests build tiny checkpoints
whose remote code is a local stand-in made of transformers' blocks (tests/dots_ocr_remote: Qwen2
decoder, Qwen2.5-VL-shaped vision tower, `<|imgpad|>` image tokens), loaded the way the real one is.
"""

from __future__ import annotations

import json
import re

from hsd_cli.datatypes import DraftStyle
from hsd_cli.targets.convert import bare_tables, display_math, normalize_math, tidy
from hsd_cli.targets.plain_rope import PlainRopeTarget
from hsd_cli.targets.runtime.base import SMART_RESIZE_MAX_ASPECT, FamilySpec

# dots_ocr/utils/prompts.py: "prompt_layout_all_en" (the parser's default) and "prompt_ocr".
PAGE_PROMPT = """Please output the layout information from the PDF image, including each layout element's bbox, its category, and the corresponding text content within the bbox.

1. Bbox format: [x1, y1, x2, y2]

2. Layout Categories: The possible categories are ['Caption', 'Footnote', 'Formula', 'List-item', 'Page-footer', 'Page-header', 'Picture', 'Section-header', 'Table', 'Text', 'Title'].

3. Text Extraction & Formatting Rules:
    - Picture: For the 'Picture' category, the text field should be omitted.
    - Formula: Format its text as LaTeX.
    - Table: Format its text as HTML.
    - All Others (Text, Title, etc.): Format their text as Markdown.

4. Constraints:
    - The output text must be the original text from the image, with no translation.
    - All layout elements must be sorted according to human reading order.

5. Final Output: The entire output must be a single JSON object.
"""  # noqa: E501
REGION_PROMPT = "Extract the text content from this image."  # prompts.py "prompt_ocr"
# Prompted through the checkpoint's chat template (demo/demo_hf.py: image + text message,
# apply_chat_template, generate with the default generation config, i.e. greedy, and
# batch_decode(skip_special_tokens=True)); stop tokens from generation_config.json:
# eos_token_id [151643 <|endoftext|>, 151673 <|endofassistant|>]; it sets no logits processor.
# Text fields are Markdown (`#` headings), tables HTML, formulas LaTeX.
STYLE = DraftStyle(table="html", heading="hash", formula="dollars", figure="", drop_furniture=True)
MAX_PIXELS = 11289600  # dots_ocr/utils/consts.py MAX_PIXELS

FAMILIES = (
    FamilySpec(
        "dots_ocr",
        ("rednote-hilab/dots.ocr",),
        PAGE_PROMPT,
        REGION_PROMPT,
        STYLE,
        n_axes=0,
        remote_code=True,
        published_params="3B",
        auto_class="AutoModelForCausalLM",
        max_pixels=MAX_PIXELS,
        max_aspect=SMART_RESIZE_MAX_ASPECT,
    ),
)

_FURNITURE = ("Page-header", "Page-footer")
# One layout cell of possibly truncated JSON: category, then (optionally) its text.
_CELL = re.compile(r'"category":\s*"([^"]+)"(?:,\s*"text":\s*"((?:[^"\\]|\\.)*)")?')


class DotsOcrTarget(PlainRopeTarget):
    def to_markdown(self, text: str) -> str:
        """Layout JSON -> the blocks' text in reading order; headers, footers, pictures left out."""
        cells = layout_cells(text)
        if cells is None:  # prompt_ocr answers, or no JSON at all: Markdown as written
            return tidy(bare_tables(normalize_math(text)))
        return tidy("\n\n".join(_cell_markdown(c, t) for c, t in cells if c not in _FURNITURE))


def layout_cells(text: str) -> list[tuple[str, str]] | None:
    """(category, text) of each cell; a cut-off answer keeps its complete cells; None if no JSON."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        found = _CELL.findall(text)
        return [(c, json.loads(f'"{t}"')) for c, t in found] if found else None
    data = [data] if isinstance(data, dict) else data
    if not isinstance(data, list):  # a bare number or string is text, not a layout
        return None
    return [(c.get("category", ""), c.get("text", "")) for c in data if isinstance(c, dict)]


def _cell_markdown(category: str, text: str) -> str:
    if category == "Picture" or not text.strip():
        return ""
    if category == "Formula":
        latex = text.strip().removeprefix("$$").removesuffix("$$")
        return display_math(latex.removeprefix("\\[").removesuffix("\\]"))
    return bare_tables(normalize_math(text.strip()))
