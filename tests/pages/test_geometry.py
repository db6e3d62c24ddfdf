"""Line geometry (pages/geometry.py): columns of lines, rows, blocks."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from hsd_cli.datatypes import TextSpan
from hsd_cli.pages import geometry as geo


def line(x0: float, y0: float, x1: float, text: str = "words of a line") -> TextSpan:
    return TextSpan((x0, y0, x1, y0 + 20), text)


def test_lines_split_at_a_gutter_no_line_crosses() -> None:
    """A box over the end of one column and the head of the next: two columns of lines."""
    left = [line(450, 140 + 27 * k, 774) for k in range(4)]
    right = [line(820, 140, 1064, "7. Heading"), line(820, 225, 1145)]
    columns = geo.line_columns(right + left)
    assert [sorted(s.bbox[0] for s in c) for c in columns] == [[450] * 4, [820, 820]]


def test_word_gaps_of_justified_lines_are_no_gutter() -> None:
    """A justified line split into words leaves gaps that the full lines below cross."""
    words = [line(79, 141, 123, "The"), line(152, 141, 253, "estimator"), line(283, 141, 343, "shifts")]
    lines = [*words, line(79, 168, 404), line(79, 196, 404)]
    assert geo.line_columns(lines) == [lines]


def test_one_row_is_never_split() -> None:
    row = [line(100, 100, 200, "Name"), line(600, 100, 700, "Date")]
    assert geo.line_columns(row) == [row]


def test_blocks_never_join_lines_of_two_columns() -> None:
    """group_lines joins lines that overlap horizontally: never across a gutter."""
    lines = [line(100, 100 + 25 * k, 480) for k in range(3)] + [line(520, 100 + 25 * k, 900) for k in range(3)]
    blocks = geo.group_lines(lines)
    assert len(blocks) == 2 and all(len({s.bbox[0] for s in b}) == 1 for b in blocks)


def test_a_column_under_a_wide_box_is_a_block_of_its_own() -> None:
    """A scan's layout model boxed nothing: the last line of a box set across the columns
    ("In a nutshell") and the middle column's lines under it are close and overlap, but the
    column's lines start far right of it and keep one width. Centred lines and a paragraph's
    hanging indent stay one block."""
    box = [line(223, 262 + 23 * k, 1422) for k in range(3)]
    column = [line(585, 336 + 23 * k, 1098) for k in range(4)]
    assert geo.group_lines(box + column) == [box, column]
    centred = [line(300, 100, 900), line(400, 123, 800), line(380, 146, 820)]
    hanging = [line(100, 100, 900), line(130, 123, 900), line(130, 146, 900)]
    assert geo.group_lines(centred) == [centred] and geo.group_lines(hanging) == [hanging]


def test_scripts_without_spaces_are_cjk_and_thai_not_hangul_or_latin_ligatures() -> None:
    """One definition serves the block joiner, the second look and word gaps (drafts/)."""
    for char in "漢かカ、｡＋︵⺀":  # ideograph, kana, CJK punctuation, full-width, vertical form, radical
        assert geo.CJK.match(char) and geo.UNSPACED.match(char)
    assert geo.UNSPACED.match("ก") and not geo.CJK.match("ก")  # Thai
    for char in "한aﬁﺑ":  # Hangul, Latin, a Latin ligature, an Arabic presentation form
        assert not geo.UNSPACED.match(char)


@pytest.mark.parametrize("angle", [0, 90, 180, 270])
def test_unrotate_box_inverts_pil_rotate(angle: int) -> None:
    """A pixel found on image.rotate(angle, expand=True) maps back to where it was."""
    w, h, x, y = 40, 30, 7, 5
    image = Image.new("L", (w, h), 0)
    image.putpixel((x, y), 255)
    turned = image.rotate(angle, expand=True)
    v, u = np.argwhere(np.asarray(turned))[0]  # row, column of the lit pixel
    x0, y0, x1, y1 = geo.unrotate_box((u, v, u + 1, v + 1), angle, (w, h))
    assert (x0, y0, x1, y1) == (x, y, x + 1, y + 1)


def test_joined_rows_puts_a_justified_lines_pieces_together() -> None:
    """MuPDF cuts a widely justified line into pieces; each row is one line again, left to right."""
    pieces = [
        TextSpan((200, 100, 260, 112), "global", 10),
        TextSpan((100, 100, 180, 112), "such", 10),
        TextSpan((100, 120, 300, 132), "functions under the approaches", 10),
    ]
    rows = geo.joined_rows(pieces)
    assert [(r.text, r.bbox) for r in rows] == [
        ("such global", (100, 100, 260, 112)),
        ("functions under the approaches", (100, 120, 300, 132)),
    ]


def test_line_columns_split_at_a_gutter_narrower_than_a_line() -> None:
    """LaTeX's 10 pt column gap beside 12 pt type: a gutter under a line's height (0.8 of it)."""
    left = [TextSpan((100, 100 + 30 * k, 400, 125 + 30 * k), "words of a line", 12) for k in range(3)]
    right = [TextSpan((420, 100 + 30 * k, 720, 125 + 30 * k), "words of a line", 12) for k in range(3)]
    assert [len(c) for c in geo.line_columns(left + right)] == [3, 3]
    # Words of one line a third of its height apart are no columns.
    words = [TextSpan((100, 100, 300, 125), "words of", 12), TextSpan((308, 100, 600, 125), "a line", 12)]
    assert len(geo.line_columns(words + left[1:])) == 1


def test_a_line_held_by_two_boxes_goes_to_the_smaller():
    """A sidebar floated into a paragraph's box: its lines stay the sidebar's, whatever the boxes' order."""
    sidebar, paragraph = (488.0, 845.0, 725.0, 1006.0), (130.0, 901.0, 756.0, 1145.0)
    side_line = TextSpan((500, 950, 700, 970), "We extended 90 parameters")
    body_line = TextSpan((130, 950, 442, 970), "Furthermore, the observed")
    for boxes in ([sidebar, paragraph], [paragraph, sidebar]):
        inside, leftovers = geo.assign_lines([side_line, body_line], boxes)
        assert inside[boxes.index(sidebar)] == [side_line]
        assert inside[boxes.index(paragraph)] == [body_line]
        assert leftovers == []


