"""Table grids from positioned lines (drafts/tablegrid.py): cells of a table set so tight that
MuPDF reads two or more of them as one line."""

from __future__ import annotations

from hsd_cli.datatypes import TableCell, TextSpan
from hsd_cli.drafts import tablegrid

# A LaTeX table scaled to its column: the column gaps are no wider than a word space.
ROWS = [
    [(219, 238, "Case"), (295, 394, "Cost Error Median Score")],
    [(219, 285, "Observed gradient"), (292, 313, "0.294"), (322, 338, "37.5"), (354, 370, "86.1"), (383, 394, "4.7")],
    [(219, 275, "Joint frequency"), (297, 338, "51.4 0.448"), (350, 370, "0.011"), (380, 394, "283")],
    [(219, 313, "Measured approach 0.321"), (322, 338, "8.2"), (350, 370, "0.064"), (380, 394, "263")],
]


def lines(rows: list[list[tuple[int, int, str]]]) -> list[TextSpan]:
    return [
        TextSpan((x0, 200 + 11 * r, x1, 208 + 11 * r), text, 8) for r, row in enumerate(rows) for x0, x1, text in row
    ]


def grid(cells) -> list[list[str]]:
    out: dict[int, list[str]] = {}
    for c in cells:
        out.setdefault(c.row, []).append(c.text)
    return [out[r] for r in sorted(out)]


def test_cells_read_as_one_line_go_back_to_their_columns() -> None:
    """The heading over the four figure columns and the figures MuPDF joined are one cell each."""
    cells = tablegrid.cells_from_lines(lines(ROWS))
    assert grid(cells) == [
        ["Case", "Cost", "Error", "Median", "Score"],
        ["Observed gradient", "0.294", "37.5", "86.1", "4.7"],
        ["Joint frequency", "51.4", "0.448", "0.011", "283"],
        ["Measured approach", "0.321", "8.2", "0.064", "263"],
    ]
    assert all(c.col_span == 1 for c in cells)


def test_a_group_heading_over_its_columns_still_spans_them() -> None:
    """A heading centred over two columns, a row of sub-headings under it: one cell over both."""
    rows = [[(300, 340, "Test set")], [(280, 300, "Acc"), (340, 360, "F1")], [(280, 300, "0.91"), (340, 360, "0.88")]]
    rows.append([(280, 300, "0.87"), (340, 360, "0.79")])
    cells = tablegrid.cells_from_lines(lines(rows))
    assert [(c.text, c.col, c.col_span) for c in cells if c.row == 0] == [("Test set", 0, 2)]


def test_rows_of_a_turned_table_are_read_level() -> None:
    """A scan turned 1.7 degrees: a row's last figure stands 18 px lower than its label, more
    than half the row pitch; compared as if upright, each row keeps its label and figures."""
    turn, rows = 0.03, [("Joint variable", "287", "0.884", "17.1"), ("Approximate sector", "324", "0.759", "844")]
    rows += [("Previous variance", "64.6", "884", "9.3")]
    lines = []
    for r, texts in enumerate(rows):
        for x0, width, text in zip((100, 400, 550, 700), (150, 50, 50, 50), texts, strict=True):
            top = 100 + 26 * r + turn * x0
            lines.append(TextSpan((x0, top, x0 + width, top + 20), text))
    cells = tablegrid.cells_from_lines(lines)
    assert [[c.text for c in cells if c.row == r] for r in range(3)] == [list(t) for t in rows]


def test_multirow_stub_and_groups_over_right_aligned_figures():
    """A LaTeX booktabs heading: \\multirow label set a little high of its two rows' middle,
    group names centred over their columns' headings (wider than the figures below them)."""
    spans = [
        TextSpan((325, 331, 404, 350), "Material", 10.0, True),
        TextSpan((579, 316, 675, 336), "Low dose", 10.0, True),
        TextSpan((795, 316, 852, 336), "Noisy", 10.0, True),
        TextSpan((541, 357, 636, 376), "Precision", 10.0, True),
        TextSpan((664, 357, 713, 376), "Loss", 10.0, True),
        TextSpan((738, 357, 832, 376), "Precision", 10.0, True),
        TextSpan((860, 357, 909, 376), "Loss", 10.0, True),
    ]
    for k, (stub, *figures) in enumerate(
        [
            ("Modern equation", "50.0", "0.807", "0.360", "65.3"),
            ("Physical observation", "11.7", "87.3", "6.6", "0.422"),
        ]
    ):
        y = 398 + 28 * k
        spans.append(TextSpan((325, y, 483, y + 19), stub, 10.0))
        spans += [
            TextSpan((x1 - 41, y, x1, y + 19), f, 10.0) for x1, f in zip((636, 713, 832, 909), figures, strict=True)
        ]
    cells = {c.text: c for c in tablegrid.cells_from_lines(spans) if c.row < 2}
    assert (cells["Material"].row, cells["Material"].row_span) == (0, 2)
    assert (cells["Low dose"].col, cells["Low dose"].col_span) == (1, 2)
    assert (cells["Noisy"].col, cells["Noisy"].col_span) == (3, 2)


def grid_cells(rows: list[list[str]]) -> tuple[TableCell, ...]:
    return tuple(TableCell(r, k, text) for r, row in enumerate(rows) for k, text in enumerate(row))


