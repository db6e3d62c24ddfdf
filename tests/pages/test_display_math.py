"""Display formulas the layout model missed, found from a real PDF's glyphs (pages/display_math.py)."""

from __future__ import annotations

import pymupdf
import pytest

from hsd_cli.datatypes import RegionKind
from hsd_cli.pages import pdfmath
from tests.pages.test_pdfmath import page_with


def test_a_formula_row_set_apart_is_a_display_with_its_fraction_parts(monkeypatch):
    """A row of mathematics alone between paragraphs, its fraction's numerator and denominator
    (lines of their own in MuPDF) beside it, is one display formula; prose stays text."""
    pieces = [("Some words of a paragraph run here.", 50, 60, 11, "tiro")]
    pieces += [("E", 100, 100, 12, "tiit"), ("k", 108, 103, 8, "tiit"), ("= mv", 114, 100, 12, "tiit")]
    pieces += [("1", 143, 94, 12, "tiro"), ("2", 143, 110, 12, "tiro")]
    pieces += [("Then more words of the next paragraph.", 50, 140, 11, "tiro")]
    page = page_with(pieces, [(141, 151, 98)])
    monkeypatch.setattr(pdfmath, "has_math_fonts", lambda page: True)  # base-14 fonts stand in for math fonts
    found = pdfmath.with_equations(page, pymupdf.Matrix(1, 1), ())
    assert [(r.kind, r.text) for r in found] == [(RegionKind.EQUATION, "E_{k}=mv\\frac{1}{2}")]


def test_a_formula_inside_a_line_of_prose_stays_inline(monkeypatch):
    monkeypatch.setattr(pdfmath, "has_math_fonts", lambda page: True)
    page = page_with([("We set x", 50, 60, 11, "tiro"), ("2", 94, 56, 8, "tiro"), ("= y here.", 100, 60, 11, "tiro")])
    assert pdfmath.with_equations(page, pymupdf.Matrix(1, 1), ()) == ()


def test_no_display_inside_a_table(monkeypatch):
    """A cell holding `2.25 ± 0.01`, other cells level with it, stays in its table."""
    from hsd_cli.datatypes import Region

    monkeypatch.setattr(pdfmath, "has_math_fonts", lambda page: True)
    page = page_with([("Steel", 40, 100, 12, "tiro"), ("2.25 \u00b1 0.01", 100, 100, 12, "tiro")])
    table = Region((30, 80, 200, 120), RegionKind.TABLE, 0, "")
    assert pdfmath.with_equations(page, pymupdf.Matrix(1, 1), (table,)) == (table,)


def test_a_display_in_a_layout_box_spanning_two_columns(monkeypatch):
    """A formula alone in its column stays a display though the layout model's table box also
    covers the table in the next column (its cells are far to the right, not beside it)."""
    from hsd_cli.datatypes import Region

    monkeypatch.setattr(pdfmath, "has_math_fonts", lambda page: True)
    pieces = [("x", 100, 100, 12, "tiit"), ("2", 106, 95, 8, "tiro"), ("= y", 112, 100, 12, "tiit")]
    page = page_with([*pieces, ("Steel 2.5", 330, 100, 12, "tiro")])
    table = Region((30, 80, 400, 120), RegionKind.TABLE, 0, "")
    found = pdfmath.with_equations(page, pymupdf.Matrix(1, 1), (table,))
    assert [r.text for r in found if r.kind is RegionKind.EQUATION] == ["x^{2}=y"]


# The right column's left edge and the box's right edge: columns far apart, and 1.5 em apart (a
# CSS column gap; the left display clipped at its edge), which the formula rules kept apart
# though nearer than 2 em.
@pytest.mark.parametrize("right_x, box_x1", [(300, 350), (110, 160)], ids=["wide gutter", "gutter of 1.5 em"])
def test_a_formula_box_over_two_columns_is_split(monkeypatch, right_x, box_x1):
    """The layout model's one formula box over two columns' displays gives two displays."""
    from hsd_cli.datatypes import Region

    monkeypatch.setattr(pdfmath, "has_math_fonts", lambda page: True)
    left = [("x", 60, 100, 12, "tiit"), ("2", 66, 95, 8, "tiro"), ("= y", 72, 100, 12, "tiit")]
    right = [("z", right_x, 100, 12, "tiit"), ("3", right_x + 6, 95, 8, "tiro"), ("= w", right_x + 12, 100, 12, "tiit")]
    page = page_with(left + right)
    box = Region((50, 80, box_x1, 110), RegionKind.EQUATION, 0, "")
    found = pdfmath.with_equations(page, pymupdf.Matrix(1, 1), (box,))
    assert [r.text for r in found] == ["x^{2}=y", "z^{3}=w"]


