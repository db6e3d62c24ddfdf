"""Grid columns that hold two of the table's columns: a gutter runs down the whole column.

A table printed from HTML with little cell padding sets a right-aligned figure column and the
next one closer than a column gap (0.64 line heights on a news sidebar: "27.3 0.002", its
heading "Recall Rate"), and PyMuPDF's table finder, which sees no rule between them, makes one
grid column of both. The words tell: words of one cell stand a word space apart (about a quarter
of a line height), and no run of wrapped text leaves one x clear on every row. A band of at least
GUTTER line heights that is clear in every non-empty cell of a grid column, with words on both
sides in each, is a gutter between two columns; the grid column is cut there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from statistics import median

from hsd_cli.datatypes import TableCell
from hsd_cli.pages import table_check

GUTTER = 0.5  # line heights: wider than a word space (~0.25), narrower than a column gap (>= 0.6)
MIN_CELLS = 3  # non-empty cells a grid column needs before a clear band counts as a gutter

Box = tuple[float, float, float, float]
Interval = tuple[float, float]


def split_columns(
    cells: tuple[TableCell, ...], boxes: list, words: list, text_of: Callable[[Box], str]
) -> tuple[tuple[TableCell, ...], list]:
    """`cells` and their `boxes` with each grid column that holds a gutter cut in two there.

    `words` are PyMuPDF's (x0, y0, x1, y1, text, ...) in and around the table; `text_of` gives a
    box's text as the grid's cells have it. Boxes are (x0, y0, x1, y1) in `words`' units."""
    col = 0
    while col < max((c.col + c.col_span for c in cells), default=0):
        gutter = _gutter(cells, boxes, words, col)
        if gutter is not None:
            cells, boxes = _cut(cells, boxes, col, gutter, text_of)
        col += 1  # a cut column's right part is col + 1: looked at next
    return cells, boxes


def _gutter(cells, boxes, words, col: int) -> float | None:
    """The x of the middle of the widest band clear in every non-empty cell of grid column `col`."""
    inked = []
    for cell, box in zip(cells, boxes, strict=True):
        if cell.col == col and cell.col_span == 1 and cell.text.strip():
            inside = [line_box for line_box, _ in table_check.words_in(words, box)]
            if inside:
                inked.append(inside)
    if len(inked) < MIN_CELLS:
        return None
    least = GUTTER * median(b[3] - b[1] for boxes_in in inked for b in boxes_in)
    clear = _gaps(inked[0])
    for ws in inked[1:]:
        clear = _intersect(clear, _gaps(ws))
    wide = [g for g in clear if g[1] - g[0] >= least]
    if not wide:
        return None
    x0, x1 = max(wide, key=lambda g: g[1] - g[0])
    return (x0 + x1) / 2


def _gaps(word_boxes: list[Box]) -> list[Interval]:
    """The x intervals between a cell's first and last ink that no word covers."""
    spans = sorted((b[0], b[2]) for b in word_boxes)
    out, reach = [], spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 > reach:
            out.append((reach, x0))
        reach = max(reach, x1)
    return out


def _intersect(a: list[Interval], b: list[Interval]) -> list[Interval]:
    return [(max(p0, q0), min(p1, q1)) for p0, p1 in a for q0, q1 in b if max(p0, q0) < min(p1, q1)]


def _cut(cells, boxes, col: int, x: float, text_of) -> tuple[tuple[TableCell, ...], list]:
    """Grid column `col` as two at `x`: its cells cut in two, later columns one further right,
    cells spanning over it one column wider."""
    out, out_boxes = [], []
    for cell, box in zip(cells, boxes, strict=True):
        if cell.col == col and cell.col_span == 1:
            left, right = (box[0], box[1], x, box[3]), (x, box[1], box[2], box[3])
            out += [replace(cell, text=text_of(left)), replace(cell, col=col + 1, text=text_of(right))]
            out_boxes += [_like(box, left), _like(box, right)]
            continue
        if cell.col > col:
            cell = replace(cell, col=cell.col + 1)
        elif cell.col + cell.col_span > col:
            cell = replace(cell, col_span=cell.col_span + 1)
        out.append(cell)
        out_boxes.append(box)
    return tuple(out), out_boxes


def _like(box, corners: Box):
    """`corners` as a box of `box`'s type (a pymupdf.Rect stays one)."""
    return type(box)(*corners) if not isinstance(box, tuple) else corners
