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
