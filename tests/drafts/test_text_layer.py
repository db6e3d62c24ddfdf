"""Born-digital drafts from the text layer: blocks, kinds, reading order."""

from __future__ import annotations

from pathlib import Path

import pymupdf
from PIL import Image

from hsd_cli.datatypes import PageImage, Region, RegionKind, TextSpan
from hsd_cli.drafts import AutoSource, TextLayerSource, has_text_layer, page_markdown
from hsd_cli.drafts.base import heading_level
from hsd_cli.drafts.reading_order import reading_order
from hsd_cli.drafts.validity import is_unreadable
from hsd_cli.pages.geometry import is_prose
from hsd_cli.pages.pdftext import visible_lines
from hsd_cli.pages.render import iter_pages

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
W, H = 1000, 1400


def unreadable_share(text: str) -> float:
    """Share of the non-space characters that name no letter a reader could see."""
    chars = [c for c in text if not c.isspace()]
    return sum(map(is_unreadable, chars)) / len(chars) if chars else 0.0


def line(x0: float, y0: float, text: str, size: float = 10, bold: bool = False, width: float = 400) -> TextSpan:
    return TextSpan((x0, y0, x0 + width, y0 + 2 * size), text, size, bold)


def page_of(*spans: TextSpan, layout: tuple[Region, ...] = ()) -> PageImage:
    return PageImage(Path("x.pdf"), 0, Image.new("RGB", (W, H), "white"), 144, text_spans=spans, layout=layout)


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
        ("title", "Title"),
        ("text", "left 0 left 1 left 2"),
        ("text", "right 0 right 1 right 2"),
    ]


def test_layout_boxes_are_filled_and_read_by_columns() -> None:
    """Lines go into the layout box holding them; XY-cut, not the layout's order, reads them."""
    layout = (
        Region((500, 100, 950, 300), RegionKind.TEXT, 0, ""),
        Region((50, 100, 450, 300), RegionKind.TEXT, 1, ""),
        Region((50, 600, 450, 700), RegionKind.TEXT, 2, ""),  # empty: dropped
    )
    page = page_of(line(60, 110, "west"), line(510, 110, "east"), line(60, 400, "stray"), layout=layout)
    assert texts(TextLayerSource().regions(page)) == [
        ("text", "west"),
        ("text", "stray"),
        ("text", "east"),
    ]  # fmt: skip  (not the layout's east-first order)


def test_rtl_lines_read_right_to_left() -> None:
    """Two pieces of one Arabic line: the right one comes first."""
    page = page_of(
        line(500, 200, "مرحبا بكم"),
        line(100, 200, "في البرنامج"),
        layout=(Region((50, 150, 950, 300), RegionKind.TEXT, 0, ""),),
    )
    assert TextLayerSource().regions(page)[0].text == "مرحبا بكم في البرنامج"


def test_heading_level_from_numbering() -> None:
    assert heading_level("3 Results", 1) == 2
    assert heading_level("3.1 Setup", 1) == 3
    assert heading_level("Results", 1) == 1


def test_sample_pdf_end_to_end() -> None:
    """Rendered sample: title, paragraphs, formula, ruled table; page number left out."""
    pages = list(iter_pages(SAMPLES / "born_digital.pdf", dpi=72))
    source = AutoSource("auto")
    assert all(has_text_layer(p) and source.select(p) is source.sources["text"] for p in pages)
    first, second = (page_markdown(source.regions(p)) for p in pages)
    assert first.startswith("# Fast Document Parsing\n\nSpeculative decoding lets")  # title-size type: `#`
    assert "## 1 Method" in first and "$$\nE = m c^2" in first
    assert "| Scanned | 4.2 | 2.6x |" in second
    assert not second.rstrip().endswith("2")  # the page number is furniture


def test_page_without_text_layer() -> None:
    assert TextLayerSource().regions(page_of()) == []
    assert not has_text_layer(page_of(line(0, 0, "stamp")))


def test_a_stamp_in_the_bands_is_no_text_layer_of_the_body() -> None:
    """A filing stamp over a scanned page (head and foot lines, over 100 characters) leaves the
    page to OCR; the same lines in the body are its text layer."""
    stamp = "Case 1:20-cv-01234-ABC Document 12 Filed 01/02/20 Page 3 of 10 PageID #: 456"
    head, foot = line(40, 20, stamp), line(40, H - 60, stamp)
    assert not has_text_layer(page_of(head, foot))
    assert has_text_layer(page_of(line(40, 500, stamp), line(40, 540, stamp)))


