"""OCR lines across a column gutter (drafts/ocr_columns.py): cut into their columns' lines."""

from __future__ import annotations

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.ocr_columns import deskewed, levelled, page_turn, split_crossing
from hsd_cli.pages.geometry import split_rows

LEFT, RIGHT = (70, 595), (610, 1135)  # two columns, a 15 px gutter


def column(x: tuple[int, int], top: int, n: int) -> list[TextSpan]:
    return [
        TextSpan((x[0], top + 30 * k, x[1], top + 30 * k + 28), f"line {k} of a column at {x[0]}") for k in range(n)
    ]


def merged(top: int) -> TextSpan:
    """The detector's box over a left-column line and the right-column line beside it."""
    text = "the end of a sentence in the left column and the middle of one in the right"
    return TextSpan((LEFT[0], top, RIGHT[1], top + 28), text)


def test_a_line_across_the_gutter_is_cut_into_its_columns() -> None:
    lines = column(LEFT, 100, 4) + column(RIGHT, 100, 4) + [merged(220)]
    lines += column(LEFT, 250, 3) + column(RIGHT, 250, 3)
    out = split_crossing(lines)
    pieces = [s for s in out if s.bbox[1] == 220]
    assert len(out) == len(lines) + 1
    assert " ".join(s.text for s in pieces) == merged(220).text  # cut at a space near the gutter
    assert pieces[0].bbox[2] <= RIGHT[0] and pieces[1].bbox[0] >= LEFT[1]


def test_a_merged_line_where_the_left_column_starts_lower_is_cut() -> None:
    """The left column starts under a section heading, the right column two lines higher; the
    detector merged the left column's first line with the right's beside it. It is cut, though
    no left line stands above it: the right column goes on above and below."""
    heading = TextSpan((70, 100, 300, 128), "1 Observed Budgets")
    lines = [heading, *column(RIGHT, 100, 2), merged(160)]
    lines += column(LEFT, 190, 5) + column(RIGHT, 190, 5)
    out = split_crossing(lines)
    assert len(out) == len(lines) + 1
    assert all(s.bbox[2] <= RIGHT[0] or s.bbox[0] >= LEFT[1] for s in out if s is not heading)


def test_a_columns_lines_as_wide_as_each_other_are_no_merged_lines() -> None:
    """Two columns, a short line (a formula's) in the left one: the left column's lines are as
    wide as each other, and none crosses a gutter, though a gap is left in the middle of the
    left column when lines as wide as the one tested are taken for merged ones."""
    short = [TextSpan((70, 220 + 30 * k, 300, 248 + 30 * k), f"lim x = {k}") for k in range(3)]
    lines = column(LEFT, 100, 4) + short + column(LEFT, 310, 4)
    lines += column(RIGHT, 100, 4) + [TextSpan((800, 220, 900, 248), "F = k q")] + column(RIGHT, 250, 5)
    assert split_crossing(lines) == lines


def test_a_line_over_columns_with_running_heads_above_stays_whole() -> None:
    """A title with the running head's two ends above it and the columns below: not a line of
    the columns, though lines stand above it on both sides."""
    heads = [TextSpan((70, 20, 300, 45), "Doc. No. TR-1234"), TextSpan((900, 20, 1135, 45), "Revision: 2.4")]
    title = TextSpan((70, 70, 1135, 98), "a long title that runs over both of the columns below it")
    lines = [*heads, title, *column(LEFT, 130, 6), *column(RIGHT, 130, 6)]
    assert split_crossing(lines) == lines


def test_full_width_lines_above_and_below_columns_stay_whole() -> None:
    title = TextSpan((250, 40, 950, 70), "A title centred over both columns of the page")
    footnote = TextSpan((LEFT[0], 400, RIGHT[1], 428), "a footnote that runs across the whole width of the page")
    lines = [title, *column(LEFT, 100, 9), *column(RIGHT, 100, 9), footnote]
    assert split_crossing(lines) == lines


def test_one_column_of_text_is_left_alone() -> None:
    lines = [TextSpan((70, 100 + 30 * k, 1135, 128 + 30 * k), "a full line of a single column page") for k in range(10)]
    assert split_crossing(lines) == lines


def turned_lines(slope: float, n: int = 5) -> tuple[list[TextSpan], list[tuple]]:
    """Lines 500 px wide in boxes 28 px tall (the detector pads them), 20 px apart, turned by
    `slope`: their upright boxes and quads."""
    lines, quads = [], []
    for k in range(n):
        top = 100 + 20 * k
        quad = ((60, top), (560, top + 500 * slope), (560, top + 500 * slope + 28), (60, top + 28))
        ys = [p[1] for p in quad]
        lines.append(TextSpan((60, min(ys), 560, max(ys)), f"line {k}"))
        quads.append(quad)
    return lines, quads


def test_a_turned_pages_line_boxes_are_cut_to_the_texts_height() -> None:
    """1.5 degrees off, a line's upright box is 41 px tall for 28 px of text and overlaps the
    next line's by half; cut to 28 px about its centre, each line is a row of its own."""
    from hsd_cli.pages.geometry import split_rows

    lines, quads = turned_lines(0.026)
    assert len(split_rows(lines)) < len(lines)  # rows chained: a paragraph read out of order
    out = deskewed(lines, page_turn(quads))
    assert [round(s.bbox[3] - s.bbox[1]) for s in out] == [28] * 5
    assert [[s.text for s in row] for row in split_rows(out)] == [[f"line {k}"] for k in range(5)]
    # An upright page keeps its boxes.
    lines, quads = turned_lines(0.0)
    assert deskewed(lines, page_turn(quads)) == lines


def test_a_short_line_under_a_long_one_on_a_turned_page_is_a_row_of_its_own() -> None:
    """Right side up 1.3 degrees: a list item's last word ("94.") at the left under a long line,
    and the next long line, whose centre stands high at the page's middle though its left end is
    a line below "94.". Deskewed, the two stand level; levelled about the page's middle, the
    four lines are four rows, in their order."""
    slope, lines, quads = -0.023, [], []
    for k, (x1, text) in enumerate([(1060, "long 0"), (100, "94."), (1060, "long 1"), (1060, "long 2")]):
        top = 100 + 24 * k  # the line's top at its left end, x = 60
        quad = ((60, top), (x1, top + (x1 - 60) * slope), (x1, top + (x1 - 60) * slope + 28), (60, top + 28))
        ys = [p[1] for p in quad]
        lines.append(TextSpan((60, min(ys), x1, max(ys)), text))
        quads.append(quad)
    quads += [((60, 300 + 26 * k), (1060, 277 + 26 * k), (1060, 305 + 26 * k), (60, 328 + 26 * k)) for k in range(3)]
    turn = page_turn(quads)
    assert abs(turn - slope) < 1e-9
    rows = [[s.text for s in row] for row in split_rows(levelled(deskewed(lines, page_turn(quads)), turn, 600))]
    assert rows == [["long 0"], ["94."], ["long 1"], ["long 2"]]
    assert levelled(lines, 0.0, 600) == lines  # an upright page's lines stay where they are
