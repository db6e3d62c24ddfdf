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


@pytest.mark.parametrize(
    ("mode", "value", "grey"),
    [("F", 0.2, 51), ("F", 200.0, 200), ("I", 200, 200), ("I", 40000, 156)],
)
def test_float_and_32_bit_greys_keep_their_contrast(mode: str, value, grey: int) -> None:
    """Floats in 0-1, 8-bit values in a wide type, 16-bit values in a 32-bit one: each by its
    range, where PIL's plain convert makes 0.2 black and 40000 white."""
    page = image_files._to_rgb(Image.new(mode, (4, 4), value))
    assert page.getpixel((0, 0)) == (grey,) * 3


def test_light_type_on_a_transparent_image_shows_on_black(tmp_path: Path) -> None:
    """White text drawn on transparency (a logo, a dark-mode screenshot) vanished on white."""
    image = Image.new("RGBA", (20, 20), (0, 0, 0, 0))
    image.paste((255, 255, 255, 255), (5, 5, 15, 8))
    image.save(tmp_path / "w.png")
    (page,) = iter_pages(tmp_path / "w.png")
    assert page.image.getpixel((1, 1)) == (0, 0, 0) and page.image.getpixel((6, 6)) == (255, 255, 255)


def test_dark_type_on_a_transparent_image_shows_on_white(tmp_path: Path) -> None:
    image = Image.new("RGBA", (20, 20), (255, 255, 255, 0))  # transparent white, as editors save it
    image.paste((0, 0, 0, 255), (5, 5, 15, 8))
    page = image_files._to_rgb(image)
    assert page.getpixel((1, 1)) == (255, 255, 255) and page.getpixel((6, 6)) == (0, 0, 0)
