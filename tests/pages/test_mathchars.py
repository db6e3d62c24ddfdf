"""Characters of math fonts as LaTeX (pages/mathchars.py)."""

from __future__ import annotations

from hsd_cli.pages import mathchars as mc


def test_raw_extension_codes_decoded_only_in_an_extension_font():
    """CMEX's raw `X` is the display sum wherever the font hangs below the baseline, any name."""
    assert mc.glyph_char("X", extension=True) == "∑"
    assert mc.glyph_char("X", extension=False) == "X"
    assert mc.glyph_char("\U0001d400", extension=False) == "A"  # math alphanumerics as letters


def test_extension_glyph_depth_by_its_size():
    """A big bracket reaches 1.2 ems below its origin, a Bigg one 3: matrices span their rows."""
    assert mc.extension_depth("\x00") == 1.2
    assert mc.extension_depth("\x14") == 2.4
    assert mc.extension_depth("\x20") == 3.0


def test_alphabets_and_symbols():
    assert mc.family("MSBM10") == mc.family("KaTeX_AMS-Regular") == "\\mathbb"
    assert mc.family("CMSY10") == "\\mathcal"
    assert mc.symbol("µ") == "\\mu" and mc.symbol("≤") == "\\leq"


def test_style_of_unicode_math_letters():
    """𝑥 (MATHEMATICAL ITALIC SMALL X) is an italic x, 𝐅 a bold F: the code point says it."""
    assert mc.alphanumeric_style("\U0001d465") == (True, False)
    assert mc.alphanumeric_style("\U0001d405") == (False, True)
    assert mc.alphanumeric_style("x") == (False, False)


def test_a_slanted_symbol_font_sets_only_mathematics() -> None:
    """mathptmx's Greek comes from Symbol slanted: on a page whose formulas need no CMSY it is
    the only sign of mathematics; upright Symbol also sets text (bullets, a copyright sign)."""
    assert mc.MATH_ONLY.search("LKRWQO+StandardSymL-Slant_167")
    assert mc.MATH_ONLY.search("Symbol-Slanted")
    assert not mc.MATH_ONLY.search("StandardSymL")


def test_euler_roman_letters_are_math_italic() -> None:
    """euler.sty's EURM draws variables upright: they are still variables (kT is k times T), and
    Euler's fonts set only mathematics."""
    assert mc.is_italic("PKIZSB+EURM10", 4) and mc.is_italic("EURB7", 4)
    assert not mc.is_italic("CMR10", 4)
    assert all(mc.MATH_ONLY.search(f) for f in ("EURM10", "EUFM7", "EUSM10", "EUEX10"))
    assert mc.is_extension("RLYTKG+EUEX10") and not mc.is_extension("EURM10")


def test_txfonts_and_pxfonts_alphabets() -> None:
    """txfonts/pxfonts set \\mathbb in their symbol font B and \\mathcal in their symbol font."""
    assert mc.family("Pxsyb") == mc.family("VWXQTR+txsyb") == "\\mathbb"
    assert mc.family("Pxsy") == mc.family("txsy") == "\\mathcal"
    assert mc.family("rtxmi") == mc.family("Rpxr") == ""


def test_katex_caligraphic_spelling() -> None:
    """KaTeX names its calligraphic font `KaTeX_Caligraphic` (one l): its letters are \\mathcal."""
    assert mc.family("KaTeX_Caligraphic-Regular") == "\\mathcal"


def test_symbols_phi_is_texs_phi() -> None:
    """mathptmx's \\phi is the Symbol font's `phi`, which its name reads as U+03C6 (\\varphi's code
    point): in a Symbol font the two phis swap; in any other font each means its code point."""
    for font in ("ABCDEF+StandardSymL-Slant_167", "SymbolMT"):
        assert (mc.font_char("\u03c6", font), mc.font_char("\u03d5", font)) == ("\u03d5", "\u03c6")
    assert (mc.font_char("\u03c6", "CMMI10"), mc.font_char("\u03d5", "KaTeX_Math-Italic")) == ("\u03c6", "\u03d5")
    assert mc.font_char("a", "SymbolMT") == "a"
