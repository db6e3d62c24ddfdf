"""Formulas of several lines: matrices inside tall brackets, and displays of stacked lines.

Both are read from the same cut: a height at which no glyph of the formula stands and no rule
runs (a rule there is a fraction bar). Bands between cuts that each hold full-size glyphs are
lines; bands of small glyphs alone (a big operator's limits) stay with the band beside them.
- Inside a pair of tall brackets, two or more lines are a matrix's rows; its columns are the
  widths no row puts a glyph in. Parentheses around two single entries and no bar: `\\binom`.
- A display of two or more lines whose first relation signs (=, <, ≤, ...) stand at one
  x is `aligned` at them (a line that starts with one continues the line above); other stacks,
  and lines centred on one axis whose signs stand nearly but not exactly in a column, are
  `gathered`.
"""

from __future__ import annotations

from collections.abc import Callable

from hsd_cli.pages.mathglyph import Glyph, Rule, bottom, tall, top, union

Row = Callable[[list[Glyph], list[Rule]], str]

RELATIONS = frozenset("=<>≤≥≈≡≠∼≃≅∝→⇒⇔≦≧≪≫⊂⊆∈")
_ENVS = {"(": "pmatrix", "[": "bmatrix", "|": "vmatrix", "‖": "Vmatrix", "{": "Bmatrix"}
_PAIRS = {"(": ")", "[": "]", "|": "|", "‖": "‖", "{": "}"}
COLUMN_GAP = 0.5  # ems of empty width between two matrix columns (arraycolsep is about 1 em)
# Relation signs of aligned lines start at one x (their column's edge); those of `gathered`
# lines, each centred, stand apart by half the difference of the lines' widths, often a
# third of an em (`\nabla\cdot E = \rho/\varepsilon_0` over `\nabla\cdot B = 0`).
ALIGNED = 0.2
EXACT = 0.01  # ems: aligned signs stand in one column to the PDF's precision (gathered ones 0.03 em apart)


def lines(items: list[Glyph], rules: list[Rule]) -> list[list[Glyph]]:
    """`items` in lines from the top, cut where no glyph stands and no rule runs."""
    if len(items) < 2:
        return [items] if items else []
    size = max(g.size for g in items if not g.big)
    ordered = sorted(items, key=top)
    bands, low = [[ordered[0]]], bottom(ordered[0])
    for g in ordered[1:]:
        if top(g) - low > 0.1 * size and not _bar_between(rules, low, top(g), bands[-1] + [g]):
            bands.append([])
        bands[-1].append(g)
        low = max(low, bottom(g)) if len(bands[-1]) > 1 else bottom(g)
    return _merged(bands, size)


