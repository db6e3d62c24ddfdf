"""Test doubles at the I/O seams: a PageConverter with no model, and small input files.

`python tests/fakes.py convert ...` runs the real CLI with FakeConverter in place of the model
(HSD_FAKE_DELAY seconds per page), for subprocess tests that kill a run midway.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf
from PIL import Image, ImageDraw

from hsd_cli.datatypes import PageResult, PageStatus, PreparedPage


@dataclass
class FakeConverter:
    """Deterministic Markdown per page; optional delay, failing pages, and an options tag."""

    method: str = "fake"
    uses_drafts: bool = False
    delay: float = 0.0
    fail_pages: frozenset[int] = frozenset()
    tag: str = "v1"  # change it to make earlier reports stale
    calls: list[tuple[str, int]] = field(default_factory=list)

    def options_key(self) -> dict[str, object]:
        return {"method": self.method, "tag": self.tag, "window": (3, 1)}

    def convert(self, prepared: PreparedPage) -> PageResult:
        page = prepared.page
        self.calls.append((page.source.name, page.number))
        time.sleep(self.delay)
        if page.number in self.fail_pages:
            raise RuntimeError(f"boom on page {page.number}")
        w, h = page.image.size
        markdown = f"# {page.source.stem} p{page.number}\n\nimage {w}x{h}\n"
        return PageResult(
            str(page.source),
            page.number,
            PageStatus.OK,
            markdown=markdown,
            method=self.method,
            tokens=10,
            steps=4,
            accepted_hist=[2, 1, 2, 1],
            t_decode=0.01,
            t_total=0.02,
        )


def make_pdf(path: Path, num_pages: int = 2) -> Path:
    """A small PDF without a text layer (so rendering skips layout analysis: fast)."""
    doc = pymupdf.open()
    for i in range(num_pages):
        page = doc.new_page(width=144, height=144)
        page.draw_rect(pymupdf.Rect(10, 10, 20 + 10 * i, 40), color=(0, 0, 0), fill=(0, 0, 0))
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


def make_encrypted_pdf(path: Path, password: str = "secret") -> Path:
    doc = pymupdf.open(make_pdf(path.with_suffix(".plain.pdf"), 1))
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=password, owner_pw="owner")
    doc.close()
    path.with_suffix(".plain.pdf").unlink()
    return path


def make_corrupted_pdf(path: Path) -> Path:
    """A %PDF header followed by garbage."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 4)
    return path


def install(converter: FakeConverter) -> None:
    """Make the runner build `converter` instead of loading a model."""
    from hsd_cli.driver import choose

    choose.converter_for = lambda cfg: converter


if __name__ == "__main__":
    install(FakeConverter(delay=float(os.environ.get("HSD_FAKE_DELAY", "0"))))
    from hsd_cli.cli.app import main

    sys.argv[0] = "hsd"
    main()


FIGURE_RECT = (100, 200, 500, 440)  # points: where make_figure_pdf draws its chart


def make_figure_pdf(path: Path) -> Path:
    """One born-digital page: title, paragraph, a chart image with a caption below, paragraph."""
    import io

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 90), "Figures in documents", fontsize=20)
    page.insert_text((72, 130), "The chart below shows how many tokens each step accepts.", fontsize=11)
    img = Image.new("RGB", (400, 240), "white")
    draw = ImageDraw.Draw(img)
    for i, h in enumerate([60, 120, 180, 90, 150]):
        draw.rectangle([40 + 70 * i, 220 - h, 90 + 70 * i, 220], fill=(40, 90, 200))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    page.insert_image(pymupdf.Rect(*FIGURE_RECT), stream=buf.getvalue())
    page.insert_text((100, 462), "Figure 1: Accepted tokens per step on five pages.", fontsize=10)
    page.insert_text((72, 500), "After the figure the text goes on with a second paragraph.", fontsize=11)
    doc.save(path)
    return path


def lined_image(width: int = 320, label: str = "Line") -> Image.Image:
    """A white 240-px-high page with four lines of text, distinct per width and label."""
    img = Image.new("RGB", (width, 240), "white")
    draw = ImageDraw.Draw(img)
    for i in range(4):
        draw.text((20, 20 + 50 * i), f"{label} {i} of the page", fill="black")
    return img


def fail_first_render(monkeypatch, message: str) -> None:
    """Rendering page 1 of any document raises InputError(message); other pages render."""
    from hsd_cli.errors import InputError
    from hsd_cli.pages import render

    real = render.render_page

    def broken(doc, index, dpi):  # noqa: ANN001, ANN202
        if index == 0:
            raise InputError(message)
        return real(doc, index, dpi)

    monkeypatch.setattr(render, "render_page", broken)
