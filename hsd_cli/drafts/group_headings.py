"""A table's group headings that the grid finder read with the column headings under them.

In a tight table (revtex's, at a small column separation) the finder reads "South" over "Cost"
and "Speed" as one heading cell "South Cost Speed" spanning both columns, and MuPDF reads the
row of column headings as one line. Such a one-row heading is two rows again where the text of
each spanning cell is a line of the table (the group's label) and then one word per column it
spans; a cell that does not read so leaves the heading as the finder made it.
"""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.datatypes import TableCell, TextSpan
from hsd_cli.drafts.tablegrid import heading_rows


def split(cells: tuple[TableCell, ...], lines: list[TextSpan]) -> tuple[TableCell, ...]:
    """A one-row heading whose spanning cells the grid finder read with the row of column headings
    under them ("South Cost Speed" over two columns: "South" over "Cost" and "Speed"), as two
    rows. A cell splits when its text is a line of the table (the group's label) and then one
    word for each column it spans, and every spanning cell of the row does; the cells spanning
    no group take both rows."""
    if heading_rows(cells) != 1:
        return cells
    top = [c for c in cells if c.row == 0]
    groups = {id(c): _group_words(c, lines) for c in top if c.col_span > 1}
    if not groups or any(words is None for words in groups.values()):
        return cells
    out: list[TableCell] = []
    for c in cells:
        if c.row > 0:
            out.append(replace(c, row=c.row + 1))
        elif id(c) not in groups:
            out.append(replace(c, row_span=c.row_span + 1))
        else:
            label, words = groups[id(c)]
            out.append(replace(c, text=label))
            out += [TableCell(1, c.col + k, w, is_header=True) for k, w in enumerate(words)]
    return tuple(out)


def _group_words(cell: TableCell, lines: list[TextSpan]) -> tuple[str, list[str]] | None:
    """(the group's label, one word per spanned column) of a spanning heading cell, or None."""
    text = " ".join(cell.text.split())
    for line in lines:
        label = " ".join(line.text.split())
        words = text[len(label) :].split()
        if label and text.startswith(label + " ") and len(words) == cell.col_span:
            return label, words
    return None
