"""Rendering PDFs and images to PageImages; page selection; one clear error per bad input."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image

from hsd_cli.datatypes import RegionKind
from hsd_cli.errors import InputError
from hsd_cli.pages import pdftext, render
from hsd_cli.pages.render import count_pages, iter_pages, parse_page_spec

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
ZERO_PAGES = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)


def make_pdf(path: Path, text: str = "Hello world", rotation: int = 0, **insert) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    page.insert_text((20, 50), text, fontsize=14, **insert)
    page.set_rotation(rotation)
    doc.save(path)
    return path


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (None, [0, 1, 2, 3, 4]),
        ("1-3,7", None),  # 7 is outside a 5-page document: checked below
        ("2", [1]),
        ("1-3, 5", [0, 1, 2, 4]),
        ("3-", [2, 3, 4]),
        ("-2", [0, 1]),
        ("4,2,2-3", [1, 2, 3]),  # sorted and unique, not [3, 1, 1, 2]
    ],
)
def test_parse_page_spec(spec, expected) -> None:
    """1-based inclusive ranges become sorted unique 0-based indices."""
    if expected is None:
        assert parse_page_spec(spec, 7) == [0, 1, 2, 6]
    else:
        assert parse_page_spec(spec, 5) == expected


@pytest.mark.parametrize("spec", ["0", "6", "3-1", "a", "1,,2", "1-2-3", "-"])
def test_parse_page_spec_rejects(spec) -> None:
    """Bad ranges raise ValueError with the offending part."""
    with pytest.raises(ValueError, match="page range"):
        parse_page_spec(spec, 5)


def test_pdf_pages_with_text_layer() -> None:
    """Sample PDF: RGB pages at the asked dpi, text lines in pixels, headings bold and large."""
    pages = list(iter_pages(SAMPLES / "born_digital.pdf", dpi=72, analyze=False))
    assert [p.index for p in pages] == [0, 1] and pages[1].number == 2
    page = pages[0]
    assert page.image.mode == "RGB" and page.image.size == (595, 842) and page.dpi == 72
    title = page.text_spans[0]
    assert title.text == "Fast Document Parsing" and title.bold and title.size == 22
    x0, y0, x1, y1 = title.bbox
    assert 60 < x0 < x1 < 595 and 60 < y0 < y1 < 120


def test_page_selection_and_max_pages() -> None:
    """--pages picks pages, --max-pages caps them; count_pages counts all."""
    path = SAMPLES / "born_digital.pdf"
    assert count_pages(path) == 2
    assert [p.number for p in iter_pages(path, pages="2", dpi=36, analyze=False)] == [2]
    assert [p.number for p in iter_pages(path, dpi=36, max_pages=1, analyze=False)] == [1]


def test_layout_analysis_finds_table_cells() -> None:
    """With analysis on, the page carries layout regions; the sample table has its cells."""
    page = list(iter_pages(SAMPLES / "born_digital.pdf", pages="2", dpi=72))[0]
    (table,) = [r for r in page.layout if r.cells]
    assert {(c.row, c.col): c.text for c in table.cells}[(2, 2)] == "2.6x"


def test_rotated_page_renders_as_displayed(tmp_path: Path) -> None:
    """/Rotate 90 gives a landscape image; the text box turns with it and stays inside."""
    (page,) = iter_pages(make_pdf(tmp_path / "r.pdf", rotation=90), dpi=72, analyze=False)
    assert page.image.size == (200, 300)
    x0, y0, x1, y1 = page.text_spans[0].bbox
    assert 0 <= x0 < x1 <= 200 and 0 <= y0 < y1 <= 300 and (y1 - y0) > (x1 - x0)


def landscape_pdf(path: Path, lines: list[str]) -> Path:
    """A landscape page stored as pdflscape writes it: a portrait page with /Rotate 90 whose
    content is turned, so that it shows upright while its lines run down its own coordinates."""
    src = pymupdf.open()
    flat = src.new_page(width=792, height=612)
    for i, line in enumerate(lines):
        flat.insert_text((72, 72 + 20 * i), line, fontsize=12)
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.set_rotation(90)
    page.show_pdf_page(page.rect, src, 0, rotate=90)
    doc.save(path)
    return path


def test_landscape_page_is_read_upright(tmp_path: Path) -> None:
    """Its body is text, not a page header (which drafts drop), and its pixels are the page's."""
    lines = ["The quick brown fox jumps over the lazy dog.", "Pack my box with five dozen liquor jugs."]
    path = landscape_pdf(tmp_path / "l.pdf", lines)
    with pymupdf.open(path) as pdf:
        shown = pdf[0].get_pixmap(dpi=72, colorspace=pymupdf.csRGB, alpha=False).samples
    (page,) = iter_pages(path, dpi=72)
    assert page.image.tobytes() == shown
    assert [s.text for s in page.text_spans] == lines
    assert all(s.bbox[2] - s.bbox[0] > s.bbox[3] - s.bbox[1] for s in page.text_spans)
    assert page.layout and all(r.kind is RegionKind.TEXT for r in page.layout)


