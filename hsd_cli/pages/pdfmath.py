"""Formulas of a born-digital page as LaTeX, from the glyphs and rules of its text layer.

Display formulas: the layout model's formula boxes (and centred lines it missed, dominated by
math) get their LaTeX as region text. Inline formulas: runs of math inside text lines are
written `$...$` in those lines. Pages without a math font are left as they are (and cost
nothing: only the font list is read).
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pymupdf

from hsd_cli.datatypes import Region, RegionKind, TextSpan
from hsd_cli.pages import display_math, inline_math, mathbraces, mathpieces, mathrows
from hsd_cli.pages import geometry as geo
from hsd_cli.pages import mathchars as mc
from hsd_cli.pages.formula import Glyph, Rule, is_tag, to_latex
from hsd_cli.pages.mathstack import starts
from hsd_cli.pages.pdfglyphs import page_braces, page_fences, page_glyph_lines, page_rules, page_surds

_PROSE = (RegionKind.TEXT, RegionKind.TITLE, RegionKind.LIST)
_KEPT = (RegionKind.EQUATION, RegionKind.TABLE, *_PROSE)  # never dropped for displays they hold


def has_math_fonts(page: pymupdf.Page) -> bool:
    """A page with a font that only sets mathematics; others are left as they read (a sign like
    `=` alone opened chemistry's TiO2 and footnote marks `1)` in prose to the formula rules)."""
    return any(mc.MATH_ONLY.search(f[3]) for f in page.get_fonts())


def _with_surds(page: pymupdf.Page, lines: list, rules: list[Rule]) -> tuple[list, list[Rule]]:
    """Lines and rules with each radical drawn as a path (a browser's KaTeX draws `√` and its bar
    as one SVG shape) added as a `√` glyph and the bar's rule."""
    glyphs = [g for _, line in lines for g in line if g.c.strip()]
    for sign, bar in page_surds(page):
        under = pymupdf.Rect(bar.x0, bar.y, bar.x1, sign.bbox[3])
        if any(under.contains(pymupdf.Point(g.cx, (g.bbox[1] + g.bbox[3]) / 2)) for g in glyphs):  # a radicand
            lines, rules = [*lines, (sign.bbox, [sign])], [*rules, bar]
    # A tall bracket drawn as a shape beside glyphs (a matrix's), a brace under or over them;
    # alone either is a figure's line art.
    for shape in [*page_fences(page), *page_braces(page)] if glyphs else ():
        if any(geo.intersection(shape.bbox, _widened(g.bbox, shape.size)) > 0 for g in glyphs):
            lines = [*lines, (shape.bbox, [shape])]
    return lines, rules


def _widened(box: tuple, size: float) -> tuple:
    return box[0] - 0.5 * size, box[1], box[2] + 0.5 * size, box[3]


def with_equations(page: pymupdf.Page, to_px: pymupdf.Matrix, regions: tuple[Region, ...]) -> tuple[Region, ...]:
    """Formula regions with their LaTeX as text (no delimiters: the markup adds them)."""
    if not has_math_fonts(page):
        return regions
    lines, rules = _with_surds(page, mathpieces.joined(page_glyph_lines(page)), page_rules(page))
    rows = [(geo.union_box([b for b, _ in row]), [g for _, gs in row for g in gs]) for row in mathrows.rows(lines)]
    to_pt = ~to_px
    found = display_math.display_boxes(rows, [])
    # In a formula box, displays set close to their text count too (a card's formula 0.3 em
    # from its sentence): the box says they are formulas.
    boxed = [*found, *display_math.display_boxes(rows, found, apart=0.0)] if _any_formula(regions) else found
    out = []
    for r in regions:
        clip = pymupdf.Rect(r.bbox) * to_pt + (-1, -1, 1, 1)
        if r.kind is RegionKind.EQUATION and _holds_math(lines, clip):  # else its text, as it reads
            parts = _columns(boxed, tuple(clip), rows)
            for box in parts or [tuple(clip)]:
                text, shrunk = region_formula(lines, rules, pymupdf.Rect(box) + (-1, -1, 1, 1))
                bbox = tuple(pymupdf.Rect(shrunk or box) * to_px) if parts or shrunk else r.bbox
                out.append(replace(r, bbox=bbox, text=text))
            continue
        out.append(r)
    displays, dropped = _displays(lines, rules, to_px, out, (rows, found))
    return tuple(r for r in out if id(r) not in dropped) + displays


def _any_formula(regions: tuple[Region, ...]) -> bool:
    return any(r.kind is RegionKind.EQUATION for r in regions)


def _displays(
    lines: list, rules: list[Rule], to_px: pymupdf.Matrix, regions: list[Region], found: tuple[list, list]
) -> tuple[tuple[Region, ...], set[int]]:
    """Displays the layout model missed (it reads browser-printed math as text, a heading, even a
    table or a figure). Put last, their lines go to them, not to a text box around them
    (geometry.assign_lines); a non-text region the display fills is dropped (its id returned),
    one it holds with other text level with it (a table row with a `2.25 ± 0.01` cell) keeps
    its lines and no display is made."""
    to_pt = ~to_px
    boxes = {id(r): tuple(pymupdf.Rect(r.bbox) * to_pt) for r in regions}
    rows, displays = found
    taken = [boxes[id(r)] for r in regions if r.kind is RegionKind.EQUATION]
    shown = [d for d in displays if not any(geo.intersection(d, t) > 0 for t in taken)]
    # A figure box over formulas of two cards is filled by them together (a table is not: its
    # cells level with other text keep it, below).
    covered = {id(r) for r in regions if r.kind not in _KEPT and _covered(boxes[id(r)], shown)}
    dropped, out = set(), []
    for box in shown:
        filled = [r for r in regions if r.kind is not RegionKind.EQUATION and _filled(boxes[id(r)], box)]
        filled += [r for r in regions if id(r) in covered and r not in filled and geo.intersection(boxes[id(r)], box)]
        beside = [b for b, gs in rows if geo.intersection(b, box) < 0.5 * geo.area(b) and _level(b, box)]
        beside = [b for b, gs in rows if b in beside and not is_tag(gs) and _near(b, box, gs)]  # not its number
        beside = [b for b in beside if not any(_within(b, d) for d in shown if d != box)]  # not another card's
        held = [r for r in regions if r.kind not in _PROSE and r not in filled and geo.intersection(boxes[id(r)], box)]
        if any(geo.intersection(boxes[id(r)], b) > 0 for r in held for b in beside):
            continue  # a cell of a table row (text beside it in the region), not a display
        text = region_latex(lines, rules, pymupdf.Rect(box) + (-1, -1, 1, 1))
        if text:
            dropped |= {id(r) for r in filled if r.kind not in _PROSE}
            out.append(Region(tuple(pymupdf.Rect(box) * to_px), RegionKind.EQUATION, len(regions) + len(out), text))
    return tuple(out), dropped


def _within(row: tuple, display: tuple) -> bool:
    return geo.intersection(row, display) >= 0.5 * geo.area(row)


def _covered(region: tuple, displays: list[tuple]) -> bool:
    return sum(geo.intersection(region, d) for d in displays) >= 0.5 * max(geo.area(region), 1e-6)


def _near(a: tuple, b: tuple, glyphs: list[Glyph]) -> bool:
    """Within four ems side by side: a table's next cell, not a column beside (a layout box can
    span both columns of a page)."""
    return max(a[0] - b[2], b[0] - a[2]) <= 4 * max(g.size for g in glyphs)


def _columns(displays: list[tuple], box: tuple, rows: list) -> list[tuple]:
    """Displays in one formula box that stand in two columns, more than an em apart (parts of
    one formula that near were joined into one display: display_math.SIDE_GAP), or
    one above another with words between them (a card's text and the next card's heading):
    the layout model boxed both formulas as one; [] when the box holds one formula."""
    inside = sorted((d for d in displays if geo.intersection(d, box) >= 0.5 * geo.area(d)), key=lambda d: d[1])
    if len(inside) < 2:
        return []
    size = max(g.size for b, gs in rows for g in gs if geo.intersection(b, box) > 0)
    words = [b for b, gs in rows if geo.intersection(b, box) > 0 and inline_math.is_words(gs)]
    # Every two displays either side by side or with words between them: a grid of cards in
    # three columns boxed as one formula has both kinds of pairs.
    for a, b in itertools.combinations(inside, 2):
        beside = max(b[0] - a[2], a[0] - b[2]) > display_math.SIDE_GAP * size
        if not beside and not any(a[3] <= w[1] and w[3] <= b[1] for w in words):
            return []
    return inside


def _level(a: tuple, b: tuple) -> bool:
    return min(a[3], b[3]) - max(a[1], b[1]) > 0.3 * min(a[3] - a[1], b[3] - b[1])


def _filled(region: tuple, display: tuple) -> bool:
    return geo.intersection(region, display) >= 0.5 * max(geo.area(region), 1e-6)


def _holds_math(lines: list[tuple[tuple, list[Glyph]]], clip: pymupdf.Rect) -> bool:
    """Whether the lines in `clip` read as mathematics (not `E = m c^2` typed in words of text)."""
    kinds = {inline_math.row_kind(_inside(line, clip)) for box, line in lines if clip.intersects(box)}
    return bool(kinds & {"formula", "part"})


def _inside(line: list[Glyph], clip: pymupdf.Rect) -> list[Glyph]:
    x0, y0, x1, y1 = clip  # plain comparisons: a Rect.contains per glyph cost most of a page's time
    # A tall delimiter at the box's edge counts by any overlap (a layout box ends at a matrix's cells).
    across = [g for g in line if x0 <= g.cx <= x1 or (g.big and g.bbox[0] < x1 and g.bbox[2] > x0)]
    return [g for g in across if y0 <= (g.bbox[1] + g.bbox[3]) / 2 <= y1]


def region_latex(lines: list[tuple[tuple, list[Glyph]]], rules: list[Rule], clip: pymupdf.Rect) -> str:
    """LaTeX of the glyphs inside `clip`, prose lines (a sentence in the box) left out."""
    return region_formula(lines, rules, clip)[0]


def region_formula(
    lines: list[tuple[tuple, list[Glyph]]], rules: list[Rule], clip: pymupdf.Rect
) -> tuple[str, tuple | None]:
    """(LaTeX of the glyphs inside `clip`, the formula's own box when lines of words in the clip
    were left out, else None): a layout box over a heading and its formula shrinks to the
    formula, so the heading's line is read as text, not lost with the box."""
    glyphs, worded = [], []
    for box, line in lines:
        inside = _inside(line, clip) if clip.intersects(box) else []
        # A sentence in the box, or a line of words with no mathematics (a heading above it).
        if inside and not geo.is_prose("".join(g.c for g in inside)) and not inline_math.is_words(inside):
            glyphs += inside
        elif inside and any(g.c.isalnum() for g in inside):
            worded.append(inside)
    labels = mathbraces.labels(worded, glyphs)  # `n times` under a brace
    glyphs += [g for w in labels for g in w]
    words = len(labels) < len(worded)
    glyphs = sorted(glyphs, key=lambda g: g.bbox[2])
    while glyphs and glyphs[-1].c in ".,;":  # sentence punctuation after a display formula
        glyphs.pop()
    # A bar reaches a little past its numerator and denominator: its middle in the box will do.
    inside_rules = [x for x in rules if clip.x0 <= (x.x0 + x.x1) / 2 <= clip.x1 and clip.y0 <= x.y <= clip.y1]
    inside_rules = [x for x in inside_rules if x.x1 - x.x0 <= clip.width + 4]
    glyphs += _signs(lines, inside_rules, glyphs, clip)
    latex = to_latex(glyphs, inside_rules)
    return latex, geo.union_box([g.bbox for g in glyphs if g.c.strip()]) if words and latex else None


def _signs(lines: list, rules: list[Rule], glyphs: list[Glyph], clip: pymupdf.Rect) -> list[Glyph]:
    """Radical signs just above the box whose bar in it starts at them: CMSY's sign hangs from
    its origin at the bar, so a box drawn round the formula's ink leaves its glyph box out."""
    signs = [g for _, line in lines for g in line if g.c == "√" and g not in glyphs and clip.x0 <= g.cx <= clip.x1]
    signs = [g for g in signs if g.bbox[1] < clip.y0 <= g.bbox[3] + 0.2 * g.size]
    return [g for g in signs if any(starts(g, r) and abs(r.y - g.baseline) <= 0.3 * g.size for r in rules)]


def with_inline_math(page: pymupdf.Page, to_px: pymupdf.Matrix, spans: tuple[TextSpan, ...]) -> tuple[TextSpan, ...]:
    """Text lines with their runs of mathematics written as `$latex$`; lines MuPDF split at a
    formula's shifted baseline (a sum's limits) are joined back into one."""
    if not spans or not has_math_fonts(page):
        return spans
    lines, rules = _with_surds(page, page_glyph_lines(page), page_rules(page))
    out: list[TextSpan | None] = list(spans)
    for row in mathrows.rows(lines):
        stacked = mathrows.stacked(row)
        merged = mathrows.row_glyphs(row, stacked)
        segments = inline_math.line_segments([g for _, g in merged], rules)
        found = [_same_line(out, pymupdf.Rect(box) * to_px) for box, _ in row] if segments else []
        found = [i for i in dict.fromkeys(found) if i is not None]
        if found:
            # A stacked row's spans would put a fraction's numerator after the words that follow
            # its denominator: its text is its glyphs'.
            line = mathrows.glyph_text(merged) if stacked else " ".join(out[i].text for i in found)
            text = inline_math.splice(line, segments)
            box = geo.union_box([out[i].bbox for i in found])
            out[found[0]] = replace(out[found[0]], text=text, bbox=box)
            for i in found[1:]:
                out[i] = None
    return tuple(s for s in out if s is not None)


def _same_line(spans: list[TextSpan | None], box: pymupdf.Rect) -> int | None:
    """The text line that covers most of `box` (at least half of each other's area)."""
    best, best_i = 0.5 * max(box.get_area(), 1e-6), None
    for i, s in enumerate(spans):
        if s is None:
            continue
        shared = (pymupdf.Rect(s.bbox) & box).get_area()
        if shared >= best and shared >= 0.5 * pymupdf.Rect(s.bbox).get_area():
            best, best_i = shared, i
    return best_i
