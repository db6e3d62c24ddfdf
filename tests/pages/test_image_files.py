"""Page images: formats, frames, orientation, transparency, and the size limit, read as pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from hsd_cli.pages import image_files
from hsd_cli.pages.render import count_pages, iter_pages

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"


@pytest.mark.parametrize("suffix", [".jp2", ".pgm", ".bmp", ".gif", ".webp"])
def test_other_page_image_formats(tmp_path: Path, suffix: str) -> None:
    """Every format a folder walk takes opens as a page (JPEG 2000: scan archives' pages)."""
    Image.open(SAMPLES / "page.png").convert("L").save(tmp_path / f"p{suffix}")
    (page,) = iter_pages(tmp_path / f"p{suffix}")
    assert page.image.mode == "RGB" and page.image.size == Image.open(SAMPLES / "page.png").size


def test_exif_orientation_is_applied(tmp_path: Path) -> None:
    """EXIF orientation 6 (camera turned) gives the upright, portrait page."""
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.new("RGB", (200, 100), "white").save(tmp_path / "p.jpg", exif=exif)
    (page,) = iter_pages(tmp_path / "p.jpg")
    assert page.image.size == (100, 200)


def test_multipage_tiff(tmp_path: Path) -> None:
    """Each TIFF frame is a page."""
    frames = [Image.new("L", (50, 60), v) for v in (0, 128, 255)]
    frames[0].save(tmp_path / "t.tiff", save_all=True, append_images=frames[1:])
    assert count_pages(tmp_path / "t.tiff") == 3
    pages = list(iter_pages(tmp_path / "t.tiff", pages="2-3"))
    assert [p.image.getpixel((0, 0)) for p in pages] == [(128,) * 3, (255,) * 3]


def test_transparent_png_gets_white_background(tmp_path: Path) -> None:
    """Transparent pixels become white, not black."""
    Image.new("RGBA", (20, 20), (0, 0, 0, 0)).save(tmp_path / "a.png")
    (page,) = iter_pages(tmp_path / "a.png")
    assert page.image.getpixel((5, 5)) == (255, 255, 255)


def test_an_image_over_the_limit_is_scaled_down(tmp_path: Path, monkeypatch) -> None:
    """As a PDF page renders at a lower dpi: the page keeps its shape, its dpi scales with it."""
    monkeypatch.setattr(image_files, "MAX_PIXELS", 100)
    Image.new("RGB", (40, 20)).save(tmp_path / "big.png", dpi=(300, 300))
    (page,) = iter_pages(tmp_path / "big.png")
    assert page.image.size == (14, 7) and page.dpi == 106


def test_a_16_bit_grey_frame_keeps_its_contrast(tmp_path: Path) -> None:
    """A 16-bit scan's greys become 8-bit greys, not white (PIL's plain convert clips them)."""
    Image.new("I;16", (4, 4), 32768).save(tmp_path / "g.png")
    page, dpi = image_files.frame(image_files.open_image(tmp_path / "g.png"), 0, 144)
    assert page.mode == "RGB" and page.getpixel((0, 0)) == (128, 128, 128) and dpi == 144
