"""Ink on a text-layer page that looks like lines of type but is in no text layer.

A letter scanned into a court exhibit, a scanned page under a digital watermark, a paragraph
whose type was turned into outlines: the page has a text layer, so it is drafted from it, and
these words are in no layer at all. Here the page's render is looked at, at 72 dpi, with its live
text painted out; what ink is left is joined into areas, and each large area whose ink runs in lines
of type on paper is rendered for OCR (with everything drawn over it). drafts/ink_reading.py
decides from what OCR reads there whether it holds text the layer lacks. Photos, charts, ruled
tables and diagrams are not lines of ink across paper and cost no more than the look.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pymupdf
from PIL import Image

from hsd_cli.datatypes import BBox, PageImage

LOOK_DPI = 72  # the page is looked at at this resolution
JOIN = (15, 9)  # pixels at LOOK_DPI: ink this close joins (letters, words, lines of a paragraph)
MIN_PAGE_SHARE = 0.03  # of the page's area: smaller areas are logos, signatures, labels
READ_DPI = (150, 300)  # a scanned area is read at its own resolution, within these
DRAWN_DPI = 200  # an area of vector outlines, sharp at any resolution, is read at this one
PAPER, INK = 200, 160  # gray levels: paper at or above, ink below
MIN_PAPER = 0.5  # share of an area's pixels that are paper: a photo or a chart's fill has less
INKED_ROW = 0.003  # a pixel row with this share of ink crosses a line of text (or a drawing)
LINE_ROWS = (3, 30)  # rows a line of text takes at LOOK_DPI: type from 3 to 30 points
MIN_LINES = 3  # bands of inked rows as tall as a line of type
LINE_SHARE = 0.5  # share of the inked rows in such bands: a drawing's rows run on in one band
LINE_SPREAD = 0.2  # share of the area's columns a line's ink crosses: a table's rules cross few


@dataclass(frozen=True, slots=True)
class InkText:
    """An area's box on the page image (its pixels) and the area rendered for OCR."""

    bbox: BBox
    image: PageImage


def ink_text(pdf_page: pymupdf.Page, page: PageImage) -> list[InkText]:
    """The areas of `pdf_page` (shown as `page`) where ink outside its text layer looks like text."""
    gray = _look(page)
    out = []
    for x0, y0, x1, y1 in _areas(gray < INK):
        if not looks_like_text(gray[y0:y1, x0:x1]):
            continue
        box = pymupdf.Rect(x0, y0, x1, y1) * (72 / LOOK_DPI) & pdf_page.rect
        dpi = _read_dpi(pdf_page, box)
        bbox = (box.x0 * page.dpi / 72, box.y0 * page.dpi / 72, box.x1 * page.dpi / 72, box.y1 * page.dpi / 72)
        out.append(InkText(bbox, PageImage(page.source, page.index, _render(pdf_page, box, dpi), dpi)))
    return out


def looks_like_text(gray: np.ndarray) -> bool:
    """Ink on paper in lines of type (`gray` at LOOK_DPI): a scan or outlines of text; not a
    photo, a chart or a diagram, whose ink runs down many rows at once."""
    if gray.size == 0 or (gray >= PAPER).mean() < MIN_PAPER:
        return False
    ink = gray < INK
    bands = _runs(ink.mean(axis=1) >= INKED_ROW)
    lines = [(y, n) for y, n in bands if LINE_ROWS[0] <= n <= LINE_ROWS[1]]
    if len(lines) < MIN_LINES or sum(n for _, n in lines) < LINE_SHARE * sum(n for _, n in bands):
        return False
    spread = [ink[y : y + n].any(axis=0).mean() for y, n in lines]
    return float(np.median(spread)) >= LINE_SPREAD


def _look(page: PageImage) -> np.ndarray:
    """The page's render in gray at LOOK_DPI, its text layer's lines painted paper-white."""
    k = LOOK_DPI / page.dpi
    size = (max(1, round(page.image.width * k)), max(1, round(page.image.height * k)))
    gray = np.array(page.image.convert("L").resize(size, Image.Resampling.BOX))
    for s in page.text_spans:
        x0, y0, x1, y1 = (int(v * k) for v in s.bbox)
        gray[max(y0 - 1, 0) : y1 + 2, max(x0 - 1, 0) : x1 + 2] = 255
    return gray


def _areas(ink: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) of the ink joined within JOIN, each over MIN_PAGE_SHARE of the page."""
    import cv2  # rapidocr's dependency

    joined = cv2.dilate(ink.astype(np.uint8), np.ones(JOIN[::-1], np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    least = MIN_PAGE_SHARE * ink.size
    return [(x, y, x + w, y + h) for x, y, w, h, _ in stats[1:count] if w * h >= least]


def _read_dpi(pdf_page: pymupdf.Page, box: pymupdf.Rect) -> int:
    """The resolution of the raster pictures under `box` (within READ_DPI), or DRAWN_DPI."""
    found = []
    for info in pdf_page.get_image_info():
        placed = pymupdf.Rect(info["bbox"])
        if placed.intersects(box):
            found.append(72 * max(info["width"], info["height"]) / max(placed.width, placed.height, 1))
    return round(min(max(max(found), READ_DPI[0]), READ_DPI[1])) if found else DRAWN_DPI


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """(start, length) of each run of True."""
    edges = np.diff(np.concatenate(([0], flags.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return list(zip(starts.tolist(), (ends - starts).tolist(), strict=True))


def _render(pdf_page: pymupdf.Page, box: pymupdf.Rect, dpi: int) -> Image.Image:
    pix = pdf_page.get_pixmap(clip=box, dpi=dpi, colorspace=pymupdf.csRGB, alpha=False)
    return Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
