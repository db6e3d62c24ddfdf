"""The text layer's tables (drafts/text_layer.py, drafts/tablegrid.py): a layout box's grid from the
grid finder or from its lines, prose given back, tables split at their own headings."""

from __future__ import annotations

import pymupdf

from hsd_cli.datatypes import Region, RegionKind, TableCell
from hsd_cli.drafts import TextLayerSource
from tests.drafts.test_text_layer import PROSE, line, page_of, texts


def test_prose_in_columns_is_not_a_table() -> None:
    """A "table" box over two columns of prose reads as two paragraphs, column by column."""
    left = [line(60, 200 + 24 * i, t, width=420) for i, t in enumerate(PROSE)]
    right = [line(520, 200 + 24 * i, t.upper(), width=420) for i, t in enumerate(PROSE)]
    table = Region((50, 190, 950, 280), RegionKind.TABLE, 0, "")
    regions = TextLayerSource().regions(page_of(*right, *left, layout=(table,)))
    assert [k for k, _ in texts(regions)] == ["text", "text"]
    assert texts(regions)[0][1] == " ".join(PROSE)  # the left column whole, then the right


def test_one_column_table_is_text_and_real_table_stays() -> None:
    """One column of lines is a paragraph; short cells in several columns stay a table."""
    one = [line(60, 200 + 24 * i, t, width=800) for i, t in enumerate(PROSE)]
    table = Region((50, 190, 950, 280), RegionKind.TABLE, 0, "")
    assert texts(TextLayerSource().regions(page_of(*one, layout=(table,))))[0][0] == "text"
    grid = [line(60 + 300 * c, 200 + 24 * r, f"{r}.{c}", width=60) for r in range(3) for c in range(3)]
    regions = TextLayerSource().regions(page_of(*grid, layout=(table,)))
    assert [r.kind for r in regions] == [RegionKind.TABLE] and len(regions[0].cells) == 9


def test_grid_that_lost_the_heading_is_rebuilt_from_lines() -> None:
    """A ruled grid holding only the body loses the heading: the box's lines make the grid."""
    head = [line(60 + 300 * c, 200, name, width=80) for c, name in enumerate(("Task", "Procedure", "Completion"))]
    body = [line(60 + 300 * c, 224 + 24 * r, f"{r}.{c}", width=60) for r in range(3) for c in range(3)]
    grid = tuple(TableCell(r, c, f"{r}.{c}") for r in range(3) for c in range(3))
    table = Region((50, 190, 950, 300), RegionKind.TABLE, 0, "", grid)
    (region,) = TextLayerSource().regions(page_of(*head, *body, layout=(table,)))
    assert len(region.cells) == 12
    assert {c.text for c in region.cells if c.row == 0} == {"Task", "Procedure", "Completion"}
    whole = TextLayerSource().regions(page_of(*body, layout=(table,)))
    assert whole[0].cells == grid  # a grid holding all the text stays as found


def test_a_grid_that_merged_a_group_heading_into_the_headings_is_rebuilt_from_lines() -> None:
    """A grid finder read "South" over "Mean" and "Mass" as one heading cell "South Mean" (one
    heading row where the lines show two): the box's lines make the grid, the group spanning."""
    groups = [line(300, 190, "South", width=60), line(600, 190, "Phase II", width=60)]
    subs = [line(300 + 150 * c, 210, name, width=60) for c, name in enumerate(("Mean", "Mass", "Mean", "Mass"))]
    stub = [line(60, 200, "Case", width=60)]
    body = [line(60, 236 + 24 * r, f"Row {r}", width=80) for r in range(3)]
    body += [line(300 + 150 * c, 236 + 24 * r, f"{r}.{c}", width=40) for r in range(3) for c in range(4)]
    heads = ("Case", "South Mean", "Mass", "Phase II Mean", "Mass")
    found = tuple(TableCell(0, c, t) for c, t in enumerate(heads))
    found += tuple(TableCell(r + 1, c + 1, f"{r}.{c}") for r in range(3) for c in range(4))
    found += tuple(TableCell(r + 1, 0, f"Row {r}") for r in range(3))
    table = Region((50, 180, 950, 320), RegionKind.TABLE, 0, "", found)
    (region,) = TextLayerSource().regions(page_of(*groups, *subs, *stub, *body, layout=(table,)))
    cells = {c.text: c for c in region.cells}
    assert (cells["South"].row, cells["South"].col_span) == (0, 2) and "South Mean" not in cells
    assert (cells["Phase II"].col, cells["Phase II"].col_span) == (3, 2)


