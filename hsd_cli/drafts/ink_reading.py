"""Text in no layer on a text-layer page, read by OCR in its place.

pages/ink_text.py finds the areas whose ink looks like lines of type outside the text layer;
OCR reads each (with whatever the PDF draws over it). Where OCR finds prose, several blocks'
worth of words, and far more words than the text layer holds there, the area is text the layer
lacks: the regions lying in it (a figure box over a scan, a watermark's line) give way to OCR's,
in their place in reading order. A chart's labels, a table's cells and a scan the layer already
transcribes are left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hsd_cli.datatypes import BBox, PageImage, Region, RegionKind, TextSpan
from hsd_cli.pages import geometry as geo
from hsd_cli.pages.ink_text import InkText

PROSE_WORDS = 8  # a block of at least this many words is prose, not a label or a legend
MIN_WORDS = 30  # OCR words in prose blocks an area must hold to be read as text
LAYER_RATIO = 3  # ... and this many times the words the text layer has there

Reader = Callable[[PageImage], list[Region]]  # OCR: an area's regions, in its own pixels


def with_ink_text(regions: list[Region], page: PageImage, areas: list[InkText], read: Reader) -> list[Region]:
    """`regions` with each area that holds text the layer lacks read by OCR."""
    regions = sorted(regions, key=lambda r: r.order)
    for area in areas:
        found = read(area.image)
        if holds_prose(found, _layer_words(page.text_spans, area.bbox)):
            regions = _in_place(regions, area.bbox, _placed(found, area, page.dpi))
    return regions


def holds_prose(found: list[Region], layer_words: int) -> bool:
    """OCR found blocks of prose, and far more words than the text layer has there."""
    prose = sum(n for r in found if (n := len(r.text.split())) >= PROSE_WORDS)
    return prose >= MIN_WORDS and prose >= LAYER_RATIO * layer_words


def _layer_words(spans: tuple[TextSpan, ...], box: BBox) -> int:
    return sum(len(s.text.split()) for s in spans if geo.mostly_in(s.bbox, box))


def _placed(found: list[Region], area: InkText, dpi: int) -> list[Region]:
    """OCR's regions moved from the area's pixels onto the page image's."""
    k, (x, y) = dpi / area.image.dpi, area.bbox[:2]
    return [
        replace(r, bbox=(x + r.bbox[0] * k, y + r.bbox[1] * k, x + r.bbox[2] * k, y + r.bbox[3] * k)) for r in found
    ]


def _in_place(regions: list[Region], box: BBox, placed: list[Region]) -> list[Region]:
    """The regions lying in `box`, and the figure it lies in, replaced by `placed` (in their own
    order) where the first of them stood in reading order, or else before the first region
    below the box's top."""
    gone = [geo.mostly_in(r.bbox, box) or (r.kind is RegionKind.FIGURE and geo.mostly_in(box, r.bbox)) for r in regions]
    kept = [r for r, g in zip(regions, gone, strict=True) if not g]
    at = (
        gone.index(True) if any(gone) else next((i for i, r in enumerate(regions) if r.bbox[1] >= box[1]), len(regions))
    )
    at -= sum(gone[:at])  # its index among the kept
    ordered = kept[:at] + sorted(placed, key=lambda r: r.order) + kept[at:]
    return [replace(r, order=n) for n, r in enumerate(ordered)]
