"""A second reading, at the recogniser's trained width, of the short lines it read unsurely.

drafts/rapid_engines.py has rapidocr recognise each line alone at its own width: a short line
(a label, a table cell) costs what it is wide instead of PP-OCR's 320 px. But the recogniser was
trained on lines 48 px high padded to 320 px, so a narrower line is read out of distribution:
clean print reads the same either way, while on handwriting and noise an unsure line can come
out differently (a plan's handwritten label read as a stray CJK glyph). Only those lines -- short
and read with a mean character confidence below UNSURE -- are read again padded as in training,
and the surer of the two readings is kept, unless it brings in an ideograph the first lacks. On
22 generated scan pages 31 of 1,205 lines are read twice (1.4% more recogniser width) and the
words read are unchanged.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hsd_cli.pages.geometry import CJK

TRAINED_RATIO = 320 / 48  # PP-OCR's recogniser input in training: 48 px high, padded to 320 px
UNSURE = 0.9  # mean character confidence below which a short line is read again
# rapidocr normalises pixels to (p / 255 - 0.5) / 0.5 and pads with 0 after that: mid grey.
PAD_GREY = 128


class SecondLook:
    """Wraps rapidocr's TextRecognizer: the same call, unsure short lines read twice."""

    def __init__(self, recognizer) -> None:
        self.recognizer = recognizer

    def __call__(self, args):
        from rapidocr.ch_ppocr_rec import TextRecInput

        out = self.recognizer(args)
        if out.txts is None:
            return out
        images = [args.img] if isinstance(args.img, np.ndarray) else list(args.img)
        again = unsure_short(images, out.scores)
        if not again:
            return out
        padded = [pad_to_trained(images[i]) for i in again]
        second = self.recognizer(TextRecInput(img=padded, return_word_box=args.return_word_box))
        txts, scores, words = list(out.txts), list(out.scores), list(out.word_results)
        for n, i in enumerate(again):
            if _better(second.txts[n], second.scores[n], txts[i], scores[i]):
                # Padding is on the right: the second reading's word positions hold.
                txts[i], scores[i], words[i] = second.txts[n], second.scores[n], second.word_results[n]
        return replace(out, txts=tuple(txts), scores=tuple(scores), word_results=tuple(words))


def _better(text: str, score: float, first: str, first_score: float) -> bool:
    """Whether the second reading replaces the first: surer, and with no ideograph the first has
    not (padded, a lone `+` of a formula was read as the CJK numeral that looks like it)."""
    return score > first_score and _ideographs(text) <= _ideographs(first)


def _ideographs(text: str) -> set[str]:
    return set(CJK.findall(text))


def unsure_short(images: list[np.ndarray], scores) -> list[int]:
    """Indices of the line images narrower than the trained width and read below UNSURE."""
    return [
        i
        for i, (image, score) in enumerate(zip(images, scores, strict=True))
        if score < UNSURE and image.shape[1] < TRAINED_RATIO * image.shape[0]
    ]


def pad_to_trained(image: np.ndarray) -> np.ndarray:
    """The line image padded on the right with mid grey to the trained width for its height."""
    height, width = image.shape[:2]
    padded = np.full((height, int(np.ceil(TRAINED_RATIO * height)), *image.shape[2:]), PAD_GREY, image.dtype)
    padded[:, :width] = image
    return padded
