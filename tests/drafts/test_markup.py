"""Region drafts written in a target's conventions."""

from __future__ import annotations

import pytest

from hsd_cli.datatypes import Region, RegionKind, TableCell
from hsd_cli.drafts.markup import DraftStyle, page_markdown, region_markup, table_markup

HTML = DraftStyle(table="html", heading="plain", formula="brackets", figure="<!-- image -->", drop_furniture=False)
MD = DraftStyle()

# A 3x3 table whose first cell spans two columns and whose last column spans two rows.
CELLS = (
    TableCell(0, 0, "Model", col_span=2, is_header=True),
    TableCell(0, 2, "Score", is_header=True),
    TableCell(1, 0, "a|b"),
    TableCell(1, 1, "x"),
    TableCell(1, 2, "9", row_span=2),
    TableCell(2, 0, "c"),
    TableCell(2, 1, "y"),
)


def region(kind: RegionKind, text: str = "", order: int = 0, **kw) -> Region:
    return Region((0, 0, 10, 10), kind, order, text, **kw)


def test_heading_levels() -> None:
    """Hash headings follow the level; unknown level writes ##; plain style writes the text."""
    assert region_markup(region(RegionKind.TITLE, "Intro", level=1), MD) == "# Intro"
    assert region_markup(region(RegionKind.TITLE, "Intro", level=3), MD) == "### Intro"
    assert region_markup(region(RegionKind.TITLE, "Intro"), MD) == "## Intro"
    assert region_markup(region(RegionKind.TITLE, "Intro", level=1), HTML) == "Intro"


def test_html_table_with_spans() -> None:
    """Origin cells only, with rowspan/colspan; text is not escaped (targets write it raw)."""
    html = region_markup(region(RegionKind.TABLE, cells=CELLS), HTML)
    assert html == (
        '<table><tr><td colspan="2">Model</td><td>Score</td></tr>'
        '<tr><td>a|b</td><td>x</td><td rowspan="2">9</td></tr>'
        "<tr><td>c</td><td>y</td></tr></table>"
    )


def test_markdown_table_repeats_merged_cells() -> None:
    """Pipe table: header rule after row 1, merged cells repeated, pipes escaped."""
    md = region_markup(region(RegionKind.TABLE, cells=CELLS), MD)
    assert md.splitlines() == [
        "| Model | Model | Score |",
        "|---|---|---|",
        "| a\\|b | x | 9 |",
        "| c | y | 9 |",
    ]


def test_gfm_writes_a_two_row_heading_as_html_with_th() -> None:
    """A pipe table keeps one heading row: a two-row heading goes to HTML, empty cells kept."""
    cells = (
        TableCell(0, 1, "ReACT", col_span=2),
        TableCell(1, 0, "#"),
        TableCell(1, 1, "Procedure"),
        TableCell(1, 2, "Completion"),
        TableCell(2, 0, "25"),
        TableCell(2, 2, "0.60"),
    )
    gfm = DraftStyle(table="gfm")
    assert region_markup(region(RegionKind.TABLE, cells=cells), gfm) == (
        '<table><tr><th></th><th colspan="2">ReACT</th></tr>'
        "<tr><th>#</th><th>Procedure</th><th>Completion</th></tr>"
        "<tr><td>25</td><td></td><td>0.60</td></tr></table>"  # not <td>25</td><td>0.60</td>
    )
    one_row = (TableCell(0, 0, "a"), TableCell(0, 1, "b"), TableCell(1, 0, "1"), TableCell(1, 1, "2"))
    assert region_markup(region(RegionKind.TABLE, cells=one_row), gfm).startswith("| a | b |")


def test_table_without_cells_falls_back_to_text() -> None:
    assert region_markup(region(RegionKind.TABLE, "a b\nc d"), HTML) == "a b\nc d"


def test_formula_styles() -> None:
    eq = region(RegionKind.EQUATION, "E = mc^2")
    assert region_markup(eq, MD) == "$$\nE = mc^2\n$$"
    assert region_markup(eq, HTML) == "\\[\nE = mc^2\n\\]"
    assert region_markup(region(RegionKind.EQUATION, ""), MD) == ""  # not "$$\n\n$$"
    # a display whose line was read as text holding one inline formula: no `$` inside `$$`
    assert region_markup(region(RegionKind.EQUATION, "$I=\\int x\\,dx$"), MD) == "$$\nI=\\int x\\,dx\n$$"


def test_figure_placeholder_code_and_list() -> None:
    assert region_markup(region(RegionKind.FIGURE, "chart labels"), HTML) == "<!-- image -->"
    assert region_markup(region(RegionKind.FIGURE, "chart labels"), MD) == ""
    assert region_markup(region(RegionKind.CODE, "x = 1\ny = 2"), MD) == "```\nx = 1\ny = 2\n```"
    assert region_markup(region(RegionKind.LIST, "\u2022 first point"), MD) == "- first point"
    # A symbol-font bullet (Wingdings "l") has a private-use code point in the text layer.
    assert region_markup(region(RegionKind.LIST, "\uf06c \u4e8b\u4ef6"), MD) == "- \u4e8b\u4ef6"


def test_page_markdown_orders_and_drops_furniture() -> None:
    """Regions by `order`, blank lines between, headers/footers only when kept."""
    regions = [
        region(RegionKind.TEXT, "second", order=2),
        region(RegionKind.FOOTER, "7", order=3),
        region(RegionKind.TITLE, "Title", order=1, level=1),
        region(RegionKind.HEADER, "Journal", order=0),
        region(RegionKind.FIGURE, order=4),
    ]
    assert page_markdown(regions, MD) == "# Title\n\nsecond"
    assert page_markdown(regions, HTML) == "Journal\n\nTitle\n\nsecond\n\n7\n\n<!-- image -->"


def test_style_is_validated() -> None:
    with pytest.raises(ValueError, match="table"):
        DraftStyle(table="latex")
    with pytest.raises(ValueError, match="formula"):
        DraftStyle(formula="mathml")


def test_inline_formulas_take_the_styles_delimiters_in_every_kind_of_region() -> None:
    """Headings, table cells and lists write an inline formula as running text does."""
    half = "$\\frac{1}{2}$"
    cells = (TableCell(0, 0, half),)
    table = region_markup(region(RegionKind.TABLE, cells=cells), HTML)
    assert table == "<table><tr><td>\\(\\frac{1}{2}\\)</td></tr></table>"
    assert region_markup(region(RegionKind.TITLE, f"Take {half}", level=1), HTML) == "Take \\(\\frac{1}{2}\\)"
    assert region_markup(region(RegionKind.LIST, f"• {half}"), HTML) == "- \\(\\frac{1}{2}\\)"
    assert region_markup(region(RegionKind.TITLE, f"Take {half}", level=1), MD) == f"# Take {half}"


def test_gfm_writes_html_for_a_label_spanning_rows() -> None:
    """A pipe table would repeat the label in each row, its rows then reading as the label's."""
    cells = (TableCell(0, 0, "Group"), TableCell(0, 1, "Cost"), TableCell(1, 0, "Large", row_span=2))
    cells += (TableCell(1, 1, "0.6"), TableCell(2, 1, "269"))
    out = table_markup(cells, "gfm")
    assert '<td rowspan="2">Large</td>' in out or '<th rowspan="2">Large</th>' in out
