"""Rows of glyph lines (pages/mathrows.py): level lines read as one, columns kept apart."""

from __future__ import annotations

from hsd_cli.pages import mathrows
from hsd_cli.pages.formula import Glyph


def test_the_next_columns_heading_number_is_not_on_a_lines_row():
    """A LaTeX page's narrow gutter (10 pt): the right column's section number "9", set larger,
    stands level with the left column's line, 10 pt after it. Rows of glyphs (whose lines inline
    mathematics is rebuilt over) must not take it in: "The operators of the 9 strong ..."."""
    words = [
        Glyph(c, (20 + 5 * k, 91, 24 + 5 * k, 102), 100.0, 10.0, "NimbusRomNo9L-Regu") for k, c in enumerate("of the")
    ]
    number = [Glyph("9", (59, 88, 66, 103), 100.0, 14.3, "NimbusRomNo9L-Medi", bold=True)]
    title = [
        Glyph(c, (80 + 8 * k, 88, 87 + 8 * k, 103), 100.0, 14.3, "NimbusRomNo9L-Medi") for k, c in enumerate("Prelim")
    ]
    lines = [((20, 91, 49, 102), words), ((59, 88, 66, 103), number), ((80, 88, 127, 103), title)]
    rows = mathrows.rows(lines)
    assert [[box for box, _ in row] for row in rows] == [[lines[0][0]], [lines[1][0], lines[2][0]]]


def test_a_line_set_sideways_joins_no_row() -> None:
    """A stamp up the page's edge is level with every line beside it: the lines stay rows of their
    own (inline mathematics once joined them all, the stamp's text into a heading's)."""
    up = [Glyph(c, (10, 100 + 8 * k, 20, 108 + 8 * k), 15.0, 10.0, "Times-Roman") for k, c in enumerate("STAMP")]
    word = [Glyph(c, (24 + 5 * k, 111, 29 + 5 * k, 122), 120.0, 10.0, "Times-Roman") for k, c in enumerate("Word")]
    lines = [((10, 100, 20, 140), up), ((24, 111, 44, 122), word)]
    assert [[box for box, _ in row] for row in mathrows.rows(lines)] == [[lines[0][0]], [lines[1][0]]]


def test_two_whole_lines_a_row_took_together_stay_line_after_line() -> None:
    """A tall line (a radical in it) shares most of a line's height above it: the row holds both.
    Whole lines overlapping side by side are no formula's stacked pieces: their glyphs and text
    go line after line, not interleaved letter by letter."""

    def glyphs(text: str, y0: float) -> list[Glyph]:
        return [Glyph(c, (72 + 5 * k, y0, 77 + 5 * k, y0 + 9), y0 + 7, 10.0, "CMR10") for k, c in enumerate(text)]

    upper, lower = glyphs("domain. Furthermore", 379), glyphs("river scales as", 383)
    row = [((72, 379, 167, 388), upper), ((72, 383, 147, 400), lower)]
    assert not mathrows.stacked(row)
    merged = mathrows.row_glyphs(row, mathrows.stacked(row))
    assert "".join(g.c for _, g in merged) == "domain. Furthermoreriver scales as"
