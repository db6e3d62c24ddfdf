"""OCR lines that run across a column gutter, cut at it into two lines.

The text detector boxes words that share a baseline as one line when the gutter between two
columns is narrow (a degraded scan blurs it further): the line's text then joins the end of
a sentence of one column to the middle of one in the next, and no later step can put the
pieces back in their columns. A line crosses a gutter when, among the lines around it (NEAR
line heights above and below), hardly any cover some x well inside it (the gutter), it
starts where the lines left of that x start, and lines wholly on each side of that x stand
both above and below it. Lines at the top or bottom of a column (a full-width title,
caption or footnote, a question over a table, the last line of a column) are kept whole;
so is a line with a single line above it on a side (a running head's end). The text is cut
at the space nearest to where the gutter falls in proportion to the line's width (reading
the halves again reads a turned line worse), and each piece gets the box of its part of
the detector's quadrilateral.
"""

from __future__ import annotations

from dataclasses import replace
from statistics import median

import numpy as np

from hsd_cli.datatypes import BBox, TextSpan

Quad = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]

NEAR = 8  # line heights above and below that make a line's neighbourhood
REACH = 2.0  # line heights a line must reach past each side of the gutter
TRIM = 0.2  # line heights trimmed off each end of a line box before it covers an x
MIN_SIDE = 2  # lines of a column above and below a line that crosses its gutter
MAX_CROSSING = 1  # other lines around that may cross a gutter (merged like this one)
WIDE, MIN_WIDE = 5.0, 5  # lines this many heights wide, this many at least, give the page's slope
MIN_SLOPE = 0.01  # a slope under this (0.6 degrees: 5 px over 500) leaves the boxes as they are
CORE = 0.4  # a deskewed box keeps at least this share of its height


def split_crossing(lines: list[TextSpan], quads: list[Quad] | None = None) -> list[TextSpan]:
    """`lines` with every line crossing a gutter replaced by its two pieces. `quads`, the
    detector's corners of each line (top left, top right, bottom right, bottom left), place
    the pieces of a turned line at their own heights; without them each keeps the line's."""
    if len(lines) < 5:
        return lines
    height = median(s.bbox[3] - s.bbox[1] for s in lines)  # a turned line's box is taller
    out = []
    for k, line in enumerate(lines):
        cut = gutter_in(line, lines, height)
        out += [line] if cut is None else pieces(line, cut, quads[k] if quads else None)
    return out


def pieces(line: TextSpan, cut: float, quad: Quad | None) -> list[TextSpan]:
    """The line's text cut at the space nearest to where `cut` falls, in proportion to width."""
    x0, y0, x1, y1 = line.bbox
    at = len(line.text) * (cut - x0) / (x1 - x0)
    spaces = [k for k, c in enumerate(line.text) if c == " "]
    if not spaces:
        return [line]
    k = min(spaces, key=lambda k: abs(k - at))
    left, right = line.text[:k].strip(), line.text[k + 1 :].strip()
    boxes = ((x0, y0, cut, y1), (cut, y0, x1, y1)) if quad is None else _cut_quad(quad, cut)
    return [
        TextSpan(boxes[0], left, line.size, line.bold, line.score),
        TextSpan(boxes[1], right, line.size, line.bold, line.score),
    ]


def _cut_quad(quad: Quad, cut: float) -> tuple[BBox, BBox]:
    """The boxes of a quadrilateral's two parts left and right of x = `cut`."""
    left, right = split_quad(quad, cut)
    return quad_box(left), quad_box(right)


def split_quad(quad: Quad, cut: float) -> tuple[Quad, Quad]:
    """A quadrilateral's two parts left and right of x = `cut`, its top and bottom edges cut there."""
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = quad
    top = (cut, ay + (by - ay) * (cut - ax) / ((bx - ax) or 1.0))
    bottom = (cut, dy + (cy - dy) * (cut - dx) / ((cx - dx) or 1.0))
    return ((ax, ay), top, bottom, (dx, dy)), (top, (bx, by), (cx, cy), bottom)


