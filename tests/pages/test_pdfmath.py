"""Formulas rebuilt from a real PDF's glyphs (pages/pdfmath.py): small pages written on the fly."""

from __future__ import annotations

import pymupdf

from hsd_cli.datatypes import Region, RegionKind
from hsd_cli.pages import pdfmath
from hsd_cli.pages.formula import Glyph


def page_with(pieces: list[tuple], rules: list[tuple] = ()) -> pymupdf.Page:
    """A page holding each (text, x, baseline y, size, base-14 font) and each rule (x0, x1, y)."""
    page = pymupdf.open().new_page(width=400, height=200)
    for text, x, y, size, font in pieces:
        page.insert_text((x, y), text, fontsize=size, fontname=font)
    for x0, x1, y in rules:
        page.draw_line((x0, y), (x1, y), width=0.5)
    return page


def latex(page: pymupdf.Page) -> str:
    lines, rules = pdfmath.page_glyph_lines(page), pdfmath.page_rules(page)
    return pdfmath.region_latex(lines, rules, page.rect)


def test_limits_under_an_operator_name():
    """`lim` with a smaller `n=0` set under it: its limit, not a subscript of `l` (`l_{n}\\operatorname{im}`)."""
    page = page_with([("lim", 100, 100, 12, "tiro"), ("n=0", 101, 110, 8, "tiit"), ("f", 125, 100, 12, "tiit")])
    assert latex(page) == "\\lim_{n=0}f"


def test_appendix_equation_number_and_micro_sign():
    """`(A3)` far right is the number of an appendix's equation; the micro sign µ is the letter mu."""
    page = page_with([("\u00b5=1", 100, 100, 12, "tiro"), ("(A3)", 300, 100, 12, "tiro")])
    assert latex(page) == "\\mu=1 \\tag{A3}"


def test_radical_drawn_as_one_path():
    """A browser's KaTeX draws `√` and its bar as one filled shape: read as a sign and a bar."""
    page = page_with([("x+1", 112, 100, 12, "tiit")])
    shape = page.new_shape()
    points = [(100, 96), (103, 95), (106, 103), (110, 87), (140, 87), (140, 88), (111, 88), (107, 104), (105, 104)]
    shape.draw_polyline(points + [(102, 97), (100, 97)])
    shape.finish(fill=(0, 0, 0), color=None, closePath=True)
    shape.commit()
    lines, rules = pdfmath._with_surds(page, pdfmath.page_glyph_lines(page), pdfmath.page_rules(page))
    assert pdfmath.region_latex(lines, rules, page.rect) == "\\sqrt{x+1}"


def test_a_radical_sign_above_a_formula_box_joins_its_radicand():
    """CMSY's radical hangs from its origin at the bar; MuPDF's box for it stands above, out of
    a layout box drawn round the formula's ink: its bar in the box brings it in."""
    from hsd_cli.pages.formula import Glyph, Rule

    def glyph(c: str, x: float, top: float, base: float) -> Glyph:
        return Glyph(c, (x, top, x + 6, base + 2), base, 10.0, "CMR10")

    body = [glyph("1", 0, 92, 100), glyph("+", 7, 92, 100), glyph("5", 23, 92, 100)]
    sign = Glyph("√", (14, 84, 22, 94), 97.0, 10.0, "CMSY10")
    lines = [((0, 92, 29, 102), body), ((14, 84, 22, 94), [sign])]
    clip = pymupdf.Rect(-1, 95, 40, 103)
    assert pdfmath.region_latex(lines, [Rule(22, 29, 97.2)], clip) == "1+\\sqrt{5}"


def test_a_tall_bracket_at_a_layout_boxs_edge_is_inside_it():
    """A layout box that ends at a matrix's last column cuts its closing bracket short of its
    middle: a tall delimiter counts by any overlap, a glyph by its middle."""
    clip = pymupdf.Rect(330, 210, 421, 264)
    bracket = Glyph("]", (420.0, 213.0, 424.7, 262.0), 214.4, 13.5, big=True)
    digit = Glyph("1", (420.0, 245.0, 427.0, 261.0), 258.0, 13.6, "KaTeX_Main-Regular")
    assert pdfmath._inside([bracket, digit], clip) == [bracket]


def test_a_brace_label_of_words_stays_in_its_formula():
    """`n times` under a brace is a line of words, which a formula box leaves out as a heading's:
    under a brace it is the brace's label."""
    from hsd_cli.pages.mathbraces import UNDER

    body = [Glyph(c, (10 + 7 * k, 92, 16 + 7 * k, 102), 100.0, 10.0, "CMR10") for k, c in enumerate("1+1")]
    brace = [Glyph(UNDER, (10, 104, 38, 107), 107.0, 10.0, big=True)]
    label = [Glyph("n", (10, 109, 14, 115), 114.0, 7.0, "Times-Italic", italic=True)]  # mathpazo sets n so
    label += [Glyph(c, (16 + 4 * k, 109, 20 + 4 * k, 115), 114.0, 7.0, "Times-Roman") for k, c in enumerate("times")]
    lines = [((10, 92, 31, 102), body), ((10, 104, 38, 107), brace), ((10, 109, 36, 115), label)]
    latex, _ = pdfmath.region_formula(lines, [], pymupdf.Rect(0, 80, 60, 120))
    assert latex == "\\underbrace{1+1}_{n\\text{ times}}"


def test_two_cards_formulas_level_with_each_other_under_a_figure_box_are_displays() -> None:
    """The layout model boxed two cards' titles and formulas as one figure. Each formula stands
    level with the other, which is no text beside it (a table row's cell would have some): both
    are displays."""

    def formula(text: str, x0: float) -> tuple[tuple, list[Glyph]]:
        glyphs = [Glyph(c, (x0 + 8 * k, 205, x0 + 8 * k + 7, 219), 216.0, 12.0, "CMMI10") for k, c in enumerate(text)]
        return (x0, 205, x0 + 8 * len(text), 219), glyphs

    lines = [formula("x=2", 230), formula("y=3", 290)]
    rows = [(box, glyphs) for box, glyphs in lines]
    figure = Region((214, 158, 537, 238), RegionKind.FIGURE, 0, "")
    found = [box for box, _ in lines]
    displays, dropped = pdfmath._displays(lines, [], pymupdf.Matrix(1, 1), [figure], (rows, found))
    assert [d.text for d in displays] == ["x=2", "y=3"]
