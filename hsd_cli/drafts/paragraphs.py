"""OCR lines of one region into paragraphs, from the lines' geometry alone.

A block of OCR lines (a layout region, or lines grouped outside any region) holds several
paragraphs and, now and then, two columns. Lines are never joined across columns: a region's
lines split at a gutter that no line crosses when every side holds a few rows. Inside a
column a row starts a new paragraph when it is

- indented from the column's left edge (or, in a list whose continuation lines are indented
  under full first lines, back at the left edge),
- further below the row above than the column's usual line pitch allows, or
- the row above ends well short of the column's right edge ("well short": a few characters
  in justified text, a quarter of the column where lines end ragged), or
- its characters are much wider or narrower than the row above's (a heading set in a column);
  only in CJK text, whose characters share one width: Latin widths vary with the letters and
  with spaced-out inline formulas.

Widths are measured in the block's own character width, so the same rule reads Latin and CJK.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from statistics import median

from hsd_cli.datatypes import BBox, TextSpan
from hsd_cli.drafts.reading_order import split_gaps
from hsd_cli.pages import geometry as geo

MIN_COLUMN_ROWS = 3  # a gutter splits a block only when every side holds this many rows
INDENT = 1.2  # characters off the left edge that make an indent (OCR boxes jitter by a few px)
PITCH = 1.5  # a row further below its predecessor than this many usual pitches starts a paragraph
SHORT_JUSTIFIED = 2.0  # characters short of the right edge that end a paragraph in justified text
SHORT_RAGGED = 0.25  # share of the column width that ends a paragraph where lines end ragged
JUSTIFIED = 0.6  # share of rows ending at the right edge that makes a column justified
FONT_CHANGE = 1.25  # ratio of two rows' character widths that says another font size (a heading)
FONT_CHARS = 10  # rows shorter than this have too few characters to measure a font by
# A column's edges drift across by this many px a px down on a turned scan: under MIN_DRIFT
# (0.3 degrees) nothing to take out, over MAX_DRIFT (3 degrees) no turn but a ragged or shaped
# column; MIN_DRIFT_ROWS rows at least to tell.
MIN_DRIFT, MAX_DRIFT, MIN_DRIFT_ROWS = 0.005, 0.05, 6


@dataclass(frozen=True, slots=True)
class _Row:
    """Lines sharing a baseline in one column, read as one."""

    bbox: BBox
    lines: tuple[TextSpan, ...]
    chars: int


@dataclass(frozen=True, slots=True)
class _Column:
    """What a column's rows are measured against."""

    left: float
    right: float
    char: float  # median character width
    pitch: float  # median distance between row tops; 0: too few rows to say
    height: float  # median row height
    is_justified: bool
    is_hanging: bool  # entries' first lines stand out to the left (numbered or reference lists)


def paragraphs(lines: list[TextSpan]) -> list[list[TextSpan]]:
    """`lines` as paragraphs in reading order, each paragraph's lines in reading order."""
    if not lines:
        return []
    return [p for column in _columns(lines) for p in _column_paragraphs(column)]


def _columns(lines: list[TextSpan]) -> list[list[TextSpan]]:
    """The block's columns, left to right (right to left in RTL script), or the block whole."""
    boxes = [s.bbox for s in lines]
    parts, _ = split_gaps(list(range(len(lines))), boxes, 0)
    columns = [[lines[i] for i in part] for part in parts]
    if len(columns) < 2 or any(len(geo.split_rows(c)) < MIN_COLUMN_ROWS for c in columns):
        return [lines]
    return columns[::-1] if geo.is_rtl(" ".join(s.text for s in lines)) else columns


def _column_paragraphs(lines: list[TextSpan]) -> list[list[TextSpan]]:
    rows = _upright([_row(r) for r in geo.split_rows(lines)])
    column = _measure(rows)
    paras = [list(rows[0].lines)]
    for prev, row in zip(rows, rows[1:], strict=False):
        if _starts_paragraph(prev, row, column):
            paras.append([])
        paras[-1] += row.lines
    return paras