def test_a_grid_that_read_the_heading_with_the_first_row_is_rebuilt_from_lines() -> None:
    """A heading band filled in a colour and no rule under it: the finder read the heading row and
    the first body row as one ("Width 186"); the lines' grid keeps them apart."""
    heads = [line(60 + 300 * c, 200, name, width=80) for c, name in enumerate(("Sample", "Width", "Accuracy"))]
    labels = ("Accurate graph", "Previous sample", "Sparse lattice")
    body = [line(60, 224 + 24 * r, label, width=120) for r, label in enumerate(labels)]
    body += [line(60 + 300 * c, 224 + 24 * r, f"{r}.{c}", width=40) for r in range(3) for c in (1, 2)]
    found = tuple(TableCell(0, c, t) for c, t in enumerate(("Sample Accurate graph", "Width 0.1", "Accuracy 0.2")))
    found += tuple(TableCell(r, 0, labels[r]) for r in (1, 2))
    found += tuple(TableCell(r, c, f"{r}.{c}") for r in (1, 2) for c in (1, 2))
    table = Region((50, 190, 950, 300), RegionKind.TABLE, 0, "", found)
    (region,) = TextLayerSource().regions(page_of(*heads, *body, layout=(table,)))
    cells = {c.text: c for c in region.cells}
    assert cells["Width"].row == 0 and cells["0.1"].row == 1 and "Width 0.1" not in cells


