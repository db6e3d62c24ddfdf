"""Write the small sample documents shipped with hsd (run: python sample_docs/make_samples.py).

born_digital.pdf  2 pages: headings, paragraphs, a ruled table, a formula line, page numbers
two_columns.pdf   1 page: a full-width title over two columns of text
scanned.pdf       1 page: a raster-only page (rendered, tilted, noisy, JPEG) without a text layer
page.png          1 page image
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image

HERE = Path(__file__).resolve().parent
WIDTH, HEIGHT, MARGIN = 595, 842, 72  # A4 in points

INTRO = (
    "Speculative decoding lets a large model check many tokens in one forward pass. "
    "A cheap pipeline drafts the text of each page region, and the model accepts the "
    "longest prefix it agrees with. The output stays exactly the same as plain decoding, "
    "while the number of slow steps drops by a large factor on text-heavy pages."
)
METHOD = (
    "The draft comes from the text layer of a born-digital PDF or from layout analysis "
    "and optical character recognition on a scanned page. Each draft is split into short "
    "windows that are matched against the tokens the model has already produced."
)
RESULTS = (
    "The table below lists the mean number of accepted tokens per step and the speedup "
    "over autoregressive decoding for three kinds of pages. Tables and formulas gain less "
    "than plain paragraphs, because their drafts differ more from the model's markup."
)
TABLE = [
    ["Page kind", "Accepted", "Speedup"],
    ["Born-digital", "6.1", "3.4x"],
    ["Scanned", "4.2", "2.6x"],
    ["Photo", "2.9", "1.9x"],
]
COLUMN_LEFT = (
    "Two-column layouts are common in scientific papers and newsletters. A reader goes down "
    "the left column first and only then moves to the top of the right column. A converter "
    "that reads straight across the page mixes sentences from both columns."
)
COLUMN_RIGHT = (
    "The draft pipeline finds the columns from the gaps between text blocks and orders the "
    "blocks column by column. Headings that span both columns are read before the columns "
    "below them, and page numbers are left out of the Markdown."
)
SCAN = (
    "This page was printed and scanned. It has no text layer, so its draft comes from "
    "optical character recognition. The scanner tilted the sheet slightly and added some "
    "noise, as real scanners do. Short lines of clear text are still easy to read."
)


def main() -> None:
    write_pdf(born_digital(), HERE / "born_digital.pdf")
    write_pdf(two_columns(), HERE / "two_columns.pdf")
    write_pdf(scanned(), HERE / "scanned.pdf")
    page_png(HERE / "page.png")
    for path in sorted(HERE.glob("*.p*")):
        print(f"{path.name}: {path.stat().st_size / 1024:.1f} KB")


def born_digital() -> pymupdf.Document:
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    y = heading(page, MARGIN, "Fast Document Parsing", 22)
    y = paragraph(page, y + 8, INTRO)
    y = heading(page, y + 14, "1 Method", 14)
    y = paragraph(page, y + 4, METHOD)
    y = paragraph(page, y + 12, "E = m c^2 + sum_i x_i / n        (1)", align=1)
    page_number(page, 1)
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    y = heading(page, MARGIN, "2 Results", 14)
    y = paragraph(page, y + 4, RESULTS)
    table(page, y + 16, TABLE)
    page_number(page, 2)
    return doc


def two_columns() -> pymupdf.Document:
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    y = heading(page, MARGIN, "Reading Order in Two Columns", 20)
    half = (WIDTH - 2 * MARGIN - 24) / 2
    left = pymupdf.Rect(MARGIN, y + 16, MARGIN + half, HEIGHT - MARGIN)
    right = pymupdf.Rect(WIDTH - MARGIN - half, y + 16, WIDTH - MARGIN, HEIGHT - MARGIN)
    page.insert_textbox(left, COLUMN_LEFT, fontsize=11, fontname="helv")
    page.insert_textbox(right, COLUMN_RIGHT, fontsize=11, fontname="helv")
    page_number(page, 1)
    return doc


def scanned() -> pymupdf.Document:
    """A page whose only content is a noisy, slightly tilted grey JPEG of a text page."""
    image = scan_look(render(text_page("Scanned Report", SCAN), dpi=110))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=55)
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    page.insert_image(page.rect, stream=buffer.getvalue())
    return doc


def page_png(path: Path) -> None:
    image = render(text_page("A Page Image", INTRO), dpi=90).convert("L")
    image.save(path, optimize=True)


def text_page(title: str, text: str) -> pymupdf.Document:
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    y = heading(page, MARGIN, title, 20)
    paragraph(page, y + 8, text, fontsize=13)
    return doc


def heading(page: pymupdf.Page, y: float, text: str, size: float) -> float:
    page.insert_text((MARGIN, y + size), text, fontsize=size, fontname="hebo")
    return y + size * 1.3


def paragraph(page: pymupdf.Page, y: float, text: str, fontsize: float = 11, align: int = 0) -> float:
    """Write wrapped text from y down; return the y below it."""
    rect = pymupdf.Rect(MARGIN, y, WIDTH - MARGIN, HEIGHT - MARGIN)
    spare = page.insert_textbox(rect, text, fontsize=fontsize, fontname="helv", align=align)
    return rect.y1 - spare


def table(page: pymupdf.Page, y: float, rows: list[list[str]]) -> None:
    """A ruled table: a grid of lines with one text line per cell."""
    col_w, row_h = 130, 22
    x0 = MARGIN
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            font = "hebo" if r == 0 else "helv"
            origin = (x0 + c * col_w + 6, y + r * row_h + 15)
            page.insert_text(origin, text, fontsize=11, fontname=font)
    for r in range(len(rows) + 1):
        page.draw_line((x0, y + r * row_h), (x0 + col_w * len(rows[0]), y + r * row_h))
    for c in range(len(rows[0]) + 1):
        page.draw_line((x0 + c * col_w, y), (x0 + c * col_w, y + row_h * len(rows)))


def page_number(page: pymupdf.Page, n: int) -> None:
    page.insert_text((WIDTH / 2 - 3, HEIGHT - 36), str(n), fontsize=10, fontname="helv")


def render(doc: pymupdf.Document, dpi: int) -> Image.Image:
    pix = doc[0].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    return Image.frombytes("L", (pix.width, pix.height), pix.samples)


def scan_look(image: Image.Image) -> Image.Image:
    """Tilt by half a degree and add grain, with a fixed seed so the file is reproducible."""
    tilted = image.rotate(0.5, resample=Image.BICUBIC, fillcolor=255)
    noise = np.random.default_rng(7).normal(0, 12, (tilted.height, tilted.width))
    pixels = np.clip(np.asarray(tilted, dtype=float) * 0.92 + 10 + noise, 0, 255)
    return Image.fromarray(pixels.astype(np.uint8))


def write_pdf(doc: pymupdf.Document, path: Path) -> None:
    doc.set_metadata({})  # no creation dates: the files stay byte-identical across runs
    doc.save(path, garbage=4, deflate=True, no_new_id=True)


if __name__ == "__main__":
    main()
