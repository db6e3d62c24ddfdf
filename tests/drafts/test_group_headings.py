"""Group headings the grid finder read with the column headings under them (drafts/group_headings.py)."""

from __future__ import annotations

from hsd_cli.datatypes import TableCell, TextSpan
from hsd_cli.drafts import group_headings


def test_a_group_heading_read_with_the_column_headings_under_it_is_two_rows() -> None:
    """revtex's tight table: the finder read "South" over "Cost" and "Speed" as one cell spanning
    two columns, and MuPDF read "Cost Speed Cost Speed" as one line. The group's label is a line
    of the table, then one word per spanned column: two heading rows, "Variant" over both."""
    head = [TableCell(0, 0, "Variant", is_header=True), TableCell(0, 1, "South Cost Speed", 1, 2, True)]
    head.append(TableCell(0, 3, "Phase II Cost Speed", 1, 2, True))
    body = [TableCell(1, k, t) for k, t in enumerate(["Statistical state", "67.1", "829", "0.891", "20.5"])]
    lines = [TextSpan((0, 0, 1, 1), t) for t in ("Variant", "South", "Phase II", "Cost Speed Cost Speed")]
    cells = group_headings.split((*head, *body), lines)
    assert [(c.row, c.col, c.text, c.row_span, c.col_span) for c in cells if c.row < 2] == [
        (0, 0, "Variant", 2, 1),
        (0, 1, "South", 1, 2),
        (1, 1, "Cost", 1, 1),
        (1, 2, "Speed", 1, 1),
        (0, 3, "Phase II", 1, 2),
        (1, 3, "Cost", 1, 1),
        (1, 4, "Speed", 1, 1),
    ]
    assert [c.row for c in cells if not c.is_header] == [2] * 5
    wrapped = (TableCell(0, 1, "South Mean rate Std", 1, 2, True), *body)  # three words over two columns
    assert group_headings.split(wrapped, lines) == wrapped
    unlabelled = (TableCell(0, 1, "North Cost Speed", 1, 2, True), *body)  # no line reads "North"
    assert group_headings.split(unlabelled, lines) == unlabelled
