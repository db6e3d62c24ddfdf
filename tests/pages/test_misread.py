"""pages/misread.py: Latin letters all one em wide are ideographs read through a wrong map."""

from __future__ import annotations

import pymupdf
from damaged_pdfs import SAMPLES, garbage_layer_pdf

from hsd_cli.drafts import has_text_layer
from hsd_cli.drafts.validity import unreadable_layer
from hsd_cli.pages import pdfmath
from hsd_cli.pages.misread import UNMAPPED, is_misread
from hsd_cli.pages.render import open_document, render_page, with_text_layer


def _chars(text: str, widths: list[float]) -> list[dict]:
    """`rawdict` chars set side by side, each as wide as its width (points)."""
    out, x = [], 0.0
    for c, w in zip(text, widths, strict=True):
        out.append({"c": c, "bbox": (x, 0.0, x + w, 12.0)})
        x += w
    return out


def test_a_span_of_full_width_latin_letters_is_misread() -> None:
    assert is_misread(_chars("êÆ#(¯K)", [12.0] * 7), 12.0)


def test_real_latin_text_is_read_as_it_is() -> None:
    """Proportional letters vary (not misread, even stretched wide); a monospaced font's one
    width is far below an em; a span with ideographs reads right; "WWW" is no evidence."""
    helvetica = [0.72, 0.56, 0.22, 0.28, 0.56, 0.83, 0.5]  # "Example" in em
    assert not is_misread(_chars("Example", [12 * w for w in helvetica]), 12.0)
    assert not is_misread(_chars("Example", [12 * 1.8 * w for w in helvetica]), 12.0)  # Tz 180%
    assert not is_misread(_chars("print(x)", [7.2] * 8), 12.0)  # Courier: 0.6 em
    assert not is_misread(_chars("中文ABCD", [12.0] * 6), 12.0)
    assert not is_misread(_chars("WWWW", [12.0] * 4), 12.0)


def test_a_garbage_layer_reads_as_unmapped_and_goes_to_ocr(tmp_path) -> None:
    """The page's lines are U+FFFD throughout: no text layer to draft from, and the cause named."""
    path = tmp_path / "garbage.pdf"
    path.write_bytes(garbage_layer_pdf())
    with open_document(path) as doc:
        page = with_text_layer(doc, render_page(doc, 0, 72))
    assert page.text_spans and all(set(s.text) <= {UNMAPPED, " "} for s in page.text_spans)  # not "PRSTU]^_`abc"
    assert not has_text_layer(page)
    assert unreadable_layer(page.text_spans).startswith("text layer unreadable (100%")


def test_no_formula_is_built_from_misread_glyphs(tmp_path) -> None:
    """The formula reader (pages/pdfmath.py) sees the same marks, so `+`, `(` and `=` read from
    ideographs make no LaTeX."""
    doc = pymupdf.open(stream=garbage_layer_pdf(), filetype="pdf")
    glyphs = [g.c for _, line in pdfmath.page_glyph_lines(doc[0]) for g in line]
    assert glyphs and set(glyphs) <= {UNMAPPED}


def test_the_samples_read_as_before() -> None:
    with open_document(SAMPLES / "born_digital.pdf") as doc:
        page = with_text_layer(doc, render_page(doc, 0, 72))
    assert has_text_layer(page) and not any(UNMAPPED in s.text for s in page.text_spans)
    assert unreadable_layer(page.text_spans) == ""
