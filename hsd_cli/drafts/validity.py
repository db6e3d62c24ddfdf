"""Is a text layer what a reader sees? The validity test for a page's, or a line's, text.

Text is invalid when more than `MAX_INVALID` of its non-space characters are
1. unreadable: U+FFFD (a glyph whose font has no Unicode map), controls, private-use or
   unassigned code points; or
2. garbled: in a word where a stray symbol touches a letter and the word holds Latin
   letters outside ASCII. A font without a Unicode map whose 8-bit codes are read as Latin-1 gives
   `êÆ#(¯K)` for Chinese and `°ê£ë†£ûÜüéê` for English: no language puts a pound sign, dagger
   or bullet between its letters. Typographic marks that do sit in words (apostrophes,
   dashes, the Catalan middle dot, ¡ ¿) and math symbols (`x±y`) are no stray symbols, and
   a word of ASCII letters (`Microsoft®`, `©IBM`, `5°C`) is never garbled.
A page whose layer is invalid is read by OCR; there, each layer line that is valid still
replaces the OCR lines it covers (drafts.overlay), so a broken font costs only its own lines.
Glyphs a font maps to the wrong letters (CJK ideographs read as Latin-1, pages/misread.py)
arrive here as U+FFFD: unreadable.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from hsd_cli.datatypes import TextSpan

MAX_INVALID = 0.2  # symbol-font bullets stay far below: at most 1.1% of a page on the dev corpus
MIN_TEXT_CHARS = 100  # below this a text layer is a stamp or a few labels, not the page
_UNREADABLE = frozenset(("Cc", "Co", "Cn", "Cs"))
_STRAY = frozenset(("So", "Sc", "Sk", "Po"))  # not Sm: math; not Pd/Pi/Pf/Ps/Pe: dashes, quotes, brackets
_IN_WORDS = frozenset("\u2019\u2018\u00b7\u00a1\u00bf\u2026\u2032\u2033")  # ’ ‘ · ¡ ¿ … ′ ″


def layer_text(spans: Sequence[TextSpan]) -> str:
    """A page's text layer as one text, lines apart (words of two lines do not run together)."""
    return "\n".join(s.text for s in spans)


def is_page_text(text: str) -> bool:
    """Enough characters to be the page's text, not a stamp or a few labels."""
    return len(text) - text.count("\n") >= MIN_TEXT_CHARS


def unreadable_layer(spans: Sequence[TextSpan]) -> str:
    """Why a page's text layer, long enough to be the page's text, cannot be read; "" when it can
    (or is too short to be more than a stamp)."""
    text = layer_text(spans)
    share = invalid_share(text) if is_page_text(text) else 0.0
    if share <= MAX_INVALID:
        return ""
    return f"text layer unreadable ({share:.0%} of its characters are glyphs without Unicode or garbled words)"


def invalid_share(text: str) -> float:
    """Share of the non-space characters that are unreadable or in garbled words."""
    chars = sum(not c.isspace() for c in text)
    if not chars:
        return 0.0
    unreadable = sum(is_unreadable(c) for c in text if not c.isspace())
    garbled = sum(len(w) for w in text.split() if is_garbled(w))
    return min(1.0, (unreadable + garbled) / chars)


def is_garbled(word: str) -> bool:
    """A stray symbol against a letter, in a word with Latin letters outside ASCII."""
    if not any("\u00c0" <= c <= "\u024f" and c.isalpha() for c in word):  # Arabic `،` is no stray
        return False
    return any(_is_stray(c) and _touches_letter(word, i) for i, c in enumerate(word))


def is_unreadable(c: str) -> bool:
    """U+FFFD (no Unicode map), a control, private-use, surrogate or unassigned code point."""
    return c == "\ufffd" or unicodedata.category(c) in _UNREADABLE


def _is_stray(c: str) -> bool:
    return not c.isascii() and c not in _IN_WORDS and unicodedata.category(c) in _STRAY


def _touches_letter(word: str, i: int) -> bool:
    return (i > 0 and word[i - 1].isalpha()) or (i + 1 < len(word) and word[i + 1].isalpha())
