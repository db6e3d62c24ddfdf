"""Ink outside the text layer that looks like lines of type: found at 72 dpi, rendered to be read."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image, ImageDraw

from hsd_cli.datatypes import PageImage
from hsd_cli.pages.ink_text import DRAWN_DPI, LOOK_DPI, ink_text, looks_like_text
from hsd_cli.pages.render import open_document, render_page, with_text_layer


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def text_scan(lines: int = 12, size=(1240, 1600)) -> Image.Image:
    """White paper with lines of dark bars as tall as 11 pt type at 150 dpi, a line apart."""
    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    for i in range(lines):
        y = 120 + i * 46
        for x in range(100, size[0] - 100, 60):
            draw.rectangle((x, y, x + 44, y + 22), fill=30)
    return image


def chart() -> Image.Image:
    """A plot: axes, a curve running down most of the rows, and a few tick labels."""
    image = Image.new("L", (1240, 900), 255)
    draw = ImageDraw.Draw(image)
    draw.line((100, 50, 100, 820), fill=0, width=4)
    draw.line((100, 820, 1200, 820), fill=0, width=4)
    draw.line([(100 + x, 800 - (x * x) // 1600) for x in range(0, 1100, 10)], fill=0, width=5)
    return image


def look(image: Image.Image, dpi: int = 150) -> np.ndarray:
    k = LOOK_DPI / dpi
    return np.asarray(image.resize((round(image.width * k), round(image.height * k)), Image.Resampling.BOX))


def test_lines_of_ink_on_paper_look_like_text():
    assert looks_like_text(look(text_scan()))


def test_photos_charts_and_blank_sheets_do_not():
    noise = Image.fromarray(np.random.default_rng(0).integers(0, 255, (900, 1200), dtype=np.uint8))
    assert not looks_like_text(look(noise))  # a photo: no paper
    assert not looks_like_text(look(chart()))  # its ink runs down the rows in one band
    assert not looks_like_text(look(Image.new("L", (1240, 1600), 255)))  # nothing on it
    assert not looks_like_text(look(text_scan(lines=2)))  # a label or two


def _page(tmp_path: Path, draw) -> tuple[pymupdf.Document, PageImage]:
    doc = pymupdf.open()
    draw(doc.new_page())  # 612 x 792 pt
    doc.save(tmp_path / "p.pdf")
    opened = open_document(tmp_path / "p.pdf", None)
    return opened, with_text_layer(opened, render_page(opened, 0, 144))


PARAGRAPH = "Exhibit 4, received by the clerk of the court and reproduced as it was received. " * 6


def test_a_scan_in_a_page_is_found_where_it_stands_and_rendered_at_its_resolution(tmp_path):
    def draw(page):
        page.insert_textbox(pymupdf.Rect(72, 60, 540, 190), PARAGRAPH, fontsize=10)
        page.insert_image(pymupdf.Rect(100, 200, 500, 716), stream=_png(text_scan()))  # 1240 px over 400 pt
        page.insert_image(pymupdf.Rect(100, 730, 160, 780), stream=_png(text_scan()))  # a stamp-sized one

    doc, shown = _page(tmp_path, draw)
    with doc:
        (found,) = ink_text(doc.pdf_page(0), shown)
    x0, y0, x1, y1 = found.bbox  # page-image pixels at 144 dpi: the scan's lines, in the picture
    assert 200 <= x0 < 280 and 400 <= y0 < 480 and 920 < x1 <= 1010 and 800 < y1 <= 1432
    assert found.image.dpi == 223  # the scan's own resolution


def test_type_in_outlines_is_found_and_live_text_is_not(tmp_path):
    src = pymupdf.open()
    src.new_page().insert_textbox(pymupdf.Rect(60, 200, 540, 700), PARAGRAPH * 2, fontsize=12)
    svg = src[0].get_svg_image(text_as_path=True)
    outlines = pymupdf.open("pdf", pymupdf.open("svg", svg.encode()).convert_to_pdf())

    def draw(page):
        page.show_pdf_page(page.rect, outlines, 0)
        page.insert_textbox(pymupdf.Rect(60, 60, 540, 190), PARAGRAPH, fontsize=10)

    doc, shown = _page(tmp_path, draw)
    with doc:
        (found,) = ink_text(doc.pdf_page(0), shown)
        assert found.image.dpi == DRAWN_DPI and found.bbox[1] > 380  # below the live paragraph
    doc, shown = _page(tmp_path, lambda page: page.insert_textbox(pymupdf.Rect(60, 60, 540, 700), PARAGRAPH * 3))
    with doc:
        assert ink_text(doc.pdf_page(0), shown) == []  # every line of ink is in the layer
