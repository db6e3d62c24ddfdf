"""Margin line numbers (LaTeX's lineno) leave the page's lines; row numbers and headings stay."""

from __future__ import annotations

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.line_numbers import strip

PITCH = 28.0


def body(rows: int, first: int = 0, x0: float = 105.0) -> list[TextSpan]:
    return [
        TextSpan((x0, 177 + PITCH * i, 738, 199 + PITCH * i), f"line {i} of the body text", 10.9)
        for i in range(first, rows)
    ]


def numbers(rows: list[int], start: int, right: float = 84.0) -> list[TextSpan]:
    return [TextSpan((right - 13, 185 + PITCH * i, right, 194 + PITCH * i), str(start + i), 6.0) for i in rows]


def test_a_column_numbering_every_line_leaves():
    lines = body(12) + numbers(list(range(12)), 27)
    assert strip(lines).lines == body(12)
    assert len(strip(lines).numbers) == 12


def test_every_fifth_line_numbered_leaves():
    marks = [TextSpan((71, 185 + PITCH * i, 84, 194 + PITCH * i), str(i + 1), 6.0) for i in (4, 9, 14, 19)]
    assert strip(body(22) + marks).lines == body(22)


def test_numbers_right_of_the_text_leave():
    marks = [TextSpan((760, 185 + PITCH * i, 773, 194 + PITCH * i), str(40 + i), 6.0) for i in range(8)]
    assert strip(body(8) + marks).lines == body(8)


def test_a_line_that_took_its_number_in_loses_it():
    """A line rebuilt with its inline math begins at the number column, number first."""
    merged = TextSpan(
        (71, 177 + PITCH * 3, 738, 199 + PITCH * 3),
        "30 the field $x$ dominates the variance of the dense survey here",
        6.0,
    )
    lines = body(3) + [merged] + body(8, first=4) + numbers([0, 1, 2, 4, 5, 6, 7], 27)
    kept = strip(lines).lines
    assert [s.text for s in kept][3] == "the field $x$ dominates the variance of the dense survey here"
    assert kept[3].bbox[0] > 84  # right of the number column


def test_numbered_headings_far_apart_stay():
    """Section numbers 1-4 beside headings: each step spans many rows, no line count."""
    heads = [TextSpan((71, 185 + PITCH * 6 * i, 84, 194 + PITCH * 6 * i), str(i + 1), 10.9) for i in range(4)]
    lines = body(24) + heads
    assert strip(lines).lines == lines


def test_row_numbers_of_a_table_stay():
    rows = body(6) + numbers(list(range(6)), 1)
    table = (60.0, 150.0, 760.0, 400.0)
    assert strip(rows, keep_out=[table]).lines == rows


def test_a_few_numbers_stay():
    lines = body(3) + numbers([0, 1, 2], 1)
    assert strip(lines).lines == lines


def test_the_numbers_give_the_line_pitch():
    """Double-spaced lines 50 px apart: the pitch that joins them into blocks again."""
    lines = [TextSpan((165, 839 + 50 * i, 1075, 861 + 50 * i), f"line {i} of the text", 12.0) for i in range(6)]
    marks = [TextSpan((131, 848 + 50 * i, 144, 859 + 50 * i), str(11 + i), 6.0) for i in range(6)]
    assert strip(lines + marks).pitch == 50
    assert strip(lines).pitch == 0


def test_ocr_lines_that_read_their_numbers_in_lose_them():
    """OCR reads a row's number and text as one line: every line opens with its number."""
    rows = [
        TextSpan(
            (71, 177 + PITCH * i, 738, 199 + PITCH * i),
            f"{7 + i} words of line {i} of a page read by OCR, ten px a character",
            0.0,
        )
        for i in range(6)
    ]
    kept = strip(rows).lines
    assert [s.text for s in kept] == [f"words of line {i} of a page read by OCR, ten px a character" for i in range(6)]
    assert strip(rows).pitch == PITCH


def test_a_numbered_list_of_short_entries_far_apart_stays():
    """Entries opening with a number, a paragraph apart: no line count between them."""
    rows = [
        TextSpan((71, 177 + 5 * PITCH * i, 738, 199 + 5 * PITCH * i), f"{i + 1} entry of the list", 0.0)
        for i in range(5)
    ]
    filler = [
        TextSpan((71, 177 + PITCH * k, 738, 199 + PITCH * k), "running text of the page", 0.0)
        for k in range(25)
        if k % 5
    ]
    assert strip(rows + filler).lines == rows + filler


def test_exercises_numbered_again_from_one_keep_their_numbers():
    """A textbook page read by OCR: two-line exercises '1 ...', '2 ...', '3 ...', then a second
    set from 1 again; each step is within a row of the rows between, as a margin's may be. The
    restart says list."""

    def row(r: int, text: str, x0: float = 240) -> TextSpan:
        return TextSpan((x0, 177 + PITCH * r, 1600, 199 + PITCH * r), text, 10.9)

    items = [(0, 1), (2, 2), (4, 3), (10, 1), (11, 2)]
    lines = [
        row(r, f"{n} Do you remember any little poems or songs you learned when you were a child? ({r})")
        for r, n in items
    ]
    lines += [row(r + 1, f"and its second line {r}", 285) for r, _ in items[:3]]
    assert strip(lines).lines == lines
