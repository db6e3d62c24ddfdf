"""Rewrite ground-truth Markdown in a target's markup conventions (tables, headings, formulas).

The oracle target writes the ground truth; our drafts are written in the target's style
(drafts/markup.py), so the reference must be too, or acceptance would measure style mismatch.
"""

from __future__ import annotations

import re

from hsd_cli.datatypes import TableCell
from hsd_cli.drafts.markup import TABLE_RULE, DraftStyle, html_table, markdown_table
from hsd_cli.pages.inline_math import delimited, unpadded

_COMMENT = re.compile(r"<!--(.*?)-->", re.S)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_HTML_TABLE = re.compile(r"(?:<html>\s*<body>\s*)?<table.*?</table>(?:\s*</body>\s*</html>)?", re.S | re.I)
_ROW = re.compile(r"<tr[^>]*>(.*?)</tr>", re.S | re.I)
_CELL = re.compile(r"<t([dh])([^>]*)>(.*?)</t[dh]>", re.S | re.I)
_SPAN = re.compile(r'(row|col)span\s*=\s*"?(\d+)', re.I)
_DISPLAY_MATH = re.compile(r"\$\$\s*(.*?)\s*\$\$", re.S)


def restyle(markdown: str, style: DraftStyle) -> str:
    """`markdown` with figures, tables, headings and formulas as `style` writes them."""
    text = _COMMENT.sub(lambda m: style.figure if "image" in m[1] else "", markdown)
    text = _IMAGE.sub(style.figure, text)
    text = _HTML_TABLE.sub(lambda m: _table(_html_cells(m[0]), style), text)
    text = _pipe_tables(text, style)
    if style.heading == "plain":
        text = re.sub(r"^#{1,6}\s+", "", text, flags=re.M)
    if style.formula == "brackets":
        text = _DISPLAY_MATH.sub(lambda m: f"\\[\n{m[1]}\n\\]", text)
    # Inline formulas as the drafts write them (drafts/markup.py); some ground truths pad them.
    text = delimited(unpadded(text), style.formula)
    return re.sub(r"\n\s*\n(\s*\n)+", "\n\n", text).strip()


def _table(cells: tuple[TableCell, ...], style: DraftStyle) -> str:
    if not cells:
        return ""
    return html_table(cells) if style.table == "html" else markdown_table(cells)


def _html_cells(html: str) -> tuple[TableCell, ...]:
    """Cells of an HTML table; columns account for row spans from the rows above."""
    taken: set[tuple[int, int]] = set()
    cells = []
    for r, row in enumerate(_ROW.findall(html)):
        c = 0
        for kind, attrs, body in _CELL.findall(row):
            while (r, c) in taken:
                c += 1
            spans = {k.lower(): int(v) for k, v in _SPAN.findall(attrs)}
            rs, cs = max(spans.get("row", 1), 1), max(spans.get("col", 1), 1)
            text = re.sub(r"<[^>]+>", "", body).strip()
            cells.append(TableCell(r, c, text, rs, cs, kind.lower() == "h"))
            taken.update((r + i, c + j) for i in range(rs) for j in range(cs))
            c += cs
    return tuple(cells)


def _pipe_tables(text: str, style: DraftStyle) -> str:
    """Replace every pipe table (header row, rule row, body rows) by the style's table."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        if i + 1 < len(lines) and lines[i].lstrip().startswith("|") and TABLE_RULE.match(lines[i + 1]):
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            out.append(_table(_pipe_cells([lines[i], *lines[i + 2 : j]]), style))
            i = j
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


def _pipe_cells(rows: list[str]) -> tuple[TableCell, ...]:
    cells = []
    for r, row in enumerate(rows):
        parts = re.split(r"(?<!\\)\|", row.strip().strip("|"))
        for c, part in enumerate(parts):
            cells.append(TableCell(r, c, part.replace("\\|", "|").strip(), is_header=r == 0))
    return tuple(cells)
