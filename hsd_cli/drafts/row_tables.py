"""Borderless tables on a page image that the layout model did not box: rows of cells level with
each other across a wide gap, ending in a column of figures.

An invoice's items and prices, a price list, a statement's labels and amounts: the layout model
boxes the labels as a paragraph and leaves the figures out, and the drafts wrote every label,
then every figure, the pairs lost. Such rows are found from the OCR lines themselves: at least
MIN_ROWS consecutive rows of two or more lines, the widest gap between them GAP line heights,
most ending in a figure, those figures standing in one column. Two columns of prose are rows of
level lines too, but their lines end in words. Rows are taken as tables take them (table_rows): on a
turned scan a figure far right of its label stands a line lower or higher. A prose line level
with the rows is a text column beside the table, no cell: a badly scanned page's layout model
boxes neither, and that column's lines broke every row.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from hsd_cli.datatypes import BBox, RegionKind, TextSpan
from hsd_cli.drafts.table_rows import table_rows
from hsd_cli.pages import geometry as geo
from hsd_cli.pages.table_check import NUMBER

MIN_ROWS = 3  # rows in a run: two level pairs are as likely a heading beside a date
GAP = 1.5  # line heights between two cells of a row: words of one line stand closer
FIGURES_GAP = 0.6  # ... in a row ending in two figures (right-aligned, a long label close by)
PROSE_CHARS = 40  # a line this long of words is prose: table cells hold 40 characters at most
FIGURE_SHARE = 0.7  # of a run's rows, those ending in a figure
HEADINGS = 2  # rows of column headings a table may open with (a group's, then its columns')
PADDING = 0.5  # line heights by which two cells' OCR boxes (padded) may overlap
COLUMN_SLACK = 2.0  # line heights by which the figures' right (or left) edges may differ


@dataclass(frozen=True, slots=True)
class Unboxed:
    """The borderless tables found among a page's lines (each its lines, in rows), the other
    lines, and the layout's boxes (with their kinds) that stay."""

    tables: tuple[tuple[TextSpan, ...], ...]
    lines: tuple[TextSpan, ...]
    boxes: tuple[BBox, ...]
    kinds: tuple[RegionKind, ...]


def unboxed_tables(lines: list[TextSpan], boxes: list[BBox], kinds: list[RegionKind]) -> Unboxed:
    """Tables of level rows ending in figures among the lines the layout model boxed as no table.

    Rows whose first cells run on in a paragraph the layout boxed past them are a text column
    beside a table, not its labels (a figure box over most of a badly scanned page is no
    paragraph). A figure box over a table found here was that table: what else it holds (the
    caption, a row left out) is the page's text, no picture, and the box goes."""
    tables = [b for b, k in zip(boxes, kinds, strict=True) if k is RegionKind.TABLE]
    held = [
        {id(s) for s in lines if geo.mostly_in(s.bbox, b)}
        for b, k in zip(boxes, kinds, strict=True)
        if k is not RegionKind.FIGURE
    ]
    free = [s for s in lines if not any(geo.mostly_in(s.bbox, b) for b in tables)]
    found, _ = row_tables(free)
    # A paragraph's line level with a table's heading row (the column beside it) is no cell:
    # the rows are read again without the lines of paragraphs that run on past them.
    beside = {i for t in found for ids in held if _runs_on({id(s) for s in t}, ids) for i in ids}
    if beside:
        found, _ = row_tables([s for s in free if id(s) not in beside])
    found = [t for t in found if not any(_runs_on({id(s) for s in t}, ids) for ids in held)]
    taken = {id(s) for table in found for s in table}
    spans = [geo.union_box([s.bbox for s in t]) for t in found]
    keep = [
        i
        for i, (b, k) in enumerate(zip(boxes, kinds, strict=True))
        if k is not RegionKind.FIGURE or not any(geo.mostly_in(t, b) for t in spans)
    ]
    return Unboxed(
        tuple(map(tuple, found)),
        tuple(s for s in lines if id(s) not in taken),
        tuple(boxes[i] for i in keep),
        tuple(kinds[i] for i in keep),
    )


def _runs_on(table: set[int], box: set[int]) -> bool:
    """A layout box holds some of the table's lines, not all (a box over a page's whole column
    area holds the table with the rest), and lines past it."""
    return bool(table & box) and bool(box - table) and not table <= box


