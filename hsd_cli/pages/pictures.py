"""Raster pictures on a text-layer page that may be scanned text.

A letter scanned into a court exhibit, a scanned page under a digital watermark, a screenshot of
a paragraph: the page has a text layer, so it is drafted from it, and the picture's words are in
no layer at all. Here each large raster picture that looks like paper (mostly white, some ink)
is rendered for OCR, with everything drawn over it; drafts/picture_text.py decides from what OCR
reads there whether it holds text the layer lacks. Photos, charts and diagrams are not lines of
ink on paper, and cost no more than a look at 72 dpi.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pymupdf
from PIL import Image

from hsd_cli.datatypes import BBox, PageImage

MIN_PAGE_SHARE = 0.08  # of the page's area: smaller pictures are logos, signatures, icons
READ_DPI = (150, 300)  # a picture is read at its own resolution, within these
LOOK_DPI = 72  # the tests below look at the picture at this resolution
PAPER, INK = 200, 160  # gray levels: paper at or above, ink below
MIN_PAPER = 0.5  # share of a picture's pixels that are paper: a photo or a chart's fill has less
INKED_ROW = 0.003  # a pixel row with this share of ink crosses a line of text (or a drawing)
LINE_ROWS = (3, 30)  # rows a line of text takes at LOOK_DPI: type from 3 to 30 points
MIN_LINES = 3  # bands of inked rows as tall as a line of type
LINE_SHARE = 0.5  # share of the inked rows in such bands: a drawing's rows run on in one band


@dataclass(frozen=True, slots=True)
class Picture:
    """A raster picture's box on the page image (its pixels) and its area rendered for OCR."""

    bbox: BBox
    image: PageImage


def paper_pictures(pdf_page: pymupdf.Page, page: PageImage) -> list[Picture]:
    """The large raster pictures of `pdf_page` (shown as `page`) that look like paper with ink."""
    to_px = page.dpi / 72
    out = []
    for box, native_dpi in _placements(pdf_page):
        if not looks_like_text(np.asarray(_render(pdf_page, box, LOOK_DPI).convert("L"))):
            continue
        dpi = round(min(max(native_dpi, READ_DPI[0]), READ_DPI[1]))
        bbox = (box.x0 * to_px, box.y0 * to_px, box.x1 * to_px, box.y1 * to_px)
        out.append(Picture(bbox, PageImage(page.source, page.index, _render(pdf_page, box, dpi), dpi)))
    return out


def looks_like_text(gray: np.ndarray) -> bool:
    """Ink on paper in lines of type (`gray` at LOOK_DPI): a scan or a screenshot of text; not a
    photo, a chart or a diagram, whose ink runs down many rows at once."""
    if (gray >= PAPER).mean() < MIN_PAPER:
        return False
    inked = (gray < INK).mean(axis=1) >= INKED_ROW
    bands = _runs(inked)
    lines = [n for n in bands if LINE_ROWS[0] <= n <= LINE_ROWS[1]]
    return len(lines) >= MIN_LINES and sum(lines) >= LINE_SHARE * sum(bands)


def _runs(flags: np.ndarray) -> list[int]:
    """Lengths of the runs of True."""
    edges = np.diff(np.concatenate(([0], flags.astype(np.int8), [0])))
    return (np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)).tolist()


def _render(pdf_page: pymupdf.Page, box: pymupdf.Rect, dpi: int) -> Image.Image:
    pix = pdf_page.get_pixmap(clip=box, dpi=dpi, colorspace=pymupdf.csRGB, alpha=False)
    return Image.frombytes("RGB", (pix.width, pix.height), pix.samples)


def _placements(pdf_page: pymupdf.Page) -> list[tuple[pymupdf.Rect, float]]:
    """Boxes (points) of large raster pictures, strips of one scan merged, with their resolution."""
    boxes: list[tuple[pymupdf.Rect, float]] = []
    for info in pdf_page.get_image_info():
        box = pymupdf.Rect(info["bbox"]) & pdf_page.rect
        if box.is_empty:
            continue
        dpi = 72 * max(info["width"], info["height"]) / max(box.width, box.height)
        touching = [i for i, (b, _) in enumerate(boxes) if (b + (-1, -1, 1, 1)).intersects(box)]
        for i in reversed(touching):  # a scan stored as strips is one picture
            other, other_dpi = boxes.pop(i)
            box, dpi = box | other, max(dpi, other_dpi)
        boxes.append((box, dpi))
    area = abs(pdf_page.rect)
    return [(b, dpi) for b, dpi in boxes if abs(b) >= MIN_PAGE_SHARE * area]