@pytest.mark.parametrize("sentence_y", [90, 75.5], ids=["apart", "set-close"])
def test_a_formula_box_over_two_cards_stacked_is_split(monkeypatch, sentence_y):
    """The layout model's one formula box over a card's formula, its text, the next card's
    heading and formula gives two displays (words between them), the words left to the text;
    also where the formula stands closer to its sentence than a display's usual 0.15 em."""
    from hsd_cli.datatypes import Region

    monkeypatch.setattr(pdfmath, "has_math_fonts", lambda page: True)
    upper = [("x", 60, 60, 12, "tiit"), ("2", 66, 55, 8, "tiro"), ("= y", 72, 60, 12, "tiit")]
    words = [
        ("Taken together, the kernel is shifted.", 40, sentence_y, 11, "tiro"),
        ("5. Quadratic formula", 40, 120, 11, "tibo"),
    ]
    lower = [("z", 60, 150, 12, "tiit"), ("3", 66, 145, 8, "tiro"), ("= w", 72, 150, 12, "tiit")]
    page = page_with(upper + words + lower)
    box = Region((35, 40, 250, 160), RegionKind.EQUATION, 0, "")
    found = pdfmath.with_equations(page, pymupdf.Matrix(1, 1), (box,))
    assert [r.text for r in found] == ["x^{2}=y", "z^{3}=w"]
    assert found[0].bbox[3] < 80 and found[1].bbox[1] > 130


def test_a_formula_box_over_a_grid_of_cards_is_split(monkeypatch):
    """One formula box over two columns of cards, two cards in each: pairs in one column have
    words between them, pairs in two columns stand apart; four displays, not one formula."""
    from hsd_cli.datatypes import Region

    monkeypatch.setattr(pdfmath, "has_math_fonts", lambda page: True)
    glyphs = []
    for x, letter in ((60, "x"), (260, "z")):
        glyphs += [(letter, x, 60, 12, "tiit"), ("2", x + 6, 55, 8, "tiro"), ("= y", x + 12, 60, 12, "tiit")]
        glyphs += [("Taken together, the kernel is shifted.", x - 20, 90, 11, "tiro")]
        glyphs += [("5. Quadratic formula", x - 20, 120, 11, "tibo")]
        glyphs += [(letter, x, 150, 12, "tiit"), ("3", x + 6, 145, 8, "tiro"), ("= w", x + 12, 150, 12, "tiit")]
    page = page_with(glyphs)
    box = Region((35, 40, 330, 160), RegionKind.EQUATION, 0, "")
    found = pdfmath.with_equations(page, pymupdf.Matrix(1, 1), (box,))
    assert sorted(r.text for r in found) == ["x^{2}=y", "x^{3}=w", "z^{2}=y", "z^{3}=w"]


def test_a_numerator_seeded_alone_joins_its_formula():
    """A fraction's numerator (the highest row, so seeded first) stands a bar's gap above its
    denominator; the row beside the fraction takes both: one display, not a numerator box
    inside it (which kept the layout model's box over two columns from being split)."""
    from hsd_cli.pages import display_math
    from hsd_cli.pages.mathglyph import Glyph

    def row(text: str, x: float, base: float, size: float = 12.0) -> tuple:
        glyphs = [
            Glyph(c, (x + 7 * i, base - 9, x + 7 * i + 7, base + 3), base, size, "KaTeX_Math-Italic", True)
            for i, c in enumerate(text)
        ]
        return (x, base - 9, x + 7 * len(text), base + 3), glyphs

    numerator = row("ez", 124, 516)  # its box ends 8 pt above the denominator's: the bar between
    lhs, denominator = row("σ=", 96, 525), row("∑e", 120, 536)  # the lhs more than an em left of it
    boxes = display_math.display_boxes([numerator, lhs, denominator], [])
    assert boxes == [(96, 507, 138, 539)]


