"""Page furniture on a single page: page numbers and running lines in the top and bottom bands.

A region becomes HEADER or FOOTER (which the Markdown leaves out) when it sits wholly in the
top or bottom band of the page and either reads as a page number ("12", "- 12 -", "Page 3 of
9", "xiv") or is one short line set smaller than the body text that is no footnote (footnotes
start with a marker: "1 See...", "* Corresponding author"). Body text is never touched: a
region of several lines, or set at body size, stays whatever it was.
"""

from __future__ import annotations

import re
from dataclasses import replace

from hsd_cli.datatypes import Region, RegionKind, TextSpan
from hsd_cli.pages.bands import BAND

SMALL = 0.85  # a running line is set at most this size relative to the body text
MAX_CHARS = 80
_PAGE_NUMBER = re.compile(
    r"^(?:page|p\.|seite|pág\.?)?\s*[-–—(\[]?\s*(?:\d{1,4}|(?=[ivxl])l?x{0,3}(?:ix|iv|v?i{0,3}))\s*[-–—)\]]?"
    r"(?:\s*(?:of|/|de|von|sur)\s*\d{1,4})?$",
    re.I,
)
_FOOTNOTE = re.compile(r"^(?:\d{1,3}|[*†‡§¶])\s*\S")
KEPT_KINDS = (RegionKind.TABLE, RegionKind.FIGURE, RegionKind.EQUATION, RegionKind.CODE)


def is_page_number(text: str) -> bool:
    return bool(_PAGE_NUMBER.match(text.strip()))


def band_of(bbox: tuple[float, ...], page_height: float) -> RegionKind | None:
    """HEADER or FOOTER for a box wholly in the top or bottom band, else None."""
    if bbox[3] <= BAND * page_height:
        return RegionKind.HEADER
    if bbox[1] >= (1 - BAND) * page_height:
        return RegionKind.FOOTER
    return None


def relabel(region: Region, lines: list[TextSpan], body: float, page_height: float) -> Region:
    """`region` as HEADER/FOOTER when it is a page number or a small running line in a band."""
    if region.kind in KEPT_KINDS or region.kind in (RegionKind.HEADER, RegionKind.FOOTER):
        return region
    band = band_of(region.bbox, page_height)
    text = region.text.strip()
    if band is None or not text:
        return region
    if is_page_number(text) or _is_running_line(text, lines, body):
        return replace(region, kind=band, level=0)
    return region


def _is_running_line(text: str, lines: list[TextSpan], body: float) -> bool:
    if len(lines) != 1 or len(text) > MAX_CHARS or _FOOTNOTE.match(text):
        return False
    return bool(body) and 0 < lines[0].size <= SMALL * body
