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

from statistics import median

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.table_rows import table_rows
from hsd_cli.pages import geometry as geo
from hsd_cli.pages.table_check import NUMBER

MIN_ROWS = 3  # rows in a run: two level pairs are as likely a heading beside a date
GAP = 1.5  # line heights between two cells of a row: words of one line stand closer
PROSE_CHARS = 40  # a line this long of words is prose: table cells hold 40 characters at most
FIGURE_SHARE = 0.7  # of a run's rows, those ending in a figure
COLUMN_SLACK = 2.0  # line heights by which the figures' right (or left) edges may differ


def row_tables(lines: list[TextSpan]) -> tuple[list[list[TextSpan]], list[TextSpan]]:
    """(the lines of each borderless table, in rows; the other lines)."""
    tables, run = [], []
    for row in [*table_rows(lines), []]:  # an empty row ends the last run
        row = sorted((s for s in row if not _is_prose(s)), key=lambda s: s.bbox[0])
        if _cells_apart(row):
            run.append(row)
            continue
        if _is_table(run):
            tables.append([s for r in run for s in r])
        run = []
    taken = {id(s) for t in tables for s in t}
    return tables, [s for s in lines if id(s) not in taken]


def _is_prose(line: TextSpan) -> bool:
    """A line of a text column beside the table, level with its rows: no cell of it."""
    return len(line.text) >= PROSE_CHARS and geo.is_prose(line.text)


def _cells_apart(row: list[TextSpan]) -> bool:
    """Two or more lines on the row, apart, one gap wide: a label and its figures (figure columns
    of a low-resolution scan stand under a line height apart, its boxes being padded)."""
    if len(row) < 2:
        return False
    height = median(s.bbox[3] - s.bbox[1] for s in row)
    gaps = [b.bbox[0] - a.bbox[2] for a, b in zip(row, row[1:], strict=False)]
    return min(gaps) > 0 and max(gaps) >= GAP * height


def _is_table(run: list[list[TextSpan]]) -> bool:
    """Enough rows, most ending in a figure, the figures in one column."""
    if len(run) < MIN_ROWS:
        return False
    figures = [row[-1] for row in run if NUMBER.match(row[-1].text.strip())]
    if len(figures) < FIGURE_SHARE * len(run):
        return False
    slack = COLUMN_SLACK * median(s.bbox[3] - s.bbox[1] for s in figures)
    rights, lefts = [s.bbox[2] for s in figures], [s.bbox[0] for s in figures]
    return max(rights) - min(rights) <= slack or max(lefts) - min(lefts) <= slack
