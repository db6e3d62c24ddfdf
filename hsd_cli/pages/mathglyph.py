"""A formula's pieces: glyphs (or built parts) with their box and baseline, and horizontal rules.

Coordinates: any one unit (PDF points here), y growing downwards.
"""

from __future__ import annotations

from dataclasses import dataclass

from hsd_cli.datatypes import BBox


@dataclass(frozen=True, slots=True)
class Glyph:
    """One glyph (or a built piece: a fraction, a radical) with its box and baseline."""

    c: str
    bbox: BBox
    baseline: float
    size: float
    font: str = ""
    italic: bool = False
    bold: bool = False
    latex: str = ""  # built pieces: their LaTeX; glyphs: "" (from `c`)
    big: bool = False  # a sized delimiter or a big operator drawn from an extension font

    @property
    def cx(self) -> float:
        return (self.bbox[0] + self.bbox[2]) / 2


@dataclass(frozen=True, slots=True)
class Rule:
    """A horizontal line: a fraction bar or a radical's vinculum."""

    x0: float
    x1: float
    y: float


_ASCENDERS = frozenset("bdfhkltβδζθλξ∂()[]{}|‖/!?√∫∑∏")
_DESCENDERS = frozenset("gjpqyβγζημξρφχψ,;()[]{}|‖/∫∑∏")
TALL = 1.6  # a glyph this many font sizes tall (or from an extension font) spans several lines


def tall(g: Glyph) -> bool:
    return g.big or (g.bbox[3] - g.bbox[1]) >= TALL * g.size


def top(g: Glyph) -> float:
    """The glyph's top: its box for tall and built pieces, else its ascent by its letter (MuPDF's
    boxes are the font's, taller than the glyph: they would join lines that stand apart)."""
    if g.latex or tall(g):
        return g.bbox[1]
    high = g.c.isupper() or g.c.isdigit() or g.c in _ASCENDERS
    return g.baseline - (0.72 if high else 0.47 if g.c.islower() else 0.62) * g.size


def bottom(g: Glyph) -> float:
    if g.latex or tall(g):
        return g.bbox[3]
    return g.baseline + (0.22 if g.c in _DESCENDERS else 0.02) * g.size


def union(items: list[Glyph]) -> BBox:
    return (
        min(g.bbox[0] for g in items),
        min(g.bbox[1] for g in items),
        max(g.bbox[2] for g in items),
        max(g.bbox[3] for g in items),
    )


def extent(items: list[Glyph]) -> BBox:
    """The box the glyphs' ink takes (by top and bottom): a built piece's box."""
    return (min(g.bbox[0] for g in items), min(map(top, items)), max(g.bbox[2] for g in items), max(map(bottom, items)))
