"""Line numbers printed in a margin (LaTeX's lineno: review manuscripts, preprints, drafts).

Each number is a span of its own beside a line of text, and the drafts joined it into the
line's paragraph ("27 that the survey ... 28 such random ..."), breaking the sentences it sits
between. A column of them is told apart from a table's row numbers or numbered headings by
counting: two numbers of a margin column differ by the number of text rows between them (every
line numbered, or every fifth), and the column stands wholly outside the text beside it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from hsd_cli.datatypes import BBox, TextSpan
from hsd_cli.pages import geometry as geo

_NUMBER = re.compile(r"\d{1,4}")
_PREFIX = re.compile(r"\d{1,4}\s+(?=\S)")
MIN_NUMBERS = 4  # fewer are no column: a few folios or numbered headings
EDGE_TOLERANCE = 0.6  # of a number's height: its column's shared (right or left) edge
PASSING = 0.75  # share of neighbouring numbers whose difference counts the rows between
CROSSING = 0.25  # text lines running through a margin column, per number: a title's, a figure's


@dataclass(frozen=True)
class Stripped:
    """The page's lines without their margin numbers, and where the numbers stood."""

    lines: list[TextSpan]
    numbers: list[BBox]
    pitch: float = 0.0  # px from one numbered line's top to the next's; 0: no numbers


def strip(lines: Sequence[TextSpan], keep_out: Sequence[BBox] = ()) -> Stripped:
    """`lines` less the margin line numbers; a number inside a `keep_out` box (a table's) stays.

    A line that begins with its number (OCR reads the number and the line as one; a text line
    rebuilt with its inline math, pages/pdfmath.py, takes it in) is split in two first, each
    part's width estimated from its share of the characters; it stays whole unless its number
    is one of a column's."""
    parts = {id(s): _split(s) for s in lines if not _inside(s.bbox, keep_out)}
    pieces = [p for s in lines for p in (parts.get(id(s)) or (s,))]
    numbers = [p for p in pieces if _NUMBER.fullmatch(p.text.strip()) and not _inside(p.bbox, keep_out)]
    if len(numbers) < MIN_NUMBERS:
        return Stripped(list(lines), [])
    text = [p for p in pieces if p not in numbers]
    dropped: list[TextSpan] = []
    steps: list[float] = []
    for side in (0, 1):  # numbers right-aligned left of the text, or left-aligned right of it
        for column in _columns(numbers, side):
            if _is_line_numbering(column, text, side):
                dropped += column
                steps += _steps(column)
    if not dropped:
        return Stripped(list(lines), [])
    size = geo.body_size(text)
    kept = [_rest(s, parts.get(id(s)), dropped, size) for s in lines if s not in dropped]
    pitch = sorted(steps)[len(steps) // 2] if steps else 0.0
    return Stripped([s for s in kept if s], [s.bbox for s in dropped], pitch)


def _split(line: TextSpan) -> tuple[TextSpan, TextSpan] | None:
    """A line opening with a number as the number and the rest."""
    cut = _PREFIX.match(line.text)
    if not cut:
        return None
    x0, y0, x1, y1 = line.bbox
    per_char = (x1 - x0) / max(len(line.text), 1)
    digits = len(cut.group().rstrip())
    number = replace(line, text=line.text[:digits], bbox=(x0, y0, x0 + per_char * digits, y1))
    return number, replace(line, text=line.text[cut.end() :], bbox=(x0 + per_char * cut.end(), y0, x1, y1))


def _rest(line: TextSpan, parts: tuple[TextSpan, TextSpan] | None, dropped: list[TextSpan], size: float) -> TextSpan:
    """The line, or its text without its number where the number was a line number (in the
    text's type size: a line rebuilt with its math took the number's)."""
    return replace(parts[1], size=size or parts[1].size) if parts and parts[0] in dropped else line


def _steps(column: list[TextSpan]) -> list[float]:
    """Px per numbered line between neighbouring numbers of a column."""
    pairs = zip(column, column[1:], strict=False)
    return [(b.bbox[1] - a.bbox[1]) / (int(b.text) - int(a.text)) for a, b in pairs if int(b.text) > int(a.text)]


def _inside(box: BBox, boxes: Sequence[BBox]) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in boxes)


def _columns(numbers: list[TextSpan], side: int) -> list[list[TextSpan]]:
    """Numbers sharing their inner edge (x1 for side 0, x0 for side 1), top to bottom."""
    edge = 2 if side == 0 else 0
    columns: list[list[TextSpan]] = []
    for span in sorted(numbers, key=lambda s: s.bbox[edge]):
        height = span.bbox[3] - span.bbox[1]
        if columns and abs(columns[-1][-1].bbox[edge] - span.bbox[edge]) <= EDGE_TOLERANCE * height:
            columns[-1].append(span)
        else:
            columns.append([span])
    return [sorted(c, key=lambda s: s.bbox[1]) for c in columns if len(c) >= MIN_NUMBERS]


def _is_line_numbering(column: list[TextSpan], text: list[TextSpan], side: int) -> bool:
    """Mostly text beside the numbers, and each step counts the text rows it spans."""
    beside = sum(_beside(s, text, side) for s in column)
    values = [int(s.text) for s in column]
    if beside < PASSING * len(column):
        return False
    if any(vb < va and vb == 1 for va, vb in zip(values, values[1:], strict=False)):
        return False  # numbering that starts again at 1: a list's (exercises), never a margin's
    top, bottom = column[0].bbox[1], column[-1].bbox[3]
    crossing = [s for s in text if top <= _mid(s) <= bottom and _crosses(s, column)]
    if len(crossing) > CROSSING * len(column):
        return False  # text runs through the column: numbers inside the text (a list's, a table's)
    edge = min(s.bbox[2] for s in column) if side == 0 else max(s.bbox[0] for s in column)
    rows = _row_centres([s for s in text if (s.bbox[0] >= edge if side == 0 else s.bbox[2] <= edge)])
    good = 0
    for a, b, va, vb in zip(column, column[1:], values, values[1:], strict=False):
        between = sum(1 for y in rows if _mid(a) < y <= _mid(b) + 0.5 * (b.bbox[3] - b.bbox[1]))
        good += vb > va and abs(between - (vb - va)) <= max(1, 0.25 * (vb - va))
    return good >= PASSING * (len(column) - 1)


def _crosses(line: TextSpan, column: list[TextSpan]) -> bool:
    """`line` overlaps the column's number nearest its height (a turned page's column slants)."""
    near = min(column, key=lambda n: abs(_mid(n) - _mid(line)))
    return line.bbox[0] < near.bbox[2] and line.bbox[2] > near.bbox[0]


def _beside(number: TextSpan, text: list[TextSpan], side: int) -> bool:
    """Text on the number's row on the text side, none of it overlapping the number."""
    row = [s for s in text if s.bbox[1] < _mid(number) < s.bbox[3]]
    if any(s.bbox[0] < number.bbox[2] and s.bbox[2] > number.bbox[0] for s in row):
        return False
    if side == 0:
        return any(s.bbox[0] >= number.bbox[2] for s in row)
    return any(s.bbox[2] <= number.bbox[0] for s in row)


def _mid(span: TextSpan) -> float:
    return (span.bbox[1] + span.bbox[3]) / 2


def _row_centres(text: list[TextSpan]) -> list[float]:
    """One centre per row of text (spans on one baseline, a justified line's pieces, are one)."""
    centres: list[float] = []
    for span in sorted(text, key=_mid):
        if not centres or _mid(span) - centres[-1] > 0.5 * (span.bbox[3] - span.bbox[1]):
            centres.append(_mid(span))
    return centres
