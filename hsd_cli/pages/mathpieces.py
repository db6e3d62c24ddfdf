"""Tall delimiters set from pieces, joined into one glyph each.

TeX builds a delimiter taller than its largest size from an extension font's pieces: a top, a
bottom, a middle for braces, and repeated extenders between them (txfonts' and pxfonts' `\\left(`
around a sum, a three-row `bmatrix` in any font). MuPDF names each piece by its glyph name
(`parenlefttp` is U+F8EB in Adobe's private area; fonts with Unicode names use U+239B...); alone
a piece means nothing, so the formula lost the delimiter and its matrix. A column of pieces of one
delimiter, set one under the other, becomes that delimiter as one tall glyph spanning them.
Coordinates: PDF points, y growing downwards.
"""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.pages.mathglyph import Glyph, union

_KINDS = {
    "(": "\uf8eb\uf8ec\uf8ed\u239b\u239c\u239d",
    ")": "\uf8f6\uf8f7\uf8f8\u239e\u239f\u23a0",
    "[": "\uf8ee\uf8ef\uf8f0\u23a1\u23a2\u23a3",
    "]": "\uf8f9\uf8fa\uf8fb\u23a4\u23a5\u23a6",
    "{": "\uf8f1\uf8f2\uf8f3\u23a7\u23a8\u23a9",
    "}": "\uf8fc\uf8fd\uf8fe\u23ab\u23ac\u23ad",
}
PIECES = {p: delim for delim, pieces in _KINDS.items() for p in pieces}
_EXTENDERS = frozenset("\uf8f4\u23aa")  # a brace's extender serves both braces
# A tall `|` or `‖` is its extension font's one bar glyph repeated (a three-row `vmatrix`).
_BARS = {"|": "|", "‖": "‖", "\u23d0": "|"}
_GAP = 0.6  # ems between two pieces of one column at most
_SHIFT = 0.3  # ems two pieces of one column may stand apart across


def is_piece(g: Glyph) -> bool:
    return g.c in PIECES or g.c in _EXTENDERS or (g.big and g.c in _BARS)


def _kind(g: Glyph) -> str | None:
    """The delimiter a piece belongs to (None: an extender, which serves either brace)."""
    return _BARS[g.c] if g.big and g.c in _BARS else PIECES.get(g.c)


def joined(lines: list[tuple[tuple, list[Glyph]]]) -> list[tuple[tuple, list[Glyph]]]:
    """Text lines with each column of delimiter pieces taken out of its lines and added as a
    line of one tall delimiter glyph; a lone piece, or a column of extenders only, is left."""
    pieces = [g for _, gs in lines for g in gs if is_piece(g)]
    if len(pieces) < 2:
        return lines
    columns = _columns(pieces)
    used = {id(g) for col in columns for g in col}
    out = []
    for box, gs in lines:
        kept = [g for g in gs if id(g) not in used]
        if kept:
            out.append((box if len(kept) == len(gs) else union(kept), kept))
    for col in columns:
        g = _delimiter(col)
        out.append((g.bbox, [g]))
    return out


def _columns(pieces: list[Glyph]) -> list[list[Glyph]]:
    """Pieces in columns (one under the other, each close below the last) that name one
    delimiter by a top, middle or bottom piece (or are bars)."""
    cols: list[list[Glyph]] = []
    for g in sorted(pieces, key=lambda g: (g.bbox[1], g.bbox[0])):
        home = next((c for c in cols if _continues(c[-1], g)), None)
        if home is None:
            cols.append([g])
        else:
            home.append(g)
    return [c for c in cols if len(c) >= 2 and len({_kind(g) for g in c} - {None}) == 1]


def _continues(last: Glyph, g: Glyph) -> bool:
    size = max(last.size, g.size)
    kinds = {_kind(last), _kind(g)} - {None}
    return (
        len(kinds) <= 1
        and abs(g.bbox[0] - last.bbox[0]) <= _SHIFT * size
        and last.bbox[1] < g.bbox[1]
        and g.bbox[1] - last.bbox[3] <= _GAP * size  # boxes that hang from their origin overlap
    )


def _delimiter(col: list[Glyph]) -> Glyph:
    """One glyph for the column: its delimiter, the column's box, its origin at the top (as an
    extension font's glyph hangs from its origin)."""
    delim = next(k for k in map(_kind, col) if k)
    box = union(col)
    size = max(g.size for g in col)
    return replace(col[0], c=delim, bbox=box, baseline=box[1] + 0.1 * size, size=size, big=True, latex="")