def test_a_known_pitch_joins_double_spaced_lines():
    lines = [TextSpan((165, 839 + 50 * k, 1075, 861 + 50 * k), "a double spaced line", 12.0) for k in range(4)]
    assert len(geo.group_lines(lines)) == 4
    assert geo.group_lines(lines, pitch=50) == [lines]


def test_a_footnote_mark_raising_a_line_keeps_it_in_its_block():
    """The line with a superscript is taller; its type size is the block's."""
    plain = TextSpan((105, 691, 671, 710), "The strong coefficient preserves the rapid field", 10.0)
    marked = TextSpan((105, 706, 671, 734), "tems.1 In practice, the simulated phase supports", 10.0)
    assert geo.group_lines([plain, marked]) == [[plain, marked]]


def test_with_a_known_pitch_a_line_cut_at_a_wide_space_is_one_line_of_its_block():
    cut = [TextSpan((105, 685, 187, 707), "protein.", 10.9), TextSpan((206, 685, 738, 707), "Our results shift", 10.9)]
    below = TextSpan((105, 714, 738, 735), "these fine equations rapidly.", 10.9)
    assert geo.group_lines([*cut, below], pitch=28.4) == [[*cut, below]]


def test_a_justified_lines_pieces_join_where_the_next_line_crosses_their_spaces() -> None:
    """A narrow column's first line cut at spaces wider than a gutter ("These  dominant  lattices")
    is one line again: the line under it runs across the spaces. Two columns' lines, and a table's
    cells over a row of cells, stay apart: no line crosses a gutter."""

    def span(text: str, x0: float, x1: float, y0: float, size: float = 10.0) -> TextSpan:
        return TextSpan((x0, y0, x1, y0 + 23), text, size)

    pieces = [span("These", 446, 501, 460), span("dominant", 551, 636, 460), span("lattices", 685, 745, 460)]
    below = span("characterize the trajectory of the", 446, 745, 490)
    assert [s.text for s in geo.spanned_pieces_joined([*pieces, below])] == [
        "These dominant lattices",
        "characterize the trajectory of the",
    ]
    columns = [span("left column line", 100, 400, 460), span("right column line", 440, 740, 460)]
    under = [span("left column goes on", 100, 400, 490), span("right column goes on", 440, 740, 490)]
    assert len(geo.spanned_pieces_joined(columns + under)) == 4
    cells = [span("Name", 100, 160, 460), span("2019", 300, 340, 460), span("Alpha", 100, 150, 490)]
    assert len(geo.spanned_pieces_joined([*cells, span("12", 300, 320, 490)])) == 4
    heading = span("A wider heading in bold", 100, 700, 490, 14.0)  # another type runs across: no sign
    assert len(geo.spanned_pieces_joined([*cells[:2], heading])) == 3


@pytest.mark.parametrize(
    ("first", "second", "joined"),
    [
        ("the distribu-", "tions of", "the distributions of"),  # a word hyphenated to fit: one word
        ("8. Stefan-", "Boltzmann law", "8. Stefan-Boltzmann law"),  # a compound broken at its hyphen
        ("in MEL-", "BOURNE", "in MEL- BOURNE"),  # capitals: a hyphenated heading's word, as before
        ("as de-", "1We note", "as de- 1We note"),  # a footnote's number is no compound's rest
        ("from 10 to 20 -", "Next", "from 10 to 20 - Next"),  # a spaced dash is no hyphen
    ],
)
def test_lines_ending_in_a_hyphen_join_as_written(first: str, second: str, joined: str) -> None:
    """A compound broken at its own hyphen before a capitalised word keeps it and takes no space
    ("Stefan- Boltzmann" before)."""
    assert geo.join_lines([line(100, 100, 300, first), line(100, 122, 300, second)]) == joined
