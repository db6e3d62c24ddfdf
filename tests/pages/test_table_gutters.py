"""A grid column that holds two of the table's columns is cut at the gutter running down it."""

from __future__ import annotations

from hsd_cli.datatypes import TableCell
from hsd_cli.pages.table_gutters import split_columns

HEIGHT = 10.0  # a word's height; a word space is about a quarter of it


def word(text: str, x0: float, row: int) -> tuple:
    """A PyMuPDF word: 5 units a character wide, on text row `row`."""
    y0 = 20.0 * row
    return (x0, y0 + 2, x0 + 5 * len(text), y0 + 2 + HEIGHT, text, 0, row, 0)


def grid(rows: list[list[str]], words: list) -> tuple[tuple[TableCell, ...], list]:
    """Cells of a grid whose columns start at x = 0, 120, 240, ..., one text row a grid row."""
    cells, boxes = [], []
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            cells.append(TableCell(r, c, text, is_header=r == 0))
            boxes.append((120.0 * c, 20.0 * r, 120.0 * (c + 1), 20.0 * (r + 1)))
    return tuple(cells), boxes


def text_of(words: list):
    def read(box) -> str:
        inside = [w for w in words if box[0] <= (w[0] + w[2]) / 2 <= box[2] and box[1] <= (w[1] + w[3]) / 2 <= box[3]]
        return " ".join(w[4] for w in sorted(inside, key=lambda w: w[0]))

    return read


def two_figures(a: str, b: str, row: int, gap: float) -> list:
    """Two right-aligned figures set `gap` apart in grid column 1 (x 120-240)."""
    right = 200.0
    return [word(a, right - 5 * len(a), row), word(b, right + gap, row)]


def test_a_gutter_down_every_cell_cuts_the_column_and_moves_the_later_ones() -> None:
    rows = [("Recall", "Rate"), ("27.3", "0.002"), ("47.0", "0.139"), ("0.106", "0.459")]
    words = [w for r, (a, b) in enumerate(rows) for w in two_figures(a, b, r, 0.64 * HEIGHT)]
    words += [word(f"n{r}", 250, r) for r in range(4)]
    cells, boxes = grid(
        [
            ["Sample", "Recall Rate", "n0"],
            ["a", "27.3 0.002", "n1"],
            ["b", "47.0 0.139", "n2"],
            ["c", "0.106 0.459", "n3"],
        ],
        words,
    )
    out, out_boxes = split_columns(cells, boxes, words, text_of(words))
    by_row = {r: [c.text for c in sorted((c for c in out if c.row == r), key=lambda c: c.col)] for r in range(4)}
    assert by_row[0] == ["Sample", "Recall", "Rate", "n0"]
    assert by_row[1] == ["a", "27.3", "0.002", "n1"]
    assert sorted({c.col for c in out}) == [0, 1, 2, 3] and len(out_boxes) == len(out)
    assert all(c.is_header == (c.row == 0) for c in out)


def test_words_a_space_apart_or_a_band_clear_in_some_rows_only_stay_one_column() -> None:
    spaced = [w for r in range(4) for w in two_figures("12.5", "7.1", r, 0.25 * HEIGHT)]
    prose = [w for r in range(4) for w in two_figures("wide", "word", r, HEIGHT if r < 3 else 0.2 * HEIGHT)]
    for words in (spaced, prose):
        cells, boxes = grid([["x", " ".join(w[4] for w in words[2 * r : 2 * r + 2])] for r in range(4)], words)
        assert split_columns(cells, boxes, words, text_of(words)) == (cells, boxes)


def test_a_cell_spanning_the_cut_column_spans_both_parts() -> None:
    words = [w for r in range(1, 4) for w in two_figures("1.0", "2.0", r, HEIGHT)] + [word("Group", 130, 0)]
    cells = (TableCell(0, 0, "Group", col_span=2),) + tuple(TableCell(r, 1, "1.0 2.0") for r in range(1, 4))
    boxes = [(0.0, 0.0, 240.0, 20.0)] + [(120.0, 20.0 * r, 240.0, 20.0 * (r + 1)) for r in range(1, 4)]
    out, _ = split_columns(cells, boxes, words, text_of(words))
    assert out[0].col_span == 3 and [c.col for c in out[1:]] == [1, 2] * 3