def row_tables(lines: list[TextSpan]) -> tuple[list[list[TextSpan]], list[TextSpan]]:
    """(the lines of each borderless table, in rows; the other lines)."""
    tables, run, label = [], [], []
    for row in [*table_rows(lines), []]:  # an empty row ends the last run
        if run and row and all(_is_prose(s) and _beside(s, run) for s in row):
            continue  # only a text column's lines beside the table, set between its rows
        row = sorted((s for s in row if not _is_prose(s)), key=lambda s: s.bbox[0])
        if _cells_apart(row):
            run += [label, row] if label else [row]
            label = []
            continue
        if run and not label and _row_label(row, run):
            label = row  # part of the table if the rows go on below it
            continue
        if table := _longest_table(run):
            tables.append(_without_left_of_body(table))
        run, label = [], []
    taken = {id(s) for t in tables for s in t}
    return tables, [s for s in lines if id(s) not in taken]


def _beside(line: TextSpan, run: list[list[TextSpan]]) -> bool:
    """`line` stands wholly left or right of the rows of `run` that end in a figure (its body:
    a heading row may have taken in pieces of a formula level with it in the next column)."""
    body = [r for r in run if _ends_in_figure(r)] or run
    x0, x1 = min(s.bbox[0] for r in body for s in r), max(s.bbox[2] for r in body for s in r)
    return line.bbox[0] >= x1 or line.bbox[2] <= x0


def _longest_table(run: list[list[TextSpan]]) -> list[list[TextSpan]]:
    """The longest start of the run that is a table and ends in a row of figures: short lines
    under a table (a formula's pieces and number, a short line of the next column) run on past
    it as rows, and the run as a whole is no table."""
    ends = [k + 1 for k, r in enumerate(run) if _ends_in_figure(r)]
    return next((run[:k] for k in reversed(ends) if _is_table(run[:k])), [])


def _without_left_of_body(run: list[list[TextSpan]]) -> list[TextSpan]:
    """The run's lines less those of rows above its body that end a gap's width left of every
    body row's first cell: pieces of a formula or text of the next column level with the
    table's heading rows, which leave the table's own columns on their right."""
    body = [r for r in run if _ends_in_figure(r)]
    if not body:
        return [s for r in run for s in r]
    first = run.index(body[0])
    height = median(s.bbox[3] - s.bbox[1] for r in body for s in r)
    x0 = min(r[0].bbox[0] for r in body) - GAP * height
    return [s for k, r in enumerate(run) for s in r if k >= first or s.bbox[2] > x0]


def _row_label(row: list[TextSpan], run: list[list[TextSpan]]) -> bool:
    """One short line in the first column, between rows of figures: a label spanning the rows of
    its group ("South" centred beside two rows), not the end of the table."""
    figures = [r[-1] for r in run if _ends_in_figure(r)]
    return (
        len(row) == 1
        and len(row[0].text) < PROSE_CHARS
        and bool(figures)
        and row[0].bbox[2] < min(s.bbox[0] for s in figures)
    )


def _is_prose(line: TextSpan) -> bool:
    """A line of a text column beside the table, level with its rows: no cell of it."""
    return len(line.text) >= PROSE_CHARS and geo.is_prose(line.text)


def _cells_apart(row: list[TextSpan]) -> bool:
    """Two or more lines on the row, apart, one gap wide: a label and its figures (figure columns
    of a low-resolution scan stand under a line height apart, its boxes being padded: a tight
    table's padded boxes may even overlap a little)."""
    if len(row) < 2:
        return False
    height = median(s.bbox[3] - s.bbox[1] for s in row)
    gaps = [b.bbox[0] - a.bbox[2] for a, b in zip(row, row[1:], strict=False)]
    figures = len(row) >= 3 and all(NUMBER.match(s.text.strip()) for s in row[-2:])
    return min(gaps) > -PADDING * height and max(gaps) >= (FIGURES_GAP if figures else GAP) * height


def _is_table(run: list[list[TextSpan]]) -> bool:
    """Enough rows, most ending in a figure, the figures in one column (group labels alone on
    their rows, and up to HEADINGS heading rows above the first row of figures, not counted)."""
    run = [row for row in run if len(row) > 1]
    ends = [_ends_in_figure(row) for row in run]
    if len(run) < MIN_ROWS or not any(ends):
        return False
    figures = [row[-1] for row, figure in zip(run, ends, strict=True) if figure]
    if len(figures) < FIGURE_SHARE * (len(run) - min(ends.index(True), HEADINGS)):
        return False
    slack = COLUMN_SLACK * median(s.bbox[3] - s.bbox[1] for s in figures)
    rights, lefts = [s.bbox[2] for s in figures], [s.bbox[0] for s in figures]
    return max(rights) - min(rights) <= slack or max(lefts) - min(lefts) <= slack


def _ends_in_figure(row: list[TextSpan]) -> bool:
    """The row's last cell is a figure."""
    return NUMBER.match(row[-1].text.strip()) is not None
