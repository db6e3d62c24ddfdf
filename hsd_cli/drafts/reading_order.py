"""Reading order of a page's blocks: recursive XY cuts, columns in script order, grids row by row."""

from __future__ import annotations

import itertools

from hsd_cli.datatypes import BBox

GRID_ALIGN = 0.5  # blocks of one grid row start within this share of the narrowest band between rows
GRID_GAP = 1.5  # a grid's row bands are this many times wider than any gap inside a cell


def reading_order(boxes: list[BBox], rtl: bool = False) -> list[int]:
    """Indices of `boxes` in reading order by recursive XY-cut (columns before rows)."""
    return _xy_cut(list(range(len(boxes))), boxes, rtl)


def _xy_cut(ids: list[int], boxes: list[BBox], rtl: bool) -> list[int]:
    if len(ids) <= 1:
        return ids
    # Columns first: every gap in the x projection splits columns (read in script direction).
    columns, _ = split_gaps(ids, boxes, 0)
    if len(columns) > 1 and (grid := _grid_rows(ids, columns, boxes)):
        return [i for row in grid for i in _xy_cut(row, boxes, rtl)]
    if len(columns) > 1:
        columns = columns[::-1] if rtl else columns
        return [i for part in columns for i in _xy_cut(part, boxes, rtl)]
    # Then rows, at the widest gaps only: a paragraph break in one column that lines up with the
    # end of the other column must not cut both columns into rows. (Cutting at all the equally
    # widest gaps at once keeps the recursion shallow on evenly spaced lines.)
    rows, gaps = split_gaps(ids, boxes, 1)
    if len(rows) > 1:
        widest = max(gaps[1:])
        cuts = [0] + [j for j in range(1, len(rows)) if gaps[j] >= widest - 1] + [len(rows)]
        bands = [[i for r in rows[a:b] for i in r] for a, b in zip(cuts, cuts[1:], strict=False)]
        return [i for band in bands for i in _xy_cut(band, boxes, rtl)]
    return sorted(ids, key=lambda i: (boxes[i][1], -boxes[i][2] if rtl else boxes[i][0]))


def _grid_rows(ids: list[int], columns: list[list[int]], boxes: list[BBox]) -> list[list[int]]:
    """The rows of a grid of blocks, read row by row; [] when the columns are columns of text.

    A grid (2 x 2 panels, a form's boxes) has empty bands across all its columns; in each row
    every column's cell starts and ends at the same heights, and the bands are wider than any
    gap between blocks inside one cell. Two columns of running text or references break at
    their own heights: a band across both is a coincidence, and the entries beside each other
    differ in length (a reference list read row by row scored worse on the dev corpus).
    """
    rows, _ = split_gaps(ids, boxes, 1)
    if len(rows) < 2:
        return []
    col_of = {i: k for k, col in enumerate(columns) for i in col}
    # Bands from the boxes as they are (not trimmed as in split_gaps), like the gaps inside cells.
    band = min(min(boxes[i][1] for i in b) - max(boxes[i][3] for i in a) for a, b in itertools.pairwise(rows))
    for row in rows:
        if {col_of[i] for i in row} != set(range(len(columns))):
            return []  # a row that leaves a column empty: no grid
        tops = [min(boxes[i][1] for i in row if col_of[i] == k) for k in range(len(columns))]
        ends = [max(boxes[i][3] for i in row if col_of[i] == k) for k in range(len(columns))]
        if max(tops) - min(tops) > GRID_ALIGN * band or max(ends) - min(ends) > GRID_ALIGN * band:
            return []
        if _inner_gap(row, col_of, boxes) * GRID_GAP > band:
            return []
    return rows


def _inner_gap(row: list[int], col_of: dict[int, int], boxes: list[BBox]) -> float:
    """The widest vertical gap between blocks of one column inside `row`."""
    widest = 0.0
    for k in set(col_of[i] for i in row):
        cell = sorted((boxes[i] for i in row if col_of[i] == k), key=lambda b: b[1])
        widest = max([widest] + [b[1] - a[3] for a, b in itertools.pairwise(cell)])
    return widest


def split_gaps(ids: list[int], boxes: list[BBox], axis: int) -> tuple[list[list[int]], list[float]]:
    """Groups of boxes separated by empty bands along `axis` (0: x, 1: y), and each band's width."""
    ids = sorted(ids, key=lambda i: boxes[i][axis])
    parts, gaps, end = [[ids[0]]], [0.0], _shrunk(boxes[ids[0]], axis)[1]
    for i in ids[1:]:
        lo, hi = _shrunk(boxes[i], axis)
        if lo >= end:
            parts.append([i])
            gaps.append(lo - end)
        else:
            parts[-1].append(i)
        end = max(end, hi)
    return parts, gaps


def _shrunk(box: BBox, axis: int) -> tuple[float, float]:
    """The box's extent along `axis`, trimmed a little: detected boxes overlap by a few pixels."""
    lo, hi = box[axis], box[axis + 2]
    trim = min(0.05 * (hi - lo), 4.0)
    return lo + trim, hi - trim
