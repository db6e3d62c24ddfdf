"""Formulas of several lines from a real PDF's glyphs (pages/mathgrid.py): matrices, binomials, aligned lines."""

from __future__ import annotations

from tests.pages.test_pdfmath import latex, page_with


def test_matrix_rows_and_columns_inside_tall_brackets():
    """Two rows between brackets spanning both are a matrix; its columns are the widths no row uses."""
    rows = [("1", 112, 92, 12, "tiro"), ("2", 140, 92, 12, "tiro"), ("3", 112, 108, 12, "tiro")]
    rows += [("4", 140, 108, 12, "tiro")]
    page = page_with([("A=", 70, 100, 12, "tiit"), ("[", 100, 110, 30, "tiro"), *rows, ("]", 152, 110, 30, "tiro")])
    assert latex(page) == "A=\\begin{bmatrix}1&2 \\\\ 3&4\\end{bmatrix}"


def test_binomial_is_two_entries_in_tall_parentheses():
    page = page_with([("(", 100, 110, 30, "tiro"), ("n", 112, 92, 12, "tiit"), ("k", 112, 108, 12, "tiit")])
    page.insert_text((124, 110), ")", fontsize=30, fontname="tiro")
    assert latex(page) == "\\binom{n}{k}"


def test_lines_of_a_display_aligned_at_their_relation_signs():
    """Lines whose `=` stand in one column are `aligned` there; a line that starts with `=` continues."""
    page = page_with([("f", 100, 100, 12, "tiit"), ("= 1+x", 110, 100, 12, "tiro"), ("= 2", 110, 120, 12, "tiro")])
    assert latex(page) == "\\begin{aligned}f &=1+x \\\\  &=2\\end{aligned}"


def test_a_fraction_is_one_line_and_a_line_below_it_no_denominator():
    """The bar joins numerator and denominator; the next line of the display stays apart."""
    pieces = [("a", 103, 94, 12, "tiit"), ("b", 103, 110, 12, "tiit"), ("= c", 115, 102, 12, "tiro")]
    pieces += [("d", 103, 130, 12, "tiit"), ("= e", 115, 130, 12, "tiro")]
    page = page_with(pieces, [(101, 111, 99)])
    assert latex(page) == "\\begin{aligned}\\frac{a}{b} &=c \\\\ d &=e\\end{aligned}"


def test_a_tall_brace_no_brace_closes_opens_cases():
    """`{` spanning two lines with nothing closing it: each line a value, then past its first wide
    gap its condition (further gaps, a `\\pmod`'s quad, stay in the condition)."""
    rows = [("1", 118, 92, 12, "tiro"), ("x", 140, 92, 12, "tiit"), ("0", 118, 108, 12, "tiro")]
    rows += [("y", 140, 108, 12, "tiit"), ("z", 170, 108, 12, "tiit")]
    page = page_with([("f=", 70, 100, 12, "tiit"), ("{", 100, 110, 30, "tiro"), *rows])
    assert latex(page) == "f=\\begin{cases}1&x \\\\ 0&y\\qquad z\\end{cases}"


def test_centred_lines_whose_relations_nearly_meet_are_gathered():
    """Two centred lines (`gathered`) whose `=` happen to stand a third of an em apart are no
    `aligned` pair: aligned relations start at one x."""
    page = page_with([("a", 100, 100, 12, "tiit"), ("= 1", 110, 100, 12, "tiro"), ("b", 104, 120, 12, "tiit")])
    page.insert_text((114, 120), "= 2", fontsize=12, fontname="tiro")
    assert latex(page) == "\\begin{gathered}a=1 \\\\ b=2\\end{gathered}"


def test_centred_lines_whose_relations_stand_a_hair_apart_are_gathered():
    """`x=r\\cos\\theta` over `y=r\\sin\\theta`, centred (`gathered`): left sides a hair apart in
    width put the `=` 0.03 em apart while the lines' middles agree exactly; aligned signs agree."""
    # Times italic: a is 0.056 em wider than x; the second line moved by half that is centred.
    page = page_with([("a = b", 100, 100, 12, "tiit"), ("x = b", 100.336, 120, 12, "tiit")])
    assert latex(page) == "\\begin{gathered}a=b \\\\ x=b\\end{gathered}"


def test_a_brace_over_aligned_equations_is_a_system():
    """`\\left\\{` before lines aligned at their `=` and no second column: a system of equations
    (`\\left\\{\\begin{aligned}...\\end{aligned}\\right.`), not cases."""
    rows = [("x", 118, 92, 12, "tiit"), ("= 1", 128, 92, 12, "tiro"), ("y", 118, 108, 12, "tiit")]
    rows += [("= 2", 128, 108, 12, "tiro")]
    page = page_with([("{", 100, 110, 30, "tiro"), *rows])
    assert latex(page) == "\\left\\{\\begin{aligned}x &=1 \\\\ y &=2\\end{aligned}\\right."


def test_a_matrix_column_gap_one_row_leaves_narrower_still_splits_every_row():
    """Entries centred in their columns: "1" over "-9" leaves a wide gap before "-4", while "-9"
    and "-1" stand under half an em apart; no row puts a glyph in that width, so both rows split."""
    rows = [("1", 114, 92, 12, "tiro"), ("-4", 127, 92, 12, "tiro"), ("-9", 112, 108, 12, "tiro")]
    rows += [("-1", 127, 108, 12, "tiro")]
    page = page_with([("B=", 70, 100, 12, "tiit"), ("(", 98, 110, 30, "tiro"), *rows, (")", 144, 110, 30, "tiro")])
    assert latex(page) == "B=\\begin{pmatrix}1&-4 \\\\ -9&-1\\end{pmatrix}"