def test_a_formula_box_over_a_heading_shrinks_to_the_formula(monkeypatch):
    """The layout model's formula box also covers the card's heading above the formula: its
    LaTeX leaves the heading out, and its box shrinks to the formula so the heading's line is
    read as text (it was lost with the box)."""
    from hsd_cli.datatypes import Region

    monkeypatch.setattr(pdfmath, "has_math_fonts", lambda page: True)
    heading = [("1. Bellman equation", 60, 60, 12, "tibo")]
    formula = [("V", 60, 90, 12, "tiit"), ("a", 68, 94, 8, "tiit"), ("= R", 76, 90, 12, "tiit")]
    page = page_with([*heading, *formula])
    box = Region((55, 48, 200, 100), RegionKind.EQUATION, 0, "")
    (found,) = pdfmath.with_equations(page, pymupdf.Matrix(1, 1), (box,))
    assert found.text == "V_{a}=R"
    assert 60 < found.bbox[1] < 80 and found.bbox[3] >= 94


def test_parts_a_wide_space_apart_in_one_column_are_one_display():
    """`a ≡ a  (mod p)`: \\pmod sets an em before its bracket, which split the display in two;
    a line of the column above spans both, so they are one formula. Without such a line (two
    formulas side by side in two cards) they stay two."""
    from hsd_cli.pages import display_math
    from hsd_cli.pages.mathglyph import Glyph

    def row(text: str, x: float, base: float, font: str = "KaTeX_Math-Italic") -> tuple:
        glyphs = [
            Glyph(c, (x + 7 * i, base - 9, x + 7 * i + 7, base + 3), base, 12.0, font) for i, c in enumerate(text)
        ]
        return (x, base - 9, x + 7 * len(text), base + 3), glyphs

    left, right = row("a≡a", 100, 100), row("(mod p)", 134, 100)  # 13 pt (1.1 em) apart
    line = row("The column's line of text above them both", 60, 70, "Times-Roman")
    assert display_math.display_boxes([line, left, right], []) == [(100, 91, 183, 103)]
    assert display_math.display_boxes([left, right], []) == [(100, 91, 121, 103), (134, 91, 183, 103)]


def test_an_equation_number_at_the_columns_edge_joins_its_display():
    """A display the layout model missed takes `(3.1)` at its column's right edge (a text line
    near them spans both) into its box; a number-like row without such a line stays out."""
    from hsd_cli.pages import display_math
    from hsd_cli.pages.mathglyph import Glyph

    def row(text: str, x: float, base: float, font: str = "CMMI10") -> tuple:
        glyphs = [
            Glyph(c, (x + 7 * i, base - 9, x + 7 * i + 7, base + 3), base, 12.0, font) for i, c in enumerate(text)
        ]
        return (x, base - 9, x + 7 * len(text), base + 3), glyphs

    formula, number = row("x=αy", 100, 100), row("(3.1)", 260, 100, "CMR10")
    line = row("A line of the column's text above the display", 60, 70, "Times-Roman")
    assert display_math.display_boxes([line, formula, number], []) == [(100, 91, 295, 103)]
    assert display_math.display_boxes([formula, number], []) == [(100, 91, 128, 103)]


def test_a_figure_box_over_two_cards_formulas_gives_way_to_them(monkeypatch):
    """The layout model boxed the formulas of two cards side by side as one figure: together
    they fill it, so it goes and both are displays (each fills less than half of it)."""
    from hsd_cli.datatypes import Region

    monkeypatch.setattr(pdfmath, "has_math_fonts", lambda page: True)
    left = [("x", 60, 100, 12, "tiit"), ("2", 66, 95, 8, "tiro"), ("= y", 72, 100, 12, "tiit")]
    right = [("z", 110, 100, 12, "tiit"), ("3", 116, 95, 8, "tiro"), ("= w", 122, 100, 12, "tiit")]
    page = page_with(left + right)
    figure = Region((58, 88, 146, 106), RegionKind.FIGURE, 0, "")
    found = pdfmath.with_equations(page, pymupdf.Matrix(1, 1), (figure,))
    assert sorted(r.text for r in found) == ["x^{2}=y", "z^{3}=w"]


