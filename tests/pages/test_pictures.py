"""Raster pictures that may be scanned text: found by their look at 72 dpi, rendered to be read."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image, ImageDraw

from hsd_cli.datatypes import PageImage
from hsd_cli.pages.pictures import LOOK_DPI, looks_like_text, paper_pictures


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


def test_a_scan_in_a_page_is_found_where_it_stands_and_rendered_at_its_resolution():
    doc = pymupdf.open()
    page = doc.new_page()  # 612 x 792 pt
    page.insert_text((72, 72), "A digital heading over the picture.")
    page.insert_image(pymupdf.Rect(100, 200, 500, 716), stream=_png(text_scan()))  # 1240 px over 400 pt
    page.insert_image(pymupdf.Rect(100, 730, 160, 780), stream=_png(text_scan()))  # a stamp-sized one
    shown = PageImage(Path("p.pdf"), 0, Image.new("RGB", (1224, 1584)), 144)
    (found,) = paper_pictures(page, shown)
    assert [round(v) for v in found.bbox] == [200, 400, 1000, 1432]  # page-image pixels at 144 dpi
    assert found.image.dpi == 223 and abs(found.image.image.width - 1240) <= 2  # its own pixels