def quad_box(points) -> BBox:
    """The axis-aligned box of a detector's corner points."""
    xs, ys = [float(p[0]) for p in points], [float(p[1]) for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def gutter_in(line: TextSpan, lines: list[TextSpan], height: float) -> float | None:
    """The x of the gutter `line` runs across, or None (`height`: the page's usual line height)."""
    x0, y0, x1, y1 = line.bbox
    if x1 - x0 < 4 * REACH * height:
        return None  # too short to reach into two columns
    near = [s for s in lines if s is not line and abs(s.bbox[1] - y0) < NEAR * height]
    lo, hi = int(x0 + REACH * height), int(x1 - REACH * height)
    if len(near) < 4 or hi <= lo:
        return None
    # How many of the lines around cover each x inside the line (their ends trimmed a little:
    # the boxes of a slightly turned scan overlap the gutter by a pixel or two).
    cover = np.zeros(hi - lo, dtype=np.int32)
    for s in near:
        a, b = int(s.bbox[0] + TRIM * height) - lo, int(s.bbox[2] - TRIM * height) - lo
        cover[max(a, 0) : max(b, 0)] += 1
    x = int(np.argmin(cover))
    if cover[x] > MAX_CROSSING:
        return None
    run = cover[x:] != cover[x]  # the gutter: the middle of the least covered run
    gutter = lo + x + (int(np.argmax(run)) if run.any() else len(run)) / 2
    left = [s for s in near if s.bbox[2] - TRIM * height <= gutter]
    right = [s for s in near if s.bbox[0] + TRIM * height >= gutter]
    # The line starts where the left column's lines start (a centred title does not), and one
    # column goes on above and below it, the other above or below (the left column may start
    # lower, under a section heading): a title over columns, a footnote under them or a
    # question over a table have neither column on one side.
    if not left or not right or x0 > min(s.bbox[0] for s in left) + REACH * height:
        return None
    (left_above, left_below), (right_above, right_below) = _around(line, left), _around(line, right)
    goes_on = (left_above and left_below and (right_above or right_below)) or (
        right_above and right_below and (left_above or left_below)
    )
    return float(gutter) if goes_on else None


def _around(line: TextSpan, column: list[TextSpan]) -> tuple[bool, bool]:
    """Whether lines of `column` stand above and below `line`'s middle."""
    middle = (line.bbox[1] + line.bbox[3]) / 2
    above = sum(s.bbox[3] <= middle for s in column)
    below = sum(s.bbox[1] >= middle for s in column)
    return above >= MIN_SIDE, below >= MIN_SIDE


def deskewed(lines: list[TextSpan], turn: float) -> list[TextSpan]:
    """Line boxes cut down to the text's own height on a turned page.

    The box upright around a line turned by a slope s is taller than the line by s times its
    width: on a page scanned 1.5 degrees off, the boxes of a column's lines 500 px wide overlap
    the next line's by half, rows chain together and the lines of a paragraph are read out of
    order. Each box keeps its centre and width and gets the height its width does not explain.
    `turn` is the page's slope (page_turn).
    """
    slope = abs(turn)
    if not slope:
        return lines
    out = []
    for line in lines:
        x0, y0, x1, y1 = line.bbox
        height = max(y1 - y0 - slope * (x1 - x0), CORE * (y1 - y0))
        mid = (y0 + y1) / 2
        out.append(replace(line, bbox=(x0, mid - height / 2, x1, mid + height / 2)))
    return out


def page_turn(quads: list[Quad]) -> float:
    """The page's slope (rise over run, y down) from the detector's corners: the median over the
    wide lines; 0.0 under MIN_SLOPE or with too few wide lines to tell a turned page from
    handwriting's own slants."""
    slopes = [(q[1][1] - q[0][1]) / (q[1][0] - q[0][0]) for q in quads if q[1][0] - q[0][0] > WIDE * _height(q)]
    if len(slopes) < MIN_WIDE:
        return 0.0
    turn = float(median(slopes))
    return turn if abs(turn) >= MIN_SLOPE else 0.0


def levelled(lines: list[TextSpan], turn: float, middle: float) -> list[TextSpan]:
    """Line boxes moved to the height their centre would have on the page turned upright about
    the vertical at x = `middle`.

    On a turned page the short last line of a paragraph (a list item's "94.") stands at the
    column's edge, where its line starts; the long line under it has its centre halfway across,
    higher or lower by the slope times half its width: deskewed boxes then stand level and the
    two lines are read interleaved. Used on lines already assigned to layout boxes and grouped
    into blocks: those boxes stand upright around turned text, and moved lines fell out of them
    (or blocks merged: a paragraph then came out a line at a time)."""
    if not turn:
        return lines
    out = []
    for line in lines:
        x0, y0, x1, y1 = line.bbox
        shift = -turn * ((x0 + x1) / 2 - middle)
        out.append(replace(line, bbox=(x0, y0 + shift, x1, y1 + shift)))
    return out


def _height(quad: Quad) -> float:
    return abs(quad[3][1] - quad[0][1])
