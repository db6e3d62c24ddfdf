"""Tall delimiters set from pieces joined into one glyph (pages/mathpieces.py)."""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.pages import mathpieces
from hsd_cli.pages.mathglyph import Glyph


def piece(c: str, x: float, y: float, size: float = 10.0) -> Glyph:
    return Glyph(c, (x, y, x + 0.7 * size, y + 0.5 * size), y, size, "txex")


def test_a_column_of_pieces_is_one_tall_delimiter():
    """txfonts' `\\left(` around a display sum: top, extenders, bottom at one x (U+F8EB...)."""
    col = [
        piece("\uf8eb", 133, 234),
        *(piece("\uf8ec", 133, 240 + 2.4 * i) for i in range(5)),
        piece("\uf8ed", 133, 252),
    ]
    x = Glyph("x", (140, 243, 145, 252), 250, 10.0, "rtxmi", italic=True)
    lines = [((133, 234, 145, 257), [*col, x])]
    out = mathpieces.joined(lines)
    assert [gs[0].c for _, gs in out] == ["x", "("]
    (paren,) = out[1][1]
    assert paren.big and paren.bbox[1] == 234 and paren.bbox[3] == 257
    assert out[0][0] == x.bbox  # the line's box shrinks to what is left in it
    hanging = [replace(g, bbox=(g.bbox[0], g.bbox[1] - 1, g.bbox[2], g.bbox[1] + 12)) for g in col]
    assert [gs[0].c for _, gs in mathpieces.joined([((133, 233, 145, 264), hanging)])] == ["("]


def test_pieces_of_two_delimiters_or_a_lone_piece_stay():
    """A bracket's top over a parenthesis's bottom is no delimiter; neither is one piece alone."""
    lines = [((0, 0, 10, 20), [piece("\u23a1", 0, 0), piece("\u239d", 0, 6)])]
    assert mathpieces.joined(lines) == lines
    lone = [((0, 0, 10, 10), [piece("\u23a1", 0, 0)]), ((50, 0, 60, 10), [piece("\u23a3", 50, 6)])]
    assert mathpieces.joined(lone) == lone  # too far apart across to be one column


def test_a_brace_with_extenders_and_middle():
    """A cases brace of four pieces in Unicode's names (⎧ ⎪ ⎨ ⎩): one `{`."""
    col = [piece("\u23a7", 5, 0), piece("\u23aa", 5, 5), piece("\u23a8", 5, 10), piece("\u23a9", 5, 15)]
    ((box, (brace,)),) = mathpieces.joined([((5, 0, 12, 20), col)])
    assert brace.c == "{" and box == (5, 0, 12, 20)


def test_a_column_of_extension_bars_is_one_tall_bar():
    """CMEX's `|` (code 0x0C) set three times under one another: a `vmatrix`'s bar; an ordinary
    `|` from a text font, even stacked, is left as it is (absolute values on two lines)."""
    bars = [Glyph("|", (5, y, 8, y + 12), y + 1, 10.0, "CMEX10", big=True) for y in (0, 6, 12)]
    ((box, (bar,)),) = mathpieces.joined([((5, 0, 8, 24), bars)])
    assert bar.c == "|" and bar.big and box == (5, 0, 8, 24)
    text = [Glyph("|", (5, y, 8, y + 10), y + 8, 10.0, "CMSY10") for y in (0, 10)]
    assert mathpieces.joined([((5, 0, 8, 20), text)]) == [((5, 0, 8, 20), text)]
