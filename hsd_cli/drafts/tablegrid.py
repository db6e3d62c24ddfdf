"""Table grids from positioned lines: columns by x-extent, group headings spanning their columns.

`cells_from_lines` builds a table where no ruling tells the grid (or the rulings bound only
groups, pages/table_check.py): rows are lines whose centres stand level (OCR's padded boxes
overlap the next row's), the row with the most lines defines the columns, and every other
row's line takes the column nearest it, or all the columns whose centres it covers, instead of
being packed to the left (drafts/table_columns.py); labels centred on several rows or columns
span them, and a cell's wrapped lines are one cell (drafts/table_spans.py).
`spread_centred_headings` widens a heading in the rows above the body ("Year Ended" over three
year columns) that a grid finder put in one column: set centred, it has as many empty cells left
as right.
`heading_rows` tells how many rows at the top are the table's heading; `missed_share` how much
of a table box's text a grid finder left out of its cells; `is_text_table` whether a layout
"table" is prose set in columns; `prose_beside` the lines of a text column a table box reached into.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from statistics import median

from hsd_cli.datatypes import TableCell, TextSpan
from hsd_cli.drafts import table_columns, table_spans
from hsd_cli.drafts.table_rows import ROW_CENTRED, centre, table_rows
from hsd_cli.pages import geometry as geo
from hsd_cli.pages.table_check import NUMBER

# Real table cells on the dev corpus hold 40 characters at most on average (description columns);
# two columns of prose set side by side hold over 100.
PROSE_CELL_CHARS = 60
MIN_PROSE_ROWS = 3  # a text column beside a table shows at least this many rows of prose in its box,
FULL_ROWS, FULL_ROW = 0.75, 0.95  # and this share of them fills this share of its width (justified)
TALL = 1.8  # a line this many times the table's line height is a slanted or turned label
_FRACTION = re.compile(r"^\$\\frac\{(\d{1,4})\}\{(\d{1,4})\}\$$")  # drafts/fractions.py's


def cells_from_lines(lines: list[TextSpan]) -> tuple[TableCell, ...]:
    """Rows of lines sharing a height; columns from the fullest row; spans from overlaps and centring."""
    rows = table_rows(table_spans.join_wrapped(_set_on_baselines(_unstacked(lines))))
    if not rows:
        return ()
    widest = max(rows, key=len)
    columns = sorted((s.bbox[0], s.bbox[2]) for s in widest)
    body = next((r for r, row in enumerate(rows) if sum(bool(NUMBER.match(s.text.strip())) for s in row) >= 2), 1)
    headed = table_spans.headed_columns(columns, rows[body - 1] if body > 1 else [])
    flush = table_columns.flush_left(columns, [s for row in rows for s in row])
    placed = []
    for r, row in enumerate(rows):
        taken: set[int] = set()
        for line in sorted(row, key=lambda s: s.bbox[0]):
            cols = table_columns.columns_of(line, columns, taken, r < body, headed, flush if r >= body else None)
            taken.update(cols)
            # Below the group headings, a line over several columns is their cells set close.
            pieces = table_columns.split_over_columns(line, cols, columns) if r >= body - 1 else [(line, cols)]
            placed += [table_spans.Placed(p, r, c[0], col_span=len(c)) for p, c in pieces]
    spanned = table_spans.spanned(placed, body)
    return tuple(
        TableCell(p.row, p.col, p.line.text, p.row_span, p.col_span, is_header=p.row == 0)
        for p in sorted(spanned, key=lambda p: (p.row, p.col))
    )


def _set_on_baselines(lines: list[TextSpan]) -> list[TextSpan]:
    """Lines far taller than the table's (heading labels set slanted or turned) cut to one line's
    height at their foot, where they stand on their row: their centre is above it."""
    if not lines:
        return lines
    height = median(s.bbox[3] - s.bbox[1] for s in lines)
    return [
        replace(s, bbox=(s.bbox[0], s.bbox[3] - height, s.bbox[2], s.bbox[3]))
        if s.bbox[3] - s.bbox[1] > TALL * height
        else s
        for s in lines
    ]


def _unstacked(lines: list[TextSpan]) -> list[TextSpan]:
    """Figures of two rows that OCR drafts read as a fraction (one over the other) as two lines
    again, where each half stands level with other lines of the table."""
    out = []
    centres = [centre(s) for s in lines]
    tolerance = ROW_CENTRED * median(s.bbox[3] - s.bbox[1] for s in lines) if lines else 0.0
    for line in lines:
        found = _FRACTION.match(line.text)
        x0, y0, x1, y1 = line.bbox
        halves = [replace(line, bbox=(x0, y0, x1, (y0 + y1) / 2)), replace(line, bbox=(x0, (y0 + y1) / 2, x1, y1))]
        level = found and all(any(abs(centre(h) - c) <= tolerance for c in centres) for h in halves)
        if level:
            out += [replace(h, text=t) for h, t in zip(halves, found.groups(), strict=True)]
        else:
            out.append(line)
    return out


def offset_headings_joined(cells: tuple[TableCell, ...]) -> tuple[TableCell, ...]:
    """Each heading the grid finder set in a column of its own beside its body's (a heading centred
    over a wide column of left-aligned text: `Model` over `Spectral interaction`) joined to it: of
    two neighbouring columns, one holds text in the heading rows alone, the other below them alone."""
    head = set(range(heading_rows(cells))) if cells else set()
    col = 0
    while col + 1 < max((c.col + c.col_span for c in cells), default=0):
        a, b = _filled_rows(cells, col), _filled_rows(cells, col + 1)
        spans = any(c.col_span > 1 for c in cells if c.col in (col, col + 1))
        if a and b and not spans and ((a <= head and not b & head) or (b <= head and not a & head)):
            cells = _merged_columns(cells, col)
        else:
            col += 1
    return cells


def _filled_rows(cells: tuple[TableCell, ...], col: int) -> set[int]:
    return {c.row for c in cells if c.col == col and c.text.strip()}


def _merged_columns(cells: tuple[TableCell, ...], col: int) -> tuple[TableCell, ...]:
    """Column `col + 1` folded into `col` (the two never hold text in one row); later columns shift left."""
    right = _filled_rows(cells, col + 1)
    out = []
    for c in cells:
        if (c.col == col and c.row in right) or (c.col == col + 1 and c.row not in right):
            continue  # the empty one of the row's two cells
        out.append(replace(c, col=c.col - 1) if c.col > col else c)
    return tuple(out)


def spread_centred_headings(cells: tuple[TableCell, ...]) -> tuple[TableCell, ...]:
    """Headings above the body widened over the empty cells on both sides (as many each side)."""
    n_cols = max((c.col + c.col_span for c in cells), default=0)
    grid = {(c.row, k): c for c in cells for k in range(c.col, c.col + c.col_span) if c.text.strip()}
    out = []
    for cell in cells:
        if cell.text.strip() and cell.col_span == 1 and _above_body(cells, grid, cell.row):
            left = _empty_run(grid, cell.row, cell.col, -1, lo=1, hi=n_cols)
            right = _empty_run(grid, cell.row, cell.col, +1, lo=1, hi=n_cols)
            k = min(left, right)
            if k >= 2 or (k >= 1 and cell.row == 0):
                cell = replace(cell, col=cell.col - k, col_span=2 * k + 1)
        out.append(cell)
    return tuple(c for c in out if not _covered(c, out))


def _above_body(cells: tuple[TableCell, ...], grid: dict, row: int) -> bool:
    """Rows before the first row with a stub (first-column) text are heading rows."""
    first_body = min((c.row for c in cells if c.col == 0 and c.text.strip()), default=0)
    return row < first_body


def _empty_run(grid: dict, row: int, col: int, step: int, lo: int, hi: int) -> int:
    n, k = 0, col + step
    while lo <= k < hi and (row, k) not in grid:
        n, k = n + 1, k + step
    return n


def _covered(cell: TableCell, cells: list[TableCell]) -> bool:
    """An empty cell that a widened heading now covers."""
    if cell.text.strip():
        return False
    return any(
        o is not cell and o.row == cell.row and o.col <= cell.col < o.col + o.col_span and o.text.strip() for o in cells
    )


def stub_spanning_heading(cells: tuple[TableCell, ...]) -> tuple[TableCell, ...]:
    """A stub label a grid finder gave a row of its own between two heading rows ("Site" set
    centred beside a group row and the metric row under it) spans both rows instead."""
    numeric = _figure_columns(cells)
    body = min((c.row for c in cells if c.col in numeric and NUMBER.match(c.text.strip())), default=0)
    text = {(c.row, k) for c in cells if c.text.strip() for k in range(c.col, c.col + c.col_span)}
    for r in range(1, body - 1):
        own = {k for row, k in text if row == r}
        around = {k for row, k in text if row in (r - 1, r + 1)}
        if (
            own
            and not own & around
            and {k for row, k in text if row == r - 1}
            and {k for row, k in text if row == r + 1}
        ):
            return tuple(_lifted(c, r, own) for c in cells if _kept(c, r, own))
    return cells


def _kept(cell: TableCell, r: int, own: set[int]) -> bool:
    """All but the lone row's empty cells and the cells its labels now cover above and below."""
    if cell.row == r:
        return bool(cell.text.strip())
    return not (cell.row in (r - 1, r + 1) and cell.col in own and not cell.text.strip())


