"""PaddleOCR-VL: an element-level parser (OCR / table / formula prompts per region)."""

from __future__ import annotations

import re

from hsd_cli.datatypes import DraftStyle
from hsd_cli.targets.convert import normalize_math, pipe_table, tidy
from hsd_cli.targets.runtime.base import SMART_RESIZE_MAX_ASPECT, FamilySpec, VisionTarget

# Element prompts the model was trained with; the page and plain regions use "OCR:".
PROMPTS = {
    "text": "OCR:",
    "table": "Table Recognition:",
    "formula": "Formula Recognition:",
    "chart": "Chart Recognition:",
}
# Tables come as OTSL (the model's only table format); headings carry no marks (the layout
# model, not the VLM, decides what a heading is); formulas are LaTeX.
STYLE = DraftStyle(table="otsl", heading="plain", formula="dollars", figure="", drop_furniture=True)
MAX_PIXELS = 2822400  # preprocessor_config max_pixels (28 * 28 * 3600)

# OTSL cell tags: kept by `decode` whether or not the tokenizer marks them special (if it did,
# skip_special_tokens=True would turn every table into run-together cell text).
OTSL_TOKENS = ("<fcel>", "<ecel>", "<lcel>", "<ucel>", "<xcel>", "<nl>")

# element_level: the official pipeline (PaddleOCR `PaddleOCRVL`) runs PP-DocLayoutV2 first and sends
# each element its task prompt; the model card has no whole-page prompt.
FAMILIES = (
    FamilySpec(
        "paddleocr_vl",
        ("PaddlePaddle/PaddleOCR-VL",),
        PROMPTS["text"],
        PROMPTS["text"],
        STYLE,
        published_params="0.9B",
        max_pixels=MAX_PIXELS,
        max_aspect=SMART_RESIZE_MAX_ASPECT,
        kind_prompts={"table": PROMPTS["table"], "equation": PROMPTS["formula"]},
        markup_tokens=OTSL_TOKENS,
        element_level=True,
    ),
)

# OTSL: fcel = cell with text, ecel = empty cell, lcel = continues the cell on its left,
# ucel = continues the cell above, xcel = both, nl = end of row.
_TAG = re.compile(r"<(fcel|ecel|lcel|ucel|xcel|nl)>")
_BLOCK = re.compile(r"(?:<otsl>)?((?:<(?:fcel|ecel|lcel|ucel|xcel)>[^<]*|<nl>)+)(?:</otsl>)?")


class PaddleVlTarget(VisionTarget):
    def to_markdown(self, text: str) -> str:
        """OTSL tables -> pipe tables (HTML where cells span); math normalized."""
        text = _BLOCK.sub(lambda m: f"\n\n{otsl_to_markdown(m.group(1))}\n\n", text)
        return tidy(normalize_math(text))


def otsl_grid(otsl: str) -> list[list[tuple[str, str]]]:
    """OTSL -> rows of (tag, text) cells."""
    rows, row, parts = [], [], _TAG.split(otsl)
    for tag, body in zip(parts[1::2], parts[2::2], strict=False):
        if tag == "nl":
            rows.append(row)
            row = []
        else:
            row.append((tag, body.strip()))
    return [r for r in rows + [row] if r]


def otsl_to_markdown(otsl: str) -> str:
    """A pipe table when no cell spans; an HTML table with rowspan/colspan otherwise."""
    grid = otsl_grid(otsl)
    if not grid:
        return otsl
    if all(tag in ("fcel", "ecel") for row in grid for tag, _ in row):
        return pipe_table([[body for _, body in row] for row in grid])
    return _html(grid)


def _html(grid: list[list[tuple[str, str]]]) -> str:
    html = []
    for r, row in enumerate(grid):
        origins = [(c, body) for c, (tag, body) in enumerate(row) if tag in ("fcel", "ecel")]
        html.append("<tr>" + "".join(_td(grid, r, c, body) for c, body in origins) + "</tr>")
    return "<table>" + "".join(html) + "</table>"


def _td(grid: list[list[tuple[str, str]]], r: int, c: int, body: str) -> str:
    cols = 1 + _run(grid[r][c + 1 :], "lcel")
    rows = 1 + _run([row[c] for row in grid[r + 1 :] if c < len(row)], "ucel")
    spans = (f' rowspan="{rows}"' if rows > 1 else "") + (f' colspan="{cols}"' if cols > 1 else "")
    return f"<td{spans}>{body}</td>"


def _run(cells: list[tuple[str, str]], tag: str) -> int:
    """How many cells in a row carry `tag` (a span's continuation)."""
    n = 0
    for t, _ in cells:
        if t != tag:
            break
        n += 1
    return n
