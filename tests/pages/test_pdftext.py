"""The text layer's lines (pages/pdftext.py): a line's size is the size most of its characters
are set in, small capitals faked by size counted at their capital's size."""

from __future__ import annotations

import pymupdf

from hsd_cli.pages import pdftext


def line_of(pieces: list[tuple[str, float]]) -> pymupdf.Page:
    """A page with one line written piece by piece, each at its own size, without gaps."""
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=100)
    x = 20.0
    for text, size in pieces:
        page.insert_text((x, 50), text, fontsize=size, fontname="tiro")
        x += pymupdf.get_text_length(text, fontname="tiro", fontsize=size)
    return page


def sizes(page: pymupdf.Page) -> list[tuple[str, float]]:
    return [(s.text, s.size) for s in pdftext.visible_lines(page, pymupdf.Matrix(1, 1))]


def test_small_capitals_faked_by_size_keep_the_capitals_size() -> None:
    """ "VIII. MAIN RESULTS" as IEEEtran sets it: initials at 10 pt, the other capitals at 8 pt.
    Read at 8 pt, a section heading at the top of a page was dropped as a running head."""
    page = line_of([("VIII. M", 10), ("AIN", 8), (" R", 10), ("ESULTS", 8)])
    assert sizes(page) == [("VIII. MAIN RESULTS", 10.0)]


def test_small_lowercase_type_after_a_capital_keeps_its_size() -> None:
    """A word in small type after a capital ("Note" with "ote" smaller) is no small capitals."""
    page = line_of([("N", 10), ("ote on the method", 8)])
    assert sizes(page) == [("Note on the method", 8.0)]
