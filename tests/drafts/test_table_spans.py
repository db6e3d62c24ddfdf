"""Labels set over several rows or columns of a table gridded from its lines span them."""

from __future__ import annotations

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts import tablegrid
from hsd_cli.drafts.table_rows import table_rows


def rows_of(rows: list[list[tuple[str, float]]], y0: float = 0, step: float = 20) -> list[TextSpan]:
    """Lines 15 high, one text row every `step`; each (text, x0) 40 wide."""
    return [TextSpan((x, y0 + step * r, x + 40, y0 + step * r + 15), t) for r, row in enumerate(rows) for t, x in row]


def spans(lines: list[TextSpan]) -> dict[str, tuple[int, int, int, int]]:
    return {c.text: (c.row, c.col, c.row_span, c.col_span) for c in tablegrid.cells_from_lines(lines)}


def test_group_heading_spans_the_sub_columns_it_is_centred_over() -> None:
    """'Summer' over 'Std' and 'Prec' (centred on the gutter), 'Variant' centred on both heading rows."""
    lines = rows_of([[("Set B", 130), ("Summer", 250)], [("Std", 100), ("Prec", 160), ("Sd", 220), ("Pr", 280)]])
    lines += rows_of([[("alpha", 0), ("0.1", 100), ("0.2", 160), ("0.3", 220), ("0.4", 280)]], y0=40)
    lines += [TextSpan((0, 10, 40, 25), "Variant")]
    out = spans(lines)
    assert out["Set B"] == (0, 1, 1, 2) and out["Summer"] == (0, 3, 1, 2)
    assert out["Variant"] == (0, 0, 2, 1)
    assert out["Prec"] == (1, 2, 1, 1) and out["0.4"] == (2, 4, 1, 1)


def test_label_level_with_the_middle_of_three_rows_spans_them() -> None:
    table = [[("Case", 0), ("Method", 60), ("Cost", 120)], [("", 0), ("a", 60), ("1.5", 120)]]
    table += [[("South", 0), ("b", 60), ("2.5", 120)], [("", 0), ("c", 60), ("3.5", 120)]]
    table = [[cell for cell in row if cell[0]] for row in table]
    out = spans(rows_of(table))
    assert out["South"] == (1, 0, 3, 1) and out["a"] == (1, 1, 1, 1)


def test_labels_at_the_top_of_their_groups_stay_in_place() -> None:
    """A column whose first label opens the body with rows empty under it is top-aligned."""
    table = [[("Case", 0), ("Method", 60), ("Cost", 120)], [("North", 0), ("a", 60), ("1.5", 120)]]
    table += [[("b", 60), ("2.5", 120)], [("c", 60), ("3.5", 120)], [("South", 0), ("d", 60), ("4.5", 120)]]
    table += [[("e", 60), ("5.5", 120)], [("f", 60), ("6.5", 120)]]
    out = spans(rows_of(table))
    assert out["North"] == (1, 0, 1, 1) and out["South"] == (4, 0, 1, 1)


def test_padded_ocr_boxes_overlapping_the_next_row_keep_their_rows() -> None:
    """Boxes 30 high every 26: overlaps chain rows together, centres do not."""
    table = [[("Name", 0), ("Mass", 60)], [("alpha", 0), ("0.1", 60)], [("beta", 0), ("0.2", 60)]]
    lines = [
        TextSpan((x, 26 * r + 2 * (k % 2), x + 40, 26 * r + 30), t)
        for r, row in enumerate(table)
        for k, (t, x) in enumerate(row)
    ]
    rows = table_rows(lines)
    assert [[s.text for s in row] for row in rows] == [["Name", "Mass"], ["alpha", "0.1"], ["beta", "0.2"]]


def test_figures_of_two_rows_read_as_a_fraction_are_two_cells() -> None:
    table = [[("a", 0), ("1.5", 60)], [("b", 0), ("2.5", 60)]]
    lines = rows_of(table) + [TextSpan((120, 0, 160, 35), "$\\frac{20}{193}$")]
    out = spans(lines)
    assert out["20"] == (0, 2, 1, 1) and out["193"] == (1, 2, 1, 1)


def test_wrapped_cell_text_is_one_cell_and_its_label_spans_the_rows() -> None:
    """A cell's two lines with its figures centred beside them are one cell; a label level with
    no row but centred on three, the middle one of two lines, spans the three."""
    h = 22
    lines = rows_of([[("Group", 0), ("Name", 100), ("Cost", 300)]], step=45)
    for y, name, cost in [(45, "Large region", "212"), (140, "Linear model", "0.506")]:
        lines += [TextSpan((100, y, 200, y + h), name), TextSpan((300, y, 340, y + h), cost)]
    lines += [
        TextSpan((100, 78, 190, 78 + h), "Asymmetric"),
        TextSpan((100, 78 + h + 4, 190, 78 + 2 * h + 4), "constraint"),
    ]
    lines += [TextSpan((300, 91, 340, 91 + h), "227"), TextSpan((0, 92.5, 40, 92.5 + h), "Winter")]
    out = spans(lines)
    assert out["Asymmetric constraint"] == (2, 1, 1, 1) and out["227"] == (2, 2, 1, 1)
    assert out["Winter"] == (1, 0, 3, 1)


def test_rows_of_a_group_beside_its_label_stay_rows() -> None:
    """Lines stacked as closely as wrapped text, each with its own figure level with it: rows."""
    table = [[("Group", 0), ("Name", 100), ("Cost", 300), ("Mass", 400)]]
    table += [
        [("Early gradient", 100), ("0.602", 300), ("26.0", 400)],
        [("Approximate", 100), ("269", 300), ("976", 400)],
    ]
    lines = rows_of(table, step=19) + [TextSpan((0, 28, 40, 43), "Large")]
    out = spans(lines)
    assert out["Early gradient"][0] != out["Approximate"][0]
    assert out["Large"][2] == 2


def test_slanted_heading_labels_stand_on_their_row() -> None:
    """Labels set at a slant have tall boxes ending on the heading row: they belong to it."""
    lines = rows_of([[("#", 0), ("Topic", 60)], [("1", 0), ("Easy", 60), ("0.87", 140), ("0.20", 200)]], y0=60)
    lines += [TextSpan((130, 20, 180, 75), "Procedure"), TextSpan((190, 20, 240, 75), "Completion")]
    out = spans(lines)
    assert out["Procedure"][0] == out["#"][0] == 0 and out["0.87"][0] == 1