def _lifted(cell: TableCell, r: int, own: set[int]) -> TableCell:
    if cell.row == r:
        return replace(cell, row=r - 1, row_span=2)
    return replace(cell, row=cell.row - 1) if cell.row > r else cell


def heading_rows(cells: tuple[TableCell, ...]) -> int:
    """How many rows at the top of a table are its heading (1 when the table has no figures).

    The body starts at the first row with a figure in a column of figures. The rows above it
    that put a label over a column of figures past the first are the heading: two rows when a
    group name ("ReACT") stands over the metric names ("Procedure", "Completion"). A row
    labelling only the stub columns ("Proteomics | Clustering") starts the body's first section.
    """
    numeric = _figure_columns(cells)
    body = min((c.row for c in cells if c.col in numeric and NUMBER.match(c.text.strip())), default=None)
    if body is None:
        return 1
    n = 0
    while n < body and any(c.row == n and c.text.strip() and _covers(c, numeric - {0}) for c in cells):
        n += 1
    return max(n, 1)


def _figure_columns(cells: tuple[TableCell, ...]) -> set[int]:
    """Columns where figures fill at least half of the non-empty cells."""
    filled, figures = Counter(), Counter()
    for c in cells:
        if c.text.strip():
            filled[c.col] += 1
            figures[c.col] += bool(NUMBER.match(c.text.strip()))
    return {k for k, n in filled.items() if figures[k] * 2 >= n}


