"""Built-up fractions in OCR lines: a number set over another, centred on it, as `$\\frac{a}{b}$`.

OCR reads a fraction set with a bar as two lines, the numerator above the denominator, and
the draft wrote them as two numbers in two paragraphs; textbooks and tests set answer options
and worked examples this way. Their boxes overlap (OCR pads each line, and the bar leaves less
space between them than between two lines of text); two rows of a table of figures do not,
unless the table is set tight on a coarse scan, its padded boxes overlapping too. Where the
page image is at hand the bar decides (`has_bar`): a thin stroke of its own between the two,
about as long as the wider is wide, which no two figures of a table's column have.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.word_gaps import ink_mask
from hsd_cli.pages import geometry as geo

_TERM = re.compile(r"^\d{1,4}$")
_INLINE = re.compile(r"\$(\\frac\{\d{1,4}\}\{\d{1,4}\})\$")  # what `_fraction` writes
OVERLAP = 0.1  # the boxes share at least this much of the shorter one's height
CENTRED = 0.25  # their centres stand at most this much of the wider one's width apart
BAR = 0.8  # a fraction's bar: a stroke at least this share of the wider term's ink long,
THIN = 0.3  # and at most this share of a term's box high


def stacked_fractions(lines: list[TextSpan], image: np.ndarray | None = None) -> list[TextSpan]:
    """`lines` with each numerator-over-denominator pair as one line holding the fraction; with
    the page `image`, only pairs with a bar between them."""
    terms = sorted((i for i, s in enumerate(lines) if _TERM.match(s.text)), key=lambda i: lines[i].bbox[1])
    over: dict[int, int] = {}  # numerator -> denominator, paired from the top of the page down
    taken: set[int] = set()
    for k, i in enumerate(terms):
        if i in taken:
            continue
        below = next((j for j in terms[k + 1 :] if j not in taken and _stacked(lines[i], lines[j], image)), None)
        if below is not None:
            over[i] = below
            taken |= {i, below}
    denominators = set(over.values())
    return [_fraction(s, lines[over[i]]) if i in over else s for i, s in enumerate(lines) if i not in denominators]


def _stacked(top: TextSpan, bottom: TextSpan, image: np.ndarray | None) -> bool:
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = top.bbox, bottom.bbox
    shared = ay1 - by0
    height = min(ay1 - ay0, by1 - by0)
    apart = abs((ax0 + ax1) - (bx0 + bx1)) / 2
    below = by0 > ay0 and by1 > ay1
    placed = OVERLAP * height <= shared < 0.5 * height and apart <= CENTRED * max(ax1 - ax0, bx1 - bx0)
    return below and placed and (image is None or has_bar(image, top.bbox, bottom.bbox))


def has_bar(image: np.ndarray, top: tuple[float, ...], bottom: tuple[float, ...]) -> bool:
    """A bar between the two terms: a stroke of ink of its own (touching no other ink), at most
    THIN of a term's box high, at least BAR times as long as the wider term's ink is wide (each
    measured in the rows the other's box does not reach), lying between the centres of the
    boxes and ending within the terms' width either side. A table's rules run on past the
    figures and join the rules across them."""
    import cv2

    x0, x1 = int(min(top[0], bottom[0])), int(np.ceil(max(top[2], bottom[2])))
    reach = x1 - x0
    left, y0, y1 = max(x0 - reach, 0), max(int(top[1]), 0), int(np.ceil(bottom[3]))
    ink = ink_mask(np.ascontiguousarray(image[y0:y1, left : x1 + reach]))
    rows = lambda a, b: ink[max(int(a) - y0, 0) : max(int(b) - y0, 0), x0 - left : x1 - left]  # noqa: E731
    wide = max(_ink_width(rows(top[1], bottom[1])), _ink_width(rows(top[3], bottom[3])))
    lo, hi = (top[1] + top[3]) / 2 - y0, (bottom[1] + bottom[3]) / 2 - y0
    thin = THIN * min(top[3] - top[1], bottom[3] - bottom[1])
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    return wide > 0 and any(
        x > 0 and x + w < ink.shape[1] and lo <= y and y + h <= hi and h <= thin and w >= BAR * wide
        for x, y, w, h, _ in stats[1:]
    )


def _ink_width(ink: np.ndarray) -> int:
    """Columns from the first to the last holding ink."""
    inked = np.flatnonzero(ink.any(axis=0)) if ink.size else np.array([], int)
    return int(inked[-1] - inked[0] + 1) if len(inked) else 0


def _fraction(top: TextSpan, bottom: TextSpan) -> TextSpan:
    text = f"$\\frac{{{top.text}}}{{{bottom.text}}}$"
    return replace(top, bbox=geo.union_box([top.bbox, bottom.bbox]), text=text, score=min(top.score, bottom.score))


def in_display(text: str) -> str:
    """`text` with its fractions unwrapped, for a display formula (no `$` inside `\\[..\\]`)."""
    return _INLINE.sub(r"\1", text)
