"""Page furniture on single pages, heading levels from type size, table grids from lines."""

from __future__ import annotations

from dataclasses import replace

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


def test_a_layout_footer_that_is_a_footnote_is_text() -> None:
    """A layout model took a page's last line for its footer; a footnote there is text (it was
    dropped with the furniture). Page numbers and running lines in a footer box stay footers."""
    note = "2An accurate lattice of the stable fluids was followed for each phase."
    for text in (note, "* Corresponding author: see the address below."):
        assert furniture.relabel(region(text, 900, RegionKind.FOOTER), [], 10, H).kind is RegionKind.TEXT
    for text in ("12", "2 Journal of Examples, vol. 3 (2016).", "3 Conclusions and future work"):
        assert furniture.relabel(region(text, 960, RegionKind.FOOTER), [], 10, H).kind is RegionKind.FOOTER
    assert furniture.footnote_kept(region(note, 20, RegionKind.HEADER)).kind is RegionKind.HEADER


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


def row(*pieces: tuple[str, float], y0: float, size: float = 10, h: float = 20) -> list[TextSpan]:
    """Lines at height `y0`, each (text, x0), 8 px a character at a 20 px height."""
    return [TextSpan((x0, y0, x0 + len(text) * 8 * h / 20, y0 + h), text, size) for text, x0 in pieces]


def body(y0: float = 200, n: int = 30, size: float = 10) -> list[TextSpan]:
    text = "Body line {} of the text, which runs on for a while."
    return [TextSpan((100, y0 + 25 * k, 100 + 8 * 52, y0 + 25 * k + 20), text.format(k), size) for k in range(n)]


def split(lines: list[TextSpan]) -> tuple[list[tuple[str, str]], list[TextSpan]]:
    found, rest = furniture.split_lines(lines, H)
    return [(r.kind.name, r.text) for r in found], rest


def test_running_rows_by_pattern_on_a_single_page() -> None:
    """Page numbers, chapter marks, an old book's caps title, revision and document lines, a
    journal citation: the whole edge row goes, its plain pieces ("Bauer and Larsen") with it."""
    heads = [
        row(("476", 100), ("Bauer and Larsen", 450), y0=20),
        row(("[Ch. XIX.", 100), ("BRITISH HUSBANDRY.", 400), ("400", 800), y0=20),
        row(("Ch. XI.] A TREATISE ON STREAMS.", 100), ("299", 800), y0=20),
        row(("232 A TREATISE ON STREAMS.", 100), y0=20),  # OCR ran the number into the title
        row(("For review only", 100), ("Doc. No. SR-2727", 750), y0=20),
        row(("Higher Term Framework", 100), ("April 1, 2005", 750), y0=20),
        row(("Transactions on Economics 85 (2000) 678-689", 100), y0=20),
    ]
    for head in heads:
        found, rest = split(head + body())
        assert found == [("HEADER", " ".join(s.text for s in head))] and rest == body()
    feet = [
        row(("Revision: 2.4", 100), ("Page 3 of 9", 800), y0=960),
        row(("Preprint submitted to Reports in Physics", 100), ("January 15, 2007", 750), y0=960),
        row(("doi:10.2501/jce.2005.476", 400), y0=960),
        row(("(c) 2003 Example Society", 100), y0=960),
        row(("www.example.org", 400), y0=960),
    ]
    for foot in feet:
        assert split(body() + foot)[0] == [("FOOTER", " ".join(s.text for s in foot))]


def test_a_large_folio_beside_a_running_piece() -> None:
    """A newspaper's page number set a third larger than the body, beside its masthead's name and
    date, goes with its row; a large number alone, or beside words of no pattern, is a heading's."""
    head = row(("1", 100), y0=20, size=12) + row(("The Physics Desk", 400), ("March 13, 1997", 750), y0=20)
    assert split(head + body())[0] == [("HEADER", "1 The Physics Desk March 13, 1997")]
    # The columns start just under it: far across, a turned scan's slope would take their first
    # words into the row, too many pieces for one; level, the row is the masthead's alone.
    words = row(("Consequently,", 600), ("the", 720), ("smooth", 760), y0=45)
    assert split(head + words + body(70))[0] == [("HEADER", "1 The Physics Desk March 13, 1997")]
    for lines in (row(("1", 100), y0=20, size=12), row(("1", 100), ("The Physics Desk", 400), y0=20, size=12)):
        assert split(lines + body(45))[0] == []
    chapter = row(("1", 100), y0=20, size=24) + row(("March 13, 1997", 750), y0=20)
    assert split(chapter + body(45))[0] == []


def test_a_turned_scan_keeps_one_row_and_two_rows_need_a_pattern_each() -> None:
    """Pieces of a slightly turned row sit at different heights; a second row goes only when it
    reads as furniture itself."""
    turned = row(("Doc. No. RP-4363", 100), y0=37, h=18) + row(("Revision: 5.8", 750), y0=47, h=19)
    assert split(turned + body())[0] == [("HEADER", "Doc. No. RP-4363 Revision: 5.8")]
    two = row(("Journal of Examples", 100), y0=10) + row(("Vol. 7, No. 2", 100), y0=40)
    assert [t for _, t in split(two + body(100))[0]] == ["Journal of Examples", "Vol. 7, No. 2"]


