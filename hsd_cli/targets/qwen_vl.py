"""Qwen2-VL, Qwen2.5-VL and Qwen3-VL: general VLMs asked for Markdown."""

from __future__ import annotations

import re

from hsd_cli.drafts.markup import DraftStyle
from hsd_cli.targets.base import FamilySpec, VisionTarget

# Qwen2.5-VL's cookbook prompt for document parsing into Markdown.
PAGE_PROMPT = "qwenvl markdown"
REGION_PROMPT = "Read all the text in the image."
STYLE = DraftStyle(table="html", heading="hash", formula="dollars", figure="", drop_furniture=True)

SPECS = (
    FamilySpec("qwen3_vl", ("Qwen/Qwen3-VL-2B-Instruct", "Qwen/Qwen3-VL-4B-Instruct",
               "Qwen/Qwen3-VL-8B-Instruct"), PAGE_PROMPT, REGION_PROMPT, STYLE,
               published_params="2B / 4B / 8B"),
    FamilySpec("qwen2_5_vl", ("Qwen/Qwen2.5-VL-3B-Instruct", "Qwen/Qwen2.5-VL-7B-Instruct"),
               PAGE_PROMPT, REGION_PROMPT, STYLE, published_params="3.75B / 8.29B"),
    FamilySpec("qwen2_vl", ("Qwen/Qwen2-VL-2B-Instruct", "Qwen/Qwen2-VL-7B-Instruct"),
               PAGE_PROMPT, REGION_PROMPT, STYLE, published_params="2.21B / 8.29B"),
)

_FENCE = re.compile(r"^\s*```(?:markdown|md|html)?\s*\n(.*?)\n?```\s*$", re.S)


class QwenVlTarget(VisionTarget):
    def to_markdown(self, text: str) -> str:
        """Drop the ```markdown fence Qwen often wraps its answer in."""
        m = _FENCE.match(text)
        return (m.group(1) if m else text).strip() + "\n"