def matrices(items: list[Glyph], rules: list[Rule], row: Row) -> list[Glyph]:
    """`items` with each pair of tall brackets and the rows between them as one built item."""
    sizes = sorted(g.size for g in items if g.c not in _ENVS and g.c not in _PAIRS.values())
    body = sizes[len(sizes) // 2] if sizes else 0.0
    for opener in sorted((g for g in items if g.c in _ENVS and _spans(g, body)), key=lambda g: -g.bbox[0]):
        closer = _closer(opener, items, body)
        if closer is None or opener not in items:
            continue
        inside = [g for g in items if opener.bbox[2] - 1 <= g.cx <= closer.bbox[0] + 1 and _within(g, opener)]
        inside = [g for g in inside if g is not opener and g is not closer]
        rows = lines(inside, rules)
        if len(rows) < 2:
            continue
        latex = _grid(opener.c, _columns(rows), rules, row)
        mid = (opener.bbox[1] + opener.bbox[3]) / 2
        size = max(g.size for g in inside)
        built = Glyph("", union([opener, closer]), mid + 0.25 * size, size, latex=latex)
        items = [g for g in items if g not in inside and g is not opener and g is not closer] + [built]
    return _cases(items, rules, row, body)


def _cases(items: list[Glyph], rules: list[Rule], row: Row, body: float) -> list[Glyph]:
    """`items` with each tall left brace that no brace closes, and the lines to its right, as one
    `cases` item: each line a value, then (past its first wide gap) its condition."""
    for brace in sorted((g for g in items if g.c == "{" and _spans(g, body)), key=lambda g: -g.bbox[0]):
        if brace not in items or _closer(brace, items, body) is not None:
            continue
        inside = [g for g in items if g is not brace and g.cx >= brace.bbox[2] - 1 and _within(g, brace)]
        rows = lines(inside, rules) if inside else []
        if len(rows) < 2:
            continue
        cells = [_two(_cells(r)) for r in rows]
        tex = " \\\\ ".join("&".join(row(c, _rules_in(rules, c)) for c in r) for r in cells)
        latex = f"\\begin{{cases}}{tex}\\end{{cases}}"
        if all(len(r) == 1 for r in cells) and _aligned(rows):  # a system of equations, not cases
            latex = f"\\left\\{{{stacked(rows, rules, row)}\\right."
        mid = (brace.bbox[1] + brace.bbox[3]) / 2
        size = max(g.size for g in inside)
        built = Glyph("", union([brace, *inside]), mid + 0.25 * size, size, latex=latex)
        items = [g for g in items if g not in inside and g is not brace] + [built]
    return items


def _two(cells: list[list[Glyph]]) -> list[list[Glyph]]:
    """A case's cells as its two columns: a condition's own wide gaps (`\\pmod`'s quad) stay in it."""
    return cells if len(cells) <= 2 else [cells[0], [g for c in cells[1:] for g in c]]


def stacked(rows: list[list[Glyph]], rules: list[Rule], row: Row) -> str:
    """Lines of one display: `aligned` at their relation signs when those stand in a column."""
    marks = [_relation(r) for r in rows]
    if _aligned(rows):
        body = " \\\\ ".join(_aligned_line(r, m, rules, row) for r, m in zip(rows, marks, strict=True))
        return f"\\begin{{aligned}}{body}\\end{{aligned}}"
    body = " \\\\ ".join(row(r, _rules_in(rules, r)) for r in rows)
    return f"\\begin{{gathered}}{body}\\end{{gathered}}"


def _aligned(rows: list[list[Glyph]]) -> bool:
    """Whether every line's first relation sign starts at one x, and the lines are not centred on
    one axis more exactly than their signs stand in one column (gathered lines whose left sides
    differ by a letter's width: `x=r\\cos\\theta` over `y=r\\sin\\theta`)."""
    xs = [m.bbox[0] for m in map(_relation, rows) if m is not None]
    size = max(g.size for r in rows for g in r)
    if len(xs) != len(rows) or _spread(xs) > ALIGNED * size:
        return False
    centres = [(min(g.bbox[0] for g in r) + max(g.bbox[2] for g in r)) / 2 for r in rows]
    return _spread(xs) <= EXACT * size or _spread(xs) <= _spread(centres)


def _spread(values: list[float]) -> float:
    return max(values) - min(values)


def _aligned_line(r: list[Glyph], mark: Glyph, rules: list[Rule], row: Row) -> str:
    left = [g for g in r if g.cx < mark.bbox[0]]
    right = [g for g in r if g not in left]
    return f"{row(left, _rules_in(rules, left)) if left else ''} &{row(right, _rules_in(rules, right))}"


def _relation(r: list[Glyph]) -> Glyph | None:
    """The first relation sign of a line at its full size (a relation in a script is no column)."""
    size = max(g.size for g in r)
    marks = [g for g in r if g.c in RELATIONS and g.size >= 0.85 * size]
    return min(marks, key=lambda g: g.bbox[0], default=None)


def _grid(bracket: str, rows: list[list[list[Glyph]]], rules: list[Rule], row: Row) -> str:
    cells = [[row(c, _rules_in(rules, c)) for c in r] for r in rows]
    if bracket == "(" and len(cells) == 2 and all(len(r) == 1 for r in cells):
        return f"\\binom{{{cells[0][0]}}}{{{cells[1][0]}}}"
    env = _ENVS[bracket]
    body = " \\\\ ".join("&".join(r) for r in cells)
    return f"\\begin{{{env}}}{body}\\end{{{env}}}"


def _columns(rows: list[list[Glyph]]) -> list[list[list[Glyph]]]:
    """A matrix's rows in cells: each row's own gaps wider than COLUMN_GAP, and the widths no row
    puts a glyph in where some row has such a gap. Entries centred in their columns leave a
    narrower gap between longer entries ("-9" and "-1" under "1" and "-4")."""
    own = [_cells(r) for r in rows]
    cuts = [
        (a, b) for a, b in _empty_widths([g for r in rows for g in r]) if any(_cut_within(cells, a, b) for cells in own)
    ]
    return [_split_at(cells, cuts) for cells in own]


def _empty_widths(items: list[Glyph]) -> list[tuple[float, float]]:
    """The x intervals between the glyphs, read across every row, that none of them covers."""
    out, right = [], float("-inf")
    for g in sorted(items, key=lambda g: g.bbox[0]):
        if g.bbox[0] > right > float("-inf"):
            out.append((right, g.bbox[0]))
        right = max(right, g.bbox[2])
    return out


def _cut_within(cells: list[list[Glyph]], a: float, b: float) -> bool:
    """One of the row's cell breaks lies in the interval (a, b)."""
    ends = [max(g.bbox[2] for g in c) for c in cells[:-1]]
    starts = [min(g.bbox[0] for g in c) for c in cells[1:]]
    return any(end <= b and start >= a for end, start in zip(ends, starts, strict=True))


def _split_at(cells: list[list[Glyph]], cuts: list[tuple[float, float]]) -> list[list[Glyph]]:
    """The row's cells, each split again at the cuts its glyphs stand on either side of."""
    out: list[list[Glyph]] = []
    for cell in cells:
        parts: list[list[Glyph]] = []
        for g in sorted(cell, key=lambda g: g.bbox[0]):
            if not parts or any(max(x.bbox[2] for x in parts[-1]) <= a and g.bbox[0] >= b for a, b in cuts):
                parts.append([])
            parts[-1].append(g)
        out += parts
    return out


def _cells(r: list[Glyph]) -> list[list[Glyph]]:
    """One matrix row's glyphs in cells, split at gaps wider than COLUMN_GAP."""
    out: list[list[Glyph]] = []
    right = float("-inf")
    for g in sorted(r, key=lambda g: g.bbox[0]):
        if not out or g.bbox[0] - right > COLUMN_GAP * g.size and g.size >= 0.85 * max(x.size for x in r):
            out.append([])
        out[-1].append(g)
        right = max(right, g.bbox[2])
    return out


def _spans(g: Glyph, body: float) -> bool:
    """A bracket tall enough for several lines: by its own font's box, or set in a larger size."""
    return tall(g) or (g.bbox[3] - g.bbox[1]) >= 1.6 * body


def _closer(opener: Glyph, items: list[Glyph], body: float) -> Glyph | None:
    """The tall bracket closing `opener`: the nearest to its right at the same height."""
    want = _PAIRS[opener.c]
    found = [g for g in items if g.c == want and g is not opener and g.bbox[0] > opener.bbox[2]]
    found = [g for g in found if _spans(g, body)]
    found = [g for g in found if abs(g.bbox[1] - opener.bbox[1]) <= 0.3 * opener.size]
    return min(found, key=lambda g: g.bbox[0], default=None)


def _within(g: Glyph, bracket: Glyph) -> bool:
    mid = (top(g) + bottom(g)) / 2
    return bracket.bbox[1] <= mid <= bracket.bbox[3]


def _bar_between(rules: list[Rule], y0: float, y1: float, near: list[Glyph]) -> bool:
    box = union(near)
    return any(y0 - 1 <= r.y <= y1 + 1 and r.x0 < box[2] and r.x1 > box[0] for r in rules)


def _merged(bands: list[list[Glyph]], size: float) -> list[list[Glyph]]:
    """Bands without a full-size glyph (limits, a lone script) joined to the nearest full band."""
    full = [b for b in bands if any(g.size >= 0.85 * size and not g.big for g in b)]
    if len(full) < 2:
        return [[g for b in bands for g in b]]
    out = [list(b) for b in full]
    for b in bands:
        if b not in full:
            mid = sum(g.baseline for g in b) / len(b)
            home = min(out, key=lambda f: min(abs(g.baseline - mid) for g in f))
            home += b
    return out


def _rules_in(rules: list[Rule], items: list[Glyph]) -> list[Rule]:
    if not items:
        return []
    x0, y0, x1, y1 = union(items)
    return [r for r in rules if x0 - 1 <= r.x0 and r.x1 <= x1 + 1 and y0 - 1 <= r.y <= y1 + 1]
