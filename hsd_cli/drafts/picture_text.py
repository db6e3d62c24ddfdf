"""Text in a picture on a text-layer page, read by OCR in its place.

pages/pictures.py finds the raster pictures that look like paper; OCR reads each (with whatever
the PDF draws over it). Where OCR finds prose, several blocks' worth of words, and far more words
than the text layer holds over the picture, the picture is text the layer lacks: the regions
lying in it (its figure box, a watermark's line) give way to OCR's, in its place in reading
order. A chart's labels, a photo's signs and a scan the layer already transcribes are left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hsd_cli.datatypes import BBox, PageImage, Region, TextSpan
from hsd_cli.pages import geometry as geo
from hsd_cli.pages.pictures import Picture

PROSE_WORDS = 8  # a block of at least this many words is prose, not a label or a legend
MIN_WORDS = 30  # OCR words in prose blocks a picture must hold to be read as text
LAYER_RATIO = 3  # ... and this many times the words the text layer has over the picture
INSIDE = 0.5  # a region with this share of its area in the picture is part of it

Reader = Callable[[PageImage], list[Region]]  # OCR: a picture's regions, in its own pixels


def with_picture_text(regions: list[Region], page: PageImage, pictures: list[Picture], read: Reader) -> list[Region]:
    """`regions` with each picture that holds text the layer lacks read by OCR."""
    regions = sorted(regions, key=lambda r: r.order)
    for picture in pictures:
        found = read(picture.image)
        if holds_prose(found, _layer_words(page.text_spans, picture.bbox)):
            regions = _in_place(regions, picture.bbox, _placed(found, picture, page.dpi))
    return regions


def holds_prose(found: list[Region], layer_words: int) -> bool:
    """OCR found blocks of prose, and far more words than the text layer has there."""
    prose = sum(n for r in found if (n := len(r.text.split())) >= PROSE_WORDS)
    return prose >= MIN_WORDS and prose >= LAYER_RATIO * layer_words


def _layer_words(spans: tuple[TextSpan, ...], box: BBox) -> int:
    return sum(len(s.text.split()) for s in spans if _inside(s.bbox, box))


def _placed(found: list[Region], picture: Picture, dpi: int) -> list[Region]:
    """OCR's regions moved from the picture's pixels onto the page image's."""
    k, (x, y) = dpi / picture.image.dpi, picture.bbox[:2]
    return [
        replace(r, bbox=(x + r.bbox[0] * k, y + r.bbox[1] * k, x + r.bbox[2] * k, y + r.bbox[3] * k)) for r in found
    ]


def _in_place(regions: list[Region], box: BBox, placed: list[Region]) -> list[Region]:
    """The regions lying in `box` replaced by `placed` (kept in their own order), where the first
    of them stood in reading order, or before the first region below the box's top."""
    kept = [r for r in regions if not _inside(r.bbox, box)]
    at = next((i for i, r in enumerate(regions) if _inside(r.bbox, box)), None)
    if at is None:
        at = next((i for i, r in enumerate(regions) if r.bbox[1] >= box[1]), len(regions))
    at = sum(1 for r in regions[:at] if not _inside(r.bbox, box))  # its index among the kept
    ordered = kept[:at] + sorted(placed, key=lambda r: r.order) + kept[at:]
    return [replace(r, order=n) for n, r in enumerate(ordered)]


def _inside(b: BBox, box: BBox) -> bool:
    return geo.intersection(b, box) >= INSIDE * max(geo.area(b), 1e-9)
