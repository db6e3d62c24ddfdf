"""Page furniture on single pages, heading levels from type size, table grids from lines."""

from __future__ import annotations

from hsd_cli.datatypes import Region, RegionKind, TableCell, TextSpan
from hsd_cli.drafts import furniture, headings, tablegrid

H = 1000


def region(text: str, y0: float, kind: RegionKind = RegionKind.TEXT) -> Region:
    return Region((100, y0, 400, y0 + 20), kind, 0, text)


def line(text: str, y0: float, size: float, x0: float = 100, width: float = 300) -> TextSpan:
    return TextSpan((x0, y0, x0 + width, y0 + 20), text, size)


def test_page_numbers_by_pattern_in_the_bands() -> None:
    for text in ("12", "- 12 -", "Page 3 of 9", "xiv"):
        assert furniture.relabel(region(text, 960), [line(text, 960, 10)], 10, H).kind is RegionKind.FOOTER
    assert furniture.relabel(region("3", 20), [line("3", 20, 10)], 10, H).kind is RegionKind.HEADER
    assert not furniture.is_page_number("did")  # letters that are no roman numeral


def test_small_running_line_in_the_bottom_band_is_a_footer() -> None:
    """A slide's "NETS 2015" in small type at the bottom: furniture, not body."""
    r = furniture.relabel(region("NETS 2015", 900), [line("NETS 2015", 900, 8)], 17, H)
    assert r.kind is RegionKind.FOOTER


def test_body_text_and_footnotes_stay() -> None:
    """Never drop body text: body-size lines, paragraphs and footnotes keep their kind."""
    body = [line("The last line of the body.", 900, 10)]
    assert furniture.relabel(region(body[0].text, 900), body, 10, H).kind is RegionKind.TEXT
    note = [line("1 See the appendix.", 960, 8)]
    assert furniture.relabel(region(note[0].text, 960), note, 10, H).kind is RegionKind.TEXT
    two = [line("small", 960, 8), line("print", 980, 8)]
    assert furniture.relabel(region("small print", 960), two, 10, H).kind is RegionKind.TEXT
    mid = [line("7", 500, 10)]
    assert furniture.relabel(region("7", 500), mid, 10, H).kind is RegionKind.TEXT  # not in a band


def test_large_type_text_is_a_title_and_labelled_levels_follow_size() -> None:
    title = headings.promote(region("RTG Degradation Primer", 100), [line("RTG", 100, 31)], 17)
    assert (title.kind, title.level) == (RegionKind.TITLE, 1)
    section = headings.promote(region("Methods", 300), [line("Methods", 300, 13)], 10)
    assert (section.kind, section.level) == (RegionKind.TITLE, 2)
    sentence = headings.promote(region("A large sentence.", 300), [line("x", 300, 20)], 10)
    assert sentence.kind is RegionKind.TEXT
    author = Region((0, 0, 1, 1), RegionKind.TITLE, 0, "Jane Doe", level=1)
    assert headings.promote(author, [line("Jane Doe", 0, 10)], 10).level == 2  # body size: no `#`


def test_rows_keep_their_columns_instead_of_packing_left() -> None:
    """A two-row heading over a grid: the group names sit over their columns."""
    rows = [
        [("ReACT", 255, 300), ("Plan", 385, 425)],
        [("#", 0, 10), ("Topic", 50, 200), ("Proc", 250, 290), ("Comp", 320, 360), ("Proc", 380, 420)],
    ]
    lines = [TextSpan((x0, 20 * r, x1, 20 * r + 15), t) for r, row in enumerate(rows) for t, x0, x1 in row]
    cells = {(c.row, c.col): c.text for c in tablegrid.cells_from_lines(lines)}
    assert cells[(0, 2)] == "ReACT" and (0, 0) not in cells and (0, 1) not in cells  # not at (0, 0)
    assert cells[(1, 1)] == "Topic"


def test_centred_heading_spans_its_columns() -> None:
    """ "Year Ended" found in one column, centred over three: it spans them (colspan)."""
    head = [TableCell(0, k, "Year Ended" if k == 4 else "") for k in range(7)]
    body = [TableCell(1, k, t) for k, t in enumerate(["Cost", "$", "178", "$", "141", "$", "138"])]
    out = tablegrid.spread_centred_headings(tuple(head + body))
    year = next(c for c in out if c.text == "Year Ended")
    assert (year.col, year.col_span) == (2, 5)  # not (4, 1)
    assert [c.text for c in out if c.row == 1] == ["Cost", "$", "178", "$", "141", "$", "138"]


def test_heading_rows_count_a_group_row_over_metric_names() -> None:
    """A group name over metric names is a two-row heading; a stub-only section row is body."""
    head = [TableCell(0, 3, "ReACT"), TableCell(1, 0, "#"), TableCell(1, 1, "Task")]
    head += [TableCell(1, 2, "Procedure"), TableCell(1, 3, "Completion")]
    section = [TableCell(2, 0, "Proteomics"), TableCell(2, 1, "Clustering")]
    body = [TableCell(3, k, t) for k, t in enumerate(["1", "Simplified", "0.87", "0.20"])]
    body += [TableCell(4, k, t) for k, t in enumerate(["2", "Normal", "0.88", "(0.4)"])]
    assert tablegrid.heading_rows(tuple(head + section + body)) == 2  # not 3: "Proteomics" starts the body
    words = (TableCell(0, 0, "Name"), TableCell(0, 1, "Role"), TableCell(1, 0, "Ada"), TableCell(1, 1, "Lead"))
    assert tablegrid.heading_rows(words) == 1  # no figures: the first row


def test_missed_share_counts_text_the_grid_left_out() -> None:
    """A ruled grid holding the body but not the slanted heading misses the heading's characters."""
    lines = [TextSpan((0, 0, 50, 10), "Procedure"), TextSpan((0, 20, 50, 30), "0.87 0.20")]
    cells = (TableCell(0, 0, "0.87"), TableCell(0, 1, "0.20"))
    assert tablegrid.missed_share(cells, lines) == 9 / 17
    assert tablegrid.missed_share((*cells, TableCell(1, 0, "Procedure")), lines) == 0.0
