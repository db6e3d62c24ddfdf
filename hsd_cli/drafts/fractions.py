"""Built-up fractions in OCR lines: a number set over another, centred on it, as `$\\frac{a}{b}$`.

OCR reads a fraction set with a bar as two lines, the numerator above the denominator, and
the draft wrote them as two numbers in two paragraphs; textbooks and tests set answer options
and worked examples this way. Their boxes overlap (OCR pads each line, and the bar leaves less
space between them than between two lines of text); two rows of a table of figures do not.
"""

from __future__ import annotations

import re
from dataclasses import replace

from hsd_cli.datatypes import TextSpan
from hsd_cli.pages import geometry as geo

_TERM = re.compile(r"^\d{1,4}$")
_INLINE = re.compile(r"\$(\\frac\{\d{1,4}\}\{\d{1,4}\})\$")  # what `_fraction` writes
OVERLAP = 0.1  # the boxes share at least this much of the shorter one's height
CENTRED = 0.25  # their centres stand at most this much of the wider one's width apart


def stacked_fractions(lines: list[TextSpan]) -> list[TextSpan]:
    """`lines` with each numerator-over-denominator pair as one line holding the fraction."""
    terms = sorted((i for i, s in enumerate(lines) if _TERM.match(s.text)), key=lambda i: lines[i].bbox[1])
    over: dict[int, int] = {}  # numerator -> denominator, paired from the top of the page down
    taken: set[int] = set()
    for k, i in enumerate(terms):
        if i in taken:
            continue
        below = next((j for j in terms[k + 1 :] if j not in taken and _stacked(lines[i], lines[j])), None)
        if below is not None:
            over[i] = below
            taken |= {i, below}
    denominators = set(over.values())
    return [_fraction(s, lines[over[i]]) if i in over else s for i, s in enumerate(lines) if i not in denominators]


def _stacked(top: TextSpan, bottom: TextSpan) -> bool:
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = top.bbox, bottom.bbox
    shared = ay1 - by0
    height = min(ay1 - ay0, by1 - by0)
    apart = abs((ax0 + ax1) - (bx0 + bx1)) / 2
    below = by0 > ay0 and by1 > ay1
    return below and OVERLAP * height <= shared < 0.5 * height and apart <= CENTRED * max(ax1 - ax0, bx1 - bx0)


def _fraction(top: TextSpan, bottom: TextSpan) -> TextSpan:
    text = f"$\\frac{{{top.text}}}{{{bottom.text}}}$"
    return replace(top, bbox=geo.union_box([top.bbox, bottom.bbox]), text=text, score=min(top.score, bottom.score))


def in_display(text: str) -> str:
    """`text` with its fractions unwrapped, for a display formula (no `$` inside `\\[..\\]`)."""
    return _INLINE.sub(r"\1", text)
