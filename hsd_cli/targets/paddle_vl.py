"""PaddleOCR-VL: an element-level parser (OCR / table / formula prompts per region)."""

from __future__ import annotations

import re

from hsd_cli.drafts.markup import DraftStyle
from hsd_cli.targets.base import FamilySpec, VisionTarget

STYLE = DraftStyle(table="markdown", heading="plain", formula="dollars", figure="", drop_furniture=True)

SPECS = (
    FamilySpec("paddleocr_vl", ("PaddlePaddle/PaddleOCR-VL",), "OCR:", "OCR:", STYLE,
               published_params="0.9B"),
)

# OTSL table tokens PaddleOCR-VL writes for "Table Recognition:".
_CELL = re.compile(r"<(fcel|ecel|lcel|ucel|xcel)>")


class PaddleVlTarget(VisionTarget):
    def to_markdown(self, text: str) -> str:
        """OTSL tables (<fcel>a<fcel>b<nl>) -> pipe tables; other text as written."""
        blocks = text.split("\n\n")
        return "\n\n".join(_otsl_to_pipe(b) if "<nl>" in b else b for b in blocks).strip() + "\n"


def _otsl_to_pipe(block: str) -> str:
    rows = []
    for line in block.split("<nl>"):
        cells = [c.strip() for c in _CELL.split(line)[2::2]]  # text after each cell tag
        if cells:
            rows.append("| " + " | ".join(cells) + " |")
    if not rows:
        return block
    width = rows[0].count("|") - 1
    return "\n".join([rows[0], "|" + " --- |" * width] + rows[1:])
