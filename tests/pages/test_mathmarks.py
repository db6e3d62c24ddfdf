"""Accents and negating slashes folded into the glyphs they mark (pages/mathmarks.py)."""

from __future__ import annotations

from hsd_cli.pages.formula import Glyph, to_latex
from tests.pages.test_formula import g


def test_katex_not_slash_over_a_relation_negates_it():
    """KaTeX sets `\\neq` as `=` with its `\\not` glyph (U+E020) in the same box: one `\\neq`."""
    glyphs = [g("i", 0), g("=", 8, font="KaTeX_Main-Regular"), g("\ue020", 8, font="KaTeX_Main-Regular"), g("j", 16)]
    assert to_latex(glyphs) == "i\\neq j"
    above = [g("i", 0, 80), g("=", 8, 80, font="KaTeX_Main-Regular"), g("j", 16, 80)]
    assert to_latex(above + glyphs) == "\\begin{aligned}i &=j \\\\ i &\\neq j\\end{aligned}"  # its own `=`


def test_an_italic_letters_accent_set_past_its_advance():
    """Palatino's `\\hat{f}`: the slanted f's advance ends at 243.2, its hat's middle is at 244.3
    (over the f's slanted top), before the `(` that follows: the hat is the f's."""
    f = Glyph("f", (240.2, 737.6, 243.2, 748.3), 745.5, 10.9, "URWPalladioL-Ital", italic=True)
    hat = Glyph("ˆ", (242.5, 734.8, 246.2, 745.7), 742.6, 10.9, "URWPalladioL-Roma")
    paren = Glyph("(", (244.7, 737.7, 248.3, 748.6), 745.5, 10.9, "URWPalladioL-Roma")
    xi = Glyph("ξ", (248.3, 737.7, 253.3, 748.6), 745.5, 10.9, "Rpxmi")
    close = Glyph(")", (253.3, 737.7, 256.9, 748.6), 745.5, 10.9, "URWPalladioL-Roma")
    assert to_latex([f, hat, paren, xi, close]) == "\\hat{f}(\\xi)"


def test_three_stops_in_a_row_are_one_ellipsis():
    """Palatino's `\\dots` between commas is three full stops: `\\ldots`, not `...`."""
    stops = [Glyph(".", (x, 92.5, x + 2.5, 102.5), 100.0, 10.0, "URWPalladioL-Roma") for x in (13, 17.4, 21.8)]
    glyphs = [g("q", 0, italic=True), g(",", 7, font="URWPalladioL-Roma"), *stops, g(",", 25, font="URWPalladioL-Roma")]
    assert to_latex([*glyphs, g("r", 30, italic=True)]) == "q,\\ldots,r"


def test_three_centred_dots_in_a_row_are_cdots():
    """Computer Modern's `\\cdots` is three CMSY centred dots a thin space apart: one `\\cdots`."""
    dots = [Glyph("·", (x, 92.5, x + 2.8, 102.5), 100.0, 10.0, "CMSY10") for x in (11, 15.4, 19.8)]
    assert to_latex([g("a", 0), g("+", 5, font="CMR10"), *dots, g("+", 24, font="CMR10"), g("b", 31)]) == "a+\\cdots+b"


def test_a_tilde_over_equals_is_cong():
    """TeX sets `\\cong` as `∼` over `=` at one x (they read `∼=`): one `\\cong`; over `−`, `\\simeq`."""
    tilde = Glyph("∼", (8, 87.5, 16, 96.9), 95.0, 10.0, "CMSY10")
    for low, latex in (("=", "\\cong"), ("−", "\\simeq")):
        under = Glyph(low, (8, 91.2, 16, 100.0), 98.0, 10.0, "CMR10")
        assert to_latex([g("a", 0), tilde, under, g("b", 18)]) == f"a{latex} b"
