"""LaTeX rebuilt from glyph boxes, baselines and rules (pages/formula.py, pages/inline_math.py)."""

from __future__ import annotations

from hsd_cli.pages.formula import Glyph, Rule, to_latex
from hsd_cli.pages.inline_math import delimited, line_segments, splice


def g(c: str, x: float, base: float = 100.0, size: float = 10.0, font: str = "CMMI10", **kw) -> Glyph:
    """A glyph of width 0.6 em at x on baseline `base`."""
    return Glyph(c, (x, base - 0.75 * size, x + 0.6 * size, base + 0.25 * size), base, size, font, **kw)


def test_scripts_from_size_and_baseline_shift():
    """A smaller glyph raised after its base is a superscript, lowered a subscript; both stack."""
    glyphs = [g("x", 0), g("2", 6.2, 96, 7), g("i", 6.2, 102, 7), g("+", 12, font="CMR10"), g("y", 19)]
    assert to_latex(glyphs) == "x_{i}^{2}+y"  # not "x2i+y"


def test_fraction_from_rule():
    """Glyphs above and below a rule under both are a fraction; the rule alone is no glyph."""
    glyphs = [g("a", 3, 94), g("b", 3, 110), g("=", 14, 102, font="CMR10"), g("c", 22, 102)]
    assert to_latex(glyphs, [Rule(1, 10, 99.5)]) == "\\frac{a}{b}=c"


def test_sum_with_limits_and_greek():
    """Glyphs over and under a big operator are its limits; Greek letters become commands."""
    glyphs = [
        g("∑", 0, 104, 14, "CMEX10"),
        g("i", 2, 116, 7),
        g("=", 4, 116, 7, "CMR10"),
        g("1", 8, 116, 7, "CMR10"),
        g("n", 3, 88, 7),
        g("α", 12, 102),
        g("i", 18.2, 104, 7),
    ]
    glyphs[0] = Glyph("∑", (0, 88, 12, 108), 104, 14, "PazoMath")
    assert to_latex(glyphs) == "\\sum_{i=1}^{n}\\alpha_{i}"


def test_radical_under_its_bar():
    """Glyphs under a rule that starts at a radical sign are its radicand."""
    glyphs = [g("√", 0, font="CMSY10"), g("x", 7), g("+", 13, font="CMR10"), g("1", 19, font="CMR10")]
    assert to_latex(glyphs, [Rule(6, 26, 91)]) == "\\sqrt{x+1}"


def test_bold_calligraphic_and_operators():
    """Bold letters are \\mathbf, CMSY capitals \\mathcal; operators map to their commands."""
    glyphs = [g("v", 0, font="CMMIB10", bold=True), g("∈", 7, font="CMSY10"), g("V", 14, font="CMSY10")]
    glyphs += [g("≤", 21, font="CMSY10"), g("∞", 28, font="CMSY10"), g("∇", 35, font="CMSY10")]
    assert to_latex(glyphs) == "\\mathbf{v}\\in\\mathcal{V}\\leq\\infty\\nabla"


def test_prime_stays_in_its_subscript_and_brackets_fence_scripts():
    """`λ_{g'}`: the prime follows g inside the subscript; brackets around scripts get \\left/\\right."""
    glyphs = [g("λ", 0), g("g", 6.2, 102, 7), g("′", 10.5, 100.2, 5, "CMSY7")]
    assert to_latex(glyphs) == "\\lambda_{g^{\\prime}}"  # not \lambda_{g}^{\prime}
    fenced = [g("(", 0, font="CMR10"), g("x", 5), g("i", 11.2, 102, 7), g(")", 16, font="CMR10")]
    assert to_latex(fenced) == "\\left(x_{i}\\right)"


def test_equation_number_becomes_a_tag():
    """A `(12)` set far right of a display formula is its number, kept with it."""
    glyphs = [g("x", 0), g("=", 8, font="CMR10"), g("1", 16, font="CMR10")]
    glyphs += [g(c, 100 + 6 * i, font="CMR10") for i, c in enumerate("(12)")]
    assert to_latex(glyphs) == "x=1 \\tag{12}"


