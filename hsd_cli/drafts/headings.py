"""Heading levels from type size: a page's title (`#`) above its section headings (`##`).

The layout model labels titles and section headers, but it also calls a large-type title plain
text now and then (a slide's title, a report's cover line), and its "title" label lands on
author lines too. Type size relative to the body text decides: at least TITLE_SIZE times the
body size is a title (level 1), at least SECTION_SIZE a section heading (level 2); section
numbering ("2.1 Methods") still sets the level of a numbered heading.
"""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.datatypes import Region, RegionKind, TextSpan
from hsd_cli.drafts.base import heading_level

TITLE_SIZE = 1.6
SECTION_SIZE = 1.2
MAX_LINES = 3
MAX_CHARS = 150


def size_level(size: float, body: float) -> int:
    """1 for title-size type, 2 for section-size type, 0 for body-size type."""
    if not body or not size:
        return 0
    return 1 if size >= TITLE_SIZE * body else 2 if size >= SECTION_SIZE * body else 0


def promote(region: Region, lines: list[TextSpan], body: float) -> Region:
    """A short large-type text region as a heading; a labelled heading's level from its size."""
    if not lines or region.kind not in (RegionKind.TEXT, RegionKind.TITLE):
        return region
    level = size_level(max(line.size for line in lines), body)
    text = region.text.strip()
    if region.kind is RegionKind.TEXT:
        short = len(lines) <= MAX_LINES and len(text) <= MAX_CHARS and not text.endswith(".")
        if level and short:
            return replace(region, kind=RegionKind.TITLE, level=heading_level(text, level))
        return region
    if level == 1 or (level == 0 and region.level == 1):  # a body-size "title" is no page title
        return replace(region, level=heading_level(text, level or 2))
    return region
