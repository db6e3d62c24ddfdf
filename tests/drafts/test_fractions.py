from __future__ import annotations

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.fractions import stacked_fractions


def ocr(x0: float, y0: float, text: str, width: float = 34, height: float = 40) -> TextSpan:
    return TextSpan((x0, y0, x0 + width, y0 + height), text, score=0.99)


def test_a_number_over_another_is_one_fraction_beside_its_option_letter() -> None:
    """Answer options "A 2/17": OCR boxes of numerator and denominator overlap, centres aligned."""
    lines = [ocr(180, 917, "A"), ocr(234, 902, "2", width=37), ocr(227, 932, "17", width=53, height=46)]
    (letter, fraction) = stacked_fractions(lines)
    assert letter.text == "A"
    assert fraction.text == "$\\frac{2}{17}$" and fraction.bbox == (227, 902, 280, 978)


def test_a_column_of_stacked_fractions_pairs_from_the_top() -> None:
    """F 5/8 over G 3/4: the 8 also sits over the 3, but it is already a denominator."""
    column = [ocr(919, 468, "5"), ocr(919, 501, "8"), ocr(919, 538, "3"), ocr(919, 570, "4")]
    assert [s.text for s in stacked_fractions(column)] == ["$\\frac{5}{8}$", "$\\frac{3}{4}$"]


def test_rows_of_a_table_and_lines_of_text_are_no_fractions() -> None:
    """Figures in table rows stand apart; text, letters and off-centre numbers are left alone."""
    table = [ocr(1202, 1240, "5", height=36), ocr(1202, 1281, "3", height=36)]  # 5 px between the rows
    letters = [ocr(181, 917, "A"), ocr(182, 950, "B")]
    off_centre = [ocr(200, 900, "2"), ocr(260, 930, "17", width=50)]
    words = [ocr(100, 900, "page", width=80), ocr(100, 930, "12", width=80)]
    for lines in (table, letters, off_centre, words):
        assert stacked_fractions(lines) == lines


def page_with(*terms: tuple[int, int, str], bar: tuple[int, int, int] | None = None):
    """A white page image with each (x, y, text) drawn, and a bar (x0, x1, y) if given."""
    import numpy as np
    from PIL import Image, ImageDraw

    page = Image.new("L", (400, 300), 255)
    draw = ImageDraw.Draw(page)
    for x, y, text in terms:
        draw.text((x, y), text, fill=0, font_size=28)
    if bar:
        draw.line((bar[0], bar[2], bar[1], bar[2]), fill=0, width=2)
    return np.asarray(page)


def test_on_the_page_image_only_a_pair_with_a_bar_is_a_fraction() -> None:
    """Two figures of a tight table's column on a coarse scan overlap as a fraction's terms do
    (a scanned table's 647 over 624 read as a fraction): the page shows no bar between them."""
    lines = [ocr(100, 100, "647", width=60, height=36), ocr(100, 130, "624", width=60, height=36)]
    column = page_with((104, 104, "647"), (104, 136, "624"))
    assert stacked_fractions(lines, column) == lines
    fraction = page_with((104, 100, "647"), (104, 140, "624"), bar=(102, 160, 134))
    assert [s.text for s in stacked_fractions(lines, fraction)] == ["$\\frac{647}{624}$"]
    ruled = page_with((104, 100, "647"), (104, 140, "624"), bar=(0, 399, 134))  # a table's rule
    assert stacked_fractions(lines, ruled) == lines