def test_an_inline_formula_below_does_not_hold_a_display_in_its_paragraph():
    """The next line's inline `v` (a math font's tall box reaching up to the display) does not
    make the display a line of that paragraph: the text glyphs' own boxes say how near it is."""
    from hsd_cli.pages import display_math
    from hsd_cli.pages.mathglyph import Glyph

    formula = [
        Glyph(c, (100 + 7 * i, 91, 107 + 7 * i, 103), 100, 12.0, "KaTeX_Math-Italic", True) for i, c in enumerate("α=β")
    ]
    words = [
        Glyph(c, (60 + 6 * i, 106, 66 + 6 * i, 118), 115, 12.0, "Times-Roman") for i, c in enumerate("For the one")
    ]
    inline = Glyph("v", (80, 103.5, 86, 116), 113, 12.0, "KaTeX_Math-Italic", True)
    rows = [((100, 91, 121, 103), formula), ((60, 103.5, 126, 118), [*words, inline])]
    assert display_math.display_boxes(rows, []) == [(100, 91, 121, 103)]


def test_an_inline_formula_in_any_font_below_a_display():
    """`n = 64` set in KaTeX's roman font (no math-only font name) in the next line: its tall
    boxes are fewer than the text's glyphs, whose boxes say where the line stands."""
    from hsd_cli.pages import display_math
    from hsd_cli.pages.mathglyph import Glyph

    formula = [
        Glyph(c, (100 + 7 * i, 91, 107 + 7 * i, 103), 100, 12.0, "KaTeX_Math-Italic", True) for i, c in enumerate("α=β")
    ]
    words = [Glyph(c, (60 + 6 * i, 106, 66 + 6 * i, 118), 115, 12.0, "Serif") for i, c in enumerate("The structure")]
    inline = [
        Glyph(c, (140 + 6 * i, 103.5, 146 + 6 * i, 118), 115, 12.0, "KaTeX_Main-Regular") for i, c in enumerate("=64")
    ]
    rows = [((100, 91, 121, 103), formula), ((60, 103.5, 160, 118), [*words, *inline])]
    assert display_math.display_boxes(rows, []) == [(100, 91, 121, 103)]


@pytest.mark.parametrize("dx, display", [(100, True), (0, False)], ids=["centred", "flush left"])
def test_a_display_nearly_touching_the_next_line_when_centred_between_lines(monkeypatch, dx, display):
    """Small type sets the fraction's denominator 1 pt above the next line (under 0.15 em): set
    centred, lines reaching past it on both sides, it is a display; flush with them, a line."""
    monkeypatch.setattr(pdfmath, "has_math_fonts", lambda page: True)
    pieces = [("Some words of a paragraph run here and run on and on again.", 50, 60, 11, "tiro")]
    pieces += [("E", 50 + dx, 100, 12, "tiit"), ("k", 58 + dx, 103, 8, "tiit"), ("= mv", 64 + dx, 100, 12, "tiit")]
    pieces += [("1", 93 + dx, 94, 12, "tiro"), ("2", 93 + dx, 110, 12, "tiro")]
    pieces += [("Then more words of the next paragraph go on and on again.", 50, 126, 11, "tiro")]
    page = page_with(pieces, [(91 + dx, 101 + dx, 98)])
    found = pdfmath.with_equations(page, pymupdf.Matrix(1, 1), ())
    assert [r.text for r in found] == (["E_{k}=mv\\frac{1}{2}"] if display else [])


def test_a_matrix_split_at_its_columns_gap_is_one_display():
    """`K = (1 5 / -1 8)` with no text line near to say the two halves share a column: the half
    that opens a tall bracket and the half that closes it are one display, not `K=(1 -1` and `5 8)`."""
    from hsd_cli.pages.display_math import display_boxes
    from hsd_cli.pages.formula import Glyph
    from tests.pages.test_formula import g

    def row(*glyphs):
        return (
            (
                min(x.bbox[0] for x in glyphs),
                min(x.bbox[1] for x in glyphs),
                max(x.bbox[2] for x in glyphs),
                max(x.bbox[3] for x in glyphs),
            ),
            list(glyphs),
        )

    rows = [row(g("K", 100, 105), g("=", 108, 105, font="CMR10"))]
    rows.append(row(Glyph("(", (118, 93, 124, 118), 94, 10, "CMEX10", big=True)))
    rows += [row(g("1", 126, 100, font="CMR10")), row(g("−", 126, 112, font="CMSY10"), g("1", 132, 112, font="CMR10"))]
    rows += [row(g("5", 152, 100, font="CMR10")), row(g("8", 152, 112, font="CMR10"))]
    rows.append(row(Glyph(")", (159, 93, 165, 118), 94, 10, "CMEX10", big=True)))
    assert len(display_boxes(rows, [])) == 1
