"""Write region drafts in a target model's markup conventions (tables, headings, formulas).

A target declares its conventions as a `DraftStyle` (datatypes.py); this module writes them.
"""

from __future__ import annotations

import re

from hsd_cli.datatypes import DraftStyle, Region, RegionKind, TableCell
from hsd_cli.drafts.tablegrid import heading_rows
from hsd_cli.pages.inline_math import delimited

# Bullet glyphs; private-use code points are symbol-font bullets (Wingdings "l" is U+F06C).
_BULLET = re.compile(r"^[\u2022\u25cf\u25aa\u25e6\u2023\u2043\u00b7\ue000-\uf8ff\-*]\s*")
_FURNITURE = (RegionKind.HEADER, RegionKind.FOOTER)
# A pipe table's delimiter row; GFM takes one hyphen a cell as well as many ("| - | :-: |").
_ONE_INLINE = re.compile(r"\$([^$]+)\$")
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


# A figure leaves docling's placeholder where it stands (a comment: Markdown viewers hide it,
# readers of the file and tools that look for pictures see it); `--images` puts the link there.
FIGURE_PLACEHOLDER = "<!-- image -->"
MARKDOWN = DraftStyle(table="gfm", figure=FIGURE_PLACEHOLDER)  # GitHub Markdown, as `--method draft` writes it


PAGE_SEP = "\n\n"


def page_markdown(regions: list[Region], style: DraftStyle = MARKDOWN) -> str:
    """The page: regions in reading order, separated by blank lines."""
    return PAGE_SEP.join(text for _, text in page_parts(regions, style))


def page_parts(regions: list[Region], style: DraftStyle = MARKDOWN) -> list[tuple[int, str]]:
    """(index in `regions`, markup) of each region the page writes, in reading order."""
    parts = []
    for i in sorted(range(len(regions)), key=lambda i: regions[i].order):
        region = regions[i]
        if style.drop_furniture and region.kind in _FURNITURE:
            continue
        text = region_markup(region, style)
        if text:
            parts.append((i, text))
    return parts


def region_markup(region: Region, style: DraftStyle = MARKDOWN) -> str:
    """One region's draft text in the style's markup."""
    text = region.text.strip()
    kind = region.kind
    if kind is RegionKind.EQUATION:
        return _formula(text, style.formula) if text else ""
    if kind is RegionKind.FIGURE:
        return style.figure
    if kind is RegionKind.CODE:
        return f"```\n{region.text.strip(chr(10))}\n```" if text else ""
    if kind is RegionKind.TITLE and style.heading == "hash" and text:
        text = f"{'#' * (region.level or 2)} {text}"
    elif kind is RegionKind.TABLE and region.cells:
        text = table_markup(region.cells, style.table)
    elif kind is RegionKind.LIST:
        text = _BULLET.sub("- ", text, count=1)
    return delimited(text, style.formula)  # inline formulas wherever the region holds them


def table_markup(cells: tuple[TableCell, ...], table: str) -> str:
    if table == "otsl":
        return otsl_table(cells)
    # A pipe table has one heading row and no spans: a taller heading or a label spanning rows
    # (which a pipe table repeats, its row then reading as the label's) needs HTML.
    if table == "gfm" and ((n := heading_rows(cells)) > 1 or any(c.row_span > 1 for c in cells)):
        return html_table(cells, n)
    return html_table(cells) if table == "html" else markdown_table(cells)


def html_table(cells: tuple[TableCell, ...], num_heading_rows: int = 0) -> str:
    """<table><tr><td>..</td></tr></table>; spanning cells get rowspan/colspan.

    The first `num_heading_rows` rows are written with <th> cells (the targets' own tables,
    drafted with 0, use <td> throughout).
    """
    rows: dict[int, list[TableCell]] = {}
    for cell in sorted(cells, key=lambda c: (c.row, c.col)):
        rows.setdefault(cell.row, []).append(cell)
    html = ["<table>"]
    for r in sorted(rows):
        tag = "th" if r < num_heading_rows else "td"
        html.append("<tr>" + "".join(_td(c, tag) for c in _padded(rows[r], r, cells)) + "</tr>")
    return "".join(html) + "</table>"


def _padded(row: list[TableCell], r: int, cells: tuple[TableCell, ...]) -> list[TableCell]:
    """The row's cells, with an empty cell in each column no cell covers.

    HTML places a row's cells left to right: a missing cell shifts every cell after it
    one column to the left. Columns covered by a row span from above stay unfilled.
    """
    covered = {k for c in cells if c.row <= r < c.row + c.row_span for k in range(c.col, c.col + c.col_span)}
    n_cols = max(c.col + c.col_span for c in cells)
    gaps = [TableCell(r, k, "") for k in range(n_cols) if k not in covered]
    return sorted(row + gaps, key=lambda c: c.col)


def markdown_table(cells: tuple[TableCell, ...]) -> str:
    """A pipe table; the first row is the header, merged cells repeat their text."""
    n_rows = max(c.row + c.row_span for c in cells)
    n_cols = max(c.col + c.col_span for c in cells)
    grid = [[""] * n_cols for _ in range(n_rows)]
    for c in cells:
        text = c.text.replace("\n", " ").replace("|", "\\|").strip()
        for r in range(c.row, c.row + c.row_span):
            for k in range(c.col, c.col + c.col_span):
                grid[r][k] = text
    lines = ["| " + " | ".join(row) + " |" for row in grid]
    lines.insert(1, "|" + "---|" * n_cols)
    return "\n".join(lines)


def otsl_table(cells: tuple[TableCell, ...]) -> str:
    """OTSL: <fcel>text / <ecel> per cell, <lcel>/<ucel>/<xcel> inside spans, <nl> per row."""
    n_rows = max(c.row + c.row_span for c in cells)
    n_cols = max(c.col + c.col_span for c in cells)
    grid = [["<ecel>"] * n_cols for _ in range(n_rows)]
    for c in cells:
        for r in range(c.row, c.row + c.row_span):
            for k in range(c.col, c.col + c.col_span):
                grid[r][k] = "<xcel>" if r > c.row and k > c.col else "<ucel>" if r > c.row else "<lcel>"
        text = c.text.replace("\n", " ").strip()
        grid[c.row][c.col] = f"<fcel>{text}" if text else "<ecel>"
    return "".join("".join(row) + "<nl>" for row in grid)


def _td(cell: TableCell, tag: str = "td") -> str:
    spans = (f' rowspan="{cell.row_span}"' if cell.row_span > 1 else "") + (
        f' colspan="{cell.col_span}"' if cell.col_span > 1 else ""
    )
    # Not HTML-escaped: the targets write cell text raw, and the draft must match them.
    return f"<{tag}{spans}>{cell.text.strip()}</{tag}>"


def _formula(text: str, formula: str) -> str:
    one = _ONE_INLINE.fullmatch(text.strip())  # a display read as a line with one inline formula
    text = one[1] if one else text
    return f"$$\n{text}\n$$" if formula == "dollars" else f"\\[\n{text}\n\\]"
