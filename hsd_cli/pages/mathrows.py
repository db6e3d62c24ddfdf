"""Rows of a page's glyph lines: the lines a reader reads as one, side by side.

MuPDF cuts a line of type where a formula shifts its baseline (a sum's limits, a fraction's
numerator and denominator, an inline script): those lines, level and touching, are one row,
and inline mathematics is rebuilt over the row (pages/pdfmath.py). Two columns' lines level
with each other are no row: a gutter, or type of another size after a gap, parts them.
"""

from __future__ import annotations

import heapq
import itertools

from hsd_cli.pages import geometry as geo
from hsd_cli.pages.formula import Glyph
from hsd_cli.pages.glyphs import clean

# Two lines this many ems apart, each at least GUTTER_LINE ems wide, stand in two columns: LaTeX's
# and CSS's column gaps are about 1 em, a formula split at a shifted baseline leaves ~0.3 em.
GUTTER_GAP, GUTTER_LINE = 0.5, 3.0
# Type whose size differs by this share, after a GUTTER_GAP, is another column's however narrow
# (a heading's number beside a line's last words): an inline script after its base has no gap.
OTHER_TYPE = 0.1
# Lines of a row are stacked (a formula's pieces) where they overlap side by side by more than
# OVERLAP points, STACK_WIDTH ems at most; their glyphs are a word apart after WORD_GAP ems.
OVERLAP, STACK_WIDTH, WORD_GAP = 0.5, 3.0, 0.15


def rows(lines: list[tuple[tuple, list[Glyph]]]) -> list[list[tuple[tuple, list[Glyph]]]]:
    """Lines grouped into visual rows: sharing most of their height and touching side by side."""
    rows: list[list[tuple[tuple, list[Glyph]]]] = []
    for line in sorted(lines, key=lambda x: x[0][0]):
        box, glyphs = line
        size = max(g.size for g in glyphs)
        same = (r for r in rows if _same_row(geo.union_box([b for b, _ in r]), box, size, _size(r[-1])))
        home = None if _sideways(line) else next((r for r in same if not _sideways(r[0])), None)
        if home is None:
            rows.append([line])
        else:
            home.append(line)
    return rows


def row_glyphs(row: list[tuple[tuple, list[Glyph]]], stacked: bool) -> list[tuple[int, Glyph]]:
    """A row's glyphs, each with its line's index: line after line, or where its lines are
    `stacked` (an inline fraction's numerator over its denominator, MuPDF's line of which goes on
    with the words after it), left to right, each line's in its own order."""
    lines = [[(k, g) for g in glyphs] for k, (_, glyphs) in enumerate(row)]
    if not stacked:
        return [kg for line in lines for kg in line]
    return list(heapq.merge(*lines, key=lambda kg: kg[1].bbox[0]))


def stacked(row: list[tuple[tuple, list[Glyph]]]) -> bool:
    """Lines of the row overlap side by side, each overlap a formula piece's width at most (two
    whole lines a row took together stay line after line)."""
    size = max(g.size for _, glyphs in row for g in glyphs)
    shared = [min(a[2], b[2]) - max(a[0], b[0]) for a, b in itertools.combinations([b for b, _ in row], 2)]
    return any(w > OVERLAP for w in shared) and all(w <= STACK_WIDTH * size for w in shared)


def glyph_text(merged: list[tuple[int, Glyph]]) -> str:
    """The text of a row's glyphs in order, a space where another line's glyph follows a gap."""
    out: list[str] = []
    for (k0, g0), (k, g) in itertools.pairwise([(None, None), *merged]):
        if k != k0 and k0 is not None and not (g.c.isspace() or g0.c.isspace()):
            out.append(" " if g.bbox[0] - g0.bbox[2] > WORD_GAP * g.size else "")
        out.append(g.c)
    return clean("".join(out))


def _sideways(line: tuple[tuple, list[Glyph]]) -> bool:
    """A line set up or down the page (a stamp along its edge): level with every line beside it,
    it is on no row of theirs."""
    box, glyphs = line
    return geo.sideways(box, len(glyphs)) and not any(g.big for g in glyphs)


def _same_row(a: tuple, b: tuple, size: float, before: float) -> bool:
    """`b` (type of `size`) goes on the row `a` ends in type of size `before`: level, near, and no
    gutter between, nor type of another size after a gap over half an em (the next column's
    heading number level with a line's last words: a narrow LaTeX gutter)."""
    shared = min(a[3], b[3]) - max(a[1], b[1])
    gap = b[0] - a[2]
    gutter = gap >= GUTTER_GAP * size and min(a[2] - a[0], b[2] - b[0]) >= GUTTER_LINE * size
    gutter = gutter or (gap > GUTTER_GAP * size and abs(size - before) > OTHER_TYPE * max(size, before))
    return shared >= 0.5 * min(a[3] - a[1], b[3] - b[1]) and gap < 1.0 * size and not gutter


def _size(line: tuple[tuple, list[Glyph]]) -> float:
    return max(g.size for g in line[1])
