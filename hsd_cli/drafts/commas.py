"""Commas the recogniser read as full stops, put back where the next word says which is likelier.

On worn print (old books, faint or coarse scans) PP-OCR's recogniser often reads a comma as a full
stop: the tail that tells them apart is a pixel or two. Its CTC output still gives the comma a
share at that frame, and the text around says which of the two is likelier: a full stop between a
word and a lowercase word is an abbreviation's ("e.g. the"), rare in prose, where a comma is one of
the commonest marks. So a full stop there becomes a comma where the recogniser gave the comma at
least 1/ODDS of the full stop's probability: the odds the context gives a comma over a full stop.
A line's closing full stop with that share is left open (OPEN) for the page to settle: it is a
comma where the line below it in its column starts with a lowercase letter (`close_line_ends`).

ODDS is measured on text, not on OCR: in the dev corpus's ground truth (real documents, 152k
characters) a word is followed by a comma and a lowercase word 482 times, by a full stop and a
lowercase word 6 times (vs., i.e., al.). Of 779 full stops that end a sentence on 65 generated scan
pages, 21 gave the comma that share: an abbreviation's stop read on a scan turns into a comma about
as rarely. On nine generated sets and the dev corpus 23 full stops moved, all on scans: 21 are
commas in the truth, one a speck the truth has no mark for, one a page's first line.
A colon read for a semicolon stays: before a lowercase word the ground truth holds 8 of each, odds
of 1, which the recogniser's share for the semicolon (0.03-0.35 on the scans' misreads) never meets.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from hsd_cli.datatypes import TextSpan

ODDS = 80  # a comma over a full stop, between a word and a lowercase word (the dev corpus: 482 to 6)
BLANK = 0  # CTC's blank, index 0 of rapidocr's character list
OPEN = "\ue000"  # a private-use character: a line's closing full stop that may be a comma
NEXT_LINE = 1.0  # line heights below a line's bottom within which the next line's top lies
# A full stop after a letter, before a space and a letter (lowercase is checked apart: `re` has no
# class for it), or closing the line.
_STOP_BEFORE_WORD = re.compile(r"(?<=[^\W\d_])\.(?= [^\W\d_])")
_CLOSING_STOP = re.compile(r"(?<=[^\W\d_])\.\s*$")


class Commas:
    """Wraps rapidocr's CTC decoder (TextRecognizer.postprocess_op): the same call, full stops
    read for commas mended."""

    def __init__(self, decoder) -> None:
        self.decoder = decoder
        characters = list(decoder.character)
        self.comma, self.stop = characters.index(","), characters.index(".")

    def __call__(self, preds: np.ndarray, return_word_box: bool = False, **kwargs):
        lines, words = self.decoder(preds, return_word_box, **kwargs)
        read = zip(lines, preds, strict=True)
        mended = [(mend(text, probs, self.comma, self.stop), score) for (text, score), probs in read]
        return mended, words  # a comma for a full stop: word boxes and positions hold


def mend(text: str, probs: np.ndarray, comma: int, stop: int) -> str:
    """`text` (the greedy CTC reading of `probs`, [frames, classes]) with each full stop between a
    word and a lowercase word made a comma where the comma has at least 1/ODDS of the full stop's
    probability at its frame, and a closing one left OPEN where it has."""
    stops = [m.start() for m in _STOP_BEFORE_WORD.finditer(text) if text[m.start() + 2].islower()]
    closing = _CLOSING_STOP.search(text)
    if not stops and not closing:
        return text
    frames = _character_frames(probs)
    if len(frames) != len(text):  # a character list entry of more than one character: leave it
        return text
    chars = list(text)
    for i, mark in [(i, ",") for i in stops] + ([(closing.start(), OPEN)] if closing else []):
        p = probs[frames[i]]
        if p[comma] * ODDS >= p[stop]:
            chars[i] = mark
    return "".join(chars)


def close_line_ends(lines: list[TextSpan]) -> list[TextSpan]:
    """`lines` (a page's, read by the recogniser through Commas) with each open closing stop
    settled: a comma where the nearest line below, overlapping it, starts with a lowercase letter
    (the sentence goes on), else a full stop."""
    return [_closed(s, lines) if s.text.endswith(OPEN) else s for s in lines]


def _closed(line: TextSpan, lines: list[TextSpan]) -> TextSpan:
    x0, top, x1, bottom = line.bbox
    below = [
        s
        for s in lines
        if top < s.bbox[1] <= bottom + NEXT_LINE * (bottom - top) and min(x1, s.bbox[2]) > max(x0, s.bbox[0])
    ]
    goes_on = bool(below) and min(below, key=lambda s: s.bbox[1]).text[:1].islower()
    return replace(line, text=line.text[:-1] + ("," if goes_on else "."))


def _character_frames(probs: np.ndarray) -> np.ndarray:
    """The frame each character of the greedy reading was read at (as rapidocr decodes: repeats
    merged, blanks dropped)."""
    ids = probs.argmax(axis=-1)
    first = np.ones(len(ids), dtype=bool)
    first[1:] = ids[1:] != ids[:-1]
    return np.flatnonzero(first & (ids != BLANK))
