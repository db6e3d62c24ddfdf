"""Table grids from positioned lines (drafts/tablegrid.py): cells of a table set so tight that
MuPDF reads two or more of them as one line."""

from __future__ import annotations

from hsd_cli.datatypes import TextSpan
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