def test_nothing_of_the_body_goes() -> None:
    """A title, a section heading under a running head, a caps heading, footnotes, a references
    entry above the page number, table rows and lines outside the bands all stay."""
    kept = [
        row(("XX. OF SHEEP AND OXEN", 100), y0=20),  # a caps heading: no full stop, no page number
        row(("REFERENCES", 100), y0=20),
        row(("2 Methods", 100), y0=20),
        row(("A Journal of the Plague Year", 100), y0=20, size=18),  # larger than the body: a title
        row(("Name", 100), ("2019", 300), ("2020", 500), ("Change", 700), y0=20),  # a table's head row
        row(("1 See www.example.org for the data.", 100), y0=960),  # a footnote
        row(("2As shown below, the component holds.", 100), y0=960),  # a footnote, OCR's marker
        row(("The last sentence of the page ends here.", 100), y0=960),
    ]
    for lines in kept:
        top = lines[0].bbox[1] < 500
        assert split(lines + (body(45) if top else body()))[0] == [], lines[0].text  # body right under a top row
    reference = row(("[12] A. Smith, Journal of X 3 (2005)", 100), y0=930)
    found, rest = split(body(200, 25) + reference + row(("7", 450), y0=965))
    assert found == [("FOOTER", "7")] and reference[0] in rest
    middle = row(("12", 450), y0=500)
    assert split(body(600, 10) + middle)[0] == []  # not in a band


def test_ocr_lines_are_sized_by_height() -> None:
    """Without font sizes a running row is no taller than the body's lines: a title is."""
    ocr = [replace(s, size=0.0) for s in body()]
    title = [replace(s, size=0.0) for s in row(("Journal of Fluids", 100), y0=20, h=40)]
    head = [replace(s, size=0.0) for s in row(("Journal of Fluids", 100), ("12", 800), y0=20)]
    assert split(title + ocr)[0] == []
    assert split(head + ocr)[0] == [("HEADER", "Journal of Fluids 12")]


def test_a_page_of_nothing_but_a_running_row_keeps_its_lines() -> None:
    """The region pass types them; the draft source still has lines to size the page by."""
    lines = row(("Page 3 of 9", 100), y0=960)
    assert split(lines) == ([], lines)


def test_a_short_top_row_set_apart_is_a_running_head_without_a_pattern() -> None:
    """A site name or short title over a gap of a line or more, no larger than the body: a head.
    A numbered or larger heading there, or one the body follows closely, stays."""
    for size in (10.0, 0.0):  # a text layer's font sizes; OCR lines
        lines = [replace(s, size=size) for s in row(("Formula Notes", 100), y0=20) + body(100)]
        assert split(lines)[0] == [("HEADER", "Formula Notes")]
    for head in (row(("XX. OF SHEEP AND OXEN", 100), y0=20), row(("Formula Notes", 100), y0=20, size=14)):
        assert split(head + body(100))[0] == []
    assert split(row(("Formula Notes", 100), y0=20) + body(50))[0] == []


def test_a_scans_head_in_two_slots_is_set_apart_by_half_a_line() -> None:
    """OCR pads a scan's line boxes, so a running head's gap over the text looks narrower: a
    site name at the left and a short title at the right over half a line's gap are a head; one
    piece over that gap (a heading) stays."""
    slots = [replace(s, size=0.0) for s in row(("MathRef Online", 100), ("Rural Sediment Region", 348), y0=20)]
    text = [replace(s, size=0.0) for s in body(y0=50)]  # lines from x 100 to 516, as the slots span
    assert split(slots + text)[0] == [("HEADER", "MathRef Online Rural Sediment Region")]
    assert split(slots[:1] + text)[0] == []
    inside = [replace(s, bbox=(s.bbox[0] + 60, *s.bbox[1:3], s.bbox[3])) for s in slots[:1]] + slots[1:]
    assert split(inside + text)[0] == []  # a chart's legend at the page's top: no slot at the edge


def test_a_running_rows_pieces_across_a_turned_scan() -> None:
    """A scan turned a degree: the site name at the left and its URL 1300 px across sit 23 px
    apart in height, less than the turn's slope; one running row. A line under the left piece
    as near in height (the page's title) is no piece of it."""
    head = row(("Open Formula Wiki", 80), y0=15) + row(("www.mathnotes.org", 1380), y0=38)
    title = row(("15 Formulas on One Page", 80), y0=60, h=30)
    found, rest = split(head + title + body(y0=120))
    assert found == [("HEADER", "Open Formula Wiki www.mathnotes.org")]
    assert rest == title + body(y0=120)


def test_a_stamp_set_sideways_in_the_side_margin_is_running_text() -> None:
    """An arXiv-like stamp up the left edge, level with the body lines: a running line, not a
    paragraph (nor part of one); a sideways line between the body's lines stays."""
    stamp = TextSpan((40, 300, 60, 800), "PREPRINT SUBMITTED TO ANNALS OF STATISTICS", 10)
    inside = TextSpan((300, 300, 320, 500), "a label along an axis", 10)
    found, rest = split([*body(), stamp, inside])
    assert found == [("HEADER", stamp.text)] and inside in rest and stamp not in rest