def _grid_pdf(rows: list[list[str]]) -> pymupdf.Page:
    """One ruled grid of 90 x 20 pt cells: a single table to PyMuPDF, whatever its text."""
    doc = pymupdf.open()
    page = doc.new_page(width=620, height=300)
    n_rows, n_cols = len(rows), len(rows[0])
    for r in range(n_rows + 1):
        page.draw_line((40, 40 + 20 * r), (40 + 90 * n_cols, 40 + 20 * r))
    for c in range(n_cols + 1):
        page.draw_line((40 + 90 * c, 40), (40 + 90 * c, 40 + 20 * n_rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            page.insert_text((44 + 90 * c, 54 + 20 * r), text, fontsize=9)
    return page


def test_tables_sharing_a_heading_split_out_of_one_grid() -> None:
    """Side-by-side and stacked statements with one column heading become one table each."""
    from hsd_cli.pages.pdftext import table_parts

    page = _grid_pdf(
        [
            ["Income", "2021", "2022", "Balance", "2021", "2022"],
            ["sales", "1", "2", "cash", "5", "6"],
            ["cost", "3", "4", "stock", "7", "8"],
            ["Cash flow", "2021", "2022", "debt", "9", "10"],
            ["in", "11", "12", "", "", ""],
        ]
    )
    parts = table_parts(page, page.rect)
    firsts = [[c.text for c in cells if c.row == 0] for _, cells in parts]
    assert firsts == [["Income", "2021", "2022"], ["Cash flow", "2021", "2022"], ["Balance", "2021", "2022"]]
    assert [max(c.row for c in cells) + 1 for _, cells in parts] == [3, 2, 4]  # the empty row is gone
    left, right = parts[0][0], parts[2][0]
    assert left.x1 <= 40 + 3 * 90 + 1 <= right.x0 + 2  # each part's box covers its own half


def test_one_table_with_a_plain_heading_stays_whole() -> None:
    from hsd_cli.pages.pdftext import table_parts

    rows = [["Model", "Acc", "F1", "Params", "Speed", "Size"], ["a", "1", "2", "3", "4", "5"]]
    page = _grid_pdf(rows)
    ((box, cells),) = table_parts(page, page.rect)
    assert box == page.rect and len(cells) == 12


def test_a_table_box_reaching_into_the_text_column_beside_gives_its_prose_back() -> None:
    """A layout table box over a table in the right column and the foot of the left column's
    text: the prose (its justified lines cut into pieces) is a paragraph of its own, the
    table keeps its own lines and box, and the left column reads before it."""
    prose = ["these general solutions and the variable.", "The measure follows the vector, whereas all"]
    prose += ["surfaces of the thermal field enhance such", "structures of the rapid layer. The variance"]
    spans = [line(100, 600 + 30 * k, text, width=380) for k, text in enumerate(prose)]
    spans += [line(100, 720, "of the periodic state remains", width=230), line(350, 720, "coarse.", width=60)]
    rows = [("Setting", "Precision", "Dev."), ("Low dose", "627", "78.8"), ("Test", "51.0", "0.598")]
    rows += [("Winter", "955", "2.9"), ("Spring", "69.1", "0.552")]
    for r, row in enumerate(rows):
        spans += [line(x, 600 + 30 * r, text, width=80) for x, text in zip((560, 700, 840), row, strict=True)]
    box = Region((100, 595, 930, 760), RegionKind.TABLE, 0, "")
    regions = TextLayerSource().regions(page_of(*spans, layout=(box,)))
    kinds = texts(regions)
    assert kinds[0] == ("text", " ".join(prose) + " of the periodic state remains coarse.")
    assert kinds[1][0] == "table" and "these" not in kinds[1][1]
    table = next(r for r in regions if r.kind is RegionKind.TABLE)
    assert table.bbox[0] >= 560 and [c.text for c in table.cells if c.row == 3] == ["Winter", "955", "2.9"]


def test_a_tables_wide_label_column_stays_in_the_table() -> None:
    """The widest column of a table, at its edge, holding descriptions of several words (prose
    to geometry.mostly_prose), is no text column: its lines are ragged, as set text is not."""
    rows = [("Unit test topic", "ReACT", "Plan"), ("Navigate to a specific room in a house", "0.80", "0.60")]
    rows += [("Search an environment for an object", "0.87", "0.73"), ("Interact with a moving agent", "0.60", "0.53")]
    rows += [("Measure an object with an instrument", "0.90", "0.80")]
    spans = []
    for r, (label, *figures) in enumerate(rows):
        spans.append(line(100, 600 + 30 * r, label, width=8 * len(label)))
        spans += [line(x, 600 + 30 * r, text, width=40) for x, text in zip((560, 700), figures, strict=True)]
    box = Region((100, 595, 800, 760), RegionKind.TABLE, 0, "")
    regions = TextLayerSource().regions(page_of(*spans, layout=(box,)))
    assert [r.kind for r in regions] == [RegionKind.TABLE]


def test_a_finders_grid_stays_where_the_lines_grid_loses_a_column(monkeypatch) -> None:
    """A heading cell wrapped over two lines ("#" over "enc-layers") makes two text rows too: the
    lines' grid replaces the finder's only if it keeps every column of figures (a 2023 paper's
    table had lost one, NED 0.090 -> 0.102)."""
    from hsd_cli.drafts import tablegrid

    found = tuple(TableCell(r, c, f"{r}.{c}" if r else f"h{c}") for r in range(3) for c in range(3))
    merged = (TableCell(0, 0, "top"), TableCell(1, 0, "h0"), TableCell(1, 1, "h1"))
    merged += tuple(TableCell(r, c, f"{r}.{c}") for r in (2, 3) for c in range(2))  # a column short
    monkeypatch.setattr(tablegrid, "cells_from_lines", lambda lines: merged)
    monkeypatch.setattr(tablegrid, "heading_rows", lambda cells: 2 if cells is merged else 1)
    table = Region((50, 190, 950, 300), RegionKind.TABLE, 0, "", found)
    spans = [line(60 + 300 * c, 200 + 24 * r, cell.text, width=60) for cell in found for r, c in [(cell.row, cell.col)]]
    (region,) = TextLayerSource().regions(page_of(*spans, layout=(table,)))
    assert region.cells == found


def test_labels_centred_on_groups_of_rows_span_them() -> None:
    """A grid finder puts a label centred on its group of rows (LaTeX's multirow, HTML's rowspan)
    in the row its centre falls in: the middle one, or the lower of two, whose row then reads as
    the label's. The lines' grid, the same cells otherwise, spans it over the group."""
    names = ("Coarse", "Large", "Prior", "Reduced", "Late")
    body = [line(300, 236 + 24 * r, name, width=80) for r, name in enumerate(names)]
    body += [line(600, 236 + 24 * r, f"{r}.5", width=40) for r in range(5)]
    labels = [line(60, 236 + 12, "Phase I", width=60), line(60, 236 + 24 * 3, "Noisy", width=60)]
    head = [line(60 + 270 * c, 200, t, width=60) for c, t in enumerate(("Group", "Variant", "Mean"))]
    found = tuple(TableCell(0, c, t) for c, t in enumerate(("Group", "Variant", "Mean")))
    found += tuple(TableCell(r + 1, 1, n) for r, n in enumerate(names))
    found += tuple(TableCell(r + 1, 2, f"{r}.5") for r in range(5))
    found += (TableCell(2, 0, "Phase I"), TableCell(4, 0, "Noisy"))  # the lower of two rows; the middle of three
    table = Region((50, 190, 950, 360), RegionKind.TABLE, 0, "", found)
    (region,) = TextLayerSource().regions(page_of(*head, *body, *labels, layout=(table,)))
    spans = {c.text: (c.row, c.row_span) for c in region.cells if c.col == 0}
    assert spans == {"Group": (0, 1), "Phase I": (1, 2), "Noisy": (3, 3)}
