"""A ruled grid that misses rows or columns is left to the lines (booktabs rules, ruled groups);
the lines then grid the table, labels spanning the rows they are centred on."""

from __future__ import annotations

import pymupdf

from hsd_cli.datatypes import TableCell
from hsd_cli.drafts import tablegrid
from hsd_cli.pages import pdftext, table_check

# A booktabs table: rules above and under the heading and at the bottom only; two groups of rows.
ROWS = [["Group", "Variant", "Coverage", "Depth"], ["", "Early gradient", "0.602", "26.0"]]
ROWS += [["", "Approximate condition", "269", "976"], ["", "Rapid measure", "32.6", "916"]]
ROWS += [["", "Stable fluid", "0.055", "0.664"]]
X = [40, 110, 260, 330]


def booktabs_page() -> pymupdf.Page:
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=220)
    for y in (30, 52, 150):  # no rule between the rows of a group
        page.draw_line((36, y), (390, y), width=0.8)
    for r, row in enumerate(ROWS):
        for x, text in zip(X, row, strict=True):
            page.insert_text((x, 46 + 20 * r + 6 * (r > 0)), text, fontsize=10)
    page.insert_text((X[0], 46 + 20 * 1.5 + 6), "Large", fontsize=10)  # centred on its two rows
    page.insert_text((X[0], 46 + 20 * 3.5 + 6), "High dose", fontsize=10)
    return page


def test_labels_centred_on_their_groups_span_them() -> None:
    """The booktabs page's lines: "Large" and "High dose", each between its two rows, span them."""
    page = booktabs_page()
    lines = list(pdftext.visible_lines(page, pymupdf.Matrix(1, 1)))
    cells = tablegrid.cells_from_lines(lines)
    spans = {c.text: (c.row, c.col, c.row_span) for c in cells if c.row_span > 1}
    assert spans == {"Large": (1, 0, 2), "High dose": (3, 0, 2)}
    assert [c.text for c in cells if c.row == 2] == ["Approximate condition", "269", "976"]
    assert max(c.row for c in cells) == 4  # the labels' own text rows are gone


def word(x0: float, y0: float, text: str) -> tuple:
    return (x0, y0, x0 + 6 * len(text), y0 + 10, text, 0, 0, 0)


def test_figures_stacked_in_two_cells_of_a_row_miss_rows() -> None:
    cells = (TableCell(0, 0, "0.602 269"), TableCell(0, 1, "26.0 976"))
    boxes = [(0, 0, 50, 40), (60, 0, 110, 40)]
    words = [word(5, 5, "0.602"), word(5, 22, "269"), word(65, 5, "26.0"), word(65, 22, "976")]
    assert table_check.misses_rows_or_columns(cells, boxes, words)
    # One cell wrapping its text over two lines is a cell of two lines, not two rows.
    words = [word(5, 5, "Early"), word(5, 22, "gradient"), word(65, 5, "26.0")]
    assert not table_check.misses_rows_or_columns(cells, boxes, words)


def test_a_grid_of_one_row_holding_heading_and_figures_misses_rows() -> None:
    """Rules only above and below the whole table: the grid's one row holds each column's
    heading over its figures; two columns of stacked figures under headings are rows missed."""
    cells = (TableCell(0, 0, "Loss 39.9 89.5"), TableCell(0, 1, "Width 906 56.1"))
    boxes = [(0, 0, 50, 60), (60, 0, 110, 60)]
    words = [word(5, 5, "Loss"), word(5, 22, "39.9"), word(5, 39, "89.5")]
    words += [word(65, 5, "Width"), word(65, 22, "906"), word(65, 39, "56.1")]
    assert table_check.misses_rows_or_columns(cells, boxes, words)
    # A heading over one figure in each cell is one table row of two lines.
    words = [word(5, 5, "Loss"), word(5, 22, "39.9"), word(65, 5, "Width"), word(65, 22, "906")]
    assert not table_check.misses_rows_or_columns(cells, boxes, words)


def test_two_columns_in_one_cell_miss_columns() -> None:
    cells = (TableCell(0, 0, "Case Loss"),)
    words = [word(5, 5, "Case"), word(100, 5, "Loss")]
    assert table_check.misses_rows_or_columns(cells, [(0, 0, 140, 20)], words)
    words = [word(5, 5, "Accurate"), word(56, 5, "galaxy")]  # a space apart: one cell
    assert not table_check.misses_rows_or_columns(cells, [(0, 0, 140, 20)], words)


def test_a_row_cutting_a_wrapped_cell_from_its_figures_misses_rows() -> None:
    """Grid rows "Statistical | 353" and "structure |": one cell's two lines, its figure beside them."""
    cells = (TableCell(0, 0, "Statistical"), TableCell(0, 1, "353"), TableCell(1, 0, "structure"), TableCell(1, 1, ""))
    boxes = [(0, 0, 90, 14), (100, 0, 140, 14), (0, 14, 90, 30), (100, 14, 140, 30)]
    words = [word(5, 2, "Statistical"), word(105, 6, "353"), word(5, 14, "structure")]
    assert table_check.misses_rows_or_columns(cells, boxes, words)
    # A row of its own a row's spacing below (a section heading): the grid holds.
    words = [word(5, 2, "Statistical"), word(105, 2, "353"), word(5, 22, "Totals")]
    assert not table_check.misses_rows_or_columns(
        cells, [(0, 0, 90, 18), (100, 0, 140, 18), (0, 18, 90, 34), (100, 18, 140, 34)], words
    )


def test_labels_level_with_one_column_of_stacked_figures_miss_rows() -> None:
    """A narrow table with one figure column, ruled only under some rows: a grid row holds
    "Variant / Adaptive network / Physical instrument" beside "Bias / 24.7 / 588"."""
    cells = (TableCell(0, 0, "Variant Adaptive network Physical instrument"), TableCell(0, 1, "Bias 24.7 588"))
    boxes = [(0, 0, 100, 60), (110, 0, 160, 60)]
    words = [word(5, 5, "Variant"), word(5, 22, "Adaptive"), word(5, 39, "Physical")]
    words += [word(115, 5, "Bias"), word(115, 22, "24.7"), word(115, 39, "588")]
    assert table_check.misses_rows_or_columns(cells, boxes, words)
    # A label wrapped over two lines between two stacked figures (a coefficient over its error).
    words = [word(5, 13, "Early"), word(5, 30, "gradient"), word(115, 5, "0.602"), word(115, 39, "(0.04)")]
    assert not table_check.misses_rows_or_columns(cells, boxes, words)
