"""Spanning cells of a table gridded from its lines: labels set over several rows or columns.

A grid built from text rows (drafts/tablegrid.cells_from_lines) sees one line per cell. Tables
group rows and columns under one label, and set that label centred on what it spans:
- a row label over a group of rows (LaTeX's multirow, HTML's rowspan) stands level with the
  middle of its group: with an even number of rows it is a text row of its own between two of
  them, with an odd number it shares the middle row. Either way the rows around it have no
  text in its column, as many above as below, and its centre is their centre;
- a group heading over sub-columns ("Summer" over "Std. dev." and "Precision") is centred over
  the gutter between them, nearer the group's centre than any one column's.
A group heading set flush with its group's first or last column (an HTML heading aligned left or
right) stands over that column alone; over a row of sub-headings each such heading spans to the
next group's column or from the previous one's.
A label set at the top of its group (no centring) shows it in the table's first body row
(nothing above it in its column, an empty run below): such a column keeps its labels in place.
A cell's text wrapped over lines (`join_wrapped`) is one line again before any of this.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from statistics import median

from hsd_cli.datatypes import TextSpan

# Lines of one cell stand at most this many line heights apart (rows of a LaTeX table as close).
WRAP_GAP = 0.35
# A label is centred on rows or columns when its centre is this many line heights from theirs.
CENTRED = 0.3
# In the heading, where a label of its own row has empty cells above and below: LaTeX's \multirow
# centres it on the rows' baselines, not their boxes, a third of a line high of their middle.
HEAD_CENTRED = 0.45
GROUP_CENTRED = 1.0


@dataclass(frozen=True, slots=True)
class Placed:
    """A line placed in the grid: its row, first column, columns spanned, rows spanned."""

    line: TextSpan
    row: int
    col: int
    col_span: int = 1
    row_span: int = 1

    @property
    def cols(self) -> range:
        return range(self.col, self.col + self.col_span)


def join_wrapped(lines: list[TextSpan]) -> list[TextSpan]:
    """Lines stacked close in one column that are one cell's wrapped text, joined into one line.

    Stacked lines are rows of the table when another column has a line level with each of them
    ("Early gradient" 0.602 / "Approximate condition" 269), and one cell when the other columns
    hold one line each beside the whole stack, centred on it (cells set middle, as in HTML).
    """
    out: list[TextSpan] = []
    for line in sorted(lines, key=lambda s: (s.bbox[1], s.bbox[0])):
        above = next((k for k in range(len(out) - 1, -1, -1) if _continues(out[k], line)), None)
        if above is not None and _one_cell(out[above], line, lines):
            a = out[above]
            box = (min(a.bbox[0], line.bbox[0]), a.bbox[1], max(a.bbox[2], line.bbox[2]), line.bbox[3])
            out[above] = replace(a, bbox=box, text=f"{a.text} {line.text}")
        else:
            out.append(line)
    return out


def _continues(upper: TextSpan, lower: TextSpan) -> bool:
    """`lower` starts under `upper`, at most a small gap below it."""
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = upper.bbox, lower.bbox
    height = min(ay1 - ay0, by1 - by0)
    return min(ax1, bx1) > max(ax0, bx0) and -0.5 * height < by0 - ay1 <= WRAP_GAP * height


def _one_cell(upper: TextSpan, lower: TextSpan, lines: list[TextSpan]) -> bool:
    """Lines beside the stack of `upper` and `lower`, one a column, some centred between the two.

    Figures level with the upper line could be a top-aligned cell's or a row's whose next row
    is empty there: that stays two rows, as does a stack with nothing beside it. (A label level
    with the lower line is one spanning this row and the next.)"""
    x0, x1 = min(upper.bbox[0], lower.bbox[0]), max(upper.bbox[2], lower.bbox[2])
    top, bottom = _mid(upper), _mid(lower)
    margin = (bottom - top) / 4
    beside = [s for s in lines if (s.bbox[2] <= x0 or s.bbox[0] >= x1) and upper.bbox[1] <= _mid(s) <= lower.bbox[3]]
    centred = any(top + margin < _mid(s) < bottom - margin for s in beside)
    level_above = any(_mid(s) <= top + margin for s in beside)
    return centred and not level_above and not any(_overlap_x(a, b) for a, b in _pairs(beside))


def _overlap_x(a: TextSpan, b: TextSpan) -> bool:
    return min(a.bbox[2], b.bbox[2]) > max(a.bbox[0], b.bbox[0])


def _mid(line: TextSpan) -> float:
    return (line.bbox[1] + line.bbox[3]) / 2


def _pairs(items: list) -> list[tuple]:
    return [(a, b) for i, a in enumerate(items) for b in items[i + 1 :]]


def headed_columns(columns: list[tuple[float, float]], heading: list[TextSpan]) -> list[tuple[float, float]]:
    """Columns widened to the lines of the heading row above the body (the columns' own
    headings) that overlap no other column: a group heading is centred over its columns'
    headings, which reach past the right-aligned figures below them."""
    out = list(columns)
    for line in heading:
        over = [k for k, (c0, c1) in enumerate(columns) if line.bbox[0] < c1 and line.bbox[2] > c0]
        if len(over) == 1:
            k = over[0]
            out[k] = (min(out[k][0], line.bbox[0]), max(out[k][1], line.bbox[2]))
    return out


def group_columns(line: TextSpan, columns: list[tuple[float, float]], free: list[int]) -> list[int] | None:
    """Adjacent free columns a heading line is centred over, when nearer their centre than any one's."""
    x0, x1 = line.bbox[0], line.bbox[2]
    middle, em = (x0 + x1) / 2, line.bbox[3] - line.bbox[1]
    single = min(abs((columns[k][0] + columns[k][1]) / 2 - middle) for k in free)
    best, best_d = None, min(single, GROUP_CENTRED * em)
    for i in free:
        for j in free:
            if j <= i or any(k not in free for k in range(i, j + 1)):
                continue
            lo, hi = columns[i][0], columns[j][1]
            d = abs((lo + hi) / 2 - middle)
            # It reaches over the group's inner gutters, not beyond its end columns: the whole
            # table's centre can lie near a heading's too.
            inner = x0 < columns[i + 1][0] and x1 > columns[j - 1][1]
            if inner and x0 >= lo - em and x1 <= hi + em and d < best_d:
                best, best_d = list(range(i, j + 1)), d
    return best


