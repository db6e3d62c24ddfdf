"""Figures of a born-digital page: embedded pictures and clusters of vector drawings.

The layout model reads text features, so a picture with no text in it (an embedded photo)
never gets a box from it, and a chart's box stops at its plot lines. Here every figure is
whole: its picture or drawing cluster, grown over the short text lines beside it (axis
labels, legends), merged with the layout's own figure box where they overlap. Each figure
gets its own caption ("Figure 3", "Fig. 3", "Table 3" nearest above or below it) as a caption
region, so the figure and its caption pair up in reading order.
"""

from __future__ import annotations

import re

import pymupdf

from hsd_cli.datatypes import Region, RegionKind
from hsd_cli.pages import geometry as geo

MIN_SIDE = 24.0  # points: smaller pictures are icons, bullets or rules
MAX_PAGE_SHARE = 0.8  # a picture over most of the page is a background or a scan, not a figure
_CAPTION = re.compile(r"^\s*(fig(ure)?|table|tab|chart|plate|abb(ildung)?)\.?\s*[0-9IVX]+", re.I)
_LABEL_CHARS = 40  # a text line this short beside a figure is one of its labels
_NEAR = 12.0  # points: how far labels and legends stand from the plot
MAX_TEXT_SHARE = 0.3  # a picture or drawing under the layout's text boxes is a background or a frame
PARAGRAPH_WORDS = 15  # words of one text block that make it a paragraph (a chart's legend has fewer)


def with_figures(page: pymupdf.Page, to_px: pymupdf.Matrix, regions: tuple[Region, ...]) -> tuple[Region, ...]:
    """`regions` with a figure region per picture and drawing cluster, and their captions; the
    layout's figure boxes that hold no picture or drawing give way to the text they hold."""
    to_pt = ~to_px
    text = [pymupdf.Rect(r.bbox) * to_pt for r in regions if r.kind is not RegionKind.FIGURE]
    images = [pymupdf.Rect(info["bbox"]) for info in page.get_image_info()]
    paths = page.get_drawings()  # read once: the page's clusters and each layout box's own
    clusters = _clusters(page, paths)
    drawings = [c for c in clusters if not _holds_prose(page, c)]
    boxes = [b for b in _pictures(images, page.rect) + drawings if not _holds_text(b, text)]
    # A figure is ink besides type: a layout figure box over no image (of any size, a scan's
    # included) and no drawing but frames of text is type alone (a grid of formula cards, each
    # card framed), the page's text; drawings within it count even where a frame of text holds
    # them (a report's chart inside the page-wide cluster of its sidebar rules).
    layout = [pymupdf.Rect(r.bbox) * to_pt for r in regions if r.kind is RegionKind.FIGURE]
    layout = [box for box in layout if any(abs(box & d) > 0 for d in images + drawings) or _drawn_in(page, box, paths)]
    page_lines = _lines(page)
    lines = [(box, t) for box, t in page_lines if not any(_share(box, x) > 0.5 for x in text)]
    figures = _grown(_merged(boxes + layout), lines)
    kept = [r for r in regions if r.kind is not RegionKind.FIGURE]
    known = [pymupdf.Rect(r.bbox) * to_pt for r in kept if r.kind is RegionKind.CAPTION]
    captions = _captions(figures, page_lines, known)
    added = [Region(tuple(f * to_px), RegionKind.FIGURE, 0, "", source="pdf") for f in figures]
    added += [Region(tuple(c * to_px), RegionKind.CAPTION, 0, "", source="pdf") for c in captions]
    return tuple(kept + added)


def _pictures(images: list[pymupdf.Rect], page: pymupdf.Rect) -> list[pymupdf.Rect]:
    """The boxes of the page's embedded images that a reader sees as pictures."""
    area = abs(page)
    boxes = [image & page for image in images]
    return [b for b in boxes if min(b.width, b.height) >= MIN_SIDE and abs(b) <= MAX_PAGE_SHARE * area]


def _clusters(page: pymupdf.Page, paths: list[dict]) -> list[pymupdf.Rect]:
    """Clusters of vector drawings big enough to be a chart or diagram (not rules, not type's
    fraction bars or radicals)."""
    area = abs(page.rect)
    try:
        clusters = page.cluster_drawings(drawings=paths)
    except (AttributeError, ValueError):  # older PyMuPDF, or nothing drawn
        return []
    boxes = [pymupdf.Rect(box) & page.rect for box in clusters]
    return [b for b in boxes if min(b.width, b.height) >= 2 * MIN_SIDE and abs(b) <= MAX_PAGE_SHARE * area]


def _drawn_in(page: pymupdf.Page, box: pymupdf.Rect, paths: list[dict]) -> bool:
    """Whether drawings lying within `box`, give or take MIN_SIDE (a chart's axes may reach past
    the layout's box), cluster into a chart's size; a frame around the box is not within it, and
    rules and a formula's fraction bars are too thin."""
    try:
        clusters = page.cluster_drawings(clip=box + (-MIN_SIDE, -MIN_SIDE, MIN_SIDE, MIN_SIDE), drawings=paths)
    except (AttributeError, ValueError):  # older PyMuPDF, or nothing drawn
        return False
    return any(min(c.width, c.height) >= 2 * MIN_SIDE for c in clusters)