def test_inline_formula_in_a_line():
    """A run with math glyphs becomes `$..$` in the line's own text; prose and the full stop stay."""
    text_font = "Times-Roman"
    words = [g(c, 6 * i, font=text_font) for i, c in enumerate("Then ")]
    line = words + [g("x", 30), g("2", 36.2, 96, 7), g(" ", 40, font=text_font), g("=", 44, font="CMR10")]
    line += [g(" ", 50, font=text_font), g("y", 56), g(".", 62, font=text_font)]
    segments = line_segments(line)
    assert splice("Then x2 = y.", segments) == "Then $x^{2}=y$."
    assert line_segments([g(c, 6 * i, font=text_font) for i, c in enumerate("Plain words only")]) is None


def test_inline_delimiters_follow_the_target():
    """Targets that write `\\[..\\]` get inline `\\(..\\)`; a price's dollar signs stay as they are."""
    text = "Then $\\lambda_{g}=x$ costs $5 and $10."
    assert delimited(text, "brackets") == "Then \\(\\lambda_{g}=x\\) costs $5 and $10."
    assert delimited(text, "dollars") == text


def test_glyphs_that_draw_nothing_make_no_empty_script():
    """A zero-width space (KaTeX's strut) raised after a letter is no `x^{}`."""
    glyphs = [g("d", 0, italic=True), g("x", 6, italic=True), g("\u200b", 12, 96, 1)]
    assert to_latex(glyphs) == "dx"


def test_prime_of_a_limit_stays_in_the_limit():
    """`\\sum_{s'}`: the prime after the limit's `s` belongs to the limit, not to the operator."""
    glyphs = [Glyph("∑", (0, 88, 12, 108), 104, 14, "KaTeX_Size2"), g("s", 3, 116, 7, italic=True)]
    glyphs += [g("′", 7.5, 114, 5, "KaTeX_Main"), g("P", 15, 102, italic=True)]
    assert to_latex(glyphs) == "\\sum_{s^{\\prime}}P"


def test_a_much_smaller_glyph_barely_lowered_is_a_subscript():
    """KaTeX sets a subscript inside a superscript 0.08 em low: its size still says it is a script."""
    glyphs = [g("ε", 0, 100, 9.5, italic=True), g("j", 5, 100.7, 6.8, italic=True), g("/", 9, 100, 9.5, "Main")]
    assert to_latex(glyphs) == "\\varepsilon_{j}/"


def test_left_bracket_by_the_space_before_it():
    """After an italic q, a thin space more than its italic correction marks TeX's \\left(;
    after f its own correction alone leaves no \\left."""
    spaced = [g("q", 0, italic=True), g("(", 8.4, font="CMR10"), g("x", 13, italic=True), g(")", 19, font="CMR10")]
    assert to_latex(spaced) == "q\\left(x\\right)"
    tight = [g("f", 0, italic=True), g("(", 7.1, font="CMR10"), g("x", 12, italic=True), g(")", 18, font="CMR10")]
    assert to_latex(tight) == "f(x)"


def test_right_bracket_by_its_superscript_raised_as_on_a_box():
    """TeX raises a character's superscript a fixed 0.41 em; a \\right)'s by the group's height
    less a drop (0.46 em): `X^2 - (E X)^2` from that, `(E X)^2` when both stand alike."""

    def row(lift: float) -> list[Glyph]:
        head = [g("X", 0, italic=True), g("2", 7, 100 - 4.1, 7, "CMR7"), g("−", 12, font="CMSY10")]
        body = [g("(", 20, font="CMR10"), g("E", 24, font="MSBM10"), g("X", 30, italic=True), g(")", 36, font="CMR10")]
        return [*head, *body, g("2", 41, 100 - lift, 7, "CMR7")]

    assert to_latex(row(4.6)) == "X^{2}-\\left(\\mathbb{E}X\\right)^{2}"
    assert to_latex(row(4.1)) == "X^{2}-(\\mathbb{E}X)^{2}"