def test_xy_cut_columns_follow_script_direction() -> None:
    """Two columns under a full-width title: left column first, or right first when RTL."""
    boxes = [(500, 200, 900, 400), (100, 200, 480, 400), (100, 50, 900, 150), (100, 420, 480, 600)]
    assert reading_order(boxes) == [2, 1, 3, 0]  # not row by row: [2, 1, 0, 3]
    assert reading_order(boxes, rtl=True) == [2, 0, 1, 3]


def test_xy_cut_reads_a_grid_of_blocks_row_by_row() -> None:
    """A 2 x 2 grid of blocks reads row by row; two columns of text still read column by column."""
    grid = [(100, 100, 480, 300), (520, 100, 900, 300), (100, 400, 480, 600), (520, 400, 900, 600)]
    assert reading_order(grid) == [0, 1, 2, 3]  # not column by column: [0, 2, 1, 3]
    # Entries of two reference columns, bands aligned by chance but of unequal length: columns.
    refs = [(100, 100, 480, 140), (520, 100, 900, 160), (100, 170, 480, 230), (520, 170, 900, 230)]
    assert reading_order(refs) == [0, 2, 1, 3]
    # Paragraph breaks at their own heights: no band runs across both columns.
    text = [(100, 100, 480, 300), (100, 320, 480, 600), (520, 100, 900, 420), (520, 440, 900, 600)]
    assert reading_order(text) == [0, 1, 2, 3]
    # A band across both columns, but the right column's next block starts lower: no grid.
    offset = [(100, 100, 480, 300), (100, 320, 480, 600), (520, 100, 900, 300), (520, 380, 900, 600)]
    assert reading_order(offset) == [0, 1, 2, 3]
    # A cell of two blocks whose inner gap is as wide as the band between rows: columns of text.
    stacked = [(100, 100, 480, 180), (100, 200, 480, 300), (520, 100, 900, 300)]
    stacked += [(100, 320, 480, 600), (520, 320, 900, 600)]
    assert reading_order(stacked) == [0, 1, 3, 2, 4]