def _holds_prose(page: pymupdf.Page, box: pymupdf.Rect) -> bool:
    """A drawing framing paragraphs (a shaded note, a ruled table, a card of text) is no figure:
    two of its lines are prose, or one of its blocks is a paragraph set narrow (a card's lines of
    two or three words each are prose only read together)."""
    blocks = [b[4] for b in page.get_text("blocks", clip=box)]
    if sum(geo.is_prose(line) for text in blocks for line in text.splitlines()) >= 2:
        return True
    return any(len(words := text.split()) >= PARAGRAPH_WORDS and geo.is_prose(" ".join(words)) for text in blocks)


def _lines(page: pymupdf.Page) -> list[tuple[pymupdf.Rect, str]]:
    """The page's text lines as (box, text), from its words."""
    lines: dict[tuple[int, int], tuple[pymupdf.Rect, list[str]]] = {}
    for x0, y0, x1, y1, word, block, line, _ in page.get_text("words"):
        box, words = lines.setdefault((block, line), (pymupdf.Rect(x0, y0, x1, y1), []))
        box.include_rect((x0, y0, x1, y1))  # in place: the dict holds this rect
        words.append(word)
    return [(box, " ".join(words)) for box, words in lines.values()]


def _merged(boxes: list[pymupdf.Rect]) -> list[pymupdf.Rect]:
    """Overlapping boxes as one (a picture and the layout's box of it, a chart drawn in parts)."""
    out: list[pymupdf.Rect] = []
    for box in sorted(boxes, key=lambda b: -abs(b)):
        home = next((o for o in out if o.intersects(box)), None)
        if home is None:
            out.append(pymupdf.Rect(box))
        else:
            home.include_rect(box)
    return out


def _grown(figures: list[pymupdf.Rect], lines: list[tuple[pymupdf.Rect, str]]) -> list[pymupdf.Rect]:
    """Each figure grown over the short lines touching it: labels, tick values, legends; not over
    a sentence (a paragraph's short last line is the page's text, drafts/figure_body.py)."""
    out = []
    for fig in figures:
        grown = pymupdf.Rect(fig)
        for box, text in lines:
            near = pymupdf.Rect(grown.x0 - _NEAR, grown.y0 - _NEAR, grown.x1 + _NEAR, grown.y1 + _NEAR)
            label = len(text) <= _LABEL_CHARS and not _CAPTION.match(text) and not geo.is_prose(text)
            if label and near.intersects(box):
                grown |= box
        out.append(grown)
    return out


def _captions(
    figures: list[pymupdf.Rect], lines: list[tuple[pymupdf.Rect, str]], known: list[pymupdf.Rect]
) -> list[pymupdf.Rect]:
    """A caption box for each figure whose nearest caption line has no caption region yet."""
    starts = [(box, text) for box, text in lines if _CAPTION.match(text)]
    out, used = [], set()
    for fig in figures:
        near = [(abs(_gap(fig, box)), i) for i, (box, _) in enumerate(starts) if i not in used and _beside(fig, box)]
        if not near:
            continue
        _, i = min(near)
        used.add(i)
        box = _paragraph(starts[i][0], lines, figures)
        if not any(_share(box, k) > 0.5 for k in known):
            out.append(box)
    return out


def _beside(fig: pymupdf.Rect, box: pymupdf.Rect) -> bool:
    """Above or below the figure, overlapping it horizontally, within a fifth of a page-ish."""
    overlap = min(fig.x1, box.x1) - max(fig.x0, box.x0)
    return overlap > 0 and abs(_gap(fig, box)) <= max(60.0, 0.5 * fig.height)


def _gap(fig: pymupdf.Rect, box: pymupdf.Rect) -> float:
    """Distance from the figure to a line below it (positive) or above it (negative)."""
    return box.y0 - fig.y1 if box.y0 >= fig.y1 - 2 else -(fig.y0 - box.y1) - 0.5  # below wins ties


def _paragraph(first: pymupdf.Rect, lines: list[tuple[pymupdf.Rect, str]], figures: list[pymupdf.Rect]) -> pymupdf.Rect:
    """The caption's first line and the lines that follow it closely below."""
    box = pymupdf.Rect(first)
    for line, _ in sorted(lines, key=lambda x: x[0].y0):
        follows = 0 <= line.y0 - box.y1 <= 0.6 * first.height and min(line.x1, box.x1) > max(line.x0, box.x0)
        if follows and not any(f.intersects(line) for f in figures):
            box |= line
    return box


def _holds_text(box: pymupdf.Rect, text: list[pymupdf.Rect]) -> bool:
    """A background or a frame: the layout's text boxes cover much of it, or one lies inside it
    (a heading on a banner); a crop lost costs less than the page's text lost."""
    return _covered(box, text) > MAX_TEXT_SHARE or any(_share(t, box) > 0.5 for t in text)


def _covered(box: pymupdf.Rect, others: list[pymupdf.Rect]) -> float:
    """Share of `box` under the union of `others` (summed: overlaps among them are rare)."""
    return min(1.0, sum(abs(box & o) for o in others) / abs(box)) if abs(box) else 1.0


def _share(a: pymupdf.Rect, b: pymupdf.Rect) -> float:
    """Share of `a` inside `b`."""
    return abs(a & b) / abs(a) if abs(a) else 0.0
