"""Horizontal braces of a formula: `\\underbrace{...}_{...}` and `\\overbrace{...}^{...}`.

A brace comes as one glyph (a browser's KaTeX draws it as filled shapes: pdfglyphs.page_braces)
or as TeX's pieces: cmex10's brace ends and middle (`\\upbracefill`: left-up, right-down,
left-down, right-up, rules between them; `\\downbracefill` the other way round) on one baseline.
The glyphs within its width on its inner side are its body, those on its outer side its label.
Coordinates: any one unit (PDF points here), y growing downwards.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hsd_cli.pages.mathglyph import Glyph, Rule, bottom, extent, top, union

Row = Callable[[list[Glyph], list[Rule]], str]

UNDER, OVER = "⏟", "⏞"
# cmex10's brace pieces (codes 0x7A-0x7D: \\braceld, \\bracerd, \\bracelu, \\braceru, read as
# their codes: no Unicode names them) as left/right, down/up: an under-brace reads "uDdU".
PIECES = {"z": "d", "{": "D", "|": "u", "}": "U"}
PIECE_DEPTH = 0.6  # ems a piece reaches below its origin
_WORD = re.compile(r"\\operatorname\{([A-Za-z]+)\}")
REACH = 0.9  # ems between a brace and its body or label at most (TeX's gaps are 0.1-0.5 em)


def braced(items: list[Glyph], rules: list[Rule], row: Row) -> tuple[list[Glyph], list[Rule]]:
    """Items with each brace, its body and its label built into one item; the pieces' rules gone."""
    items, rules = _joined(items, rules)
    for brace in [g for g in items if g.c in (UNDER, OVER)]:
        under = brace.c == UNDER
        near = [g for g in items if g is not brace and _within(g, brace)]
        inner = [g for g in near if _gap(g, brace, above=under) is not None]
        outer = [g for g in near if _gap(g, brace, above=not under) is not None]
        items = [g for g in items if g is not brace and g not in inner and g not in outer]
        if not inner:
            continue  # a brace over nothing: the shape is no formula's
        body, label = row(inner, rules), _label(row(outer, rules)) if outer else ""
        script = f"_{{{label}}}" if under else f"^{{{label}}}"
        latex = f"\\{'under' if under else 'over'}brace{{{body}}}{script if label else ''}"
        size = max(g.size for g in inner)
        baseline = max(g.baseline for g in inner if g.size >= 0.9 * size)
        items.append(Glyph("", extent(inner), baseline, size, latex=latex))
    return items, rules


def labels(lines: list[list[Glyph]], glyphs: list[Glyph]) -> list[list[Glyph]]:
    """Those of `lines` (lines of words) that are the label of a brace among `glyphs`: within its
    width and near its outer side."""
    braces = [g for g in _joined(glyphs, [])[0] if g.c in (UNDER, OVER)] if lines else []
    return [
        line
        for line in lines
        if any(all(_within(g, b) and _gap(g, b, above=b.c == OVER) is not None for g in line) for b in braces)
    ]


def _label(latex: str) -> str:
    """A brace's label: its upright words are text (`n\\text{ times}`), not operator names."""
    return _WORD.sub(lambda m: f"\\text{{{' ' if m.start() else ''}{m[1]}}}", latex)


def _gap(g: Glyph, brace: Glyph, above: bool) -> float | None:
    """How far `g` stands from the brace on the side asked (in the glyph's ems), if near enough."""
    gap = (brace.bbox[1] - bottom(g)) if above else (top(g) - brace.bbox[3])
    return gap if -0.3 * g.size <= gap <= REACH * max(g.size, brace.size) else None


def _joined(items: list[Glyph], rules: list[Rule]) -> tuple[list[Glyph], list[Rule]]:
    """TeX's brace pieces on one baseline as one brace glyph, the rules between them dropped."""
    pieces = sorted((g for g in items if g.big and g.c in PIECES), key=lambda g: g.bbox[0])
    for baseline in {round(g.baseline, 1) for g in pieces}:
        row = [g for g in pieces if round(g.baseline, 1) == baseline]
        kinds = "".join(PIECES[g.c] for g in row)
        if kinds not in ("uDdU", "dUuD"):
            continue
        x0, y0, x1, _ = union(row)
        # The pieces' own depth: the box an extension glyph gets from its code reaches deeper.
        box = (x0, y0, x1, row[0].baseline + PIECE_DEPTH * row[0].size)
        brace = Glyph(UNDER if kinds == "uDdU" else OVER, box, box[3], row[0].size)
        items = [g for g in items if g not in row] + [brace]
        rules = [r for r in rules if not _joins(r, box)]
    return items, rules


def _within(g: Glyph, brace: Glyph) -> bool:
    return brace.bbox[0] - 0.3 * g.size <= g.cx <= brace.bbox[2] + 0.3 * g.size


def _joins(r: Rule, box: tuple) -> bool:
    """A rule between a brace's pieces (TeX fills the gaps with rules)."""
    return box[0] - 1 <= r.x0 and r.x1 <= box[2] + 1 and box[1] - 1 <= r.y <= box[3] + 1
