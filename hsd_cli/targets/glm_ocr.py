"""GLM-OCR (transformers `glm_ocr`): an element-level OCR model with Qwen-style M-RoPE."""

from __future__ import annotations

from hsd_cli.datatypes import DraftStyle
from hsd_cli.targets.convert import bare_tables, normalize_math, tidy
from hsd_cli.targets.runtime.base import SMART_RESIZE_MAX_ASPECT, FamilySpec, VisionTarget

# The model card's task prompts. Its SDK runs PP-DocLayout-V3 and sends each region its task;
# a whole page goes through "Text Recognition:" like any text region.
PROMPTS = {"text": "Text Recognition:", "table": "Table Recognition:", "formula": "Formula Recognition:"}
# Tables come as HTML, formulas as LaTeX (the SDK wraps them in $$); headings are plain text
# (the SDK adds `#` from the layout label, not the model).
STYLE = DraftStyle(table="html", heading="plain", formula="dollars", figure="", drop_furniture=True)
MAX_PIXELS = 9633792 // 2  # preprocessor longest_edge counts both temporal frames

# The card's "0.9B" is 0.4B vision + 0.5B decoder layers; with token embeddings and output head the
# checkpoint holds 1.1B (Ollama lists 1.11B).
FAMILIES = (
    FamilySpec(
        "glm_ocr",
        ("zai-org/GLM-OCR",),
        PROMPTS["text"],
        PROMPTS["text"],
        STYLE,
        published_params="1.1B",
        max_pixels=MAX_PIXELS,
        max_aspect=SMART_RESIZE_MAX_ASPECT,
        kind_prompts={"table": PROMPTS["table"], "equation": PROMPTS["formula"]},
        element_level=True,
    ),
)


class GlmOcrTarget(VisionTarget):
    def to_markdown(self, text: str) -> str:
        """LaTeX delimiters -> $$ / $; `<table border="1">` -> `<table>`."""
        return tidy(bare_tables(normalize_math(text)))
