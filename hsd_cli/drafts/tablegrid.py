"""Table grids from positioned lines: columns by x-extent, group headings spanning their columns.

`cells_from_lines` builds a table where no ruling tells the grid: the row with the most lines
defines the columns, and every other row's line takes the column nearest it, or all the columns
whose centres it covers (a heading set over sub-columns), instead of being packed to the left. `spread_centred_headings`
widens a heading in the rows above the body ("Year Ended" over three year columns) that a
grid finder put in one column: set centred, it has as many empty cells left as right.
"""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.datatypes import TableCell, TextSpan
from hsd_cli.drafts import geometry as geo


def cells_from_lines(lines: list[TextSpan]) -> tuple[TableCell, ...]:
    """Rows of lines sharing a height; columns from the fullest row; spans from overlaps."""
    rows = geo.split_rows(lines)
    if not rows:
        return ()
    widest = max(rows, key=len)
    columns = sorted((s.bbox[0], s.bbox[2]) for s in widest)
    cells = []
    for r, row in enumerate(rows):
        taken: set[int] = set()
        for line in sorted(row, key=lambda s: s.bbox[0]):
            cols = _columns_of(line, columns, taken)
            taken.update(cols)
            cells.append(TableCell(r, cols[0], line.text, col_span=len(cols), is_header=r == 0))
    return tuple(cells)


def _columns_of(line: TextSpan, columns: list[tuple[float, float]], taken: set[int]) -> list[int]:
    """The free column nearest `line`, widened to every free column whose centre it covers."""
    x0, x1 = line.bbox[0], line.bbox[2]
    centres = [(c0 + c1) / 2 for c0, c1 in columns]
    free = [k for k in range(len(columns)) if k not in taken] or [len(columns) - 1]
    inside = [k for k in free if x0 <= centres[k] <= x1]
    if len(inside) > 1:  # a heading set over several columns
        return list(range(inside[0], inside[-1] + 1))
    middle = (x0 + x1) / 2
    return [min(free, key=lambda k: abs(centres[k] - middle))]


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
