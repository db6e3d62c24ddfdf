"""A row's atoms joined into LaTeX (pages/mathtokens.py): fences, norm bars, \\pmod."""

from __future__ import annotations

from hsd_cli.pages.mathtokens import joined
from tests.pages.test_pdfmath import latex, page_with


def test_brackets_around_scripts_or_set_apart_are_left_right():
    tokens = ["f", "(", "x_{i}", ")"]
    assert joined(tokens, [False] * 4) == "f\\left(x_{i}\\right)"
    plain = ["f", "(", "x", ")"]
    assert joined(plain, [False] * 4) == "f(x)"
    assert joined(plain, [False, True, False, False]) == "f\\left(x\\right)"  # a thin space before it
    assert joined(["\\int_{S}", "(", "x", ")"], [False, True, False, False]) == "\\int_{S}(x)"  # after an operator


def test_norm_bars_and_the_parallel_relation():
    """`∥x∥` opening after `=` is a norm; `P∥Q` between two letters is the relation."""
    tokens = ["\\parallel", "\\mathbf{x}_{n}", "\\parallel_{2}", "\\leq", "1"]
    assert joined(tokens, [False] * 5) == "\\left\\|\\mathbf{x}_{n}\\right\\|_{2}\\leq 1"
    assert joined(["P", "\\parallel", "Q"], [False] * 3) == "P\\parallel Q"


def test_mod_in_parentheses_is_pmod():
    assert joined(["a", "(", "\\operatorname{mod}", "p", ")"], [False] * 5) == "a\\pmod{p}"
    # The em TeX sets before the bracket, measured as a quad, is the \\pmod's own.
    assert joined(["a", "\\quad", "(", "\\operatorname{mod}", "p", ")"], [False] * 6) == "a\\pmod{p}"


def test_a_bracket_a_thin_space_after_a_letter_on_a_page():
    """`f` then `(` a thin space apart (TeX's \\left): drawn from real glyph boxes."""
    page = page_with([("E", 100, 100, 12, "tiro"), ("[x]", 110, 100, 12, "tiro")])
    assert latex(page) == "E\\left[x\\right]"


def test_a_closer_whose_scripts_sit_as_on_a_box_closes_a_left_right_pair():
    tokens = ["-", "(", "\\mathbb{E}", "X", ")^{2}"]
    assert joined(tokens, [False] * 5, [False] * 4 + [True]) == "-\\left(\\mathbb{E}X\\right)^{2}"
    assert joined(tokens, [False] * 5) == "-(\\mathbb{E}X)^{2}"


def test_a_stretched_opener_left_open_is_closed_at_the_row_end():
    """A display clipped at its column's edge lost its \\right): the stretched `(` still opens
    a \\left group, closed at the end; a plain `[` of a half-open interval `[0, 1)` stays."""
    tokens = ["\\exp", "(", "-", "\\frac{a}{b}"]
    assert joined(tokens, [False] * 4, None, [False, True, False, False]) == "\\exp\\left(-\\frac{a}{b}\\right)"
    assert joined(["[", "0", ",", "1", ")"], [False] * 5) == "[0,1)"


def test_bars_whose_closer_is_scripted_as_a_box_are_left_right():
    tokens = ["|", "x", "|^{2}", "\\leq", "1"]
    assert joined(tokens, [False] * 5, [False, False, True, False, False]) == "\\left|x\\right|^{2}\\leq 1"
    assert joined(tokens, [False] * 5) == "|x|^{2}\\leq 1"
