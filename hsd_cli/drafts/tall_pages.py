"""OCR of pages far taller than wide (a receipt, a scrolling screenshot), read in page-shaped tiles.

The detector sees a page scaled to 1280 px on its long side (drafts/rapid_engines.py): on a page
700 px wide and 9,000 tall, 22 px type comes out 3 px high and nothing is found, so the page's
Markdown was empty with status ok. Such a page is read in tiles as wide as the page and
TILE_ASPECT times as tall, overlapping by OVERLAP of a tile; each line is kept from the one tile
whose own band (the tile less half the overlap at each inner edge) holds its centre, so a line cut
by one tile's edge is read whole by its neighbour and no line is read twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PIL import Image

from hsd_cli.datatypes import TextSpan

TALL = 2.0  # pages taller than this many widths are read in tiles (legal paper is 1.65)
TILE_ASPECT = 1.5  # a tile's height in page widths: page-shaped, read at the detector's scale
OVERLAP = 0.2  # share of a tile its neighbour also reads: lines up to this high are read whole

Reader = Callable[[Image.Image], tuple[list[TextSpan], float]]  # RapidOcrSource.read_page


def is_tall(size: tuple[int, int]) -> bool:
    return size[1] > TALL * size[0]


def tiles(size: tuple[int, int]) -> list[tuple[int, int, float, float]]:
    """(top, bottom) of each tile of a page of `size`, and the band (from, to) whose line centres
    it keeps; the bands cover the page once."""
    width, height = size
    tall = max(1, round(TILE_ASPECT * width))
    step = max(1, round(tall * (1 - OVERLAP)))
    tops = list(range(0, max(height - tall, 0) + 1, step))
    if tops[-1] + tall < height:
        tops.append(height - tall)
    out = []
    for i, top in enumerate(tops):
        start = 0.0 if i == 0 else (top + tops[i - 1] + tall) / 2  # midway in the overlap
        end = float(height) if i == len(tops) - 1 else (tops[i + 1] + top + tall) / 2
        out.append((top, min(top + tall, height), start, end))
    return out


def read_tiles(read: Reader, image: Image.Image) -> tuple[list[TextSpan], float]:
    """The page's lines read tile by tile, in page pixels, and its slope (the tiles' slopes
    weighted by the lines each kept)."""
    lines: list[TextSpan] = []
    turns = []
    for top, bottom, start, end in tiles(image.size):
        found, turn = read(image.crop((0, top, image.width, bottom)))
        kept = [_moved(s, top) for s in found if start <= (s.bbox[1] + s.bbox[3]) / 2 + top < end]
        lines += kept
        turns += [turn] * len(kept)
    return lines, sum(turns) / len(turns) if turns else 0.0


def _moved(span: TextSpan, dy: float) -> TextSpan:
    x0, y0, x1, y1 = span.bbox
    return replace(span, bbox=(x0, y0 + dy, x1, y1 + dy))
