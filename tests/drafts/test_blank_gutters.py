"""Merged OCR lines cut at a gutter the page image shows blank (drafts/blank_gutters.py)."""

from __future__ import annotations

import numpy as np

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.blank_gutters import split_at_blank_gutters

WORDS = [
    "the",
    "late",
    "flow",
    "governs",
    "globally",
    "as",
    "the",
    "beam",
    "of",
    "the",
    "extended",
    "population",
    "and",
    "more",
]


def page(rows: list[list[tuple[int, int]]]) -> np.ndarray:
    """A white page with a word's ink at each (x0, x1) of each row (a letter's 2 px stem every
    6 px), rows 40 px apart."""
    image = np.full((60 + 40 * len(rows), 1000), 255, np.uint8)
    for k, row in enumerate(rows):
        for x0, x1 in row:
            for x in range(x0, x1 - 1, 6):
                image[60 + 40 * k + 12 : 60 + 40 * k + 28, x : x + 2] = 0
    return image


def words(x0: int, x1: int, shift: int) -> list[tuple[int, int]]:
    """Words of 30-60 px with 8 px spaces from x0 to x1 (their widths shifted row by row)."""
    out, x, k = [], x0, shift
    while x < x1:
        w = min(30 + (k * 7) % 31, x1 - x)
        out.append((x, x + w))
        x, k = x + w + 8, k + 1
    return out


def merged(rows: list[list[tuple[int, int]]]) -> tuple[list[TextSpan], list]:
    """One OCR line per row across the page, its text a word per bar."""
    lines, quads = [], []
    for k, row in enumerate(rows):
        y = 60 + 40 * k
        text = " ".join(WORDS[i % len(WORDS)] for i in range(len(row)))
        lines.append(TextSpan((row[0][0], y, row[-1][1], y + 40), text))
        quads.append(((row[0][0], y), (row[-1][1], y), (row[-1][1], y + 40), (row[0][0], y + 40)))
    return lines, quads


def test_lines_merged_across_a_blank_gutter_are_cut_there() -> None:
    """Two columns 22 px apart (a word space is 8): the detector merged every line across them."""
    rows = [words(50, 480, k) + words(502, 950, k + 3) for k in range(6)]
    lines, quads = merged(rows)
    out, corners = split_at_blank_gutters(lines, quads, page(rows))
    assert len(out) == 12 and len(corners) == 12
    assert all(s.bbox[2] <= 502 for s in out[::2]) and all(s.bbox[0] >= 480 for s in out[1::2])


def test_a_wide_space_of_one_line_is_no_gutter() -> None:
    """One column, justified: a line's wider spaces stand at their own x, not in a column."""
    rows = [words(50, 950, k) for k in range(6)]
    rows[2] = words(50, 400, 2) + words(425, 950, 5)
    lines, quads = merged(rows)
    assert split_at_blank_gutters(lines, quads, page(rows)) == (lines, quads)


def test_a_columns_lines_with_wide_spaces_level_by_chance_are_not_cut() -> None:
    """A column's last justified lines, few words each, leave wide spaces that can fall level:
    lines of one column span half the text's width, no gutter between two columns."""
    left = [words(50, 300, k) + words(330, 560, k + 1) for k in range(3)]  # 30 px spaces at one x
    right = [words(600, 990, k + 2) for k in range(3)]
    lines, quads = merged(left + right)
    assert split_at_blank_gutters(lines, quads, page(left + right)) == (lines, quads)
