"""The text layer's lines (pages/pdftext.py): a line's size is the size most of its characters
are set in, small capitals faked by size counted at their capital's size."""

from __future__ import annotations

import pymupdf
import pytest

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


def test_a_line_whose_font_metrics_make_it_short_gets_an_ems_height() -> None:
    """An embedded font whose metrics give a box half an em tall: the box is set from the
    baseline (0.8 em up, 0.2 down; a raised span's own em from its own baseline), so that the
    leading reads as one paragraph's."""
    spans = [{"size": 10.0, "origin": (20.0, 50.0)}, {"size": 7.0, "origin": (40.0, 47.0)}]
    assert pdftext._line_box((20.0, 45.1, 80.0, 50.0), spans) == pytest.approx((20.0, 41.4, 80.0, 52.0))
    # A box the font's own metrics make tall enough stays as it is.
    assert pdftext._line_box((20.0, 41.0, 80.0, 52.5), spans) == (20.0, 41.0, 80.0, 52.5)
