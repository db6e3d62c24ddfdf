"""Which grid a layout model's table box gets: the grid finder's cells (PyMuPDF's, from rules or
text, pages/pdftext.py), their headings spanning, or the grid of the box's own lines
(drafts/tablegrid.cells_from_lines) where the finder lost or merged part of the table."""

from __future__ import annotations

from hsd_cli.datatypes import Region, RegionKind, TextSpan
from hsd_cli.drafts import group_headings, tablegrid
from hsd_cli.pages.table_check import NUMBER

# Above this share of a table box's text left out of the grid finder's cells, the cells are
# rebuilt from the box's lines: a grid holding 90% of the text keeps its multi-line cells.
MAX_MISSED = 0.1


def table_cells(region: Region, lines: list[TextSpan]) -> tuple:
    """The grid finder's cells, their headings spanning; the grid of the lines where the finder
    lost part of the table (its heading, a stub column), merged a group heading into the headings
    under it ("South Mean" for "South" over "Mean" and "Mass": fewer heading rows, no column of the
    body more), or put a label centred on rows in one of them. No lines, no cells."""
    if not lines:
        return ()
    cells = group_headings.split(tablegrid.offset_headings_joined(region.cells), lines)
    cells = tablegrid.stub_spanning_heading(tablegrid.spread_centred_headings(cells))
    if cells and tablegrid.missed_share(cells, lines) > MAX_MISSED:
        cells = ()
    if region.kind is not RegionKind.TABLE:
        return cells
    own = tablegrid.cells_from_lines(lines)
    if not cells:
        return own
    if _labels_spanned(cells, own):
        return own
    # More heading rows alone is no sign: a heading cell wrapped over two lines ("# enc-layers")
    # makes two text rows; the lines' grid must also keep every column of figures the finder found.
    head_own, head = tablegrid.heading_rows(own), tablegrid.heading_rows(cells)
    merged = head_own > head or _heading_over_first_row(cells, own, head_own)
    return own if merged and _body_columns(own, head_own) >= _body_columns(cells, head) else cells


def _labels_spanned(cells: tuple, own: tuple) -> bool:
    """The lines' grid is the finder's, but for labels it spans over the rows they stand centred
    on (LaTeX's multirow, HTML's rowspan): the finder put each such label in one of those rows,
    by where its centre fell (the middle row, or either of two), so its row reads as the label's."""
    if any(c.row_span > 1 for c in cells) or not any(c.row_span > 1 for c in own):
        return False
    return _shape(own) == _shape(cells) and _texts(own) == _texts(cells)


def _shape(cells: tuple) -> tuple[int, int]:
    return max(c.row + c.row_span for c in cells), max(c.col + c.col_span for c in cells)


def _texts(cells: tuple) -> list[str]:
    return sorted(t for c in cells if (t := " ".join(c.text.split())))


def _heading_over_first_row(cells: tuple, own: tuple, head_own: int) -> bool:
    """The finder's first row is the lines' heading row and first body row read together, cell by
    cell ("Width 186"): a heading band filled in a colour with no rule under it. A heading cell
    wrapped over two lines ("#" over "enc-layers") has no body row below it in the lines' grid."""
    body_top = [c for c in own if c.row == head_own and c.text.strip()]
    if head_own != 1 or not any(NUMBER.match(c.text.strip()) for c in body_top):
        return False
    first = sorted((c.col, c.text.strip()) for c in cells if c.row == 0 and c.text.strip())
    joined: dict[int, list[str]] = {}
    for c in sorted(own, key=lambda c: c.row):
        if c.row <= 1 and c.text.strip():
            joined.setdefault(c.col, []).append(c.text.strip())
    return first == sorted((col, " ".join(parts)) for col, parts in joined.items())


def _body_columns(cells: tuple, head: int) -> int:
    """Columns with text below the table's `head` heading rows."""
    return len({c.col for c in cells if c.row >= head and c.text.strip()})
