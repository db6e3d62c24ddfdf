"""Pages far taller than wide are read in overlapping tiles, each line once, in page pixels."""

from __future__ import annotations

import pytest
from PIL import Image

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts import tall_pages
from hsd_cli.drafts.rapid import RapidOcrSource


@pytest.mark.parametrize("size", [(700, 9000), (100, 1000), (300, 451), (10, 10_001)])
def test_bands_cover_the_page_once_and_lie_inside_their_tiles(size):
    width, height = size
    found = tall_pages.tiles(size)
    assert found[0][2] == 0 and found[-1][3] == height
    for (_, _, _, end), (_, _, start, _) in zip(found, found[1:], strict=False):
        assert end == start  # no gap, no overlap
    for top, bottom, start, end in found:
        assert 0 <= top < bottom <= height and bottom - top <= round(tall_pages.TILE_ASPECT * width)
        # a line of OVERLAP / 2 of a tile's height, centred in the band, lies in the tile
        half = tall_pages.OVERLAP * (bottom - top) / 2 - 1
        assert top <= start - half or top == 0 and start == 0
        assert end + half <= bottom or bottom == height and end == height


def test_a_line_in_two_tiles_is_kept_once_where_it_lies():
    """A fake reader 'finds' every line a tile shows whole; the page gets each line once."""
    page = Image.new("RGB", (100, 1000), "white")
    rows = [(y, y + 12) for y in range(0, 988, 20)]

    tops = iter(top for top, _, _, _ in tall_pages.tiles(page.size))  # read in this order

    def read(tile: Image.Image):
        top = next(tops)
        spans = [
            TextSpan((5, a - top, 90, b - top), f"row {a}") for a, b in rows if a >= top and b <= top + tile.height
        ]
        return spans, 0.01

    lines, turn = tall_pages.read_tiles(read, page)
    assert [s.text for s in lines] == [f"row {a}" for a, _ in rows]
    assert [s.bbox[1] for s in lines] == [a for a, _ in rows] and turn == pytest.approx(0.01)


def test_the_ocr_source_reads_a_tall_page_in_tiles(monkeypatch):
    """A 700 x 9,000 receipt was read whole at the detector's scale (type 3 px high): nothing."""
    sizes = []
    source = RapidOcrSource()
    monkeypatch.setattr(source, "read_page", lambda image: (sizes.append(image.size), ([], 0.0))[1])
    source._read_lines(Image.new("RGB", (700, 9000), "white"))
    source._read_lines(Image.new("RGB", (700, 1000), "white"))  # a page-shaped page: read whole
    assert len(sizes) > 2 and all(s == (700, 1050) for s in sizes[:-1]) and sizes[-1] == (700, 1000)
