"""Qwen2-VL, Qwen2.5-VL and Qwen3-VL: general VLMs asked for Markdown."""

from __future__ import annotations

from hsd_cli.datatypes import DraftStyle
from hsd_cli.targets.convert import bare_tables, normalize_math, strip_fence, tidy
from hsd_cli.targets.runtime.base import SMART_RESIZE_MAX_ASPECT, FamilySpec, VisionTarget

# Qwen2.5-VL's cookbook prompt for document parsing into Markdown (Qwen3-VL kept it).
PAGE_PROMPT = "qwenvl markdown"
REGION_PROMPT = "Read all the text in the image."
# The cookbook output: `#` headings, HTML tables, LaTeX in $..$ / $$..$$, figures left out.
STYLE = DraftStyle(table="html", heading="hash", formula="dollars", figure="", drop_furniture=True)
# The processors' own default cap (max_pixels = 12845056, about 3584 x 3584).
MAX_PIXELS = 12845056

# published_params: the hub pages' counts (the names round them: Qwen3-VL-4B holds 4.44B).
FAMILIES = (
    FamilySpec(
        "qwen3_vl",
        ("Qwen/Qwen3-VL-2B-Instruct", "Qwen/Qwen3-VL-4B-Instruct", "Qwen/Qwen3-VL-8B-Instruct"),
        PAGE_PROMPT,
        REGION_PROMPT,
        STYLE,
        published_params="2.13B / 4.44B / 8.77B",
        max_pixels=MAX_PIXELS,
        max_aspect=SMART_RESIZE_MAX_ASPECT,
    ),
    FamilySpec(
        "qwen2_5_vl",
        ("Qwen/Qwen2.5-VL-3B-Instruct", "Qwen/Qwen2.5-VL-7B-Instruct"),
        PAGE_PROMPT,
        REGION_PROMPT,
        STYLE,
        published_params="3.75B / 8.29B",
        max_pixels=MAX_PIXELS,
        max_aspect=SMART_RESIZE_MAX_ASPECT,
    ),
    FamilySpec(
        "qwen2_vl",
        ("Qwen/Qwen2-VL-2B-Instruct", "Qwen/Qwen2-VL-7B-Instruct"),
        PAGE_PROMPT,
        REGION_PROMPT,
        STYLE,
        published_params="2.21B / 8.29B",
        max_pixels=MAX_PIXELS,
        max_aspect=SMART_RESIZE_MAX_ASPECT,
    ),
)


class QwenVlTarget(VisionTarget):
    def to_markdown(self, text: str) -> str:
        """Drop the ```markdown fence Qwen wraps its answer in; normalize math and tables."""
        return tidy(bare_tables(normalize_math(strip_fence(text.strip()))))
