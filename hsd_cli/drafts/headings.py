"""Heading levels from type size: a page's title (`#`) above its section headings (`##`).

`page_levels` is the page-wide rule every draft source ends with; `promote` types one region
of a text layer.

The layout model labels titles and section headers, but it also calls a large-type title plain
text now and then (a slide's title, a report's cover line), and its "title" label lands on
author lines too. Type size relative to the body text decides: at least TITLE_SIZE times the
body size is a title (level 1), at least SECTION_SIZE a section heading (level 2); section
numbering ("2.1 Methods") still sets the level of a numbered heading.
"""

from __future__ import annotations

import re
from dataclasses import replace

from hsd_cli.datatypes import Region, RegionKind, TextSpan
from hsd_cli.drafts.base import heading_level

TITLE_SIZE = 1.6
SECTION_SIZE = 1.2
MAX_LINES = 3
MAX_CHARS = 150
TITLE_RATIO = 1.3  # the page title: at least this times the body size,
BIG = 1.55  # and at least this and SEPARATE times every other heading's,
SEPARATE = 1.15
ALIGNED = 0.05  # the title block: regions centred on a centred title within this share of the page width
BYLINE_CHARS = 120  # or the topmost heading over a byline this short (authors, a date)
_WORD = re.compile(r"[^\W\d_]{3,}")
SECTION = re.compile(r"(?:\d+(?:\.\d+)*|[IVXLC]+\.|(?:sect(?:ion)?|chapter|part)\.?\s)", re.I)
MIN_LINE_CHARS = 20  # OCR lines this long set the body's height (short ones are padded more)


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


def page_levels(regions: list[Region], lines: list[TextSpan], page_width: float) -> list[Region]:
    """The page's title `#`, its other headings `##` or deeper, one rule for every draft source.

    Size is a region's type size over the body text's: font sizes on a text layer; for OCR lines
    (no font size) the geometric mean of line height and width per character, each over the
    body lines' median (each alone is noisy: boxes are padded, capitals are wide). The title is
    an unnumbered heading or short text in the page's upper half at least TITLE_RATIO the body
    that is either BIG and SEPARATE times every other heading, or the topmost heading, no smaller
    than any other, over a byline (a short line: authors, a date); no other heading is `#`.
    TITLE regions centred under a centred title (authors, affiliation, date) are the title block:
    text. A layout model's page header in type TITLE_RATIO the body is a heading.
    """
    ratio = size_ratio(lines)
    if ratio is None:
        return regions
    regions = [_not_running(r, ratio(_lines_in(r, lines))) for r in regions]
    held = [(r, _lines_in(r, lines)) for r in regions]
    heads = [(r, ratio(ls)) for r, ls in held if r.kind is RegionKind.TITLE and r.text.strip()]
    short = [(r, ratio(ls)) for r, ls in held if r.kind is RegionKind.TEXT and _short(r.text, ls)]
    title = _title(heads, short, regions)
    block = _title_block(title, regions, page_width) if title else set()
    out = []
    for r in regions:
        if r is title:
            out.append(replace(r, kind=RegionKind.TITLE, level=1))
        elif r.kind is RegionKind.TITLE and id(r) in block:
            out.append(replace(r, kind=RegionKind.TEXT, level=0))
        elif r.kind is RegionKind.TITLE:
            out.append(replace(r, level=max(r.level, 2) if r.level else heading_level(r.text, 2)))
        else:
            out.append(r)
    return out


def _not_running(region: Region, ratio: float) -> Region:
    """A layout model's page header set TITLE_RATIO the body or larger is the page's heading:
    running heads are set no larger than the text (a page title under a site name was dropped)."""
    if region.kind is RegionKind.HEADER and ratio >= TITLE_RATIO:
        return replace(region, kind=RegionKind.TITLE, level=0)
    return region


