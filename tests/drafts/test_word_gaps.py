"""Word gaps the recogniser read as nothing become spaces; letter gaps and read spaces do not."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rapidocr.ch_ppocr_rec import TextRecInput, TextRecOutput

from hsd_cli.drafts.word_gaps import WordGaps, blank_runs, ink_mask, respace

LETTER, HEIGHT = 16, 48  # a frame is 8 px of a 48 px high line


def blocks(gaps: list[int], dark_on_light: bool = True) -> tuple[np.ndarray, list[int]]:
    """A line of letter-sized ink blocks with `gaps` between them, and the CTC frame of each block."""
    width = 8 + len(gaps) * LETTER + sum(gaps) + LETTER + 8
    image = np.full((HEIGHT, width, 3), 255 if dark_on_light else 40, np.uint8)
    x, frames = 8, []
    for gap in [*gaps, 0]:
        image[9:39, x : x + LETTER] = 0 if dark_on_light else 230
        frames.append(round((x + LETTER / 2) / 8 - 0.5))
        x += LETTER + gap
    return image, frames


def test_a_word_gap_read_as_nothing_becomes_a_space() -> None:
    image, frames = blocks([4, 4, 24, 4, 4])
    assert respace(image, "THEVIS", frames) == "THE VIS"


def test_light_text_on_dark_ground() -> None:
    image, frames = blocks([4, 4, 24, 4, 4], dark_on_light=False)
    assert respace(image, "THEVIS", frames) == "THE VIS"


def test_letter_spaced_words_stay_whole() -> None:
    """Every gap wide (a letter-spaced title): none is a word gap beside the others."""
    image, frames = blocks([20, 20, 24, 20, 20])
    assert respace(image, "THEVIS", frames) == "THEVIS"


def test_a_space_read_near_the_gap_is_its_own() -> None:
    """The reading's space takes the gap, even where CTC read a letter a frame off its ink (the
    second l of `all` read in the gap after it): no second space beside it."""
    image, frames = blocks([4, 4, 24, 4, 4])
    assert respace(image, "THE VIS", frames) == "THE VIS"
    late = [*frames[:2], frames[2] + 2, *frames[3:]]
    assert respace(image, "THE VIS", late) == "THE VIS"


def test_scripts_without_spaces_stay_as_read() -> None:
    image, frames = blocks([4, 4, 24, 4, 4])
    assert respace(image, "中文字中文字", frames) == "中文字中文字"


def test_numbers_and_punctuation_are_not_split() -> None:
    """A '1' or a decimal point leaves wide blanks inside a number; a colon or a full-width comma
    keeps to its word."""
    image, frames = blocks([4, 4, 24, 4, 4])
    assert respace(image, "118070", frames) == "118070"
    assert respace(image, "ABC:DE", frames) == "ABC:DE"
    assert respace(image, "AB，3DE", frames) == "AB，3DE"


def test_positions_that_do_not_fit_leave_the_text() -> None:
    image, frames = blocks([4, 4, 24, 4, 4])
    assert respace(image, "THEVISION", frames) == "THEVISION"


def test_blank_runs_lie_between_the_first_and_last_ink() -> None:
    image, _ = blocks([4, 24])
    assert blank_runs(ink_mask(image)) == [(24, 28), (44, 68)]


@dataclass
class FakeRecognizer:
    """Reads the block line as "THEVIS" with its frames; records whether word boxes were asked."""

    asked: list

    def __call__(self, args: TextRecInput) -> TextRecOutput:
        self.asked.append(args.return_word_box)
        _, frames = blocks([4, 4, 24, 4, 4])
        info = type("WordInfo", (), {"word_cols": [frames[:3], frames[3:]]})()
        return TextRecOutput(txts=("THEVIS",), scores=(0.99,), word_results=(info,))


def test_the_wrapper_asks_for_positions_and_returns_what_was_asked() -> None:
    image, _ = blocks([4, 4, 24, 4, 4])
    rec = FakeRecognizer([])
    out = WordGaps(rec)(TextRecInput(img=[image]))
    assert rec.asked == [True] and out.txts == ("THE VIS",) and out.word_results == (None,)
