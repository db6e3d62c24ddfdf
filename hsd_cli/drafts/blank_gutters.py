"""OCR lines merged across a column gutter, cut where the page image shows the gutter blank.

ocr_columns.split_crossing cuts a merged line where the lines around it leave a gutter; when
most lines of a narrow gutter are merged (a degraded two-column scan), no neighbour shows it.
The page still does: inside each merged line the gutter is a run of blank columns wider than
a word space, at the same x in the merged lines near it. A run at least GUTTER line heights
and SPACES times the line's median blank run wide, REACH line heights in from both ends, that
overlaps such runs of PARTNERS other lines within NEAR line heights above or below is a
gutter, and the line is cut at its middle. Only lines across most of the text's width are
looked at: the wide spaces of a column's justified lines can fall level by chance.
"""

from __future__ import annotations

from statistics import median

import numpy as np

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.ocr_columns import Quad, pieces, split_quad
from hsd_cli.drafts.word_gaps import blank_runs, ink_mask

GUTTER = 0.45  # line heights of blank columns inside a merged line at its gutter (its OCR box's height),
SPACES = 1.6  # and this many times the line's median blank run (a word space; a justified line's varies)
REACH = 3.0  # line heights the run stands in from each end of the line
WIDE = 12.0  # line heights wide: a line that may hold two columns' text,
ACROSS = 0.6  # and this share of the text's width on the page (one column's lines are narrower)
PARTNERS = 2  # other merged lines blank at the same x
NEAR = 8.0  # line heights above and below where those lines stand
EDGE = 0.2  # line heights trimmed off the top and bottom of a line before reading its ink


def split_at_blank_gutters(
    lines: list[TextSpan], quads: list[Quad], image: np.ndarray
) -> tuple[list[TextSpan], list[Quad]]:
    """`lines` (and their detector `quads`) with each line that runs across a blank gutter
    replaced by its two pieces."""
    if len(lines) < PARTNERS + 1:
        return lines, quads
    height = median(s.bbox[3] - s.bbox[1] for s in lines)
    width = max(s.bbox[2] for s in lines) - min(s.bbox[0] for s in lines)  # the text's, page-wide
    wide = max(WIDE * height, ACROSS * width)
    runs = {k: _blank_runs(image, s, height) for k, s in enumerate(lines) if s.bbox[2] - s.bbox[0] >= wide}
    out, corners = [], []
    for k, (line, quad) in enumerate(zip(lines, quads, strict=True)):
        cut = _gutter(k, line, runs, lines, height)
        parts = [line] if cut is None else pieces(line, cut, quad)
        out += parts
        corners += list(split_quad(quad, cut)) if len(parts) == 2 else [quad]
    return out, corners


def _gutter(k: int, line: TextSpan, runs: dict, lines: list[TextSpan], height: float) -> float | None:
    """The middle of the line's blank run that most other merged lines near it share, or None."""
    best, most = None, PARTNERS - 1
    for a, b in runs.get(k, []):
        partners = sum(
            any(c < b and d > a for c, d in theirs)
            for j, theirs in runs.items()
            if j != k and abs(lines[j].bbox[1] - line.bbox[1]) <= NEAR * height
        )
        if partners > most:
            best, most = (a + b) / 2, partners
    return best


def _blank_runs(image: np.ndarray, line: TextSpan, height: float) -> list[tuple[float, float]]:
    """Runs of ink-free columns inside the line's box, at least GUTTER heights wide and REACH
    heights in from its ends, in page x."""
    x0, y0, x1, y1 = (int(v) for v in line.bbox)
    trim = int(EDGE * (y1 - y0))
    crop = image[max(y0 + trim, 0) : max(y1 - trim, 0), max(x0, 0) : max(x1, 0)]
    if crop.size == 0:
        return []
    runs = blank_runs(ink_mask(np.ascontiguousarray(crop)))
    if not runs:
        return []
    least = max(GUTTER * height, SPACES * float(median(b - a for a, b in runs)))
    lo, hi = REACH * height, (x1 - x0) - REACH * height
    return [(x0 + float(a), x0 + float(b)) for a, b in runs if b - a >= least and a >= lo and b <= hi]