def size_ratio(lines: list[TextSpan]):
    """A function from a region's lines to their type size over the body's; None without body text."""
    if lines and all(s.size > 0 for s in lines):
        sizes: dict[float, int] = {}
        for s in lines:
            sizes[s.size] = sizes.get(s.size, 0) + len(s.text)
        body = max(sizes, key=sizes.__getitem__)
        return lambda held: max((s.size for s in held), default=0.0) / body
    long = [s for s in lines if len(s.text) >= MIN_LINE_CHARS]
    if not long:
        return None
    height, width = _median([_height(s) for s in long]), _median([_char_width(s) for s in long])
    if not height or not width:
        return None
    return lambda held: _median([(_height(s) / height * _char_width(s) / width) ** 0.5 for s in held])


def _height(line: TextSpan) -> float:
    return line.bbox[3] - line.bbox[1]


def _char_width(line: TextSpan) -> float:
    return (line.bbox[2] - line.bbox[0]) / max(len(line.text), 1)


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2] if values else 0.0


def _lines_in(region: Region, lines: list[TextSpan]) -> list[TextSpan]:
    x0, y0, x1, y1 = region.bbox
    return [s for s in lines if x0 <= (s.bbox[0] + s.bbox[2]) / 2 <= x1 and y0 <= (s.bbox[1] + s.bbox[3]) / 2 <= y1]


def _short(text: str, lines: list[TextSpan]) -> bool:
    text = text.strip()
    return 0 < len(text) <= MAX_CHARS and 0 < len(lines) <= MAX_LINES and not text.endswith(".")


def _title(
    heads: list[tuple[Region, float]], short: list[tuple[Region, float]], regions: list[Region]
) -> Region | None:
    half = max(r.bbox[3] for r in regions) / 2
    candidates = [
        (r, size) for r, size in heads + short if size >= TITLE_RATIO and r.bbox[1] <= half and _names(r.text)
    ]
    for r, size in sorted(candidates, key=lambda c: -c[1]):
        others = [m for h, m in heads if h is not r]
        apart = size >= BIG and all(size >= SEPARATE * m for m in others)
        above = any(h.bbox[1] < r.bbox[1] for h, _ in heads if h is not r)
        if apart or (not above and all(size >= m for m in others) and _byline_under(r, regions)):
            return r
    return None


def _names(text: str) -> bool:
    """Words, no section number ("2.1", "XIV.", "Sect. IX."): what a title is made of."""
    words = _WORD.findall(text)
    letters = sum(c.isalpha() for c in text)
    return bool(words) and letters >= 0.6 * len(text.replace(" ", "")) and not SECTION.match(text.strip())


def _byline_under(title: Region, regions: list[Region]) -> bool:
    """The region right under `title` is a short line (authors, a date), not a paragraph."""
    below = [r for r in regions if r.bbox[1] >= title.bbox[3] - 1 and r.kind in (RegionKind.TEXT, RegionKind.TITLE)]
    if not below:
        return False
    first = min(below, key=lambda r: r.bbox[1])
    text = first.text.strip()
    return len(text) <= BYLINE_CHARS and not text.endswith(".")


def _title_block(title: Region, regions: list[Region], page_width: float) -> set[int]:
    """Under a title centred on the page, the regions centred on it down to the first that is not
    or is no byline (a left-aligned title's block is not told from the section under it)."""
    centre, near = (title.bbox[0] + title.bbox[2]) / 2, ALIGNED * page_width
    if abs(centre - page_width / 2) > near:
        return set()
    below = sorted((r for r in regions if r.bbox[1] >= title.bbox[3] - 1), key=lambda r: r.bbox[1])
    block = set()
    for r in below:
        text = r.text.strip()
        byline = len(text) <= BYLINE_CHARS and not text.endswith(".") and not SECTION.match(text)
        off = abs((r.bbox[0] + r.bbox[2]) / 2 - centre) > near
        if r.kind not in (RegionKind.TITLE, RegionKind.TEXT) or off or not byline:
            break  # a paragraph or a numbered heading ends the title block
        block.add(id(r))
    return block
