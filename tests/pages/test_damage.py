"""pages/damage.py: a PDF MuPDF repaired or could not read names its cause; ink tells an empty page."""

from __future__ import annotations

import pymupdf
from damaged_pdfs import SAMPLES, cut_short
from PIL import Image, ImageDraw

from hsd_cli.pages.damage import has_ink, page_damage, take_warnings


def _damage(path, index: int) -> str:
    """What the prepare stage finds: the warnings of opening the file, then of drawing the page."""
    take_warnings()
    doc = pymupdf.open(path)
    opened = take_warnings()
    doc[index].get_pixmap(dpi=36)
    return page_damage(doc.is_repaired, opened, take_warnings())


def test_a_scan_cut_short_loses_its_content_stream(tmp_path) -> None:
    """`head -c 3000` of a scanned PDF still opens with one page, which draws blank."""
    cause = _damage(cut_short("scanned.pdf", 3000, tmp_path / "cut.pdf"), 0)
    assert cause.startswith("damaged page:") and "content stream" in cause and "\n" not in cause


def test_a_born_digital_pdf_cut_mid_stream_names_the_page_it_cost(tmp_path) -> None:
    """Page 1 is whole but came from a repaired file; page 2 lost part of its content stream."""
    path = cut_short("born_digital.pdf", 3500, tmp_path / "cut.pdf")
    first, second = _damage(path, 0), _damage(path, 1)
    assert first.startswith("damaged PDF: MuPDF repaired it") and "startxref" in first  # not "ok"
    assert second.startswith("damaged page:") and "content stream" in second


def test_a_whole_pdf_has_no_damage() -> None:
    assert _damage(SAMPLES / "born_digital.pdf", 1) == "" and _damage(SAMPLES / "scanned.pdf", 0) == ""


def test_warnings_about_fonts_or_outlines_are_no_damage() -> None:
    """The page itself is whole: a font without a cmap is drawn, a broken outline is no page."""
    drawn = "freetype could not find any cmaps\nrepaired broken tree structure in outline"
    assert page_damage(False, "", drawn) == ""


def test_ink_is_print_darker_than_the_page() -> None:
    """A blank page (white, or a scan's even grey) has none; one line of text has some."""
    white = Image.new("RGB", (850, 1100), "white")
    grey = Image.new("RGB", (850, 1100), (216, 214, 210))
    assert not has_ink(white) and not has_ink(grey)
    ImageDraw.Draw(white).rectangle((100, 100, 700, 112), fill="black")  # one line of print
    assert has_ink(white)
