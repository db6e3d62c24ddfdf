"""Line text from glyphs: spaces from gaps, accents, ligatures, quotes, invisible characters."""

from __future__ import annotations

import pymupdf

from hsd_cli.pages.glyphs import clean, line_text
from hsd_cli.pages.pdftext import visible_lines


def glyphs(*items: tuple[str, float, float]) -> list[dict]:
    """Glyph records as MuPDF's rawdict gives them: (char, x0, x1) on one baseline."""
    return [{"c": c, "bbox": (x0, 0.0, x1, 10.0)} for c, x0, x1 in items]


def word(text: str, x: float, width: float = 5.0) -> list[tuple[str, float, float]]:
    return [(c, x + i * width, x + (i + 1) * width) for i, c in enumerate(text)]


def test_a_wide_gap_without_a_space_character_is_a_space() -> None:
    """Words placed one by one, no space stored: the gap says where the space is."""
    chars = glyphs(*word("THE", 0), *word("VISION", 19))  # 4 pt gap at size 10
    assert line_text(chars, size=10) == "THE VISION"  # not "THEVISION"


def test_letter_spaced_title_stays_one_word() -> None:
    """Tracking (the same gap between every letter) is no word gap."""
    chars = glyphs(*[(c, i * 7.0, i * 7.0 + 5) for i, c in enumerate("abstract")])
    assert line_text(chars, size=10) == "abstract"  # not "a b s t r a c t"


def test_cjk_gets_no_space_from_a_gap() -> None:
    chars = glyphs(("年", 0, 10), ("0", 13, 18), ("7", 18, 23), ("月", 26, 36))
    assert line_text(chars, size=10) == "年07月"


def test_spacing_accent_over_its_letter_is_composed() -> None:
    """TeX draws ´ then a at the same place: one letter á (NFC), not "´a"."""
    chars = glyphs(("J", 0, 4), ("\u00b4", 5, 9), ("a", 4, 10), ("n", 10, 16))
    assert line_text(chars, size=10) == "J\u00e1n"
    after = glyphs(("c", 0, 5), ("\u02c7", 0.5, 4.5))  # drawn after its letter
    assert line_text(after, size=10) == "\u010d"


def test_accent_beside_a_letter_stays() -> None:
    chars = glyphs(*word("don", 0), ("\u00b4", 15, 17), ("t", 17, 22))
    assert line_text(chars, size=10) == "don\u00b4t"  # not "dont́"


def test_ligature_glyph_is_its_letters_without_a_space() -> None:
    chars = glyphs(*word("in", 0), ("\ufb02", 10, 16), *word("ammation", 16))
    assert line_text(chars, size=10) == "inflammation"  # not "infl ammation"


def test_arabic_lam_alef_keeps_logical_order() -> None:
    assert line_text(glyphs(("\ufefc", 0, 5)), size=10) == "\u0644\u0627"


def test_double_single_quotes_are_a_double_quote() -> None:
    assert clean("\u2018\u2018ethics\u2019\u2019") == "\u201cethics\u201d"


def test_controls_become_unreadable_and_zero_width_spaces_go() -> None:
    """C1 controls are marked (the validity test counts them, drafts drop them); ZWSP leaves no trace."""
    assert clean("a\u0084b\u200bc") == "a\ufffdbc"
    # a variation selector after a glyph (acmart's `∫` reads U+222B U+FE01) leaves no trace either
    assert line_text(glyphs(("\u222b", 0, 5), ("\ufe01", 5, 5), ("x", 5.5, 10.5)), size=10) == "\u222bx"


def test_pdf_words_without_spaces_and_an_accent(tmp_path) -> None:
    """A real PDF: words written one by one and a TeX-style accent come out as a reader sees them."""
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=100)
    x = 20.0
    for w in ("Hello", "there"):
        page.insert_text((x, 50), w, fontsize=12)
        x += pymupdf.get_text_length(w, fontsize=12) + 4  # a word gap, no space character
    page.insert_text((20, 80), "J", fontsize=12)
    a_x = 20 + pymupdf.get_text_length("J", fontsize=12)
    page.insert_text((a_x + 1, 80), "\u00b4", fontsize=12)
    page.insert_text((a_x, 80), "an", fontsize=12)
    texts = sorted(s.text for s in visible_lines(page, pymupdf.Matrix(1, 1)))
    assert "Hello there" in texts
    assert "J\u00e1n" in texts