def embedded_font_page(to_unicode: bool) -> pymupdf.Page:
    """A page set in an embedded CID font, with or without the map from glyphs to Unicode."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)
    for i in range(6):
        page.insert_text((20, 40 + 30 * i), "Speculative decoding drafts every region", fontname="F0", fontsize=12)
    page.insert_text((20, 280), "Page 1", fontsize=10)  # a base-14 font maps itself
    doc.subset_fonts()
    if not to_unicode:  # what broken producers write: glyph ids alone
        for xref in range(1, doc.xref_length()):
            if doc.xref_get_key(xref, "ToUnicode")[0] != "null":
                doc.xref_set_key(xref, "ToUnicode", "null")
    return pymupdf.open("pdf", doc.tobytes())[0]


def test_text_layer_without_unicode_goes_to_ocr() -> None:
    """Glyphs that map to no Unicode read as U+FFFD, not as letters; auto then uses OCR."""
    for to_unicode in (True, False):
        pdf_page = embedded_font_page(to_unicode)
        spans = visible_lines(pdf_page, pymupdf.Matrix(2, 2))
        page = page_of(*spans)
        text = "".join(s.text for s in spans)
        ocr = TextLayerSource()  # a stand-in: only which source is picked matters
        picked = AutoSource("auto", ocr=ocr).select(page)
        if to_unicode:
            assert "Speculative decoding" in text and has_text_layer(page)
            assert picked is not ocr
        else:
            assert "Speculative" not in text and unreadable_share(text) > 0.9
            assert not has_text_layer(page) and picked is ocr


def test_symbol_bullets_do_not_make_a_layer_unreadable() -> None:
    """A few private-use bullets (symbol fonts) in ordinary text keep the text layer."""
    spans = [line(80, 100 + 30 * i, "\uf0b7 An item of an ordinary bulleted list") for i in range(6)]
    assert unreadable_share("".join(s.text for s in spans)) < 0.05
    assert has_text_layer(page_of(*spans))


PROSE = (
    "Mechanical properties of new composites were investigated in detail here",
    "and the composites which consisted of two kinds of reinforcement grew",
    "harder with every pass of the extrusion through the twisted channel die",
)


def test_formula_box_gives_back_the_prose_it_swallowed() -> None:
    """Prose lines caught in a formula box become text; the formula keeps its own lines."""
    formula = line(300, 300, "E = m c^2 + \u222b f(x) dx", width=300)
    prose = line(60, 330, "which is the energy of the system at rest in its frame", width=800)
    box = Region((50, 290, 950, 360), RegionKind.EQUATION, 0, "")
    regions = TextLayerSource().regions(page_of(formula, prose, layout=(box,)))
    assert texts(regions) == [("equation", formula.text), ("text", prose.text)]


def test_a_table_box_over_formula_cards_is_text() -> None:
    """A 2 x 2 grid of formula cards boxed as a table: its titles came out as a table's cells and
    its formulas after it; now each title and note is text of its own."""
    cards, shown = [], []
    for i, (x, y) in enumerate(((60, 200), (60, 400), (520, 200), (520, 400))):
        cards += [
            line(x, y, f"{i + 1}. Law number {i + 1}", width=200),
            line(x, y + 110, PROSE[i % len(PROSE)], width=400),
        ]
        shown.append(Region((x + 40, y + 30, x + 300, y + 90), RegionKind.EQUATION, 0, "a = b + c"))
    table = Region((50, 190, 950, 540), RegionKind.TABLE, 0, "")
    regions = TextLayerSource().regions(page_of(*cards, layout=(table, *shown)))
    assert {k for k, _ in texts(regions)} == {"text"}
    assert sorted(t for _, t in texts(regions)) == sorted(s.text for s in cards)


def test_is_prose() -> None:
    assert is_prose("where the sum runs over all pairs of words")
    assert is_prose("这个绑着火种的木架子四面都有谜语")
    assert not is_prose("f(x) = \u2211 sin(x_i) + cos(x_i)")
    assert not is_prose("x = 1, y = 2")


def test_unmapped_glyphs_are_left_out_of_drafts() -> None:
    """A bullet without Unicode (U+FFFD) in an otherwise readable layer is not written."""
    page = page_of(line(80, 200, "\ufffd Security fundamentals"), line(80, 260, "\ufffd"))
    assert texts(TextLayerSource().regions(page)) == [("text", "Security fundamentals")]


def test_a_box_reaching_across_the_gutter_reads_in_its_lines_column() -> None:
    """A layout box that took in a formula of the left column holds only right-column lines
    (the formula rebuilt apart): it reads as wide as its lines, after the whole left column."""
    layout = (
        Region((50, 100, 450, 180), RegionKind.TEXT, 0, ""),
        Region((50, 400, 450, 480), RegionKind.TEXT, 1, ""),
        Region((500, 100, 950, 180), RegionKind.TEXT, 2, ""),
        Region((250, 240, 950, 320), RegionKind.TEXT, 3, ""),  # from the left formula to the right edge
        Region((500, 400, 950, 480), RegionKind.TEXT, 4, ""),
    )
    spans = [line(x, y + 20 * i, f"{name} {i}") for x, y, name in ((60, 110, "a"), (60, 410, "b")) for i in range(3)]
    right = ((110, "c"), (250, "d"), (410, "e"))
    spans += [line(520, y + 20 * i, f"{name} {i}") for y, name in right for i in range(3)]
    order = [text.split()[0] for _, text in texts(TextLayerSource().regions(page_of(*spans, layout=layout)))]
    assert order == ["a", "b", "c", "d", "e"]


def test_a_heading_box_over_the_gutter_leaves_the_next_columns_text_out() -> None:
    """A heading justified across a narrow column ("1 Approach and Reaction" / "Models") whose
    layout box reached into the next column, level with its smaller text: the heading is its
    own type's lines, the next column's lines a block of their own."""
    heading = [line(60, 300, "1 Approach", 11, True, 110), line(210, 300, "and", 11, True, 40)]
    heading += [line(290, 300, "Reaction", 11, True, 80), line(90, 326, "Models", 11, True, 80)]
    beside = [line(430, 302, "substantially as the distribu-", 9, width=300)]
    beside += [line(430, 324, "tion captures.", 9, width=120)]
    body = [line(60, 400 + 22 * i, f"Body text of the first column {i}.", 9, width=310) for i in range(3)]
    layout = (Region((50, 290, 740, 350), RegionKind.TITLE, 0, ""), Region((50, 390, 380, 470), RegionKind.TEXT, 1, ""))
    found = texts(TextLayerSource().regions(page_of(*heading, *beside, *body, layout=layout)))
    assert ("title", "1 Approach and Reaction Models") in found
    assert ("text", "substantially as the distribution captures.") in found