def spanned(placed: list[Placed], body_start: int) -> list[Placed]:
    """Labels over rows (`span_rows`), then group headings set flush over their columns."""
    first_body = next((p.line for p in placed if p.row == body_start), None)
    out = span_rows(placed, body_start)
    body_start = next((p.row for p in out if p.line is first_body), body_start)  # label rows that moved went
    return aligned_groups(out, body_start)


def span_rows(placed: list[Placed], body_start: int) -> list[Placed]:
    """Labels centred on an empty run of rows in their columns get those rows; rows left empty go."""
    n_rows = max((p.row for p in placed), default=-1) + 1
    filled = {(p.row, k) for p in placed for k in p.cols}
    tops = {p.row: p.line.bbox[1] for p in sorted(placed, key=lambda p: -p.line.bbox[1])}
    bottoms = {p.row: p.line.bbox[3] for p in sorted(placed, key=lambda p: p.line.bbox[3])}
    em = median(p.line.bbox[3] - p.line.bbox[1] for p in placed) if placed else 0.0
    top_aligned = _top_aligned_columns(placed, filled, body_start, n_rows)
    out, moved = [], set()
    for p in sorted(placed, key=lambda p: (p.row, p.col)):
        lo, hi = (body_start, n_rows) if p.row >= body_start else (0, body_start)
        up, down = _run(filled, p, -1, lo, hi), _run(filled, p, +1, lo, hi)
        lone = _lone(placed, filled, p.row)
        if not lone and any(k in top_aligned for k in p.cols):
            out.append(p)
            continue
        centred = HEAD_CENTRED if lone and p.row < body_start else CENTRED
        span = _centred_span(p, up, down, lone, tops, bottoms, centred * em)
        if span:
            a, b = span
            filled |= {(r, c) for r in range(a, b + 1) for c in p.cols}
            if lone:
                moved.add(p.row)
            p = replace(p, row=a, row_span=b - a + 1 - lone)
        out.append(p)
    gone = {r for r in moved if all(p.row != r for p in out)}
    return _renumber(out, gone)


