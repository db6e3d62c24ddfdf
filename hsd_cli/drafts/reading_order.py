"""Reading order of a page's blocks from their geometry alone: one rule, applied recursively.

1. Sections. The blocks are cut into strips at every band that is empty across all of them.
   Consecutive strips stay one section while their blocks stand in the section's columns:
   together they split at vertical gutters that no block crosses into at least two columns,
   each holding a block of the section above (a block off every column, a page number in
   the margin, does not join). A block that spans a gutter (a title above two columns, a
   full-width figure or table between column blocks) starts a section of its own, and so
   does the strip after it; a strip in one column nearer to such a block below than to the
   columns above (a heading over a full-width paragraph) starts the block's section. Sections are read top
   to bottom.
2. Columns or rows of cards. A section of several columns is read column by column (down,
   then across; right to left in right-to-left script) unless it is a grid of cards, read
   row by row (across, then down). The candidate rows are the strips joined across all but
   the widest bands (at least 1/GRID_GAP of the widest between the strips that fill every
   column): cards side by side line up their titles and formulas too. They are a grid's
   rows when at least two consecutive rows hold a cell in every column (rows above them, a
   heading, or below, the last cards or a footer, may not), the cells of each such row
   start at one height, and the bands between them are wider than any gap between blocks
   inside a cell. Where every cell is one block there is no inner gap to compare: the cells
   must then also end at one height (equal panels), as the entries of two reference columns
   side by side need not. Rows of cards are alike in height: two section headings level by
   chance at the top of two text columns are a row far lower than the columns under them.
3. Bridges. Where a strip holds no gutter only because one or two wide blocks bridge it (a
   box drawn over blocks of two columns), those are set aside, the rest is read by the rule,
   and each goes before the first block read that starts below its top.
4. Each section, column, row or cell is read by the same rule; blocks that overlap both
   ways read top to bottom, then in script direction.
5. Floats. Two columns of which one is a lone block narrower than the other's widest but at
   least half as wide (a sidebar or a pull quote floated beside the text, which runs on below
   it; a note in the margin is narrower and is read after the text, as a footnote) are no
   columns: the lone block is read where its top stands among the blocks beside it (a
   paragraph level with it, its anchor, after it).

Columns of running text break into paragraphs at their own heights: a band across all
columns is a coincidence, and the first blocks below it rarely start together.

6. Run-in headings. A heading set at the start of its paragraph's first line ("Question 1." in
   bold, the text running on after it) lies inside the paragraph's box, whose top a raised
   superscript of that line may set above the heading's: it is read just before the paragraph.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection
from dataclasses import replace

from hsd_cli.datatypes import BBox, Region, RegionKind
from hsd_cli.pages import geometry as geo

GRID_ALIGN = 0.5  # cells of one grid row start within this share of the narrowest band between rows
GRID_GAP = 1.5  # a grid's bands between rows are this many times wider than any gap inside a cell
GRID_ROW_RATIO = 4.0  # a grid's rows of cards are at most this many times taller than one another
SPAN_TOPS = 0.3  # columns below a heading set across them start within this share of its height,
SPAN_ENDS = 0.5  # and the columns above it, balanced, end within half its height
MAX_BRIDGES = 2  # wide blocks set aside to find the columns they bridge
FLOAT_WIDTH = 0.8  # a lone block beside a column, narrower than this share of its widest block, floats
FLOAT_MIN = 0.5  # narrower than this share it is a note in the margin (a sidenote), read after the text
# A float is set where its anchor's line starts (its padding lowers its text a little): a block
# beside it that starts no more than this share of its height above its top comes after it.
FLOAT_LEVEL = 0.1


def reading_order(boxes: list[BBox], rtl: bool = False, heads: Collection[int] = ()) -> list[int]:
    """Indices of `boxes` in reading order (module docstring); `heads`: the indices of headings."""
    order = _order(list(range(len(boxes))), boxes, rtl)
    for h in heads:
        within = [i for i in order if i != h and _runs_in(boxes[h], boxes[i])]
        if within and order.index(h) > order.index(within[0]):
            order.remove(h)
            order.insert(order.index(within[0]), h)
    return order


def numbered(regions: list[Region], rtl: bool) -> list[Region]:
    """`regions` in reading order, each numbered with its place; its headings may run in (rule 6)."""
    heads = [i for i, r in enumerate(regions) if r.kind is RegionKind.TITLE]
    order = reading_order([r.bbox for r in regions], rtl=rtl, heads=heads)
    return [replace(regions[i], order=n) for n, i in enumerate(order)]


def _runs_in(head: BBox, block: BBox) -> bool:
    """`head` starts the first line of `block` (rule 6): it lies in the box, its top within its
    own height of the box's top."""
    return geo.mostly_in(head, block) and head[1] - block[1] < head[3] - head[1]


