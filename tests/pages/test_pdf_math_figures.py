"""Born-digital pages end to end: inline formulas as LaTeX (pages/pdfmath.py), vector charts and
embedded pictures as whole figures with their captions (pages/pdffigures.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pymupdf
import pytest
from PIL import Image
from typer.testing import CliRunner

from hsd_cli.cli.app import app

PROSE = "This paragraph is ordinary prose, set in a text font with enough words to read as a sentence."


def _convert(pdf: Path, out: Path, *extra: str) -> tuple[str, list[dict]]:
    args = ["convert", str(pdf), "-o", str(out), "--method", "draft", "--workers", "0", "--quiet", *extra]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    has_json = any("json" in e for e in extra)
    blocks = json.loads((out / f"{pdf.stem}.json").read_text())["pages"][0]["blocks"] if has_json else []
    return (out / f"{pdf.stem}.md").read_text(), blocks


def _write(page: pymupdf.Page, x: float, y: float, text: str, font: str = "helv", size: float = 11) -> float:
    page.insert_text((x, y), text, fontname=font, fontsize=size)
    return x + pymupdf.get_text_length(text, fontname=font, fontsize=size)


def make_math_pdf(path: Path) -> Path:
    """A paragraph whose line holds `E = mc^2`, its letters in a math italic font (CMMI10)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for i in range(3):
        _write(page, 72, 100 + 14 * i, PROSE)
    x = _write(page, 72, 142, "Einstein wrote ")
    x = _write(page, x, 142, "E", "tiit") + 3
    x = _write(page, x, 142, "=") + 3
    x = _write(page, x, 142, "mc", "tiit")
    x = _write(page, x + 0.5, 137.5, "2", "helv", 7.5)
    _write(page, x, 142, " for the energy of a body at rest.")
    for xref, *_, base, _name, _enc in page.get_fonts():
        if "Italic" in base:  # the italic letters become a math font's, as TeX would set them
            doc.xref_set_key(xref, "BaseFont", "/CMMI10")
    doc.save(path)
    return path


def make_chart_pdf(path: Path) -> Path:
    """A bar chart drawn with lines and rectangles, tick labels beside it, its caption below."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for i in range(4):
        _write(page, 72, 100 + 14 * i, PROSE, size=10)
    page.draw_line((150, 200), (150, 360))
    page.draw_line((150, 360), (450, 360))
    for k, h in enumerate([40, 80, 120, 60]):
        page.draw_rect(pymupdf.Rect(170 + 70 * k, 360 - h, 210 + 70 * k, 360), color=(0, 0, 1), fill=(0, 0, 1))
    _write(page, 122, 205, "100", size=7)
    _write(page, 138, 362, "0", size=7)
    _write(page, 285, 375, "Year", size=7)
    _write(page, 150, 400, "Figure 2: Sales per year, drawn with vectors.", size=9)
    for i in range(3):
        _write(page, 72, 440 + 14 * i, PROSE, size=10)
    doc.save(path)
    return path


@pytest.mark.slow
def test_inline_formula_is_latex(tmp_path):
    """Superscript by size and raised baseline, letters in a math font: `$E=mc^{2}$` in the line."""
    md, _ = _convert(make_math_pdf(tmp_path / "math.pdf"), tmp_path / "out")
    assert "Einstein wrote $E=mc^{2}$ for the energy" in md  # not "E = mc2"


@pytest.mark.slow
def test_vector_chart_is_one_figure_with_its_labels_and_caption(tmp_path):
    """The drawing cluster is a figure whose box holds its tick labels; its caption pairs with it;
    without --images a placeholder stands where the figure is."""
    pdf = make_chart_pdf(tmp_path / "chart.pdf")
    md, blocks = _convert(pdf, tmp_path / "out", "--images", "--format", "md,json")
    (fig,) = [b for b in blocks if b["kind"] == "figure"]
    x0, y0, x1, y1 = fig["bbox_pt"]
    assert x0 <= 122 and y0 <= 200 and x1 >= 450 and y1 >= 370  # the "100" label and the axis title inside
    assert fig["caption"].startswith("Figure 2: Sales per year")
    assert (tmp_path / "out" / fig["image"]).exists() and f"]({fig['image']})" in md
    plain, _ = _convert(pdf, tmp_path / "plain")
    assert plain.index("<!-- image -->") < plain.index("Figure 2: Sales") and "![" not in plain


@pytest.mark.slow
def test_every_embedded_picture_is_linked(tmp_path):
    """Two embedded pictures, each with its caption: --images crops and links both."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    _write(page, 72, 90, PROSE, size=10)
    for k, (top, color) in enumerate([(120, "red"), (420, "green")]):
        buf = io.BytesIO()
        Image.new("RGB", (200, 120), color).save(buf, "PNG")
        page.insert_image(pymupdf.Rect(150, top, 450, top + 180), stream=buf.getvalue())
        _write(page, 150, top + 200, f"Figure {k + 1}: A {color} picture.", size=9)
        _write(page, 72, top + 230, PROSE, size=10)
    doc.save(tmp_path / "pics.pdf")
    md, blocks = _convert(tmp_path / "pics.pdf", tmp_path / "out", "--images", "--format", "md,json")
    figures = [b for b in blocks if b["kind"] == "figure"]
    assert [f["caption"] for f in figures] == ["Figure 1: A red picture.", "Figure 2: A green picture."]
    for f in figures:
        assert (tmp_path / "out" / f["image"]).exists() and f"]({f['image']})" in md


