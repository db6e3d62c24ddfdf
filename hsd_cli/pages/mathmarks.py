"""Marks a formula sets over or through a glyph, folded into it: accents over letters
(`\\hat{f}`, `\\bar{X}`, `\\hbar`) and a negating slash through a relation (`\\neq`); and
three dots set as one ellipsis (`\\ldots`).
Coordinates: any one unit (PDF points here), y growing downwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hsd_cli.pages import mathchars as mc
from hsd_cli.pages.mathglyph import Glyph


def accented(items: list[Glyph], atom: Callable[[list[Glyph]], str]) -> list[Glyph]:
    """Items with each accent glyph set over a letter folded into it (`\\hat{u}`), the letter
    written by `atom` (formula.py's reading of a run of glyphs)."""
    for acc in [g for g in items if g.c in mc.ACCENTS]:
        base = _under(acc, [g for g in items if g.c.isalpha() and g is not acc])
        if base is not None and base in items:
            latex = "\\hbar" if _struck(acc, base) else f"{mc.ACCENTS[acc.c]}{{{atom([base])}}}"
            items = [replace(base, c="", latex=latex) if g is base else g for g in items if g is not acc]
    return items


def _under(acc: Glyph, letters: list[Glyph]) -> Glyph | None:
    """The letter an accent sits over: the one under its middle, or (an italic letter's accent
    is set to the right by its slant: Palatino's `\\hat{f}` starts past the f's advance) the
    nearest within a fifth of an em."""

    def off(g: Glyph) -> float:
        return max(g.bbox[0] - acc.cx, acc.cx - g.bbox[2], 0.0)

    near = [g for g in letters if off(g) <= 0.2 * g.size]
    return min(near, key=off, default=None)


def negated(items: list[Glyph]) -> list[Glyph]:
    """Items with each negating slash struck through a relation folded into it (`=` and KaTeX's
    `\\not` glyph over it are `\\neq`); a slash over nothing it negates is dropped."""
    slashes = [g for g in items if g.c in mc.NOT_SLASHES]
    for slash in slashes:
        rel = next((g for g in items if g.c in mc.NEGATED and _through(slash, g)), None)
        items = [replace(g, c=mc.NEGATED[g.c]) if g is rel else g for g in items if g is not slash]
    return items


def stacked_relations(items: list[Glyph]) -> list[Glyph]:
    """Items with a `∼` set over `=` or `−` at one x folded into one relation: TeX builds
    `\\cong` and `\\simeq` so (fontmath.ltx), and they read `∼=` side by side."""
    for tilde in [g for g in items if g.c == "∼"]:
        low = next((g for g in items if g.c in _UNDER_TILDE and _stacked_on(tilde, g)), None)
        if low is not None:
            items = [replace(g, c=_UNDER_TILDE[g.c]) if g is low else g for g in items if g is not tilde]
    return items


def _stacked_on(top: Glyph, low: Glyph) -> bool:
    return abs(top.bbox[0] - low.bbox[0]) <= 0.1 * low.size and top.baseline < low.baseline - 0.1 * low.size


def _through(slash: Glyph, g: Glyph) -> bool:
    middle = (slash.bbox[1] + slash.bbox[3]) / 2
    return g.bbox[0] <= slash.cx <= g.bbox[2] and g.bbox[1] <= middle <= g.bbox[3]


def _struck(acc: Glyph, base: Glyph) -> bool:
    """A macron on the h's own baseline strikes through it: TeX's \\hbar is a macron glyph set
    over h in line (Computer Modern, Times, Palatino), where \\bar raises it above the letter."""
    return base.c == "h" and mc.ACCENTS[acc.c] == "\\bar" and abs(acc.baseline - base.baseline) <= 0.1 * base.size


_UNDER_TILDE = {"=": "≅", "−": "≃", "-": "≃"}  # a relation under `∼` -> the stacked relation
_DOTS = {".": "…", "·⋅": "⋯"}  # one dot (or its look-alikes) -> three in a row


def ellipses(items: list[Glyph]) -> list[Glyph]:
    """Items with each three full stops in a row on one baseline, their middles under 0.6 em
    apart (a stop and a thin space: 0.44 em), as one `…`: Palatino's and Times' `\\dots` are
    three stops, which read `...`; three centred dots (Computer Modern's `\\cdots`) as one `⋯`."""
    for dot, joined in _DOTS.items():
        stops = sorted((g for g in items if g.c in dot), key=lambda g: g.bbox[0])
        for a, b, c in zip(stops, stops[1:], stops[2:], strict=False):
            if all(x in items for x in (a, b, c)) and _in_a_row(a, b) and _in_a_row(b, c):
                dots = replace(a, c=joined, bbox=(a.bbox[0], a.bbox[1], c.bbox[2], c.bbox[3]))
                items = [dots if g is a else g for g in items if g is not b and g is not c]
    return items


def _in_a_row(a: Glyph, b: Glyph) -> bool:
    return abs(a.baseline - b.baseline) <= 0.05 * a.size and 0.15 * a.size <= b.cx - a.cx <= 0.6 * a.size
