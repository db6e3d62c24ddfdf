"""OCR resolution from a page's physical size and text height, where it was a fixed --dpi."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from hsd_cli.datatypes import PageImage, Region, RegionKind
from hsd_cli.pages.ocr_dpi import MAX_LONG_SIDE, ocr_dpi
from hsd_cli.pages.render import open_document, render_for_ocr, render_page, with_text_layer
from hsd_cli.pipeline.prepare import _ocr_regions


def test_letter_page_with_body_text_keeps_the_run_dpi() -> None:
    """10-pt text on a letter page is already 20 px high at 144 dpi: nothing changes."""
    assert ocr_dpi(612, 792, 10.0, 144) == 144


def test_tiny_page_with_small_text_gets_more_dpi() -> None:
    """A 3 x 4 inch page with 6-pt text: its long side must reach the detector's 1280 px."""
    # Not 144: rendered at the run's dpi it is 432 x 576 px with 12-px text, and enlarged later.
    assert ocr_dpi(216, 288, 6.0, 144) == 320


def test_small_text_alone_raises_the_dpi() -> None:
    """5-pt footnote-sized body text on a letter page is rendered until it is 20 px high."""
    assert ocr_dpi(612, 792, 5.0, 144) == 288


def test_huge_page_is_capped() -> None:
    """An A0 sheet stays within MAX_LONG_SIDE pixels, even below the run's dpi."""
    dpi = ocr_dpi(2384, 3370, 10.0, 144)
    assert 3370 * dpi / 72 <= MAX_LONG_SIDE + 72 and dpi < 144


def tiny_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=216, height=288)
    page.insert_text((20, 40), "Small print on a tiny page", fontsize=6)
    doc.save(path)
    return path


class SizeSource:
    """A draft source stub: one region covering the page image it was given."""

    def regions(self, page: PageImage) -> list[Region]:
        w, h = page.image.size
        return [Region((0.0, 0.0, float(w), float(h)), RegionKind.TEXT, 0, f"{page.dpi}")]


def test_ocr_reads_a_sharper_render_and_boxes_come_back_in_page_pixels(tmp_path: Path) -> None:
    """The tiny page is OCR'd from a 320-dpi render; its regions land on the 144-dpi page image."""
    with open_document(tiny_pdf(tmp_path / "tiny.pdf")) as doc:
        page = with_text_layer(doc, render_page(doc, 0, 144))
        sharp = render_for_ocr(doc, page)
        assert sharp.dpi == 320 and sharp.image.width == 960
        assert sharp.text_spans and sharp.text_spans[0].bbox[2] > page.text_spans[0].bbox[2] * 2
        (region,) = _ocr_regions(doc, page, SizeSource())
    assert region.text == "320"
    assert region.bbox[2:] == (page.image.width, page.image.height)
