"""A table's lines grouped into rows as if it stood upright (drafts/table_rows.py)."""

from __future__ import annotations

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.table_rows import table_rows

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
    rows = table_rows([TextSpan(b[:4], b[4]) for b in TURNED])
    texts = [[s.text for s in sorted(row, key=lambda s: s.bbox[0])] for row in rows]
    assert texts[0] == ["Region", "Method", "Accuracy", "Width", "Recall"]
    assert texts[1:3] == [
        ["Regional sediment", "0.409", "671", "25.3"],
        ["Summer", "Invariant population", "49.1", "301", "887"],
    ]
