"""Full stops read for commas mended where the next word is lowercase and the recogniser gave the
comma its share; rapidocr's own CTC decoder underneath."""

from __future__ import annotations

import numpy as np
import pytest
from rapidocr.ch_ppocr_rec.utils import CTCLabelDecode

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.commas import ODDS, OPEN, Commas, close_line_ends, mend

CHARACTERS = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:;")


@pytest.fixture(scope="module")
def decoder() -> CTCLabelDecode:
    return CTCLabelDecode(character=list(CHARACTERS))  # blank first and space last, as rapidocr's


def reading(decoder: CTCLabelDecode, text: str, comma_share: float = 0.0) -> np.ndarray:
    """[frames, classes] probabilities whose greedy CTC reading is `text`: each character on a
    frame of its own, a blank between; each full stop's frame gives the comma `comma_share` of
    the full stop's probability."""
    ids = [decoder.dict[c] for c in text]
    probs = np.full((2 * len(ids) + 1, len(decoder.character)), 0.001, np.float32)
    probs[0::2, 0] = 0.9
    for i, k in enumerate(ids):
        probs[2 * i + 1, k] = 0.9
        if text[i] == ".":
            probs[2 * i + 1, decoder.dict[","]] = 0.9 * comma_share
    return probs


def test_a_full_stop_before_a_lowercase_word_becomes_a_comma_when_the_comma_has_its_share(decoder) -> None:
    comma, stop = decoder.dict[","], decoder.dict["."]
    text = "the labourers are remarkable. and prevail"
    assert mend(text, reading(decoder, text, 1.2 / ODDS), comma, stop) == text.replace(".", ",")
    assert mend(text, reading(decoder, text, 0.8 / ODDS), comma, stop) == text  # a sure full stop


@pytest.mark.parametrize(
    "text",
    [
        "agree. The grain",  # a sentence ends: the next word is a capital
        "nearly 70.5 acres",  # a decimal point
        "see 2. and",  # after a digit (a numbered item)
        "as follows: the",  # a colon is left as read
    ],
)
def test_other_stops_stay(decoder, text: str) -> None:
    assert mend(text, reading(decoder, text, 0.9), decoder.dict[","], decoder.dict["."]) == text


def test_the_wrapper_mends_each_line_of_a_batch_and_keeps_scores_and_word_boxes(decoder) -> None:
    lines = ["cottages. and the", "valley. As all"]
    frames = max(2 * len(t) + 1 for t in lines)
    preds = np.zeros((2, frames, len(decoder.character)), np.float32)
    for b, text in enumerate(lines):
        probs = reading(decoder, text, 0.5)
        preds[b, : len(probs)] = probs
        preds[b, len(probs) :, 0] = 1.0  # trailing blanks
    ratios = {"wh_ratio_list": (1.0, 1.0), "max_wh_ratio": 1.0}
    plain_lines, plain_words = decoder(preds, True, **ratios)
    mended, words = Commas(decoder)(preds, True, **ratios)
    assert [t for t, _ in mended] == ["cottages, and the", "valley. As all"]
    assert [s for _, s in mended] == [s for _, s in plain_lines]
    assert [w.word_cols for w in words] == [w.word_cols for w in plain_words]


def test_the_engines_decode_through_it() -> None:
    from hsd_cli.drafts.rapid_engines import load_engines

    ocr, _ = load_engines(0.5, 1, "cpu")
    assert isinstance(ocr._load_rec_model().postprocess_op, Commas)


def test_a_closing_stop_is_left_open_where_the_comma_has_its_share(decoder) -> None:
    comma, stop = decoder.dict[","], decoder.dict["."]
    text = "in this district."
    assert mend(text, reading(decoder, text, 0.5), comma, stop) == "in this district" + OPEN
    assert mend(text, reading(decoder, text, 0.01), comma, stop) == text


def span(text: str, x0: float, y0: float, x1: float, height: float = 20) -> TextSpan:
    return TextSpan((x0, y0, x1, y0 + height), text)


def test_an_open_stop_is_a_comma_where_the_line_below_in_its_column_goes_on_in_lowercase() -> None:
    lines = [
        span("dry in this district" + OPEN, 0, 0, 300),
        span("Mills are wet" + OPEN, 400, 0, 700),  # the next column: its line below starts a sentence
        span("as all travellers agree.", 0, 26, 290),
        span("The grain is cold.", 400, 26, 690),
        span("ends here" + OPEN, 0, 52, 200),  # nothing below
    ]
    assert [s.text for s in close_line_ends(lines)] == [
        "dry in this district,",
        "Mills are wet.",
        "as all travellers agree.",
        "The grain is cold.",
        "ends here.",
    ]
