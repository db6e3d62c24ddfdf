"""Body text inside a figure's box stays on the page: the box shrinks off it.

A figure's box (the layout model's, a picture or drawing grown over its labels in
pages/pdffigures.py, or the OCR layout's) may reach over the page's body text: two figures and
the paragraph between them boxed as one. A line in a figure's box is the figure's own (an axis
label, a legend, a tick row, a note: kept as the figure's text) unless it is body text: a
paragraph, lines that follow each other closely with two or more of them prose
(pages/geometry.is_prose). Body lines leave the figure and the box is cut around them, into
the bands above, between and below them or into the strips beside them, whichever keeps more
of the box; a piece too thin to hold a picture goes, and labels in it join the body.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from hsd_cli.datatypes import BBox, RegionKind, TextSpan
from hsd_cli.pages import geometry as geo

# Prose lines in one block that make it a paragraph. One sentence alone in a figure is its own
# (a diagram's note, a code line of words): dev pages hold such figures; a paragraph's last line
# alone beside a picture is kept out of its box where the box is made (pages/pdffigures.py).
MIN_PROSE = 2
MIN_PIECE = 2.0  # line heights: a thinner piece of a cut box holds no picture


@dataclass(frozen=True, slots=True)
class FigureLines:
    """A figure box's lines sorted out: the figures left (each box with its own lines) and the
    lines that are the page's body text."""

    pieces: tuple[tuple[BBox, tuple[TextSpan, ...]], ...]
    body: tuple[TextSpan, ...] = ()


def split_figure(box: BBox, lines: list[TextSpan]) -> FigureLines:
    """The figure's own lines and its body lines; the box cut around the body lines."""
    body = body_lines(lines)
    if not body:
        return FigureLines(((box, tuple(lines)),))
    own = [line for line in lines if line not in body]
    pieces = cut_box(box, body)
    inside, stray = geo.assign_lines(own, pieces)
    kept = tuple((piece, tuple(held)) for piece, held in zip(pieces, inside, strict=True))
    return FigureLines(kept, tuple(body + stray))


def split_boxes(
    boxes: list[BBox], kinds: list[RegionKind], inside: list[list[TextSpan]]
) -> tuple[list[BBox], list[RegionKind], list[list[TextSpan]], list[TextSpan]]:
    """A page's layout boxes (with their kinds and lines) with each figure box split as
    `split_figure` does, its pieces in its place; and the body lines taken out of figures."""
    out: tuple[list, list, list] = ([], [], [])
    body: list[TextSpan] = []
    for box, kind, lines in zip(boxes, kinds, inside, strict=True):
        split = split_figure(box, lines) if kind is RegionKind.FIGURE else FigureLines(((box, tuple(lines)),))
        body += split.body
        for piece, held in split.pieces:
            for column, value in zip(out, (piece, kind, list(held)), strict=True):
                column.append(value)
    return *out, body


def body_lines(lines: list[TextSpan]) -> list[TextSpan]:
    """Lines of a figure's box that are the page's text: paragraphs of prose."""
    body = []
    for block in geo.group_lines(lines):
        if sum(geo.is_prose(line.text) for line in block) >= MIN_PROSE:
            body += block  # a paragraph: its short last line and its numbers go with it
    return body


def cut_box(box: BBox, body: list[TextSpan]) -> list[BBox]:
    """The parts of `box` clear of the body lines: bands across it or strips down it."""
    height = statistics.median(line.bbox[3] - line.bbox[1] for line in body)
    least = MIN_PIECE * height
    bands = _free(box[1], box[3], [(line.bbox[1], line.bbox[3]) for line in body])
    strips = _free(box[0], box[2], [(line.bbox[0], line.bbox[2]) for line in body])
    across = [(box[0], y0, box[2], y1) for y0, y1 in bands if y1 - y0 >= least]
    down = [(x0, box[1], x1, box[3]) for x0, x1 in strips if x1 - x0 >= least]
    return max(across, down, key=lambda parts: sum(geo.area(p) for p in parts))


def _free(lo: float, hi: float, taken: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The stretches of [lo, hi] outside every taken interval."""
    out, at = [], lo
    for a, b in sorted(taken):
        if a > at:
            out.append((at, min(a, hi)))
        at = max(at, b)
    if at < hi:
        out.append((at, hi))
    return [(a, b) for a, b in out if b > a]