def _upright(rows: list[_Row]) -> list[_Row]:
    """Rows measured as on the page turned upright: a scan turned a degree shifts a column's edges
    across as they go down (20 px over a page), and every row at its foot stood further left
    than the top rows, which read as indented, a paragraph each. The drift is the median slope
    between two rows' left ends (a few indented first lines do not move it)."""
    if len(rows) < MIN_DRIFT_ROWS:
        return rows
    mids = [(r.bbox[1] + r.bbox[3]) / 2 for r in rows]
    pairs = itertools.combinations(zip(mids, (r.bbox[0] for r in rows), strict=True), 2)
    drift = median((x1 - x0) / (y1 - y0) for (y0, x0), (y1, x1) in pairs if y1 > y0)
    if not MIN_DRIFT <= abs(drift) <= MAX_DRIFT:
        return rows
    shifted = [(r.bbox[0] - drift * y, r.bbox[2] - drift * y) for r, y in zip(rows, mids, strict=True)]
    return [replace(r, bbox=(x0, r.bbox[1], x1, r.bbox[3])) for r, (x0, x1) in zip(rows, shifted, strict=True)]


def _row(lines: list[TextSpan]) -> _Row:
    return _Row(geo.union_box([s.bbox for s in lines]), tuple(lines), sum(len(s.text) for s in lines))


def _measure(rows: list[_Row]) -> _Column:
    rights = sorted(r.bbox[2] for r in rows)
    # The right edge: most rows reach it in justified text; a few long rows do in ragged text.
    right = rights[int(0.8 * (len(rights) - 1) + 0.5)]
    char = median(_char_width(r) for r in rows)
    tops = [r.bbox[1] for r in rows]
    pitch = median(b - a for a, b in zip(tops, tops[1:], strict=False)) if len(rows) >= 3 else 0.0
    inner = rows[:-1]  # a paragraph's last row may end anywhere
    flush = sum(right - r.bbox[2] <= 1.5 * char for r in inner)
    is_justified = len(inner) >= 2 and flush >= JUSTIFIED * len(inner)
    left = min(r.bbox[0] for r in rows)
    col = _Column(left, right, char, pitch, median(r.bbox[3] - r.bbox[1] for r in rows), is_justified, False)
    return replace(col, is_hanging=_is_hanging(rows, col))


def _is_hanging(rows: list[_Row], col: _Column) -> bool:
    """Indented rows that are continuations of hanging-indent entries, not first lines.

    Where a row at the left edge is followed by an indented one, a hanging-indent entry's first
    row is full (its text goes on below), while the row before an indented first line is the
    short last row of the paragraph before; most such pairs must say "full". Paragraphs of two
    rows or more also hold more rows at the left edge than indented rows, lists of entries of
    two rows or more at least as many indented ones.
    """
    indented = [_is_indented(r, col) for r in rows]
    before = [prev for k, prev in enumerate(rows[:-1]) if indented[k + 1] and not indented[k]]
    full = sum(not _ends_short(prev, col) for prev in before)
    return full > len(before) / 2 and 2 * sum(indented) >= len(rows)


def _is_indented(row: _Row, col: _Column) -> bool:
    return row.bbox[0] - col.left > INDENT * col.char


def _ends_short(row: _Row, col: _Column) -> bool:
    short_by = SHORT_JUSTIFIED * col.char if col.is_justified else SHORT_RAGGED * (col.right - col.left)
    return col.right - row.bbox[2] > short_by


def _starts_paragraph(prev: _Row, row: _Row, col: _Column) -> bool:
    # Hanging indents: entries start at the left edge; otherwise first lines are indented.
    first_line = _is_indented(row, col) != col.is_hanging
    if col.pitch:
        spaced = row.bbox[1] - prev.bbox[1] > PITCH * col.pitch
    else:  # two rows: compare the gap with the text height instead
        spaced = row.bbox[1] - prev.bbox[3] > 0.8 * col.height
    return first_line or spaced or _ends_short(prev, col) or _font_changes(prev, row)


def _font_changes(prev: _Row, row: _Row) -> bool:
    if min(prev.chars, row.chars) < FONT_CHARS or not (_is_cjk(prev) and _is_cjk(row)):
        return False
    a, b = _char_width(prev), _char_width(row)
    return max(a, b) > FONT_CHANGE * min(a, b)


def _is_cjk(row: _Row) -> bool:
    return sum(len(geo.CJK.findall(s.text)) for s in row.lines) > row.chars / 2


def _char_width(row: _Row) -> float:
    return (row.bbox[2] - row.bbox[0]) / max(row.chars, 1)
