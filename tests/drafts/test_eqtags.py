"""Equation numbers on page images stay with their equation (never an orphan `(13) (14)`)."""

from __future__ import annotations

from hsd_cli.datatypes import RegionKind, TextSpan
from hsd_cli.drafts.eqtags import claim_tags, split_equations, tag_of
from hsd_cli.drafts.markup import region_markup
from hsd_cli.drafts.rapid import _box_regions


def span(x0: float, y0: float, x1: float, y1: float, text: str) -> TextSpan:
    return TextSpan((x0, y0, x1, y1), text)


def test_tag_of_reads_numbers_only() -> None:
    """`(13)`, `(2.4a)` and full-width parentheses are numbers; a parenthesised word is not."""
    assert [tag_of(span(0, 0, 1, 1, t)) for t in ("(13)", "(2.4a)", "（7）", "(see)", "(13) x")] == [
        "13",
        "2.4a",
        "7",
        "",
        "",
    ]


def test_numbers_join_the_formula_box_at_their_height() -> None:
    """Two stacked numbers beside two formula boxes: each goes to its own box, none is left over."""
    formulas = [(200, 100, 700, 140), (200, 300, 700, 340)]
    text = span(100, 200, 900, 220, "Some sentence between the two equations.")
    n13, n14 = span(880, 110, 920, 130, "(13)"), span(880, 310, 920, 330, "(14)")
    claimed, rest = claim_tags(formulas, [n13, text, n14])
    # Not rest == [text, n13, n14]: grouped together they print as an orphan "(13) (14)".
    assert claimed == [[n13], [n14]] and rest == [text]


def test_number_beside_no_box_stays_on_its_row() -> None:
    """Without a formula box the number is glued after the line to its left, on one line."""
    formula = span(300, 100, 600, 130, "E = mc^2")
    claimed, rest = claim_tags([], [formula, span(880, 105, 920, 125, "(3)")])
    assert claimed == [] and [s.text for s in rest] == ["E = mc^2 (3)"]


def test_box_with_two_numbers_is_two_equations() -> None:
    """Each number takes the formula rows nearest to it."""
    lines = [
        span(200, 100, 600, 130, "a = b"),
        span(880, 105, 920, 125, "(1)"),
        span(200, 160, 600, 190, "c = d"),
        span(880, 165, 920, 185, "(2)"),
    ]
    equations = split_equations(lines)
    assert [(e.latex, e.tag) for e in equations] == [("a = b \\tag{1}", "1"), ("c = d \\tag{2}", "2")]


def test_numbered_equation_region_writes_a_tag() -> None:
    """The region's display math carries `\\tag{13}` inside `$$`, as the text-layer drafts write it."""
    lines = [span(200, 100, 600, 130, "x = y + z"), span(880, 105, 920, 125, "(13)")]
    (region,) = _box_regions((190, 95, 610, 135), RegionKind.EQUATION, lines)
    assert region_markup(region) == "$$\nx = y + z \\tag{13}\n$$"
    assert region.bbox == (190, 95, 920, 135)  # the box takes in its number


def test_a_built_up_fraction_in_a_display_formula_has_no_inline_delimiters() -> None:
    """`x = $\\frac{1}{2}$` in a formula box is written `x = \\frac{1}{2}` inside the display."""
    lines = [span(300, 100, 360, 130, "x ="), span(370, 90, 400, 140, "$\\frac{1}{2}$")]
    (region,) = _box_regions((290, 80, 420, 150), RegionKind.EQUATION, lines)
    assert region_markup(region) == "$$\nx = \\frac{1}{2}\n$$"
