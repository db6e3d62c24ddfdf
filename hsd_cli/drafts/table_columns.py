"""Which column of a table gridded from its lines a line goes to (drafts/tablegrid.cells_from_lines).

The fullest row sets the columns. Every other line takes the free column nearest it, or all the
columns whose centres it covers (a heading over several), or in a heading row the group it is
centred over; a line over several columns below the headings is their cells set close. A column
whose lines all start at one x (a stub column, set flush left) takes only lines starting there or
reaching into it: a cell that stands nearer to it but starts elsewhere belongs to the next column
(an HTML row whose first cell is styled flush left, under a label spanning rows).
"""

from __future__ import annotations

from dataclasses import replace
from statistics import median

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts import table_spans

FLUSH = 0.5  # line heights within which a column's lines start at one x
FLUSH_LINES = 3  # lines that must start so for a column to be flush left


def flush_left(columns: list[tuple[float, float]], lines: list[TextSpan]) -> list[float | None]:
    """Per column, the x its lines all start at, when at least FLUSH_LINES reach into it, all start
    there, and their ends spread more (figures of one width start and end at one x each)."""
    if not lines:
        return [None] * len(columns)
    em = median(s.bbox[3] - s.bbox[1] for s in lines)
    out: list[float | None] = []
    for c0, c1 in columns:
        inside = [s for s in lines if s.bbox[0] < c1 and s.bbox[2] > c0]
        starts, ends = [s.bbox[0] for s in inside], [s.bbox[2] for s in inside]
        # Starts at one x and ends spread wider: text set flush left, not figures of one width.
        flush = len(inside) >= FLUSH_LINES and _spread(starts) <= FLUSH * em < _spread(ends) - _spread(starts)
        out.append(min(starts) if flush else None)
    return out


def _spread(xs: list[float]) -> float:
    return max(xs) - min(xs)


def split_over_columns(
    line: TextSpan, cols: list[int], columns: list[tuple[float, float]]
) -> list[tuple[TextSpan, list[int]]]:
    """A line over several columns cut into one piece per column, each word going to the column
    nearest its place in the line (estimated from its characters' share of the line's width).

    A table set tight (a LaTeX table scaled to the column) leaves gaps between its columns no
    wider than a word space, and MuPDF reads "51.4 0.448" as one line. Not cut when a column
    would get no word: a group heading centred over its columns."""
    words = line.text.split()
    if len(cols) < 2 or len(words) < len(cols):
        return [(line, cols)]
    x0, x1 = line.bbox[0], line.bbox[2]
    per_char = (x1 - x0) / max(len(line.text), 1)
    placed: dict[int, list[tuple[float, float, str]]] = {}
    start = 0
    for word in words:
        start = line.text.index(word, start)
        lo, hi = x0 + start * per_char, x0 + (start + len(word)) * per_char
        start += len(word)
        col = min(cols, key=lambda k: _distance((lo + hi) / 2, columns[k]))
        placed.setdefault(col, []).append((lo, hi, word))
    if sorted(placed) != sorted(cols):
        return [(line, cols)]
    return [
        (replace(line, bbox=(ws[0][0], line.bbox[1], ws[-1][1], line.bbox[3]), text=" ".join(w for *_, w in ws)), [k])
        for k, ws in sorted(placed.items())
    ]


def _distance(x: float, column: tuple[float, float]) -> float:
    return max(column[0] - x, x - column[1], 0.0)


def columns_of(
    line: TextSpan,
    columns: list[tuple[float, float]],
    taken: set[int],
    heading: bool = False,
    headed: list[tuple[float, float]] | None = None,
    flush: list[float | None] | None = None,
) -> list[int]:
    """The free column nearest `line`, widened to every free column whose centre it covers, or
    in a heading row to the group of columns it is centred over (`headed`: the columns as wide
    as their own headings; `flush`: where flush-left columns start, `flush_left`)."""
    x0, x1 = line.bbox[0], line.bbox[2]
    centres = [(c0 + c1) / 2 for c0, c1 in columns]
    free = [k for k in range(len(columns)) if k not in taken] or [len(columns) - 1]
    inside = [k for k in free if x0 <= centres[k] <= x1]
    if len(inside) > 1:  # a heading set over several columns
        return list(range(inside[0], inside[-1] + 1))
    if heading and (group := table_spans.group_columns(line, headed or columns, free)):
        return group
    middle = (x0 + x1) / 2
    free = [k for k in free if _may_take(line, columns[k], flush[k] if flush else None)] or free
    return [min(free, key=lambda k: abs(centres[k] - middle))]


def _may_take(line: TextSpan, column: tuple[float, float], start: float | None) -> bool:
    """A flush-left column takes a line that starts at its x or reaches into it."""
    x0, x1 = line.bbox[0], line.bbox[2]
    em = line.bbox[3] - line.bbox[1]
    return start is None or (x0 < column[1] and x1 > column[0]) or abs(x0 - start) <= em
