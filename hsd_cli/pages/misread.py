"""Glyphs a font maps to the wrong characters: read as U+FFFD, as glyphs without any map are.

A CJK document set in 8-bit font subsets without a Unicode map (each subset numbers its
ideographs 33, 34, ... as it meets them) reads as Latin-1 soup, `êÆ#(¯K)`: MuPDF takes the
letters from the codes. The glyphs' advance widths tell what they are: ideographs are all one
em wide, while no Latin font sets its letters at one width near a full em (a proportional
font's `i` and `m` differ; a monospaced font's one width is about 0.6 em). A span of Latin
characters all one em wide is ideographs read through a wrong map. Its characters become
U+FFFD, which the drafts leave out and the validity test counts (drafts/validity.py): the page
goes to OCR, and no formula is built from those glyphs (pages/pdfmath.py reads the same marks).
"""

from __future__ import annotations

from collections import Counter

UNMAPPED = "\ufffd"
FULL_WIDTH = 0.85  # em: ideographs advance 1.0; the widest Latin letters (W, M, @) vary around 0.9
SAME_WIDTH = 0.03  # relative: advances this close are one width
MIN_SAME = 0.9  # share of a span's Latin characters at its one width (proportional text: about 0.6)
MIN_CHARS = 4  # and at least this many of them, of 3 kinds or more ("WWW" is no evidence)
MIN_LATIN = 0.9  # share of the span's characters that are Latin: a span with ideographs reads right
# "Latin" here: what a byte gives read through the code pages MuPDF falls back on (WinAnsi,
# MacRoman, Latin-1 and the like), spaces apart: letters, but also † • ∞ ≤ from MacRoman.
_BYTES = bytes(range(0x21, 0x100))
_BYTE_CHARS = frozenset(
    c for page in ("cp1252", "mac_roman", "latin-1") for c in _BYTES.decode(page, errors="ignore") if not c.isspace()
)


def checked_chars(span: dict, horizontal: bool = True) -> list[dict]:
    """The span's `rawdict` chars, its Latin ones as U+FFFD where the font misreads them."""
    chars = span["chars"]
    if not horizontal or not is_misread(chars, span["size"]):
        return chars
    return [{**c, "c": UNMAPPED} if _is_latin(c["c"]) else c for c in chars]


def is_level(line: dict) -> bool:
    """A `rawdict` line set left to right along the page's x axis: its glyph boxes' widths are advances."""
    dx, dy = line["dir"]
    return dx > 0 and abs(dy) <= 0.01


def is_misread(chars: list[dict], size: float) -> bool:
    """Latin characters (nearly all of the span's) set at one advance near a full em."""
    shown = [c for c in chars if not c["c"].isspace()]
    latin = [c for c in shown if _is_latin(c["c"])]
    if size <= 0 or len(latin) < MIN_CHARS or len(latin) < MIN_LATIN * len(shown):
        return False
    if len({c["c"] for c in latin}) < 3:
        return False
    widths = [c["bbox"][2] - c["bbox"][0] for c in latin]
    width = Counter(round(w / size, 2) for w in widths).most_common(1)[0][0] * size
    same = sum(abs(w - width) <= SAME_WIDTH * width for w in widths)
    return width >= FULL_WIDTH * size and same >= MIN_SAME * len(widths)


def _is_latin(c: str) -> bool:
    return c in _BYTE_CHARS