def _order(ids: list[int], boxes: list[BBox], rtl: bool) -> list[int]:
    if len(ids) <= 1:
        return ids
    strips, bands = split_gaps(ids, boxes, 1)
    bridges = [i for strip in strips for i in _bridges(strip, boxes)]
    if bridges:  # read the rest, then each bridge before the first block starting below it
        order = _order([i for i in ids if i not in bridges], boxes, rtl)
        for b in sorted(bridges, key=lambda i: boxes[i][1]):
            order.insert(next((k for k, i in enumerate(order) if boxes[i][1] >= boxes[b][1]), len(order)), b)
        return order
    sections = _sections(strips, bands, boxes)
    if len(sections) > 1:
        return [i for part in sections for i in _order(part, boxes, rtl)]
    columns, _ = split_gaps(ids, boxes, 0)
    if len(columns) > 1:
        floated = _floated(columns, boxes, rtl)
        if floated:
            return floated
        parts = _grid_rows(_rows(strips, bands, columns), columns, boxes) or (columns[::-1] if rtl else columns)
        return [i for part in parts for i in _order(part, boxes, rtl)]
    return sorted(ids, key=lambda i: (boxes[i][1], -boxes[i][2] if rtl else boxes[i][0]))


def _floated(columns: list[list[int]], boxes: list[BBox], rtl: bool) -> list[int]:
    """Two columns, one of them a lone block narrower than the other's widest and at least half
    as wide: a box floated beside the text (a sidebar, a pull quote), read where its top stands,
    before the blocks beside it that start below it (rule 5); [] for other columns."""
    if len(columns) != 2:
        return []
    for lone, text in (columns, columns[::-1]):
        widest = max(boxes[i][2] - boxes[i][0] for i in text)
        if len(lone) == 1 and FLOAT_MIN * widest <= boxes[lone[0]][2] - boxes[lone[0]][0] < FLOAT_WIDTH * widest:
            top, end = boxes[lone[0]][1], boxes[lone[0]][3]
            level = top - FLOAT_LEVEL * (end - top)  # a paragraph level with the float follows it
            order = _order(text, boxes, rtl)
            k = next((k for k, i in enumerate(order) if boxes[i][1] > level), len(order))
            return order[:k] + lone + order[k:]
    return []


def _bridges(strip: list[int], boxes: list[BBox]) -> list[int]:
    """The one or two widest blocks of `strip` without which it splits into columns (rule 3)."""
    if len(strip) < 3 or len(split_gaps(strip, boxes, 0)[0]) > 1:
        return []
    widest = sorted(strip, key=lambda i: boxes[i][0] - boxes[i][2])
    for n in range(1, min(MAX_BRIDGES, len(strip) - 2) + 1):
        if len(split_gaps(widest[n:], boxes, 0)[0]) > 1:
            return widest[:n]
    return []


def _sections(strips: list[list[int]], bands: list[float], boxes: list[BBox]) -> list[list[int]]:
    """Consecutive strips joined while their blocks stand in the same columns (rule 1)."""
    sections = [list(strips[0])]
    for k, strip in enumerate(strips[1:], 1):
        after = strips[k + 1] if k + 1 < len(strips) else []
        # A strip of one column nearer to a spanning block below than to the columns above (a
        # heading over a full-width paragraph) goes with that block.
        heads = (
            after
            and bands[k + 1] < bands[k]
            and len(split_gaps(strip, boxes, 0)[0]) == 1
            and not _in_columns(sections[-1] + strip, after, boxes)
        )
        if (
            not heads
            and not _spanning_head(sections[-1], strip, after, boxes)
            and _in_columns(sections[-1], strip, boxes)
        ):
            sections[-1] += strip
        else:
            sections.append(list(strip))
    return sections


