"""Which words of a line are mathematics (pages/inline_math.py): rows of a page told apart."""

from __future__ import annotations

from hsd_cli.pages.inline_math import is_words, row_kind
from tests.pages.test_formula import g


def _word(text: str, x: float, **kw) -> list:
    return [g(c, x + 6 * i, font="Times-Roman", **kw) for i, c in enumerate(text)]


def test_row_kinds():
    """A formula row (a math glyph, operator names and bold vectors beside it), a part (a digit
    alone: a denominator), words of text, and words with a formula among them."""
    formula = [g("θ", 0), *_word(" cos ", 6), g("F", 40, bold=True), g("=", 48, font="Times-Roman")]
    assert row_kind(formula) == "formula"
    assert row_kind([g("2", 0, font="Times-Roman")]) == "part"
    assert row_kind(_word("Bellman equation", 0)) == "text" and is_words(_word("Bellman equation", 0))
    assert row_kind([*_word("where ", 0), g("θ", 40)]) == "mixed"
    blackboard = [g("E", 0, font="MSBM10"), g("[", 8, font="Times-Roman"), g("X", 12, italic=True)]
    assert row_kind(blackboard) == "formula"  # a blackboard letter is mathematics by itself


def test_an_operator_name_of_four_letters_is_no_word():
    """`κ = tanh(y) + x`: tanh (upright, four letters) is an operator name, the row mathematics;
    it is written \\tanh."""
    from hsd_cli.pages.formula import to_latex

    row = [g("κ", 0, italic=True), g("=", 8, font="CMR10")]
    row += [g(c, 16 + 5 * i, font="Times-Roman") for i, c in enumerate("tanh")]
    row += [g("(", 37, font="Times-Roman"), g("y", 41, italic=True), g(")", 47, font="Times-Roman")]
    assert row_kind(row) == "formula"
    assert to_latex(row) == "\\kappa=\\tanh(y)"
    words = [g(c, 5 * i, font="Times-Roman") for i, c in enumerate("than")]
    assert row_kind(words) == "text"


def test_a_footnote_mark_before_an_upright_word_is_text():
    """A footnote opens with its raised number set close before the word: `¹In this paper`
    stays text (not `$I^{1}n$`); a raised number before an italic letter is still mathematics."""
    from hsd_cli.pages.inline_math import line_segments

    note = [g("1", 0, 96, 7, font="Times-Roman"), *_word("In this paper we go on.", 4.2)]
    assert row_kind(note) == "text" and line_segments(note) is None
    assert row_kind([g("1", 0, 96, 7, font="Times-Roman"), g("x", 4.2, italic=True)]) == "formula"


def test_a_relation_between_italic_letter_runs_is_a_formula():
    """mathpple's `PV = nRT`: text-font italic letters, the text font's `=`; nothing marks it as
    mathematics but that it is a relation between runs of italic letters and holds no word."""
    pv = [g("P", 0, italic=True, font="URWPalladioL-Ital"), g("V", 7, italic=True, font="URWPalladioL-Ital")]
    eq = [g(" ", 14, font="CMR10"), g("=", 17, font="CMR10"), g(" ", 24, font="CMR10")]
    nrt = [g(c, x, italic=True, font="URWPalladioL-Ital") for c, x in (("n", 28), ("R", 34), ("T", 40))]
    assert row_kind([*pv, *eq, *nrt]) == "formula"
    assert row_kind([*eq[1:], *nrt]) != "formula"  # a relation with nothing before it
    prose = [g(c, 60 + 6 * i, italic=True, font="URWPalladioL-Ital") for i, c in enumerate("value")]
    assert row_kind([*pv, *eq, *nrt, g(" ", 50), *prose]) != "formula"  # an italic word of five letters


def test_katex_upright_words_are_its_formula():
    """KaTeX sets `\\operatorname{rank}(A)+\\operatorname{nullity}(A)=n` in its own fonts, the names
    upright in KaTeX_Main: its fonts set formulas alone, so the line is one formula, not text."""
    from hsd_cli.pages.formula import to_latex

    main = "KaTeX_Main-Regular"
    row = [g(c, 5 * i, font=main) for i, c in enumerate("rank(")] + [g("A", 25, font="KaTeX_Math-Italic", italic=True)]
    row += [g(c, 31 + 5 * i, font=main) for i, c in enumerate(")+nullity(")]
    row += [g("A", 81, font="KaTeX_Math-Italic", italic=True), g(")", 87, font=main), g("=", 93, font=main)]
    assert row_kind(row) == "formula"
    assert to_latex(row) == "\\operatorname{rank}(A)+\\operatorname{nullity}(A)="


def test_an_operator_name_applied_to_its_argument_joins_the_formula():
    """`w_k + tanh(n)` in a text font's italic (mathpazo's), the name and its argument one word:
    `tanh(n)` is no text word, the line one formula (it read `$w_{k}+$ tanh(n)`)."""
    from hsd_cli.pages.inline_math import line_segments

    row = [g("w", 0, font="Times-Italic", italic=True), g("k", 6, 103, 7, font="Times-Italic", italic=True)]
    row += [g("+", 12, font="Times-Roman")] + [g(c, 21 + 5 * i, font="Times-Roman") for i, c in enumerate("tanh(")]
    row += [g("n", 46, font="Times-Italic", italic=True), g(")", 52, font="Times-Roman")]
    assert line_segments(row) == [("wk+tanh(n)", "w_{k}+\\tanh(n)")]