def test_a_formula_line_is_not_joined_to_the_next_column(tmp_path):
    """A line holding a formula and the line beside it across a column gap (LaTeX: 10 pt) stay two lines."""
    from hsd_cli.pages import pdfmath, pdftext

    path = make_math_pdf(tmp_path / "math.pdf")  # its formula line ends near x = 300
    doc = pymupdf.open(path)
    page = doc[0]
    line = page.get_text("dict")["blocks"][-1]["lines"][-1]
    _write(page, line["bbox"][2] + 10, 142, "the right column goes on here")
    spans = pdfmath.with_inline_math(page, pymupdf.Matrix(1, 1), pdftext.visible_lines(page, pymupdf.Matrix(1, 1)))
    texts = [s.text for s in spans]
    assert any("$E=mc^{2}$" in t and "right column" not in t for t in texts)
    assert "the right column goes on here" in texts


def _failing(*_args, **_kwargs):
    raise ValueError("odd glyphs")


@pytest.mark.slow
def test_a_failing_formula_reader_costs_the_formulas_alone_and_says_so(tmp_path, monkeypatch):
    """A bug or an odd page in the formula reader leaves the figures and the text layer's drafts
    (not OCR's) and marks the page degraded, naming what was not read: nothing lost silently."""
    from hsd_cli.pages import pdfmath

    monkeypatch.setattr(pdfmath, "with_equations", _failing)
    monkeypatch.setattr(pdfmath, "with_inline_math", _failing)
    pdf = make_chart_pdf(tmp_path / "chart.pdf")
    md, blocks = _convert(pdf, tmp_path / "out", "--format", "md,json")
    page = json.loads((tmp_path / "out" / "chart" / "page-0001.json").read_text())
    assert page["status"] == "degraded" and page["draft_source"] == "text_layer"
    assert "inline formulas not read (ValueError: odd glyphs)" in page["error"]
    assert "; formulas not read (ValueError: odd glyphs)" in page["error"]
    assert [b["kind"] for b in blocks].count("figure") == 1 and "Figure 2: Sales per year" in md
    math, _ = _convert(make_math_pdf(tmp_path / "math.pdf"), tmp_path / "math")
    assert "Einstein wrote E = mc" in math  # the line, as the text layer reads it


def test_an_inline_fraction_whose_denominator_starts_the_next_words(tmp_path):
    """`\\frac{v}{12}` in a line: MuPDF reads the denominator with the words after it as one line
    and the numerator as a line of its own, which starts inside that one. The row's glyphs and
    text go left to right: not `as $12$. A large ... $o^{v}f$` (the numerator after the words)."""
    from hsd_cli.pages import pdfmath, pdftext

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    x = _write(page, 72, 142, "The wave scales as") + 5
    _write(page, x + 1.5, 136, "v", "tiit", 7.5)
    _write(page, x, 147, "12", "helv", 7.5)
    page.draw_line((x, 140), (x + 8.5, 140), width=0.4)
    _write(page, x + 9.5, 142, ". A large temperature of the sample.")
    for xref, *_, base, _name, _enc in page.get_fonts():
        if "Italic" in base:
            doc.xref_set_key(xref, "BaseFont", "/CMMI10")
    page = pymupdf.open("pdf", doc.tobytes())[0]
    spans = pdfmath.with_inline_math(page, pymupdf.Matrix(1, 1), pdftext.visible_lines(page, pymupdf.Matrix(1, 1)))
    assert [s.text for s in spans] == ["The wave scales as $\\frac{v}{12}$. A large temperature of the sample."]
