"""Display formulas the layout model missed, found from the glyphs: inline versus display by the line.

A row of the page (its text lines side by side) is a formula row when every word on it is
mathematics (pages/inline_math.py's test: a math glyph, a raised or lowered smaller glyph, an
italic letter, an operator name) and no word is text; a display formula is such a row with the
rows stacked on it without a gap (a fraction's numerator and denominator, a big operator's
limits: MuPDF reads them as lines of their own) that stands apart: no text line of a paragraph
runs right above or below it. A formula inside a line of prose stays inline (`$..$` in the line).
"""

from __future__ import annotations

from collections import Counter

from hsd_cli.datatypes import BBox
from hsd_cli.pages import geometry as geo
from hsd_cli.pages import inline_math
from hsd_cli.pages.formula import is_tag
from hsd_cli.pages.mathglyph import Glyph, tall

JOIN_GAP = 0.25  # ems between the line boxes of one formula's stacked parts (MuPDF's boxes touch)
SIDE_GAP = 1.0  # ems between two parts of one formula side by side (MuPDF split it at a shifted baseline)
APART = 0.15  # ems at least between a display and a line of text above or below it (tight leading)
WIDE_SPACE = 2.0  # ems at most between two parts of one formula level in a column (`\qquad`)
INSET = 2.0  # ems a centred display stands in from a line of text it nearly touches, on each side
COLUMN_LINE = 3.0  # ems at most from a formula to the text line whose width says its column
Row = tuple[BBox, list[Glyph]]
_PARTS = ("formula", "part", "blank")


def display_boxes(rows: list[Row], taken: list[BBox], apart: float = APART) -> list[BBox]:
    """Boxes (PDF points) of display formulas among `rows`, none overlapping a box of `taken`,
    each `apart` ems or more from the text lines above and below it."""
    kinds = [inline_math.row_kind(glyphs) for _, glyphs in rows]
    groups: list[set[int]] = []
    for i in sorted(range(len(rows)), key=lambda i: rows[i][0][1]):
        if kinds[i] != "formula" or any(i in g for g in groups):
            continue
        # A numerator seeded alone (the bar's gap cuts it from its denominator) is taken again
        # by the row beside the fraction: the two groups are one formula.
        members = _grown(i, rows, kinds)
        groups = [g for g in groups if not g & members] + [members.union(*(g for g in groups if g & members))]
    text = [_text_box(rows[j]) for j in range(len(rows)) if kinds[j] not in _PARTS]
    out = []
    for members in _side_by_side(groups, rows, text):
        box = geo.union_box([rows[j][0] for j in members])
        size = max(g.size for j in members for g in rows[j][1])
        if _apart(box, size * apart, text, size) and not any(geo.intersection(box, t) > 0 for t in taken):
            out.append(_numbered(box, size, rows, text))
    return out


def _text_box(row: Row) -> BBox:
    """A text row's box by its text's glyphs, the most of them: an inline formula's glyphs set
    in it (a math font's boxes are tall, KaTeX's above all) would reach up to a display
    standing just above."""
    marks = [g.bbox for g in row[1] if g.c.strip()]
    if not marks:
        return row[0]
    top = Counter(round(b[1], 1) for b in marks).most_common(1)[0][0]
    foot = Counter(round(b[3], 1) for b in marks).most_common(1)[0][0]
    return row[0][0], top, row[0][2], foot


def _numbered(box: BBox, size: float, rows: list[Row], text: list[BBox]) -> BBox:
    """The display's box with its equation number, `(3.1)` level with it at its column's right
    edge (a text line near them spans both), taken in: its LaTeX ends in `\\tag{3.1}`."""
    tags = [b for b, glyphs in rows if b[0] > box[2] and is_tag(glyphs) and _one_line(box, b, size, text, wide=False)]
    return geo.union_box([box, min(tags, key=lambda b: b[0])]) if tags else box