def test_a_stub_label_between_two_heading_rows_spans_them():
    cells = grid_cells(
        [
            ["", "High dose", "", "Low dose", ""],
            ["Site", "", "", "", ""],
            ["", "Recall", "Count", "Recall", "Count"],
            ["External sensor", "279", "49.7", "0.670", "0.178"],
            ["Rapid region", "0.304", "20.7", "0.121", "0.478"],
        ]
    )
    out = {(c.row, c.col): c for c in tablegrid.stub_spanning_heading(cells)}
    assert (out[(0, 0)].text, out[(0, 0)].row_span) == ("Site", 2)
    assert (1, 0) not in out and out[(1, 1)].text == "Recall" and out[(2, 0)].text == "External sensor"
    assert tablegrid.heading_rows(tuple(out.values())) == 2


def test_a_section_label_row_in_the_body_stays():
    """A stub-only row below the body's first figures labels a section of the body."""
    cells = grid_cells([["", "Recall", "Count"], ["Group A", "", ""], ["Sensor", "279", "49.7"], ["Group B", "", ""]])
    assert tablegrid.stub_spanning_heading(cells) == cells


def _grouped(align: str) -> list[TextSpan]:
    """An HTML table: a stub heading across both heading rows, two groups of two figure columns,
    each group's heading flush with the `align` side of its group (th text-align)."""
    cols = [(400, 460), (520, 580), (640, 700), (760, 820)]  # figure columns, right-aligned
    groups = {"left": [(400, "South"), (640, "Phase II")], "right": [(540, "South"), (780, "Winter")]}[align]
    out = [TextSpan((60, 209, 100, 217), "Case", 8)]
    out += [TextSpan((x, 200, x + 40, 208), name, 8) for x, name in groups[:2]]
    out += [TextSpan((c0, 218, c1, 226), name, 8) for (c0, c1), name in zip(cols, ["Mean", "Mass"] * 2, strict=True)]
    for r in range(3):
        y = 240 + 14 * r
        out += [TextSpan((60, y, 160, y + 8), f"Row {r}", 8)]
        out += [TextSpan((c1 - 20, y, c1, y + 8), f"{r}.{k}", 8) for k, (_, c1) in enumerate(cols)]
    return out


def test_group_headings_set_flush_left_or_right_span_their_groups():
    """A group heading flush with its group's first or last column spans the group ("South"
    over "Mean" and "Mass"), not the one column it stands over; the stub heading both rows."""
    for align in ("left", "right"):
        cells = {c.text: c for c in tablegrid.cells_from_lines(_grouped(align))}
        first, second = ("South", "Phase II") if align == "left" else ("South", "Winter")
        assert (cells[first].col, cells[first].col_span) == (1, 2), align
        assert (cells[second].col, cells[second].col_span) == (3, 2), align
        assert (cells["Case"].row_span, cells["Row 0"].row) == (2, 2)
        assert tablegrid.heading_rows(tuple(cells.values())) == 2


def test_a_cell_nearer_a_flush_left_stub_column_goes_to_the_next_column():
    """An HTML table with group labels spanning two rows each ("South", "Set A", centred beside
    their rows) and the second row's first cell styled flush left (`td:first-child`): "Robust
    algorithm" stands nearer the stub column than its own, but the stub's lines all start at one
    x and it does not: it is a Variant, and the label spans both rows."""
    rows = [
        (100, [(67, 130, "Setting"), (687, 757, "Variant"), (896, 930, "Cost"), (1085, 1125, "Mean")]),
        (128, [(627, 857, "Measured policy"), (904, 930, "968"), (1094, 1125, "49.0")]),
        (142, [(67, 120, "South")]),
        (157, [(304, 480, "Robust algorithm"), (891, 930, "0.690"), (1086, 1125, "0.522")]),
        (185, [(636, 840, "Dominant state"), (891, 930, "0.196"), (1103, 1125, "3.6")]),
        (199, [(67, 115, "Set A")]),
        (212, [(304, 500, "Invariant solution"), (904, 930, "488"), (1099, 1125, "830")]),
    ]
    spans = [TextSpan((x0, y, x1, y + 18), text, 10) for y, row in rows for x0, x1, text in row]
    cells = {c.text: c for c in tablegrid.cells_from_lines(spans)}
    assert cells["Robust algorithm"].col == cells["Invariant solution"].col == 1
    assert (cells["South"].col, cells["South"].row_span) == (0, 2)
    assert cells["South"].row == cells["Measured policy"].row and cells["0.522"].row == cells["South"].row + 1


def test_headings_set_in_columns_of_their_own_join_their_body_columns() -> None:
    """A grid finder gave each centred heading a column beside its left-aligned body's: six columns
    with empty cells where the table has three; a column of check marks beside another stays."""
    from hsd_cli.drafts.tablegrid import offset_headings_joined

    heads = [TableCell(0, 1, "Model"), TableCell(0, 3, "Mass"), TableCell(0, 5, "Runtime")]
    body = [TableCell(r, c, t) for r in (1, 2) for c, t in ((0, f"Row {r}"), (2, f"{r}.1"), (4, f"{r}.2"))]
    empty = [
        TableCell(r, c, "") for r in range(3) for c in range(6) if (r, c) not in {(x.row, x.col) for x in heads + body}
    ]
    joined = offset_headings_joined(tuple(heads + body + empty))
    assert {(c.row, c.col): c.text for c in joined} == {
        (0, 0): "Model", (0, 1): "Mass", (0, 2): "Runtime", (1, 0): "Row 1", (1, 1): "1.1", (1, 2): "1.2",
        (2, 0): "Row 2", (2, 1): "2.1", (2, 2): "2.2",
    }  # fmt: skip
    marks = (TableCell(0, 0, "Test"), TableCell(0, 1, "Pass"), TableCell(0, 2, "Fail"), TableCell(1, 0, "A"))
    marks += (TableCell(1, 1, "x"), TableCell(2, 0, "B"), TableCell(2, 2, "x"))
    assert offset_headings_joined(marks) == marks
