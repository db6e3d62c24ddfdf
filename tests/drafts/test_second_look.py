"""Unsure short lines read again at the recogniser's trained width; the surer reading kept."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rapidocr.ch_ppocr_rec import TextRecInput, TextRecOutput

from hsd_cli.drafts.second_look import PAD_GREY, TRAINED_RATIO, UNSURE, SecondLook, pad_to_trained, unsure_short


@dataclass
class FakeRecognizer:
    """Reads each image as its width; how sure it is comes from `sure(width)`."""

    sure: object
    widths: list
    read: object = None  # width -> text; None: "w<width>"

    def __call__(self, args: TextRecInput) -> TextRecOutput:
        images = [args.img] if isinstance(args.img, np.ndarray) else args.img
        self.widths.append([image.shape[1] for image in images])
        return TextRecOutput(
            imgs=images,
            txts=tuple((self.read or (lambda w: f"w{w}"))(image.shape[1]) for image in images),
            scores=tuple(self.sure(image.shape[1]) for image in images),
            word_results=tuple(f"words of w{image.shape[1]}" for image in images),
        )


def line(width: int, height: int = 30) -> np.ndarray:
    return np.full((height, width, 3), 255, np.uint8)


def test_only_unsure_short_lines_are_read_again() -> None:
    """A sure short line, an unsure long line and a sure long line are read once."""
    images = [line(60), line(60), line(400), line(400)]
    scores = [UNSURE - 0.1, UNSURE + 0.05, UNSURE - 0.1, 0.99]
    assert unsure_short(images, scores) == [0]


def test_padding_reaches_the_trained_width_in_grey() -> None:
    padded = pad_to_trained(line(60))
    assert padded.shape == (30, int(np.ceil(30 * TRAINED_RATIO)), 3)
    assert (padded[:, :60] == 255).all() and (padded[:, 60:] == PAD_GREY).all()


def test_the_surer_reading_is_kept() -> None:
    """Padded reads surer here: the short unsure line takes the second reading, the others keep
    their first; the call returns one reading per line, in order."""
    rec = FakeRecognizer(lambda w: 0.95 if w >= 200 else 0.5, [])
    out = SecondLook(rec)(TextRecInput(img=[line(60), line(400)]))
    assert rec.widths == [[60, 400], [200]]
    assert out.txts == ("w200", "w400") and out.scores == (0.95, 0.95)


def test_a_less_sure_second_reading_is_dropped() -> None:
    rec = FakeRecognizer(lambda w: 0.4 if w >= 200 else 0.5, [])
    out = SecondLook(rec)(TextRecInput(img=line(60)))
    assert out.txts == ("w60",) and out.scores == (0.5,)


def test_word_boxes_come_with_the_reading_kept() -> None:
    """Padding is on the right, so the kept reading's word positions hold for the line image."""
    rec = FakeRecognizer(lambda w: 0.95 if w >= 200 else 0.5, [])
    out = SecondLook(rec)(TextRecInput(img=[line(60), line(400)], return_word_box=True))
    assert out.txts == ("w200", "w400") and out.word_results == ("words of w200", "words of w400")


def test_a_surer_reading_that_brings_in_an_ideograph_is_dropped() -> None:
    """Padded, a lone `+` read as the CJK numeral ten: the first reading stays."""
    rec = FakeRecognizer(lambda w: 0.82 if w >= 200 else 0.57, [], lambda w: "十" if w >= 200 else "+")
    out = SecondLook(rec)(TextRecInput(img=[line(30)]))
    assert out.txts == ("+",) and out.scores == (0.57,)