@pytest.mark.parametrize(("content_turn", "turn"), [(0, 0), (90, 90), (-90, 270)])
def test_text_turn_and_the_turned_page(tmp_path: Path, content_turn: int, turn: int) -> None:
    """A page whose text runs up (content turned counter-clockwise) reads after a clockwise
    quarter turn; the turned page shows the same picture turned, its text running across."""
    src = pymupdf.open()
    flat = src.new_page(width=400, height=300)
    for i in range(4):
        flat.insert_text((40, 60 + 20 * i), f"Line {i} of a page printed on its side", fontsize=12)
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=400) if content_turn else doc.new_page(width=400, height=300)
    page.show_pdf_page(page.rect, src, 0, rotate=content_turn)
    doc.save(tmp_path / "s.pdf")
    with render.open_document(tmp_path / "s.pdf") as opened:
        shown = render.render_page(opened, 0, 72)
        assert render.text_turn(opened, shown) == turn
        view_doc, view = render.turned(opened, shown, turn or 90)
        with view_doc:
            view = render.with_text_layer(view_doc, view)
    expected = np.asarray(shown.image.rotate(-(turn or 90), expand=True), dtype=float)
    assert np.abs(np.asarray(view.image, dtype=float) - expected).mean() < 2.0
    if turn:
        assert [s.text for s in view.text_spans] == [f"Line {i} of a page printed on its side" for i in range(4)]


def test_band_lines_of_a_landscape_page() -> None:
    """The bands of a /Rotate page are the top and bottom of the page as shown: its running head
    is one, a body line three quarters down is not (read in its stored frame, neither was)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.set_rotation(90)  # shown 792 x 612; a point shown at (x, y) is stored at (y, 792 - x)
    for y, text in [(30, "Running head"), (450, "Body line")]:
        page.insert_text((y, 792 - 72), text, fontsize=10, rotate=90)
    assert [line.text for line in pdftext.band_lines(doc)[0]] == ["Running head"]


def test_invisible_text_is_skipped(tmp_path: Path) -> None:
    """Render mode 3 (an OCR layer over a scan) is not a visible text layer."""
    (page,) = iter_pages(make_pdf(tmp_path / "i.pdf", render_mode=3), dpi=36, analyze=False)
    assert page.text_spans == ()


def test_png_page() -> None:
    """A PNG is one page, RGB, at its own size."""
    (page,) = iter_pages(SAMPLES / "page.png")
    assert page.image.mode == "RGB" and page.image.size == Image.open(SAMPLES / "page.png").size


def encrypted_pdf(path: Path) -> Path:
    doc = pymupdf.open(make_pdf(path.with_suffix(".plain.pdf")))
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="1234", owner_pw="owner")
    return path


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.pdf", None, "file not found"),
        ("empty.pdf", b"", "empty file"),
        ("notes.pdf", b"just some text, renamed to .pdf\n", "not a PDF"),
        ("broken.pdf", b"%PDF-1.7\n" + bytes(range(256)) * 8, "corrupted PDF|zero pages"),
        ("zero.pdf", ZERO_PAGES, "zero pages"),
        ("noise.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "corrupted image|not a document"),
        ("notes.txt", b"plain text\n", "not a document"),
    ],
)
def test_bad_inputs_raise_input_error(tmp_path: Path, name, content, message) -> None:
    """Each bad file gives InputError with a one-line message naming the cause."""
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError, match=message) as info:
        list(iter_pages(path))
    assert "\n" not in str(info.value)


def test_directory_is_not_a_document(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="directory"):
        count_pages(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "locked.pdf")
    path.chmod(0)
    with pytest.raises(InputError, match="permission denied"):
        count_pages(path)


def test_encrypted_pdf_needs_the_right_password(tmp_path: Path) -> None:
    """No password and a wrong one are InputErrors; the right one opens the file."""
    path = encrypted_pdf(tmp_path / "secret.pdf")
    with pytest.raises(InputError, match="password is needed"):
        count_pages(path)
    with pytest.raises(InputError, match="password is wrong"):
        count_pages(path, password="nope")
    (page,) = iter_pages(path, password="1234", dpi=36, analyze=False)
    assert page.text_spans[0].text == "Hello world"


def test_a_page_too_large_at_the_dpi_renders_at_a_lower_one(tmp_path: Path) -> None:
    """A poster renders at the highest dpi under the pixel limit (the report keeps it); a page
    too large even at the lowest dpi is refused before rendering."""
    doc = pymupdf.open()
    doc.new_page(width=5000, height=5000)
    doc.new_page(width=60_000, height=60_000)
    doc.save(tmp_path / "huge.pdf")
    (page,) = iter_pages(tmp_path / "huge.pdf", pages="1", dpi=300, analyze=False)
    assert page.dpi == render.fitting_dpi(5000, 5000, 300) < 300
    assert render.MAX_PIXELS * 0.95 < page.image.width * page.image.height <= render.MAX_PIXELS
    assert render.fitting_dpi(5000, 5000, 72) == 72
    with pytest.raises(InputError, match=f"page 2 too large: .* at {render.MIN_DPI} dpi"):
        list(iter_pages(tmp_path / "huge.pdf", pages="2", dpi=300))
