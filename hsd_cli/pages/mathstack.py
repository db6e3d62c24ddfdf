"""Stacked constructs of a formula: fractions (glyphs above and below a rule) and radicals (the
radicand under a bar that starts at a radical sign), each built into one item whose LaTeX holds
its parts, read by `row` (formula.py's reading of a row, passed in: the parts are rows too).
Coordinates: any one unit (PDF points here), y growing downwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hsd_cli.pages.mathglyph import Glyph, Rule, bottom, extent, top, union

Row = Callable[[list[Glyph], list[Rule]], str]  # a row's LaTeX from its glyphs and the rules


def fractions(items: list[Glyph], rules: list[Rule], all_rules: list[Rule], row: Row) -> list[Glyph]:
    """Items with each fraction (inner bars first) replaced by one built item."""
    for r in sorted(rules, key=lambda r: r.x1 - r.x0):
        near = [g for g in items if r.x0 - 1 <= g.cx <= r.x1 + 1]
        num = _stack([g for g in near if g.baseline < r.y], r.y, above=True)
        den = [g for g in near if g.baseline > r.y and _head(g) > r.y - 0.3 * g.size]
        den = _stack(den, r.y, above=False)
        if not num or not den:
            continue
        latex = f"\\frac{{{row(num, all_rules)}}}{{{row(den, all_rules)}}}"
        size = max(g.size for g in num + den)
        built = Glyph("", extent(num + den), r.y + 0.25 * size, size, latex=latex)
        items = [g for g in items if g not in num and g not in den] + [built]
    return items


def _head(g: Glyph) -> float:
    """How high a glyph under a bar reaches: its x-height over its baseline, or an extension
    glyph's top (its origin is its top; a sum opening a denominator hangs just under the bar)."""
    return top(g) if g.big else g.baseline - 0.6 * g.size


def _stack(pool: list[Glyph], y: float, above: bool) -> list[Glyph]:
    """The glyphs of `pool` set against a bar at `y`, and those stacked on them without a gap:
    a line of a display above or below the fraction stands apart and is not its numerator."""
    near = [g for g in pool if -0.2 * g.size <= (y - bottom(g) if above else top(g) - y) <= 0.6 * g.size]
    group, changed = near, bool(near)
    while changed:
        edge = min(top(g) for g in group) if above else max(bottom(g) for g in group)
        more = [g for g in pool if g not in group and (edge - bottom(g) if above else top(g) - edge) <= 0.1 * g.size]
        group, changed = group + more, bool(more)
    return group


def radicals(items: list[Glyph], bars: list[Rule], all_rules: list[Rule], row: Row) -> list[Glyph]:
    """Items with each radical sign and the radicand under its bar replaced by one built item."""
    for r in sorted(bars, key=lambda r: r.x1 - r.x0, reverse=True):
        sign = next((g for g in items if g.c == "√" and starts(g, r)), None)
        if sign is None:
            continue
        under = [g for g in items if r.x0 - 1 <= g.cx <= r.x1 + 1 and r.y < g.baseline <= r.y + 2.5 * g.size]
        inner = [x for x in all_rules if x is not r]
        built = replace(sign, c="", latex=f"\\sqrt{{{row(under, inner)}}}", big=False)
        built = replace(built, bbox=union([sign, *under]), baseline=max((g.baseline for g in under), default=r.y))
        items = [g for g in items if g is not sign and g not in under] + [built]
    return items


def seated(items: list[Glyph], bars: list[Rule]) -> list[Glyph]:
    """Radical signs on their radicand's baseline: TeX's radical glyphs hang from their origin
    at the bar (CMSY's and CMEX's), so a sign in a denominator read as standing above the
    fraction bar and was left out of it."""
    out = []
    for g in items:
        bar = next((r for r in bars if g.c == "√" and starts(g, r)), None)
        under = [h for h in items if bar and h is not g and bar.x0 - 1 <= h.cx <= bar.x1 + 1]
        feet = [h.baseline for h in under if bar.y < h.baseline <= bar.y + 2.5 * h.size]
        # The nearest baseline under the bar is the radicand's (a denominator may lie further down).
        out.append(replace(g, baseline=min(feet)) if feet and min(feet) > g.baseline + 0.3 * g.size else g)
    return out


def vincula(items: list[Glyph], rules: list[Rule]) -> list[Rule]:
    """The rules that are radicals' bars (each starts at a radical sign of `items`): not fractions'."""
    return [r for r in rules if any(g.c == "√" and starts(g, r) for g in items)]


def starts(sign: Glyph, r: Rule) -> bool:
    """Whether the bar `r` starts at the radical sign (its vinculum): at the sign's top right,
    past its middle; a fraction bar over a denominator that opens with the sign starts at its left."""
    middle = (sign.bbox[0] + sign.bbox[2]) / 2
    return middle <= r.x0 <= sign.bbox[2] + 0.6 * sign.size and r.y <= sign.baseline + 0.2 * sign.size
