"""The validity test of a text layer: unreadable characters and words garbled by unmapped fonts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PIL import Image

from hsd_cli.datatypes import PageImage, TextSpan
from hsd_cli.drafts.overlay import valid_lines
from hsd_cli.drafts.text_layer import has_text_layer
from hsd_cli.drafts.validity import MAX_INVALID, invalid_share, is_garbled

# What a font without a Unicode map gives when its 8-bit codes are read as Latin-1 (dev corpus).
GARBLED = "•ìê °ê£ë†£ûÜüéê èÜ•ÜáÜ§ê"


def test_words_garbled_by_latin1_codes() -> None:
    """Stray symbols between accented letters are garbled; real words of any language are not."""
    assert is_garbled("\u00eaÆ#(\u00afK)")  # a Chinese heading read as Latin-1
    assert is_garbled("\u00b0\u00ea\u00a3\u00eb\u2020\u00a3")
    for word in ("Microsoft®", "©IBM", "5°C", "l’été", "¿Qué", "col·lecció", "Müller", "x±y", "البرمجة،"):
        assert not is_garbled(word), word


def test_invalid_share_counts_garbled_words_and_unreadable_glyphs() -> None:
    assert invalid_share(GARBLED) == 1.0
    assert invalid_share("Plain text with one \ufffd glyph") < MAX_INVALID
    assert invalid_share("Der Müller aß Brötchen für 5 € am Fluß, ¿qué?") == 0.0  # not garbled: no strays in words


def test_a_garbled_page_goes_to_ocr_and_its_valid_lines_still_win() -> None:
    """Per page: a garbled layer is no text layer; per line: only the valid lines overlay OCR."""
    good = TextSpan((0, 0, 500, 20), "The DB2 for i Center of Excellence can help you achieve more.")
    bad = [TextSpan((0, 40 + 30 * i, 500, 60 + 30 * i), GARBLED) for i in range(6)]
    page = PageImage(Path("x.pdf"), 0, Image.new("RGB", (600, 400)), 144, (good, *bad))
    assert not has_text_layer(page)  # not True: 100+ characters of Latin-1 letters "read"
    assert [s.text for s in valid_lines(page.text_spans)] == [good.text]
    body = [replace(good, bbox=(0, 100 + 30 * i, 500, 120 + 30 * i)) for i in range(2)]  # below the head band
    clean = PageImage(Path("x.pdf"), 0, Image.new("RGB", (600, 400)), 144, tuple(body))
    assert has_text_layer(clean)
