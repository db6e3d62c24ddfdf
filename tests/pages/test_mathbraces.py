"""Horizontal braces (pages/mathbraces.py): a brace glyph or TeX's pieces, its body and its label."""

from __future__ import annotations

from hsd_cli.pages.formula import Glyph, Rule, to_latex
from hsd_cli.pages.mathbraces import OVER, UNDER
from tests.pages.test_formula import g

BODY = [g("a", 0), g("+", 7, font="CMR10"), g("b", 14), g("+", 21, font="CMR10"), g("d", 28)]
BODY += [g("=", 35, font="CMR10"), g("c", 42)]  # `a+b+d=c`, the brace under (over) `a+b+d`


def _label(base: float) -> list[Glyph]:
    """`n times` in script size: an italic n, then an upright word after a space."""
    word = [g(ch, 11 + 4.2 * i, base, 7, font="CMR7") for i, ch in enumerate("times")]
    return [g("n", 4, base, 7, italic=True), *word]


def test_a_drawn_brace_under_glyphs_is_an_underbrace_with_its_label():
    """KaTeX's brace (one glyph here, pdfglyphs.page_braces) under `a+b`, `n times` under it."""
    brace = Glyph(UNDER, (0, 103, 34, 106), 106, 10, big=True)
    assert to_latex([*BODY, brace, *_label(112)]) == "\\underbrace{a+b+d}_{n\\text{ times}}=c"


def test_tex_brace_pieces_and_their_rules_are_one_underbrace():
    """cmex10's pieces (`|`, `{`, `z`, `}` read by their codes) with rules between: no fraction
    of `a+b` over the label, no `z` in the formula."""
    pieces = [
        Glyph(c, (x, 102, x + 4.5, 115), 103, 10, "CMEX10", big=True)
        for c, x in (("|", 0), ("{", 12.5), ("z", 17), ("}", 29.5))
    ]
    rules = [Rule(4.5, 12.5, 103.5), Rule(21.5, 29.5, 103.5)]
    assert to_latex([*BODY, *pieces, *_label(113)], rules) == "\\underbrace{a+b+d}_{n\\text{ times}}=c"


def test_an_overbrace_has_its_label_above():
    brace = Glyph(OVER, (0, 89, 34, 92), 92, 10, big=True)
    assert to_latex([*BODY, brace, *_label(86)]) == "\\overbrace{a+b+d}^{n\\text{ times}}=c"


def test_a_brace_over_nothing_is_left_out():
    assert to_latex([*BODY, Glyph(UNDER, (60, 103, 90, 106), 106, 10, big=True)]) == "a+b+d=c"