def _covers(cell: TableCell, columns: set[int]) -> bool:
    return any(k in columns for k in range(cell.col, cell.col + cell.col_span))


def missed_share(cells: tuple[TableCell, ...], lines: list[TextSpan]) -> float:
    """Share of the lines' characters, word by word, that no cell holds.

    A grid finder that follows ruling lines can take the body of a table and leave out what
    the rules do not enclose (a heading of slanted labels, a stub column, the total rows):
    then the lines make the better grid.
    """
    words = Counter(w for line in lines for w in line.text.split())
    held = Counter(w for c in cells for w in c.text.split())
    total = sum(len(w) * n for w, n in words.items())
    missed = sum(len(w) * max(0, n - held[w]) for w, n in words.items())
    return missed / total if total else 0.0


def is_text_table(lines: list[TextSpan], cells: tuple[TableCell, ...] = ()) -> bool:
    """A "table" that is text: one column of lines, or cells holding whole paragraphs.

    Layout models take ordinary columns of prose (an abstract beside article info, a
    numbered list, a caption) for tables; as a grid their text comes out row by row.
    """
    filled = [c for c in cells or cells_from_lines(lines) if c.text.strip()]
    if not filled:
        return False
    if len({c.col for c in filled}) == 1:
        return True
    return sum(len(c.text) for c in filled) / len(filled) >= PROSE_CELL_CHARS


def prose_beside(lines: list[TextSpan]) -> list[TextSpan]:
    """Lines of a column of prose at the left or right of a table box, a gutter apart.

    A layout box over a table set in one column of a page can reach across the gutter into
    the text column beside it; gridded, the prose lines become rows of the table. The column
    beside is the widest of the box's columns, with rows of prose (geometry.mostly_prose) that
    fill its width, as set text does: a table's column of descriptions is ragged.
    """
    columns = geo.line_columns(lines)
    if len(columns) < 2:
        return []
    boxes = [geo.union_box([s.bbox for s in col]) for col in columns]
    widest = max(range(len(columns)), key=lambda k: boxes[k][2] - boxes[k][0])
    if widest not in (0, len(columns) - 1):
        return []
    rows = geo.joined_rows(columns[widest])
    x0, x1 = boxes[widest][0], boxes[widest][2]
    full = sum(s.bbox[2] - s.bbox[0] >= FULL_ROW * (x1 - x0) for s in rows)
    prose = len(rows) >= MIN_PROSE_ROWS and full >= FULL_ROWS * len(rows) and geo.mostly_prose(rows)
    return columns[widest] if prose else []