def aligned_groups(placed: list[Placed], body_start: int) -> list[Placed]:
    """Group headings set flush with one side of their group (HTML headings aligned left or right)
    in a heading row above another: flush left, each spans from its column to the next group's;
    flush right, from the previous group's to its own. Centred ones already span (`group_columns`)."""
    out = list(placed)
    for r in range(body_start - 1):
        subs = sorted(k for p in out if p.row == r + 1 for k in p.cols)
        groups = sorted((p for p in out if p.row == r and p.row_span == 1), key=lambda p: p.col)
        cols = [p.col for p in groups]
        if not subs or not groups or any(p.col_span > 1 for p in groups) or not subs[0] <= cols[0]:
            continue
        lo, hi = subs[0], subs[-1]
        left, right = cols[0] == lo, cols[-1] == hi
        if left == right or cols[-1] > hi:
            continue  # centred, ambiguous, or not over the sub-columns
        starts = cols if left else [lo] + [c + 1 for c in cols[:-1]]
        ends = [c - 1 for c in cols[1:]] + [hi] if left else cols
        spans = {id(p): (a, b - a + 1) for p, a, b in zip(groups, starts, ends, strict=True)}
        out = [replace(p, col=spans[id(p)][0], col_span=spans[id(p)][1]) if id(p) in spans else p for p in out]
    return out


def _centred_span(
    p: Placed, up: int, down: int, lone: bool, tops: dict, bottoms: dict, tolerance: float
) -> tuple[int, int] | None:
    """The widest run of rows around `p`'s whose centre is its centre: as many rows above as
    below where it shares its row with cells of other columns; any split for a row of its own,
    whose neighbours may be rows of several lines."""
    centre = (p.line.bbox[1] + p.line.bbox[3]) / 2
    spans = [(p.row - k, p.row + k) for k in range(1, min(up, down) + 1)]
    if lone:
        spans = [(p.row - i, p.row + j) for i in range(1, up + 1) for j in range(1, down + 1)]
    fits = [(a, b) for a, b in spans if abs((tops[a] + bottoms[b]) / 2 - centre) <= tolerance]
    return max(fits, key=lambda ab: ab[1] - ab[0], default=None)


def _run(filled: set, p: Placed, step: int, lo: int, hi: int) -> int:
    """Rows next to `p`'s, going `step`, with nothing in its columns (within [lo, hi))."""
    n, r = 0, p.row + step
    while lo <= r < hi and not any((r, c) in filled for c in p.cols):
        n, r = n + 1, r + step
    return n


def _lone(placed: list[Placed], filled: set, row: int) -> bool:
    """A row of labels alone: its cells have nothing above and below them in their columns."""
    own = [p for p in placed if p.row == row]
    return all((row + d, c) not in filled for p in own for c in p.cols for d in (-1, 1))


def _top_aligned_columns(placed: list[Placed], filled: set, body_start: int, n_rows: int) -> set[int]:
    """Columns whose labels stand at the top of their groups: one opens the body, rows empty under it."""
    out = set()
    for p in placed:
        opens = p.row >= body_start and _run(filled, p, -1, body_start, n_rows) == 0
        if opens and _run(filled, p, +1, body_start, n_rows) > 0 and not _lone(placed, filled, p.row):
            out.update(p.cols)
    return out


def _renumber(placed: list[Placed], gone: set[int]) -> list[Placed]:
    """Rows numbered again without the rows of labels that moved to span their neighbours."""
    at, n = {}, 0
    for r in range(max((p.row for p in placed), default=-1) + 1):
        at[r] = n
        n += r not in gone
    return [replace(p, row=at[p.row]) for p in placed]
