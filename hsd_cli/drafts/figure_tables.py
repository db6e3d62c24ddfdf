"""Data tables set inside a figure's box: the figures under a chart, the notes under them.

Financial reports print a chart's figures as a small table beneath the plot ("1M 2M 3M /
absolute return 7.18 32.88 80.86") and a source line below that, all inside the box the
figure finder draws around the chart and its labels. A model writes the table and the note;
the chart's own labels (ticks, legend) it leaves out. Here the table is found among the
figure's lines as a run of adjacent rows of several cells, mostly figures; a line of figures
separated by spaces is several cells.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hsd_cli.datatypes import BBox, TextSpan
from hsd_cli.drafts.tablegrid import NUMBER
from hsd_cli.pages import geometry as geo

MIN_ROWS = 2
MIN_FIGURES = 4  # figure cells in the table: fewer are a chart's labels (a tick row, a legend)
ROW_GAP = 1.0  # rows of one table stand at most this many line heights apart


@dataclass(frozen=True, slots=True)
class FigureText:
    """A figure's box and lines sorted out: the picture's own box, the table in it (one line
    per cell), and the notes below a table that stands under the picture."""

    figure: BBox
    table: tuple[TextSpan, ...] = ()
    notes: tuple[TextSpan, ...] = ()


def figure_text(box: BBox, lines: list[TextSpan]) -> FigureText:
    """The table among a figure's lines (the run of rows with the most cells), if there is one."""
    rows = geo.split_rows([cell for line in lines for cell in split_figures(line)])
    runs = [run for run in _runs(rows) if _is_table(run)]
    if not runs:
        return FigureText(box)
    best = max(runs, key=lambda run: sum(map(len, run)))
    cells = tuple(cell for row in best for cell in row)
    top, bottom = min(c.bbox[1] for c in cells), max(c.bbox[3] for c in cells)
    if top < (box[1] + box[3]) / 2:  # a table above the picture: what is below it are its labels
        return FigureText((box[0], max(box[1], bottom), box[2], box[3]), cells)
    notes = tuple(line for line in lines if line.bbox[1] >= bottom)
    return FigureText((box[0], box[1], box[2], min(box[3], top)), cells, notes)


def split_figures(line: TextSpan) -> list[TextSpan]:
    """A line of two or more figures separated by spaces as one line per figure, boxes shared
    out by characters (a text layer often sets a table row's figures as one line)."""
    words = line.text.split()
    if len(words) < 2 or not all(NUMBER.match(w) for w in words):
        return [line]
    x0, y0, x1, y1 = line.bbox
    per_char = (x1 - x0) / max(len(line.text), 1)
    out, at = [], 0
    for word in words:
        start = line.text.index(word, at)
        at = start + len(word)
        box = (x0 + start * per_char, y0, x0 + at * per_char, y1)
        out.append(replace(line, bbox=box, text=word))
    return out


def _runs(rows: list[list[TextSpan]]) -> list[list[list[TextSpan]]]:
    """Maximal runs of adjacent rows that hold two cells or more each, side by side."""
    runs: list[list[list[TextSpan]]] = []
    prev: list[TextSpan] | None = None
    for row in rows:
        if len(row) < 2 or not _side_by_side(row):
            prev = None
            continue
        if prev is not None and _adjacent(prev, row):
            runs[-1].append(row)
        else:
            runs.append([row])
        prev = row
    return runs


def _side_by_side(row: list[TextSpan]) -> bool:
    """Cells that share no width: a chart's tick labels, stacked closer than a line, chain into
    one "row" of overlapping boxes."""
    boxes = sorted(c.bbox for c in row)
    return all(b[0] >= a[2] - 1 for a, b in zip(boxes, boxes[1:], strict=False))


def _adjacent(upper: list[TextSpan], lower: list[TextSpan]) -> bool:
    height = max(c.bbox[3] - c.bbox[1] for c in upper + lower)
    gap = min(c.bbox[1] for c in lower) - max(c.bbox[3] for c in upper)
    return gap <= ROW_GAP * height


def _is_table(run: list[list[TextSpan]]) -> bool:
    """Rows enough, mostly figures past the first column, no prose."""
    cells = [c for row in run for c in sorted(row, key=lambda s: s.bbox[0])[1:]]
    figures = sum(bool(NUMBER.match(c.text.strip())) for c in cells)
    prose = any(geo.is_prose(c.text) for row in run for c in row)
    return len(run) >= MIN_ROWS and figures >= MIN_FIGURES and 2 * figures >= len(cells) and not prose
