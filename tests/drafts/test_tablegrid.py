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


# A low-resolution scan's table turned 2 degrees: boxes 25 px high, rows 20 px apart, a row's
# last figure 14 px higher than its label (x0, y0, x1, y1, text).
TURNED = [
    (177, 715, 254, 740, "Region"), (271, 710, 351, 735, "Method"), (463, 706, 558, 728, "Accuracy"),
    (574, 699, 638, 724, "Width"), (650, 696, 723, 723, "Recall"),
    (272, 732, 432, 757, "Regional sediment"), (503, 723, 560, 751, "0.409"), (597, 722, 639, 745, "671"),
    (674, 718, 723, 745, "25.3"), (178, 746, 260, 771, "Summer"), (272, 750, 450, 778, "Invariant population"),
    (513, 743, 560, 770, "49.1"), (597, 743, 639, 767, "301"), (678, 737, 722, 765, "887"),
    (274, 773, 430, 797, "Moderate function"), (520, 765, 560, 789, "502"), (594, 762, 640, 786, "30.5"),
    (677, 760, 722, 784, "25.6"), (180, 796, 238, 823, "Train"), (274, 794, 438, 818, "Dominant property"),
    (505, 784, 560, 811, "0.297"), (599, 783, 640, 807, "599"), (678, 780, 722, 804, "61.5"),
    (275, 812, 441, 837, "Bounded household"), (519, 807, 561, 828, "79.3"), (586, 803, 641, 826, "0.576"),
    (682, 800, 723, 824, "773"), (276, 834, 450, 857, "Significant structure"), (506, 824, 562, 852, "0.971"),
    (601, 823, 642, 847, "131"), (668, 819, 724, 846, "0.924"), (181, 846, 239, 874, "Noisy"),
    (276, 854, 443, 877, "Previous constraint"), (526, 846, 563, 871, "2.1"), (596, 842, 643, 870, "78.7"),
    (669, 840, 725, 867, "0.666"),
]  # fmt: skip


def test_rows_closer_than_their_padded_boxes_on_a_turned_scan_are_read_level() -> None:
    """A label is as level with the next row's figures as with its own: the median slope of
    nearly level pairs came out at half the turn and the heading row broke in two. The slope
    that sets half again as many pairs level is the turn."""
    rows = tablegrid.table_rows([TextSpan(b[:4], b[4]) for b in TURNED])
    texts = [[s.text for s in sorted(row, key=lambda s: s.bbox[0])] for row in rows]
    assert texts[0] == ["Region", "Method", "Accuracy", "Width", "Recall"]
    assert texts[1:3] == [
        ["Regional sediment", "0.409", "671", "25.3"],
        ["Summer", "Invariant population", "49.1", "301", "887"],
    ]
