"""Open PDFs and page images, select pages, and render them to `PageImage`s.

Every bad input raises `InputError` whose message names the cause (the caller adds the path).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pymupdf
from PIL import Image

from hsd_cli.datatypes import PageImage
from hsd_cli.errors import InputError
from hsd_cli.pages import image_files, partial, pdffigures, pdfmath, pdftext
from hsd_cli.pages.image_files import MAX_PIXELS, short
from hsd_cli.pages.ocr_dpi import ocr_dpi, text_height

MIN_DPI = 36  # RunConfig's lower bound for --dpi

# MuPDF prints repair warnings for slightly broken files; our own errors say what matters.
pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)


@dataclass
class Document:
    """An open input: a PDF (`pdf`) or an image file whose frames are pages (`image`)."""

    path: Path
    page_count: int
    pdf: pymupdf.Document | None = None
    image: Image.Image | None = None

    def pdf_page(self, index: int) -> pymupdf.Page:
        """PDF page `index`, upright (pdftext.upright)."""
        return pdftext.upright(self.pdf[index])

    def close(self) -> None:
        if self.pdf is not None:
            self.pdf.close()
        if self.image is not None:
            self.image.close()

    def __enter__(self) -> Document:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_document(path: str | Path, password: str | None = None) -> Document:
    """Open a PDF or image file; raise `InputError` naming why it cannot be used."""
    path = Path(path)
    head = _read_head(path)
    if b"%PDF-" in head:
        return _open_pdf(path, password)
    if path.suffix.lower() == ".pdf":
        raise InputError("not a PDF: the file has no %PDF header (corrupted or another format)")
    return _open_image(path)


def count_pages(path: str | Path, password: str | None = None) -> int:
    """Number of pages of a PDF, or frames of an image file."""
    with open_document(path, password) as doc:
        return doc.page_count


def page_ranges(spec: str | None) -> list[tuple[int, int | None]]:
    """Check "1-3,7" ("5-" and "-2" allowed) without a document: 1-based (first, last) ranges,
    last None for "to the end"; ValueError names the bad part."""
    if spec is None or not spec.strip():
        return [(1, None)]
    ranges: list[tuple[int, int | None]] = []
    for part in (p.strip() for p in spec.split(",")):
        match = re.fullmatch(r"(\d*)\s*(-?)\s*(\d*)", part)
        if not part or not match or not (match[1] or match[3]):
            raise ValueError(f"bad page range {part!r} in {spec!r}; use e.g. 1-3,7")
        first = int(match[1]) if match[1] else 1
        last = (int(match[3]) if match[3] else None) if match[2] else first
        if first < 1:
            raise ValueError(f"page range {part!r}: pages are numbered from 1")
        if last is not None and first > last:
            raise ValueError(f"page range {part!r} runs backwards")
        ranges.append((first, last))
    return ranges


def parse_page_spec(spec: str | None, n_pages: int, clip: bool = False) -> list[int]:
    """Sorted 0-based indices of `spec` in a document of n_pages; pages past the end are an
    error, or with `clip` simply not there (a batch's --pages 1-2 suits one-page documents)."""
    picked: set[int] = set()
    for first, last in page_ranges(spec):
        end = n_pages if last is None else last
        if end > n_pages and not clip:
            label = f"{first}" if first == last else f"{first}-{end}"
            raise ValueError(f"page range {label!r} is outside 1-{n_pages}")
        picked.update(range(first - 1, min(end, n_pages)))
    return sorted(picked)


def iter_pages(
    path: str | Path,
    pages: str | None = None,
    dpi: int = 144,
    max_pages: int | None = None,
    password: str | None = None,
    analyze: bool = True,
) -> Iterator[PageImage]:
    """Render the selected pages with their text layer; `analyze` adds layout boxes and tables."""
    with open_document(path, password) as doc:
        indices = parse_page_spec(pages, doc.page_count)[:max_pages]
        for index in indices:
            page = render_page(doc, index, dpi)
            page = with_text_layer(doc, page)
            yield with_layout(doc, page) if analyze and page.text_spans else page


def render_page(doc: Document, index: int, dpi: int) -> PageImage:
    """The page (or image frame) as an image only: what every method pays for."""
    if doc.pdf is not None:
        return _render_pdf_page(doc, index, dpi)
    return _image_page(doc, index, dpi)


def with_text_layer(doc: Document, page: PageImage) -> PageImage:
    """`page` with its PDF text lines (a drafting cost: `ar` never calls it)."""
    if doc.pdf is None:
        return page
    try:
        pdf_page = doc.pdf_page(page.index)
        to_px = _to_px(pdf_page, page.dpi)
        spans = pdftext.visible_lines(pdf_page, to_px)
    except Exception:  # noqa: BLE001 - a broken text layer only costs the text-layer drafts
        return page
    spans, unread = partial.partly("inline formulas", lambda: pdfmath.with_inline_math(pdf_page, to_px, spans), spans)
    return replace(page, text_spans=spans, unread=partial.notes(page.unread, unread))


def render_for_ocr(doc: Document, page: PageImage) -> PageImage:
    """`page` rendered again, with its text layer, at the resolution OCR reads it best at
    (pages/ocr_dpi.py); `page` itself where that is its own resolution, or it is an image file."""
    if doc.pdf is None:
        return page
    rect = doc.pdf_page(page.index).rect
    dpi = ocr_dpi(rect.width, rect.height, text_height(page.text_spans), page.dpi)
    if dpi == page.dpi:
        return page
    return with_text_layer(doc, _render_pdf_page(doc, page.index, dpi))


def with_layout(doc: Document, page: PageImage, threads: int | None = None) -> PageImage:
    """`page` with PyMuPDF's layout regions and tables (only the text-layer drafts use them); its
    model runs `threads` threads (the drafts' share; None: the process's CPUs)."""
    if doc.pdf is None:
        return page
    pdf_page = doc.pdf_page(page.index)
    layout, unread = _analyze(pdf_page, _to_px(pdf_page, page.dpi), threads)
    return replace(page, layout=layout, unread=partial.notes(page.unread, unread))


def text_turn(doc: Document, page: PageImage) -> int:
    """Clockwise degrees that make `page`'s text run across (pdftext.text_turn; 0 for an image)."""
    return pdftext.text_turn(doc.pdf_page(page.index)) if doc.pdf is not None else 0


def turned(doc: Document, page: PageImage, turn: int) -> tuple[Document, PageImage]:
    """`page` turned `turn` degrees clockwise, as a one-page PDF in memory and its render: the
    page a reader turns to read a sideways table. Drafts read there; their boxes map back with
    geometry.unrotate_box (the render is `page.image.rotate(-turn, expand=True)`). Annotations
    and form fields come along baked into the content (show_pdf_page draws content only)."""
    source = doc.pdf_page(page.index)
    baked = pymupdf.open()
    baked.insert_pdf(doc.pdf, from_page=page.index, to_page=page.index)
    baked.bake()
    view = pymupdf.open()
    flat = view.new_page(width=source.rect.width, height=source.rect.height)
    flat.show_pdf_page(flat.rect, baked, 0)
    flat.set_rotation(turn)
    flat.remove_rotation()
    view_doc = Document(doc.path, 1, pdf=view)
    return view_doc, _render_pdf_page(view_doc, 0, page.dpi)


def _to_px(pdf_page: pymupdf.Page, dpi: int) -> pymupdf.Matrix:
    # Text coordinates are the page's own points: upright (pdftext.upright), or for a page MuPDF
    # could not turn, unrotated points of a page the image shows rotated.
    return pdf_page.rotation_matrix * pymupdf.Matrix(dpi / 72, dpi / 72)


def _read_head(path: Path) -> bytes:
    try:
        with path.open("rb") as f:
            head = f.read(1024)
    except FileNotFoundError:
        raise InputError("file not found") from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file") from None
    except PermissionError:
        raise InputError("cannot read the file: permission denied") from None
    except OSError as e:
        raise InputError(f"cannot read the file: {e.strerror or e}") from None
    if not head:
        raise InputError("empty file (0 bytes)")
    return head


def _open_pdf(path: Path, password: str | None) -> Document:
    try:
        pdf = pymupdf.open(*_pdf_source(path), filetype="pdf")
    except Exception as e:  # MuPDF raises several types for broken files
        raise InputError(f"corrupted PDF, cannot be opened ({short(e)})") from None
    if pdf.needs_pass:
        if password is None:
            pdf.close()
            raise InputError("encrypted PDF: a password is needed (--password)")
        if not pdf.authenticate(password):
            pdf.close()
            raise InputError("encrypted PDF: the password is wrong")
    if pdf.page_count == 0:
        pdf.close()
        raise InputError("the PDF has zero pages")
    return Document(path, pdf.page_count, pdf=pdf)


def _pdf_source(path: Path) -> tuple:
    """MuPDF takes UTF-8 file names only: a name with other bytes is read into memory instead."""
    try:
        str(path).encode("utf-8")
        return (path,)
    except UnicodeEncodeError:
        return (None, path.read_bytes())


def _open_image(path: Path) -> Document:
    image = image_files.open_image(path)
    return Document(path, getattr(image, "n_frames", 1), image=image)


def _render_pdf_page(doc: Document, index: int, dpi: int) -> PageImage:
    try:
        page = doc.pdf_page(index)
        dpi = fitting_dpi(page.rect.width, page.rect.height, dpi)
        _check_pixels(page.rect.width * dpi / 72, page.rect.height * dpi / 72, index, dpi)
        matrix = pymupdf.Matrix(dpi / 72, dpi / 72)
        pix = page.get_pixmap(matrix=matrix, colorspace=pymupdf.csRGB, alpha=False)
        image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    except InputError:
        raise
    except Exception as e:
        raise InputError(f"page {index + 1} cannot be rendered ({short(e)})") from None
    return PageImage(doc.path, index, image, dpi)


def _analyze(page: pymupdf.Page, to_px: pymupdf.Matrix, threads: int | None) -> tuple[tuple, str]:
    """(Layout regions with formulas as LaTeX and figures from the page's images and drawings,
    what of that could not be read): the analysis only sharpens drafts, so it never fails a page."""
    try:
        regions = pdftext.layout_regions(page, to_px, threads)
    except Exception:  # pymupdf-layout missing, or its model tripping on an odd page
        regions = ()
    regions, no_math = partial.partly("formulas", lambda: pdfmath.with_equations(page, to_px, regions), regions)
    regions, no_figures = partial.partly("figures", lambda: pdffigures.with_figures(page, to_px, regions), regions)
    return regions, partial.notes(no_math, no_figures)


def _image_page(doc: Document, index: int, dpi: int) -> PageImage:
    image, own_dpi = image_files.frame(doc.image, index, dpi)
    return PageImage(doc.path, index, image, own_dpi)


def fitting_dpi(width_pt: float, height_pt: float, dpi: int) -> int:
    """`dpi`, or the highest below it at which a page of that size stays under MAX_PIXELS (a
    poster, a drawing), not below MIN_DPI: the models see a few megapixels of any page anyway
    (their processors' max_pixels are 4 to 13 MP), and the page report keeps the dpi it got."""
    pixels = width_pt * height_pt * (dpi / 72) ** 2
    if pixels <= MAX_PIXELS:
        return dpi
    return min(dpi, max(MIN_DPI, int(dpi * math.sqrt(MAX_PIXELS / pixels))))


def _check_pixels(width: float, height: float, index: int, dpi: int) -> None:
    if width * height <= MAX_PIXELS:
        return
    size = f"{width:.0f} x {height:.0f} px ({width * height / 1e6:.0f} MP)"
    raise InputError(f"page {index + 1} too large: {size} at {dpi} dpi, limit {MAX_PIXELS // 10**6} MP")
