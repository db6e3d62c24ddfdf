"""pages/pdffigures: the layout model's figure boxes hold ink besides type, or give way to the text."""

from __future__ import annotations

import pymupdf

from hsd_cli.datatypes import Region, RegionKind
from hsd_cli.pages.pdffigures import with_figures

CARDS = [(72 + 170 * (i % 3), 120 + 80 * (i // 3), f"{i + 1}. Law number {i + 1}") for i in range(9)]


def _page_of_cards() -> pymupdf.Page:
    """A 3 x 3 grid of labelled cards, each with a thin accent rule on its left: type and rules."""
    page = pymupdf.open().new_page(width=612, height=792)
    for x, y, label in CARDS:
        page.insert_text((x, y), label, fontsize=10)
        page.insert_text((x + 10, y + 30), "a = b + c", fontsize=12)
        page.draw_rect(pymupdf.Rect(x - 6, y - 12, x - 4.5, y + 40), color=None, fill=(0, 0.4, 0.3))
    return page


def _grid_figure() -> Region:
    return Region((60.0, 100.0, 580.0, 320.0), RegionKind.FIGURE, 0, "")


def test_a_layout_figure_over_type_and_rules_alone_gives_way():
    """A grid of formula cards boxed as one figure was written as one image, its text lost."""
    kinds = [r.kind for r in with_figures(_page_of_cards(), pymupdf.Identity, (_grid_figure(),))]
    assert RegionKind.FIGURE not in kinds


def test_a_layout_figure_over_a_drawing_stays():
    page = _page_of_cards()
    for k in range(12):  # a chart's curve among the cards
        page.draw_line((300 + 10 * k, 300 - 8 * k), (310 + 10 * k, 292 - 8 * k))
    kinds = [r.kind for r in with_figures(page, pymupdf.Identity, (_grid_figure(),))]
    assert kinds.count(RegionKind.FIGURE) == 1


def test_a_layout_figure_over_a_small_picture_stays():
    """An image of any size is ink: a scan's page or an icon keeps the layout's figure box."""
    page = _page_of_cards()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False)
    pix.clear_with(120)
    page.insert_image(pymupdf.Rect(300, 200, 310, 210), pixmap=pix)
    kinds = [r.kind for r in with_figures(page, pymupdf.Identity, (_grid_figure(),))]
    assert kinds.count(RegionKind.FIGURE) == 1


NARROW = "\n".join(
    ["To this end, the", "region of the", "regional model", "is described by these", "dense systems. The"]
    + ["measure represents", "the local interval,", "whereas such", "surfaces of the", "field estimate the"]
    + ["rural spectrum."]
)


def _page_of_framed_cards() -> pymupdf.Page:
    """Three cards side by side, each a stroked frame around a title, a formula and a paragraph
    set in a narrow column (two to four words a line: no line of it reads as prose alone)."""
    page = pymupdf.open().new_page(width=612, height=792)
    for i in range(3):
        x = 50 + 180 * i
        page.draw_rect(pymupdf.Rect(x, 100, x + 150, 400), color=(0.7, 0.7, 0.7))
        page.insert_text((x + 10, 125), f"{i + 1}. Law number {i + 1}", fontsize=12)
        page.insert_text((x + 30, 160), "a = b + c", fontsize=12)
        page.insert_text((x + 10, 200), NARROW, fontsize=10)
    return page


def test_a_layout_figure_over_framed_paragraphs_gives_way():
    """The frames around cards of text are no figure's ink: a layout figure box over two cards'
    titles and formulas gives way, so the titles stay on the page (they were dropped as an image)."""
    figure = Region((200.0, 105.0, 560.0, 170.0), RegionKind.FIGURE, 0, "")
    # The layout's text boxes: each card's paragraph, and the first card's title.
    text = [Region((50.0 + 180 * i, 185.0, 200.0 + 180 * i, 330.0), RegionKind.TEXT, 0, "") for i in range(3)]
    text.append(Region((55.0, 110.0, 190.0, 130.0), RegionKind.TITLE, 0, ""))
    kinds = [r.kind for r in with_figures(_page_of_framed_cards(), pymupdf.Identity, (figure, *text))]
    assert RegionKind.FIGURE not in kinds


def test_a_chart_with_a_short_legend_stays_a_figure():
    """A drawing whose text is a legend of a few words is a chart, not a frame of text."""
    page = pymupdf.open().new_page(width=612, height=792)
    page.draw_rect(pymupdf.Rect(100, 100, 400, 300), color=(0, 0, 0))
    for k in range(12):
        page.draw_line((120 + 20 * k, 280 - 12 * k), (140 + 20 * k, 268 - 12 * k))
    page.insert_text((300, 130), "Model A\nModel B\nBaseline", fontsize=9)
    figure = Region((100.0, 100.0, 400.0, 300.0), RegionKind.FIGURE, 0, "")
    kinds = [r.kind for r in with_figures(page, pymupdf.Identity, (figure,))]
    assert kinds.count(RegionKind.FIGURE) == 1
