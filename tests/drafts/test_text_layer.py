"""Born-digital drafts from the text layer: blocks, kinds, reading order."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from hsd_cli.datatypes import PageImage, Region, RegionKind, TextSpan
from hsd_cli.drafts import AutoSource, TextLayerSource, has_text_layer, page_markdown
from hsd_cli.drafts.base import heading_level
from hsd_cli.drafts.geometry import reading_order
from hsd_cli.render import iter_pages

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
W, H = 1000, 1400


def line(x0: float, y0: float, text: str, size: float = 10, bold: bool = False,
         width: float = 400) -> TextSpan:  # fmt: skip
    return TextSpan((x0, y0, x0 + width, y0 + 2 * size), text, size, bold)


def page_of(*spans: TextSpan, layout: tuple[Region, ...] = ()) -> PageImage:
    return PageImage(Path("x.pdf"), 0, Image.new("RGB", (W, H), "white"), 144, spans, layout)


def texts(regions: list[Region]) -> list[tuple[str, str]]:
    return [(r.kind.value, r.text) for r in sorted(regions, key=lambda r: r.order)]


def test_blocks_and_kinds_without_layout() -> None:
    """Big text is a title, lines close together one paragraph, margins header and footer."""
    page = page_of(
        line(80, 30, "Journal of Examples"),
        line(80, 150, "Results", size=18),
        line(80, 200, "The first line of a para-"),
        line(80, 220, "graph goes on here."),
        line(80, 300, "A second paragraph."),
        line(480, 1350, "12", width=20),
    )
    regions = TextLayerSource().regions(page)
    assert texts(regions) == [
        ("header", "Journal of Examples"),
        ("title", "Results"),
        ("text", "The first line of a paragraph goes on here."),  # hyphen rejoined
        ("text", "A second paragraph."),
        ("footer", "12"),
    ]
    assert [r.level for r in regions if r.kind is RegionKind.TITLE] == [1]  # 1.8x the body size


def test_two_columns_read_column_by_column() -> None:
    """Without layout boxes, XY-cut reads the left column before the right one."""
    left = [line(80, 200 + 20 * i, f"left {i}") for i in range(3)]
    right = [line(520, 200 + 20 * i, f"right {i}") for i in range(3)]
    page = page_of(line(80, 100, "Title", size=20, width=840), *right, *left)
    assert texts(TextLayerSource().regions(page)) == [
        ("title", "Title"), ("text", "left 0 left 1 left 2"), ("text", "right 0 right 1 right 2"),
    ]  # fmt: skip


def test_layout_boxes_are_filled_and_read_by_columns() -> None:
    """Lines go into the layout box holding them; XY-cut, not the layout's order, reads them."""
    layout = (
        Region((500, 100, 950, 300), RegionKind.TEXT, 0, ""),
        Region((50, 100, 450, 300), RegionKind.TEXT, 1, ""),
        Region((50, 600, 450, 700), RegionKind.TEXT, 2, ""),  # empty: dropped
    )
    page = page_of(line(60, 110, "west"), line(510, 110, "east"), line(60, 400, "stray"),
                   layout=layout)  # fmt: skip
    assert texts(TextLayerSource().regions(page)) == [
        ("text", "west"), ("text", "stray"), ("text", "east"),
    ]  # fmt: skip  (not the layout's east-first order)


def test_rtl_lines_read_right_to_left() -> None:
    """Two pieces of one Arabic line: the right one comes first."""
    page = page_of(line(500, 200, "مرحبا بكم"), line(100, 200, "في البرنامج"),
                   layout=(Region((50, 150, 950, 300), RegionKind.TEXT, 0, ""),))  # fmt: skip
    assert TextLayerSource().regions(page)[0].text == "مرحبا بكم في البرنامج"


def test_heading_level_from_numbering() -> None:
    assert heading_level("3 Results", 1) == 2
    assert heading_level("3.1 Setup", 1) == 3
    assert heading_level("Results", 1) == 1


def test_sample_pdf_end_to_end() -> None:
    """Rendered sample: title, paragraphs, formula, ruled table; page number left out."""
    pages = list(iter_pages(SAMPLES / "born_digital.pdf", dpi=72))
    source = AutoSource("auto")
    assert all(has_text_layer(p) and source.select(p) is source.text for p in pages)
    first, second = (page_markdown(source.regions(p)) for p in pages)
    assert first.startswith("## Fast Document Parsing\n\nSpeculative decoding lets")
    assert "## 1 Method" in first and "$$\nE = m c^2" in first
    assert "| Scanned | 4.2 | 2.6x |" in second
    assert not second.rstrip().endswith("2")  # the page number is furniture


def test_page_without_text_layer() -> None:
    assert TextLayerSource().regions(page_of()) == []
    assert not has_text_layer(page_of(line(0, 0, "stamp")))


def test_xy_cut_columns_follow_script_direction() -> None:
    """Two columns under a full-width title: left column first, or right first when RTL."""
    boxes = [(500, 200, 900, 400), (100, 200, 480, 400), (100, 50, 900, 150), (100, 420, 480, 600)]
    assert reading_order(boxes) == [2, 1, 3, 0]  # not row by row: [2, 1, 0, 3]
    assert reading_order(boxes, rtl=True) == [2, 0, 1, 3]
