"""Fractions and radicals built from rules (pages/mathstack.py), their parts read by the row given."""

from __future__ import annotations

from hsd_cli.pages import mathstack
from hsd_cli.pages.mathglyph import Glyph, Rule


def g(c: str, x: float, base: float = 100.0, size: float = 10.0, font: str = "CMMI10") -> Glyph:
    """A glyph of width 0.6 em at x on baseline `base`."""
    return Glyph(c, (x, base - 0.75 * size, x + 0.6 * size, base + 0.25 * size), base, size, font)


def _row(items: list[Glyph], _rules: list[Rule]) -> str:
    return "".join(i.latex or i.c for i in sorted(items, key=lambda i: i.bbox[0]))


def test_a_rule_with_glyphs_above_and_below_is_one_fraction_item():
    num, den, after = g("a", 2, 96), g("b", 2, 108), g("c", 20, 102)
    items = mathstack.fractions([num, den, after], [Rule(0, 10, 99.5)], [], _row)
    assert [i.latex or i.c for i in items] == ["c", "\\frac{a}{b}"]


def test_a_line_standing_apart_above_the_bar_is_no_numerator():
    """Only glyphs set against the bar, and those stacked on them without a gap, are its parts."""
    far, num, den = g("z", 2, 70), g("a", 2, 96), g("b", 2, 108)
    items = mathstack.fractions([far, num, den], [Rule(0, 10, 99.5)], [], _row)
    assert sorted(i.latex or i.c for i in items) == ["\\frac{a}{b}", "z"]


def test_a_bar_starting_at_a_radical_sign_covers_its_radicand():
    sign, x = g("√", 0, font="CMSY10"), g("x", 7)
    bar = Rule(6, 14, 91)
    assert mathstack.starts(sign, bar) and not mathstack.starts(x, bar)
    (built,) = mathstack.radicals([sign, x], [bar], [bar], _row)
    assert built.latex == "\\sqrt{x}"


def test_a_hanging_radical_sign_is_seated_on_its_radicand():
    """TeX's radical glyph hangs from the bar: the sign is read on the radicand's baseline."""
    sign, x = g("√", 0, 90, font="CMSY10"), g("x", 7, 100)
    bar = Rule(6, 14, 91)
    seated = mathstack.seated([sign, x], [bar])
    assert seated[0].baseline == 100 and seated[1] is x


def test_a_fraction_bar_over_a_denominator_opening_with_a_radical_is_no_vinculum():
    """`\\frac{1}{\\sqrt{x}}` in small type: the fraction bar starts at the sign's left edge, 1.6 pt
    above the vinculum that starts at its top right; only the latter is the radical's."""
    sign = g("√", 0, 106, font="CMEX10")
    fraction, vinculum = Rule(0, 14, 96.5), Rule(6, 14, 98)
    assert mathstack.vincula([sign], [fraction, vinculum]) == [vinculum]


def test_a_sum_opening_a_denominator_is_in_it():
    """A text-style sum of CMEX hangs from its origin just under the bar (Boltzmann's
    p_i = e^{-E_i/kT} / sum_j e^{-E_j/kT}): its origin is its top, not a baseline above the bar."""
    num = g("e", 293, 376.2, 12.0)
    sigma = Glyph("\u2211", (283.0, 382.5, 295.6, 395.7), 383.7, 12.0, "CMEX10", big=True)
    den = g("e", 302, 392.7, 12.0)
    items = mathstack.fractions([num, sigma, den], [Rule(283.0, 337.3, 381.3)], [], _row)
    assert [i.latex or i.c for i in items] == ["\\frac{e}{\u2211e}"]
