"""Whether a grid found from a page's rulings misses rows or columns of the table it boxes.

Rules need not bound every row and column: booktabs sets horizontal rules only between
groups of rows (a rule under the heading, a partial rule under a group held together by a
label spanning its rows), and a page printed from HTML may rule a heading group and not the
sub-headings under it. A grid built from such rules puts several table rows in one of its rows
("0.602 269" in one cell) and several columns in one cell ("Case Loss"); read row by row, the
table's relations are lost. Such a grid is recognized by what its cells hold:
- two lines side by side on one text row, a column gap apart: the cell holds two columns;
- figures stacked on two text rows or more, in two cells of one grid row: figures do not wrap,
  so each text row is a row of the table (a grid of one row holds the heading above them too);
- figures stacked in one cell and, level with them, two text rows or more of another cell of
  the grid row (a narrow table of one figure column, its rules only under some rows);
- a row without figures whose text goes on, at a line's leading, from the cell above it in a
  row of figures: one cell's wrapped text cut in two, its figures left beside the first half.
The text's own lines then make the better grid (drafts/tablegrid.cells_from_lines).
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict

from hsd_cli.datatypes import BBox, TableCell
from hsd_cli.pages import geometry as geo

# A cell that is a figure: "0.87", "1,234", "(12.5)", "-3%", "$ 178", or a dash for none.
NUMBER = re.compile(r"^[(\-+\u2212]?[$€£¥]?\s?\d[\d,.\s]*%?\)?$|^[-\u2013\u2014]$")
# Lines on one text row this many line heights apart stand in different columns: words of one
# cell are a space apart (a third of an em), columns a gutter (two or more ems in LaTeX and HTML).
COLUMN_GAP = 1.0
# A cell's wrapped lines stand at most this many line heights apart (its leading).
WRAP_GAP = 0.35

Line = tuple[BBox, str]


def misses_rows_or_columns(cells: tuple[TableCell, ...], boxes: list, words: list) -> bool:
    """True when a cell holds two columns, two cells of a grid row hold figures stacked in rows,
    or a grid row cuts a cell's wrapped text from its figures.

    `boxes` are the cells' boxes in the order of `cells`; `words` PyMuPDF's words
    (x0, y0, x1, y1, text, block, line, word) in and around the table.
    """
    stacked: dict[int, int] = defaultdict(int)
    held: dict[tuple[int, int], list[list[Line]]] = {}
    by_height = sorted(words, key=_mid_y)  # each cell looks only at the words of its height
    mids = [_mid_y(w) for w in by_height]
    for cell, box in zip(cells, boxes, strict=False):
        band = by_height[bisect.bisect_left(mids, box[1]) : bisect.bisect_right(mids, box[3])]
        rows = text_rows(words_in(band, box))
        held[cell.row, cell.col] = rows
        if any(_side_by_side(row) for row in rows):
            return True
        if sum(all(NUMBER.match(text) for _, text in row) for row in rows) >= 2:
            stacked[cell.row] += 1  # figures of two rows, under a heading the grid also put there
    if any(n >= 2 for n in stacked.values()) or _labels_level_with_figures(held):
        return True
    return _cuts_wrapped_text(cells, held)


def _labels_level_with_figures(held: dict) -> bool:
    """A cell of figures stacked on two text rows or more, and another cell of its grid row with
    two text rows or more standing level with them: each text row is a table row (figures do not
    wrap, and a label wrapped over two lines stands between two rows of figures, not level)."""
    for (r, k), rows in held.items():
        figure_rows = [row[0][0] for row in rows if all(NUMBER.match(text) for _, text in row)]
        if len(figure_rows) < 2:
            continue
        for (r2, k2), other in held.items():
            level = [row for row in other if any(geo.same_row(row[0][0], box) for box in figure_rows)]
            if r2 == r and k2 != k and len(other) >= 2 and len(level) >= 2:
                return True
    return False


def _cuts_wrapped_text(cells: tuple[TableCell, ...], held: dict) -> bool:
    """A grid row without figures whose cell goes on, a line's leading below, with the text of
    the cell above it, in a row of figures: the figures are centred beside a cell of two lines,
    which the grid (its rows cut from the text between rules) split in two."""
    figures = {c.row for c in cells if NUMBER.match(c.text.strip())}
    for (r, k), rows in held.items():
        above = held.get((r - 1, k))
        if r in figures or r - 1 not in figures or not rows or not above:
            continue
        (upper, *_), (lower, *_) = above[-1], rows[0]
        height = min(upper[0][3] - upper[0][1], lower[0][3] - lower[0][1])
        if 0 <= lower[0][1] - upper[0][3] <= WRAP_GAP * height and _between(held, r - 1, upper[0], lower[0]):
            return True
    return False


def _between(held: dict, row: int, upper: BBox, lower: BBox) -> bool:
    """A figure of grid row `row` set between the two lines, not level with the upper one (a
    section heading's row right under a row of figures, as closely set, has them level)."""
    top, bottom = (upper[1] + upper[3]) / 2, (lower[1] + lower[3]) / 2
    margin = (bottom - top) / 4
    figures = [
        box for (r, _), rows in held.items() if r == row for line in rows for box, text in line if NUMBER.match(text)
    ]
    return any(top + margin < (b[1] + b[3]) / 2 < bottom - margin for b in figures)


def text_rows(lines: list[Line]) -> list[list[Line]]:
    """Words (or lines) grouped by the text row they stand on, top to bottom; each row left to right."""
    rows: list[list[Line]] = []
    for line in sorted(lines, key=lambda ln: (ln[0][1] + ln[0][3]) / 2):
        if rows and geo.same_row(rows[-1][-1][0], line[0]):
            rows[-1].append(line)
        else:
            rows.append([line])
    return [sorted(row, key=lambda ln: ln[0][0]) for row in rows]


def _mid_y(word) -> float:
    return (word[1] + word[3]) / 2


def words_in(words: list, box) -> list[Line]:
    """The words whose centre is in `box`, as (box, text)."""
    x0, y0, x1, y1 = box
    return [(tuple(w[:4]), w[4]) for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]


def _side_by_side(row: list[Line]) -> bool:
    """Two words of one text row a column gap apart (words of one cell are a space apart)."""
    for (a, _), (b, _) in zip(row, row[1:], strict=False):
        height = max(a[3] - a[1], b[3] - b[1])
        if b[0] - a[2] >= COLUMN_GAP * height:
            return True
    return False