def _side_by_side(groups: list[set[int]], rows: list[Row], text: list[BBox]) -> list[set[int]]:
    """Groups level with each other, a wide space apart (`\\pmod`'s em, a `\\quad`) in one
    column (a text line near them spans both), or one closing a tall bracket the other opens (a
    matrix's columns), joined: one formula, not two displays."""
    out: list[set[int]] = []
    for members in sorted(groups, key=lambda m: geo.union_box([rows[j][0] for j in m])[0]):
        box = geo.union_box([rows[j][0] for j in members])
        size = max(g.size for j in members for g in rows[j][1])
        home = next((m for m in out if _joins(rows, m, members, box, size, text)), None)
        if home is None:
            out.append(set(members))
        else:
            home |= members
    return out


def _joins(rows: list[Row], left: set[int], right: set[int], box: BBox, size: float, text: list[BBox]) -> bool:
    """Whether group `right` (its box) is on the line of group `left`: in one column, or closing a
    tall bracket `left` opens."""
    return _one_line(geo.union_box([rows[j][0] for j in left]), box, size, text, closes=_closes(rows, left, right))


def _one_line(a: BBox, b: BBox, size: float, text: list[BBox], wide: bool = True, closes: bool = False) -> bool:
    """`b` level with `a` and right of it, both in one column; `wide`: at most a wide space apart;
    `closes`: `b` closes a tall bracket `a` opens (a matrix split at its columns' gap), which
    needs no text line to say they share a column."""
    level = min(a[3], b[3]) - max(a[1], b[1]) > 0.5 * min(a[3] - a[1], b[3] - b[1])
    if not level or (wide and b[0] - a[2] > WIDE_SPACE * size):
        return False
    if closes:
        return True
    top, foot, left, right = min(a[1], b[1]), max(a[3], b[3]), min(a[0], b[0]), max(a[2], b[2])
    near = [t for t in text if max(top - t[3], t[1] - foot) < COLUMN_LINE * size]
    return any(t[0] <= left + 1 and t[2] >= right - 1 for t in near)


def _closes(rows: list[Row], left: set[int], right: set[int]) -> bool:
    """Whether `left` leaves a tall bracket open that a tall bracket of `right` closes."""
    opened = sum(_tall_brackets(rows, left, "([{⟨|‖")) - sum(_tall_brackets(rows, left, ")]}⟩|‖"))
    return opened > 0 and any(_tall_brackets(rows, right, ")]}⟩|‖"))


def _tall_brackets(rows: list[Row], members: set[int], kinds: str) -> list[bool]:
    return [g.c in kinds and tall(g) for j in members for g in rows[j][1]]


def _grown(seed: int, rows: list[Row], kinds: list[str]) -> set[int]:
    """The seed row and the formula rows and parts stacked on it, transitively."""
    members = {seed}
    changed = True
    while changed:
        box = geo.union_box([rows[j][0] for j in members])
        size = max(g.size for j in members for g in rows[j][1])
        more = {
            j for j in range(len(rows)) if j not in members and kinds[j] in _PARTS and _stacked(box, rows[j][0], size)
        }
        members |= more
        changed = bool(more)
    return members


def _stacked(a: BBox, b: BBox, size: float) -> bool:
    """One above the other without a gap, or side by side at one height (a fraction beside `=`)."""
    shared_x = min(a[2], b[2]) - max(a[0], b[0])
    shared_y = min(a[3], b[3]) - max(a[1], b[1])
    gap_y = max(a[1] - b[3], b[1] - a[3])
    gap_x = max(a[0] - b[2], b[0] - a[2])
    return (shared_x > 0 and gap_y <= JOIN_GAP * size) or (shared_y > 0 and gap_x <= SIDE_GAP * size)


def _apart(box: BBox, space: float, text: list[BBox], size: float) -> bool:
    """No text line right above or below the box, unless that line reaches INSET ems past it on
    both sides: a paragraph's lines stand flush with each other, a display set tightly under
    small type (its fraction's denominator down to the next line) stands centred between them."""
    for t in text:
        shared_x = min(box[2], t[2]) - max(box[0], t[0])
        gap = max(box[1] - t[3], t[1] - box[3])
        inset = min(box[0] - t[0], t[2] - box[2]) >= INSET * size
        if shared_x > 0 and gap < space and not (gap >= 0 and inset):
            return False
    return True