def test_katex_modifier_macron_is_a_bar_accent():
    """KaTeX draws \\bar with U+02C9 (a modifier letter, not the macron U+00AF) over its letter."""
    glyphs = [g("X", 0, italic=True), g("ˉ", 1.5, 97, font="KaTeX_Main"), g("n", 7, 101.5, 7, italic=True)]
    assert to_latex(glyphs) == "\\bar{X}_{n}"


def test_a_hanging_radical_sign_in_a_denominator():
    """CMSY's radical hangs from its origin at the bar: read at its radicand's baseline, it sits
    under the fraction bar with its radicand: \\frac{1}{\\sigma\\sqrt{2\\pi}}, not \\frac{1}{\\sigma 2\\pi}\\sqrt{}."""
    num = [g("1", 11, 93)]
    den = [
        g("σ", 0, 104, italic=True),
        g("√", 6.5, 98.5, font="CMSY10"),
        g("2", 15, 104, font="CMR10"),
        g("π", 21, 104),
    ]
    rules = [Rule(0, 27, 96.3), Rule(15, 27, 98.3)]  # the fraction bar, the radical's bar
    assert to_latex(num + den, rules) == "\\frac{1}{\\sigma\\sqrt{2\\pi}}"


def test_increment_sign_is_delta_and_a_starred_number_is_a_tag():
    """CMR's Delta glyph reads as U+2206 (its glyph name's Unicode): \\Delta; `(4*)` is a number."""
    glyphs = [g("\u2206", 0, font="CMR10"), g("G", 6, italic=True), g("=", 16, font="CMR10"), g("0", 24, font="CMR10")]
    glyphs += [g(c, 100 + 6 * i, font="CMR10") for i, c in enumerate("(4*)")]
    assert to_latex(glyphs) == "\\Delta G=0 \\tag{4*}"


def test_a_radical_in_a_numerator_stays_there():
    """A sign already on its radicand's baseline keeps it: the denominator's baseline, further
    under the radical's bar, does not pull it down (-b \\pm \\sqrt{b^2-4ac} over 2a)."""
    num = [g("b", 0, 93, italic=True), g("√", 7, 92.5, font=""), g("c", 14, 93, italic=True)]
    den = [g("2", 8, 106, font="CMR10"), g("a", 14, 106, italic=True)]
    rules = [Rule(0, 20, 96.3), Rule(12, 20, 84)]  # the fraction bar, the radical's bar
    assert to_latex(num + den, rules) == "\\frac{b\\sqrt{c}}{2a}"


def test_a_superscript_risen_as_on_a_box_without_a_character_to_compare():
    """No character of the row carries a superscript: TeX's own rise says it, 0.49 em is a
    \\right|'s (a character's is 0.41 em in a display)."""

    def row(rise: float) -> list[Glyph]:
        body = [g("|", 0, font="CMSY10"), g("x", 4, italic=True), g("|", 10, font="CMSY10")]
        return [*body, g("2", 14, 100 - rise, 7, "CMR7"), g("=", 20, font="CMR10"), g("1", 28, font="CMR10")]

    assert to_latex(row(4.9)) == "\\left|x\\right|^{2}=1"
    assert to_latex(row(4.1)) == "|x|^{2}=1"


def test_a_macron_struck_through_h_is_hbar():
    """TeX sets \\hbar as a macron on h's own baseline; \\bar raises it above the letter."""

    def h_with_macron(base: float) -> list:
        macron = g("\u00af", 0.5, base, font="CMR10")
        return [g("h", 0, italic=True), macron, g("=", 8, font="CMR10"), g("1", 16, font="CMR10")]

    assert to_latex(h_with_macron(100.3)) == "\\hbar=1"
    assert to_latex(h_with_macron(97)) == "\\bar{h}=1"