def _spanning_head(section: list[int], strip: list[int], after: list[int], boxes: list[BBox]) -> bool:
    """A lone block between columns above and columns that all start at its foot: a heading
    set across the columns (CSS column-span), which the columns above end at and those below
    start from; running columns start their blocks below a band at heights of their own."""
    above, _ = split_gaps(section, boxes, 0)
    first = max(boxes[i][2] for i in above[0]) if len(above) >= 2 else 0.0
    if len(strip) != 1 or len(above) < 2 or boxes[strip[0]][0] >= first:
        return False  # a heading across the columns starts where the first column does
    below, _ = split_gaps(after, boxes, 0) if after else ([], [])
    if len(below) < 2:
        return False
    tops = [min(boxes[i][1] for i in col) for col in below]
    ends = [max(boxes[i][3] for i in col) for col in above]
    height = boxes[strip[0]][3] - boxes[strip[0]][1]
    return max(tops) - min(tops) <= SPAN_TOPS * height and max(ends) - min(ends) <= SPAN_ENDS * height


def _in_columns(section: list[int], strip: list[int], boxes: list[BBox]) -> bool:
    """True when `strip` joins `section` in two columns or more, each holding some of `section`."""
    columns, _ = split_gaps(section + strip, boxes, 0)
    return len(columns) >= 2 and all(set(col) & set(section) for col in columns)


def _rows(strips: list[list[int]], bands: list[float], columns: list[list[int]]) -> list[list[int]]:
    """Strips joined into candidate grid rows, cut only at the bands near the widest.

    The titles, formulas and texts of cards side by side line up too, and leave narrower
    bands between them than the bands between rows of cards. Only bands from the first strip
    that fills every column to the last that holds two count: a page's heading or footer
    standing in one column lies further off.
    """
    span = _grid_span(strips, columns)
    if span is None:
        return strips
    first, last = span
    cut = max(bands[first + 1 : last + 1]) / GRID_GAP
    rows = [list(s) for s in strips[: first + 1]]
    for strip, band in zip(strips[first + 1 : last + 1], bands[first + 1 : last + 1], strict=True):
        if band >= cut:
            rows.append(list(strip))
        else:
            rows[-1] += strip
    return rows + [list(s) for s in strips[last + 1 :]]


def _grid_span(rows: list[list[int]], columns: list[list[int]]) -> tuple[int, int] | None:
    """First and last index of the rows a grid would hold: from the first that fills every
    column to the last that holds two columns (the last cards); None when under two rows."""
    cells = [sum(bool(set(row) & set(col)) for col in columns) for row in rows]
    full = [k for k, n in enumerate(cells) if n == len(columns)]
    multi = [k for k, n in enumerate(cells) if n >= 2]
    if not full or multi[-1] <= full[0]:
        return None
    return full[0], multi[-1]


def _grid_rows(rows: list[list[int]], columns: list[list[int]], boxes: list[BBox]) -> list[list[int]]:
    """The candidate rows when they are the rows of a grid of cards (rule 2), else []."""
    span = _grid_span(rows, columns)
    if span is None:
        return []
    body = rows[span[0] : span[1] + 1]
    col_of = {i: k for k, col in enumerate(columns) for i in col}
    if any(len({col_of[i] for i in row}) < len(columns) for row in body[:-1]):
        return []  # a row that leaves a column empty above the last: no grid
    heights = [max(boxes[i][3] for i in row) - min(boxes[i][1] for i in row) for row in body]
    if min(heights[:-1]) * GRID_ROW_RATIO < max(heights):  # (the last row may be cut short)
        return []  # headings of two text columns level by chance: a "row" far lower than the next
    # Bands from the boxes as they are (not trimmed as in split_gaps), like the gaps inside cells.
    band = min(min(boxes[i][1] for i in b) - max(boxes[i][3] for i in a) for a, b in itertools.pairwise(body))
    single = all(len(row) == len({col_of[i] for i in row}) for row in body)  # every cell one block
    for row in body:
        cells = sorted({col_of[i] for i in row})
        tops = [min(boxes[i][1] for i in row if col_of[i] == k) for k in cells]
        ends = [max(boxes[i][3] for i in row if col_of[i] == k) for k in cells]
        if max(tops) - min(tops) > GRID_ALIGN * band:
            return []
        if single and max(ends) - min(ends) > GRID_ALIGN * band:
            return []
        if _inner_gap(row, col_of, boxes) * GRID_GAP > band:
            return []
    return rows


def _inner_gap(row: list[int], col_of: dict[int, int], boxes: list[BBox]) -> float:
    """The widest vertical gap between blocks of one column inside `row`: each block's top below
    the lowest end above it (a formula's box may reach past the title box inside it)."""
    widest = 0.0
    for k in set(col_of[i] for i in row):
        cell = sorted((boxes[i] for i in row if col_of[i] == k), key=lambda b: b[1])
        ends = itertools.accumulate((b[3] for b in cell), max)
        widest = max([widest] + [b[1] - end for end, b in zip(ends, cell[1:], strict=False)])
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
