"""Drafts are written the way each family writes: tables, headings and formulas in its markup."""

from __future__ import annotations

import pytest

from hsd_cli.datatypes import Region, RegionKind, TableCell
from hsd_cli.drafts.markup import page_markdown, region_markup
from hsd_cli.targets.runtime.registry import FAMILIES

CELLS = (
    TableCell(0, 0, "Year", is_header=True),
    TableCell(0, 1, "Revenue", is_header=True),
    TableCell(1, 0, "2023"),
    TableCell(1, 1, "1,234"),
)
TABLE = Region((0, 0, 100, 50), RegionKind.TABLE, 1, "Year Revenue 2023 1,234", cells=CELLS)
HEADING = Region((0, 0, 100, 20), RegionKind.TITLE, 0, "Annual Report", level=1)
FORMULA = Region((0, 0, 100, 20), RegionKind.EQUATION, 2, "E = mc^2")

HTML = "<table><tr><td>Year</td><td>Revenue</td></tr><tr><td>2023</td><td>1,234</td></tr></table>"
PIPE = "| Year | Revenue |\n|---|---|\n| 2023 | 1,234 |"
OTSL = "<fcel>Year<fcel>Revenue<nl><fcel>2023<fcel>1,234<nl>"
HASH, PLAIN = "# Annual Report", "Annual Report"
DOLLARS, BRACKETS = "$$\nE = mc^2\n$$", "\\[\nE = mc^2\n\\]"

# family -> (table, heading, formula) as the model writes them (see each adapter's STYLE comment).
EXPECTED = {
    "hunyuan_vl": (HTML, HASH, BRACKETS),  # doc_parse: Markdown, HTML tables, LaTeX
    "qwen2_vl": (HTML, HASH, DOLLARS),  # "qwenvl markdown"
    "qwen2_5_vl": (HTML, HASH, DOLLARS),
    "qwen3_vl": (HTML, HASH, DOLLARS),
    "paddleocr_vl": (OTSL, PLAIN, DOLLARS),  # element-level: OTSL tables, no heading marks
    "glm_ocr": (HTML, PLAIN, DOLLARS),  # element-level: HTML tables, no heading marks
    "lighton_ocr": (PIPE, HASH, DOLLARS),  # Markdown tables
    "deepseek_ocr2": (HTML, HASH, BRACKETS),
    "dots_ocr": (HTML, HASH, DOLLARS),  # text fields of the layout JSON
}


def test_every_family_has_expectations():
    assert set(EXPECTED) == set(FAMILIES)


@pytest.mark.parametrize("family", sorted(EXPECTED))
def test_table_heading_and_formula_drafts(family):
    """A table, a level-1 heading and a formula region, drafted in the family's style."""
    style = FAMILIES[family][0].style
    table, heading, formula = EXPECTED[family]
    assert region_markup(TABLE, style) == table
    assert region_markup(HEADING, style) == heading
    assert region_markup(FORMULA, style) == formula


@pytest.mark.parametrize("family", sorted(EXPECTED))
def test_page_draft_converts_like_model_output(family):
    """The page draft, read as if the model had written it, converts to the same Markdown blocks."""
    data, cls = FAMILIES[family]
    if family == "dots_ocr":
        pytest.skip("dots.ocr's page answer is layout JSON; its drafts are the cells' text fields")
    draft = page_markdown([HEADING, TABLE, FORMULA], data.style)
    md = cls.to_markdown(cls.__new__(cls), draft)
    assert "Annual Report" in md and "2023" in md and "E = mc^2" in md
    assert "<fcel>" not in md and "\\[" not in md  # model markup is gone after conversion
