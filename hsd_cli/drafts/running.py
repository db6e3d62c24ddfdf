"""Running headers and footers: lines in a page's top or bottom band that repeat across pages.

A line is running when, with its digits read as "#" ("Page 3", "Page 4"), its case and
spacing ignored, it sits in the same band on at least `MIN_PAGES` pages and `MIN_SHARE` of the
pages looked at (odd and even pages often carry different ones). Two pages are enough: body
text repeated word for word in the same band of two pages is rarer than a two-page newsletter's
masthead, set larger than its body (which furniture.py's single-page rule leaves alone). A
region in a band becomes HEADER or FOOTER only when its whole text is made of running lines: a
region holding any other word stays what it was, so nothing of the body is lost.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

from hsd_cli.datatypes import Region, RegionKind
from hsd_cli.drafts.furniture import KEPT_KINDS, band_of
from hsd_cli.pages.bands import BandLine

MIN_PAGES = 2
MIN_SHARE = 0.3


@dataclass(frozen=True, slots=True)
class RunningLines:
    """The document's running lines, as (band, key) pairs."""

    keys: frozenset[tuple[RegionKind, str]] = frozenset()


def line_key(text: str) -> str:
    """`text` with digits as "#", lower case, one space between words."""
    return " ".join(re.sub(r"\d+", "#", text.lower()).split())


def find_running(pages: list[list[BandLine]]) -> RunningLines:
    """The lines that repeat in the same band across `pages`."""
    counts: Counter[tuple[RegionKind, str]] = Counter()
    for lines in pages:
        counts.update({(band, line_key(s.text)) for s in lines if (band := _band(s)) and line_key(s.text)})
    need = max(MIN_PAGES, MIN_SHARE * len(pages))
    return RunningLines(frozenset(k for k, n in counts.items() if n >= need))


def relabel(regions: list[Region], running: RunningLines, page_height: float) -> list[Region]:
    """`regions` with those made only of running lines, in their band, as HEADER or FOOTER."""
    if not running.keys:
        return regions
    return [_relabel(r, running, page_height) for r in regions]


def _relabel(region: Region, running: RunningLines, page_height: float) -> Region:
    band = band_of(region.bbox, page_height)
    if band is None or region.kind in KEPT_KINDS or not region.text.strip():
        return region
    rest = line_key(region.text)
    # Longest first: "#" alone must not eat the digits of "page #".
    for band_key, key in sorted(running.keys, key=lambda k: -len(k[1])):
        if band_key is band:
            rest = rest.replace(key, " ")
    return replace(region, kind=band, level=0) if not rest.strip() else region


def _band(line: BandLine) -> RegionKind | None:
    return band_of((0.0, line.top, 0.0, line.bottom), 1.0)  # the line's box is in page-height shares
