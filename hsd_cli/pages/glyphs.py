"""A text line from a PDF's glyphs, as a reader sees it.

MuPDF hands us one record per glyph (`rawdict` chars: `c`, `bbox`), ligatures kept as one
glyph; the rules below are decided here, once, from the glyphs' geometry:
- a space wherever the gap between two glyphs is a word gap and neither the PDF nor MuPDF put
  one (many PDFs position each word and store no space);
- a ligature glyph (U+FB00-FB06) written as its letters, never split by a space; Arabic
  presentation forms (lam-alef...) as their letters in logical order (NFKC);
- a spacing accent drawn over a letter (TeX sets `´` then `a`) composed into one letter (NFC);
- control characters (C0/C1) turned into U+FFFD, which the drafts leave out and the text-layer
  validity test counts; zero-width spaces and joiners-as-spaces dropped;
- two adjacent single quotes written as the double quote they draw (TeX sets ‘‘ and ’’).
"""

from __future__ import annotations

import statistics
import unicodedata

from hsd_cli.pages.geometry import CJK

# A gap wider than this share of the font size is a word space (MuPDF's own SPACE_DIST); we add
# the line's usual letter gap on top so letter-spaced (tracked) titles do not break into letters.
WORD_GAP = 0.15
LIGATURES = dict(
    zip("\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06", ("ff", "fi", "fl", "ffi", "ffl", "st", "st"), strict=True)
)
# Spacing accents and the combining marks they stand for.
ACCENTS = {
    "\u00b4": "\u0301",  # ´ acute
    "`": "\u0300",  # grave (only when drawn over a letter)
    "\u02c6": "\u0302",  # ˆ circumflex
    "^": "\u0302",
    "\u02dc": "\u0303",  # ˜ tilde
    "\u00a8": "\u0308",  # ¨ diaeresis
    "\u02c7": "\u030c",  # ˇ caron
    "\u02d8": "\u0306",  # ˘ breve
    "\u02d9": "\u0307",  # ˙ dot above
    "\u02da": "\u030a",  # ˚ ring
    "\u00b8": "\u0327",  # ¸ cedilla
    "\u02db": "\u0328",  # ˛ ogonek
    "\u00af": "\u0304",  # ¯ macron
    "\u02dd": "\u030b",  # ˝ double acute
}
# Zero-width space, word joiner, BOM, variation selectors (after acmart's `∫`): no visible trace.
INVISIBLE = frozenset("\u200b\u2060\ufeff" + "".join(map(chr, range(0xFE00, 0xFE10))))
_QUOTES = {"\u2018\u2018": "\u201c", "\u2019\u2019": "\u201d"}


def line_text(chars: list[dict], size: float, vertical: bool = False) -> str:
    """The text of one line's glyphs (`rawdict` chars in stream order), `size` in points."""
    glyphs = [c for c in chars if c["c"] not in INVISIBLE]
    axis = 1 if vertical else 0
    threshold = WORD_GAP * size + _letter_gap(glyphs, axis)
    out: list[str] = []
    prev = None
    for i, glyph in enumerate(glyphs):
        ch = glyph["c"]
        if ch in ACCENTS and (target := _accented(glyphs, i, axis)) is not None:
            if target < i and out:  # drawn after its letter: the letter is written already
                out[-1] += ACCENTS[ch]
            else:
                glyphs[target] = dict(glyphs[target], mark=glyphs[target].get("mark", "") + ACCENTS[ch])
            continue
        if ch.isspace():  # the PDF's own spaces stay as they are (code keeps its indents)
            out.append(" ")
            prev = glyph
            continue
        if _is_word_gap(prev, glyph, axis, threshold) and out and not out[-1].isspace():
            out.append(" ")
        out.append(_letters(ch) + glyph.get("mark", ""))
        prev = glyph
    return clean("".join(out)).strip()


def clean(text: str) -> str:
    """NFC, quotes as drawn, controls as U+FFFD (for text that comes without glyph boxes too)."""
    for pair, quote in _QUOTES.items():
        text = text.replace(pair, quote)
    text = "".join("\ufffd" if _is_control(c) else c for c in text if c not in INVISIBLE)
    return unicodedata.normalize("NFC", text)


def _is_word_gap(prev: dict | None, glyph: dict, axis: int, threshold: float) -> bool:
    # Chinese and Japanese set no spaces: a gap beside a CJK glyph is layout (autospace), not a word.
    if prev is None or CJK.match(prev["c"]) or CJK.match(glyph["c"]):
        return False
    return _gap(prev, glyph, axis) > threshold


def _letters(ch: str) -> str:
    if "\ufb50" <= ch <= "\ufdff" or "\ufe70" <= ch <= "\ufefe":  # Arabic presentation forms
        return unicodedata.normalize("NFKC", ch)
    return LIGATURES.get(ch, ch)


def _is_control(c: str) -> bool:
    return unicodedata.category(c) == "Cc" and c not in "\t\n\r"


def _gap(a: dict, b: dict, axis: int) -> float:
    """Empty space between two glyph boxes along the line, in either reading direction."""
    a0, a1, b0, b1 = a["bbox"][axis], a["bbox"][axis + 2], b["bbox"][axis], b["bbox"][axis + 2]
    return max(b0 - a1, a0 - b1)


def _letter_gap(glyphs: list[dict], axis: int) -> float:
    """The line's usual gap between letters of a word (0 for ordinary text, more when tracked)."""
    gaps = [
        _gap(a, b, axis)
        for a, b in zip(glyphs, glyphs[1:], strict=False)
        if not a["c"].isspace() and not b["c"].isspace()
    ]
    # The lower quartile, not the median: formulas and numbers set with wide operator gaps
    # ("a2 + 8 = 12") have as many word gaps as letter gaps.
    return max(0.0, statistics.quantiles(gaps, n=4)[0]) if len(gaps) >= 4 else 0.0


def _accented(glyphs: list[dict], i: int, axis: int) -> int | None:
    """Index of the letter that glyph `i` (a spacing accent) is drawn over, if any."""
    box = glyphs[i]["bbox"]
    centre = (box[axis] + box[axis + 2]) / 2
    for j in (i + 1, i - 1):
        if 0 <= j < len(glyphs) and glyphs[j]["c"].isalpha():
            other = glyphs[j]["bbox"]
            if other[axis] <= centre <= other[axis + 2]:
                return j
    return None