def test_an_upright_word_in_a_subscript_is_a_label():
    """`D_{KL}` with KL upright in the subscript: \\mathrm, a label; on the baseline an unknown
    upright word stays an operator (`\\operatorname{Var}`)."""
    glyphs = [g("D", 0), g("K", 7.2, 102, 7, "CMR7"), g("L", 11.5, 102, 7, "CMR7")]
    assert to_latex(glyphs) == "D_{\\mathrm{KL}}"  # not D_{\operatorname{KL}}
    glyphs = [g("V", 0, font="CMR10"), g("a", 6, font="CMR10"), g("r", 12, font="CMR10")]
    assert to_latex(glyphs) == "\\operatorname{Var}"
    # An operator name with its argument in a script stays an operator (`\operatorname{Ann}(x)`).
    sub = [g(c, 7.2 + 4.2 * k, 102, 7, "CMR7") for k, c in enumerate("Ann(")] + [g("x", 24, 102, 7)]
    glyphs = [g("D", 0), *sub, g(")", 28.2, 102, 7, "CMR7")]
    assert to_latex(glyphs) == "D_{\\operatorname{Ann}(x)}"


def test_a_wide_gap_between_atoms_is_a_quad():
    """Two relations set a quad apart after a comma keep the space (`a=b,\\quad c=d`); TeX's own
    spaces around a relation (0.28 em) stay unwritten."""
    glyphs = [g("a", 0, italic=True), g("=", 8.8, font="CMR10"), g("b", 19.6, italic=True), g(",", 25.6, font="CMR10")]
    glyphs += [g("c", 39.6, italic=True), g("=", 48.4, font="CMR10"), g("d", 59.2, italic=True)]
    assert to_latex(glyphs) == "a=b,\\quad c=d"
    glyphs[4:] = [g(x.c, x.bbox[0] + 10, font=x.font, italic=x.italic) for x in glyphs[4:]]
    assert to_latex(glyphs) == "a=b,\\qquad c=d"
    # An accented letter after the gap keeps its letter's box: `a,\quad\dot{p}`.
    dotted = [g("a", 0, italic=True), g(",", 6, font="CMR10"), g("p", 20, italic=True), g("˙", 21.5, font="CMR10")]
    assert to_latex(dotted) == "a,\\quad\\dot{p}"


def test_upright_words_with_a_word_space_are_text():
    """`\\quad\\text{for all} X` set in upright letters: one piece of text with its space (it read
    `\\operatorname{forall}`); one upright word stays an operator name."""
    words = [g(c, x, font="CMR10") for c, x in zip("forall", (20, 26, 32, 41, 47, 53), strict=True)]
    glyphs = [g("g", 0, italic=True), *words, g("X", 63, italic=True)]
    assert to_latex(glyphs) == "g\\quad\\text{for all}X"
    assert (
        to_latex([g("V", 0, font="CMR10"), g("a", 6, font="CMR10"), g("r", 12, font="CMR10")]) == "\\operatorname{Var}"
    )
    # Two operator names a thin space apart are one operator: `\operatorname*{arg\,max}`.
    argmax = [g(c, x, font="KaTeX_Main-Regular") for c, x in zip("argmax", (0, 6, 12, 19.7, 25.7, 31.7), strict=True)]
    assert to_latex(argmax) == "\\operatorname*{arg\\,max}"


def test_a_thin_space_between_ordinary_atoms_is_the_sources():
    """`e^{x}\\,dx`: TeX sets no space between two ordinary atoms, so a thin space there is the
    source's `\\,`; atoms side by side have none, and an operator's own space is TeX's."""
    glyphs = [g("e", 0, italic=True), g("x", 6, 96, 7, italic=True), g("d", 12, italic=True), g("x", 18, italic=True)]
    assert to_latex(glyphs) == "e^{x}\\,dx"


def test_a_variation_selector_draws_nothing():
    """acmart's big operators read `∫` then U+FE01 (a zero-width variation selector): no atom,
    no script (`\\int_{0}︁^{1}`)."""
    selector = Glyph("\ufe01", (6, 92.5, 6, 102.5), 100.0, 10.0, "CMEX10")
    assert to_latex([g("a", 0, italic=True), selector, g("b", 6, italic=True)]) == "ab"
