"""Stray ideographs the recogniser reads on a page of Latin text.

PP-OCR's recogniser reads Chinese and Latin alike, so a symbol with no script around it can come
out as an ideograph: a formula's plus as 十, a minus, dash or fraction bar as 一, a Greek letter
as 不. On a page of Latin text with at most MAX_STRAY CJK characters besides the look-alikes,
these are misreads: the look-alikes become their symbols, another ideograph standing alone is
left out (two side by side are a word, and stay). A page with more CJK text keeps all as read.
"""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.datatypes import TextSpan
from hsd_cli.pages.geometry import CJK

SYMBOLS = {"十": "+", "一": "\u2212", "二": "=", "丨": "|"}
BAR = "一"  # read alone on its line: a rule or a fraction bar, no text
MAX_STRAY = 3  # other CJK characters a page of Latin text may hold before they are its own text
MIN_LATIN = 50  # Latin letters that make a page one of Latin text


def latin_symbols(lines: list[TextSpan]) -> list[TextSpan]:
    """`lines` with the stray ideographs of a page of Latin text mended; a line that was a bar
    alone is left out."""
    text = "".join(s.text for s in lines)
    others = sum(1 for c in text if CJK.match(c) and c not in SYMBOLS)
    latin = sum(1 for c in text if c.isascii() and c.isalpha())
    if not CJK.search(text) or others > MAX_STRAY or latin < MIN_LATIN:
        return lines
    kept = [s for s in lines if s.text.strip() != BAR]
    return [replace(s, text=_mended(s.text)) if CJK.search(s.text) else s for s in kept]


def _mended(text: str) -> str:
    out = []
    for i, c in enumerate(text):
        if c in SYMBOLS:
            out.append(SYMBOLS[c])
        elif not CJK.match(c) or CJK.match(text[i - 1 : i] or " ") or CJK.match(text[i + 1 : i + 2] or " "):
            out.append(c)  # not an ideograph, or one of a word
    return "".join(out)
