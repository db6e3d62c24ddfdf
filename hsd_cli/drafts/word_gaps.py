"""Word spaces the recogniser left out, put back where the line image shows a word gap.

PP-OCR's recogniser, trained mostly on Chinese, often reads two words of a Latin line as one
where the space between them is all there is to read (`THEVISION` on a poster's title,
`EveryStudent` in a heading, `ARCH+TRAINING` in handwriting). Its CTC output says where each
character was read (a frame, 8 px of the 48 px high input); the line image says where its ink
stops (an Otsu split of its grey levels). A run of blank columns at least WORD_GAP of
the ink's height wide and LETTER_GAPS times the line's median blank run (a word gap, not the
space between letters, which letter-spaced titles make wide everywhere) that lies between two
characters the reading joined puts a space there -- unless the reading already has a space near
that run (the gap is its own). Only letters and digits are set apart, never two digits (a '1'
or a decimal point leaves wide blanks inside a number) nor characters of scripts written
without spaces (CJK, Thai).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hsd_cli.pages.geometry import UNSPACED

FRAME = 8  # recogniser input pixels a CTC frame covers
INPUT_HEIGHT = 48  # the recogniser's input height
WORD_GAP = 0.35  # a word gap's least width, in ink heights
LETTER_GAPS = 2.0  # ... and in median blank runs of the line
REACH = 2.0  # CTC frames a character may be read away from its ink


class WordGaps:
    """Wraps a rapidocr text recogniser: the same call, word gaps it read as nothing made spaces."""

    def __init__(self, recognizer) -> None:
        self.recognizer = recognizer

    def __call__(self, args):
        asked = args.return_word_box
        out = self.recognizer(replace(args, return_word_box=True))  # where each character was read
        if out.txts is None:
            return out
        images = [args.img] if isinstance(args.img, np.ndarray) else list(args.img)
        frames = [character_frames(info) for info in out.word_results]
        txts = tuple(respace(i, t, f) for i, t, f in zip(images, out.txts, frames, strict=True))
        # Word boxes are the reading's, without the spaces added here.
        return replace(out, txts=txts, word_results=out.word_results if asked else (None,) * len(txts))


def character_frames(info) -> list[int]:
    """The CTC frame of each non-space character of a reading (rapidocr's WordInfo, in order)."""
    return [int(col) for cols in getattr(info, "word_cols", None) or () for col in cols]


def respace(image: np.ndarray, text: str, frames: list[int]) -> str:
    """`text` with a space at each word gap of `image` that it reads as nothing."""
    at = [i for i, c in enumerate(text) if not c.isspace()]
    if len(at) != len(frames) or len(at) < 2:
        return text  # positions that do not fit the text: leave it as read
    ink = ink_mask(image)
    runs = blank_runs(ink)
    if not runs:
        return text
    rows = np.flatnonzero(ink.any(axis=1))
    widths = [b - a for a, b in runs]
    least = max(WORD_GAP * (rows[-1] - rows[0] + 1), LETTER_GAPS * float(np.median(widths)))
    px = image.shape[0] / INPUT_HEIGHT * FRAME  # image pixels a frame covers
    x = [(f + 0.5) * px for f in frames]
    # Between each two characters read in a row: (where, whether the reading has a space there,
    # the index in `text` a space would follow).
    joins = [((x[j] + x[j + 1]) / 2, at[j + 1] > at[j] + 1, at[j]) for j in range(len(at) - 1)]
    spaces = set()
    for a, b in runs:
        near = [j for j in joins if a - REACH * px <= j[0] <= b + REACH * px]
        if b - a < least or not near or any(spaced for _, spaced, _ in near):
            continue
        where = min(near, key=lambda j: abs(j[0] - (a + b) / 2))[2]
        if _word_join(text[where], text[where + 1]):
            spaces.add(where)
    return "".join(c + " " * (i in spaces) for i, c in enumerate(text))


def _word_join(left: str, right: str) -> bool:
    """Whether a space may stand between two characters: letters or digits, not two digits (a
    '1' or a decimal point leaves wide blanks inside a number), of scripts written with spaces."""
    pair = left + right
    return pair.isalnum() and not pair.isdigit() and _spaced_script(left) and _spaced_script(right)


def ink_mask(image: np.ndarray) -> np.ndarray:
    """True where the line image has ink: the smaller side of an Otsu split (dark or light text)."""
    import cv2

    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    _, dark = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    ink = dark > 0
    return ~ink if ink.mean() > 0.5 else ink


def blank_runs(ink: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) columns of each run of ink-free columns between the line's first and last ink."""
    inked = np.flatnonzero(ink.any(axis=0))
    if len(inked) < 2:
        return []
    steps = np.flatnonzero(np.diff(inked) > 1)
    return [(int(inked[i]) + 1, int(inked[i + 1])) for i in steps]


def _spaced_script(char: str) -> bool:
    """Whether words of `char`'s script are set apart by spaces (not CJK, kana, Thai)."""
    return UNSPACED.match(char) is None
