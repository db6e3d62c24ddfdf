"""Reading order from geometry (drafts/reading_order.py): columns read down then across, rows of
cards across then down, sections split by blocks that span the columns."""

from __future__ import annotations

from hsd_cli.drafts.reading_order import reading_order

COLUMNS2 = ((100, 480), (520, 900))
COLUMNS3 = ((100, 350), (380, 630), (660, 910))


def column_text(x: tuple[int, int], tops: list[int], heights: list[int]) -> list[tuple]:
    """Paragraph blocks of one column of running text."""
    return [(x[0], top, x[1], top + h) for top, h in zip(tops, heights, strict=True)]


def card(x: tuple[int, int], top: int, text_lines: int) -> list[tuple]:
    """A card: its title, a formula below it and a text of `text_lines` lines."""
    return [
        (x[0], top, x[0] + 200, top + 25),
        (x[0] + 60, top + 45, x[1] - 60, top + 100),
        (x[0], top + 120, x[1], top + 120 + 25 * text_lines),
    ]


def test_two_columns_read_down_then_across() -> None:
    left = column_text(COLUMNS2[0], [100, 330, 620], [210, 270, 300])
    right = column_text(COLUMNS2[1], [100, 400, 700], [280, 280, 220])
    assert reading_order(right + left) == [3, 4, 5, 0, 1, 2]


def test_three_columns_read_column_by_column() -> None:
    cols = [column_text(x, [100, 100 + 90 * k], [80 + 10 * k, 400]) for k, x in enumerate(COLUMNS3)]
    boxes = [b for col in cols for b in col]
    assert reading_order(boxes) == list(range(6))


def test_columns_whose_paragraphs_line_up_by_chance_stay_columns() -> None:
    """A band across both columns, wider than the one under the title and with the blocks
    below it starting together, is no row break where the gaps inside the columns are as wide."""
    title = [(200, 30, 800, 70)]
    left = column_text(COLUMNS2[0], [90, 330, 530], [210, 170, 270])
    right = column_text(COLUMNS2[1], [90, 330, 620], [210, 270, 180])
    assert reading_order(title + left + right) == [0, 1, 2, 3, 4, 5, 6]  # not 0, 1, 4, 2, 3, 5, 6


def test_a_grid_of_cards_in_rows_reads_row_by_row() -> None:
    """Cards in rows: titles start together, texts end apart, bands wider than a card's gaps."""
    boxes = []
    for row, top in enumerate([100, 420, 740]):
        for k, x in enumerate(COLUMNS2):
            boxes += card(x, top, 1 + (row + k) % 3)
    assert reading_order(boxes) == list(range(len(boxes)))


def test_cards_whose_formula_box_takes_in_the_title_still_read_row_by_row() -> None:
    """OCR's formula box reaches up over the card's title: the gap inside the card runs from the
    formula's end, not from the title's (which made a gap as wide as a band between rows)."""
    boxes = []
    for top in (100, 420, 740):
        for x in COLUMNS2:
            title, formula, text = card(x, top, 6)  # bands of 50 between rows
            boxes += [(formula[0], top - 2, formula[2], formula[3]), title, text]
    order = reading_order(boxes)
    titles = [i for i in order if i % 3 == 1]
    assert titles == [1, 4, 7, 10, 13, 16]  # the first row's two cards, then the second's


def test_cards_with_a_heading_a_short_last_row_and_a_footer() -> None:
    heading = [(100, 40, 300, 60)]  # over the first column only
    boxes = heading + card(COLUMNS3[0], 100, 2) + card(COLUMNS3[1], 100, 3) + card(COLUMNS3[2], 100, 1)
    boxes += card(COLUMNS3[0], 420, 1) + card(COLUMNS3[1], 420, 2)  # the last two cards
    boxes += [(500, 1500, 520, 1520)]  # the page number, under the second column
    assert reading_order(boxes) == list(range(len(boxes)))


def test_cards_flowing_in_columns_read_column_by_column() -> None:
    """CSS columns of cards: each card starts where the one above ended, so the cards of two
    columns do not line up in rows."""
    boxes = card(COLUMNS2[0], 100, 2) + card(COLUMNS2[0], 320, 4) + card(COLUMNS2[0], 590, 1)
    boxes += card(COLUMNS2[1], 100, 4) + card(COLUMNS2[1], 370, 1) + card(COLUMNS2[1], 565, 3)
    assert reading_order(boxes) == list(range(len(boxes)))


def test_full_width_title_above_two_columns() -> None:
    title = [(200, 30, 800, 70), (300, 80, 700, 100)]  # title and authors
    left = column_text(COLUMNS2[0], [140, 400], [240, 300])
    right = column_text(COLUMNS2[1], [140, 360], [200, 340])
    assert reading_order(right + left + title) == [4, 5, 2, 3, 0, 1]


def test_full_width_figure_between_column_blocks() -> None:
    """Columns above a figure spanning the page are read before it, those below after it."""
    top = column_text(COLUMNS2[0], [100], [300]) + column_text(COLUMNS2[1], [100], [300])
    figure = [(150, 430, 850, 700)]
    bottom = column_text(COLUMNS2[0], [740], [300]) + column_text(COLUMNS2[1], [740], [300])
    assert reading_order(bottom + figure + top) == [3, 4, 2, 0, 1]


def test_a_longer_first_column_stays_one_column() -> None:
    """The first column running on below the end of the second is read before the second."""
    left = column_text(COLUMNS2[0], [100, 420, 800], [300, 360, 200])
    right = column_text(COLUMNS2[1], [100], [500])
    assert reading_order(left + right) == [0, 1, 2, 3]


def test_a_page_number_beside_a_column_does_not_join_it() -> None:
    left = column_text(COLUMNS2[0], [100, 420], [300, 300])
    right = column_text(COLUMNS2[1], [100, 420], [300, 250])
    number = [(920, 1000, 940, 1020)]  # in the right margin, below the text
    assert reading_order(left + right + number) == [0, 1, 2, 3, 4]


def test_right_to_left_columns_start_at_the_right() -> None:
    left = column_text(COLUMNS2[0], [100, 400], [280, 280])
    right = column_text(COLUMNS2[1], [100, 420], [300, 260])
    assert reading_order(left + right, rtl=True) == [2, 3, 0, 1]


def test_a_heading_under_columns_goes_with_the_paragraph_it_heads() -> None:
    """A heading in the first column's place, nearer to the full-width paragraph below it than
    to the columns above, is read after both columns."""
    left = column_text(COLUMNS2[0], [100], [300])
    right = column_text(COLUMNS2[1], [100], [300])
    heading = [(100, 450, 300, 480)]
    paragraph = [(100, 500, 900, 700)]
    assert reading_order(heading + paragraph + left + right) == [2, 3, 0, 1]


def test_a_box_drawn_across_two_columns_does_not_merge_them() -> None:
    """A table box reaching from the end of the first column into the second (the layout drew
    it over a formula and the table beside it) leaves the columns columns."""
    left = column_text(COLUMNS2[0], [100, 400, 740], [280, 260, 160])
    right = column_text(COLUMNS2[1], [100, 450], [330, 150])
    bridge = [(200, 640, 850, 720)]  # read where it starts in the order of the rest
    assert reading_order(left + right + bridge) == [0, 1, 5, 2, 3, 4]


def test_headings_level_at_the_top_of_two_columns_are_no_row_of_cards() -> None:
    """Two section headings that stand level by chance, then the columns' paragraphs (the left
    column longer): read column by column. A 'grid' whose first row is far lower than its
    next would put the right column between the left column's paragraphs."""
    headings = [(100, 100, 300, 115), (520, 100, 700, 115)]
    left = column_text(COLUMNS2[0], [150, 400, 660], [235, 250, 180])
    right = column_text(COLUMNS2[1], [150, 285], [115, 180])
    order = reading_order(headings + left + right)
    assert order == [0, 2, 3, 4, 1, 5, 6]  # not [0, 1, 2, 3, 5, 6, 4]


def test_a_grid_whose_last_row_is_cut_short_still_reads_by_rows() -> None:
    """Two rows of cards and a last row of titles alone (their formula, one box over both,
    set aside as a bridge): rows of cards differ in height only in the last row."""
    rows = [
        card(COLUMNS2[0], 100, 2) + card(COLUMNS2[1], 100, 3),
        card(COLUMNS2[0], 400, 3) + card(COLUMNS2[1], 400, 2),
    ]
    last = [(100, 700, 300, 725), (520, 700, 720, 725)]
    boxes = [b for row in rows for b in row] + last
    assert reading_order(boxes) == list(range(14))


def test_a_heading_set_across_two_columns_ends_the_columns_above_it() -> None:
    """CSS columns with a column-spanning heading: both columns above are read before it."""
    boxes = [
        (94, 95, 715, 529),  # left column, above
        (780, 95, 1383, 529),  # right column, above
        (94, 565, 324, 606),  # the heading, in the left column's width only
        (94, 626, 701, 987),  # left column, below
        (780, 626, 1399, 987),  # right column, below
    ]
    assert reading_order(boxes) == [0, 1, 2, 3, 4]


def test_a_heading_in_one_running_column_stays_in_it() -> None:
    """Two running columns: below a band the right column goes on at a height of its own."""
    boxes = [(94, 95, 715, 529), (780, 95, 1383, 529), (94, 565, 324, 606), (94, 626, 701, 987), (780, 700, 1399, 987)]
    assert reading_order(boxes) == [0, 2, 3, 1, 4]


def test_a_sidebar_floated_beside_the_text_is_read_where_it_stands() -> None:
    """A boxed sidebar floated right, starting above the section heading beside it, the paragraph
    running on at full width under it: the sidebar, the heading, the paragraph beside it, the rest."""
    boxes = [(100, 100, 900, 300)]  # the paragraph above, full width
    boxes += [(600, 340, 900, 560), (160, 350, 500, 375), (100, 400, 520, 580), (100, 590, 900, 640)]
    assert reading_order(boxes) == [0, 1, 2, 3, 4]
    # level with the paragraph beside it (its padding lowers its text a little): read first
    level = [(100, 100, 900, 300), (100, 340, 520, 560), (600, 350, 900, 560)]
    assert reading_order(level) == [0, 2, 1]


def test_a_note_in_the_margin_is_read_after_the_text() -> None:
    """A sidenote under half the text's width beside a paragraph (Tufte's handout) is a note, read
    after the text as a footnote is; a wider box there would float."""
    boxes = [(100, 100, 700, 300), (100, 320, 700, 560), (740, 330, 1000, 400), (100, 580, 700, 700)]
    assert reading_order(boxes) == [0, 1, 3, 2]


def test_a_lone_block_in_a_column_as_wide_as_the_other_is_a_column() -> None:
    """Two columns of one width, one block in the right one: still read column by column."""
    left = column_text(COLUMNS2[0], [100, 330, 620], [210, 270, 300])
    right = column_text(COLUMNS2[1], [200], [700])
    assert reading_order(left + right) == [0, 1, 2, 3]


def test_a_run_in_heading_reads_before_the_paragraph_it_starts() -> None:
    """A bold heading at the start of a paragraph's first line lies in the paragraph's box, whose
    top a superscript of that line raised above the heading's; a margin note sits beside both."""
    above = (166, 375, 1018, 477)
    note, head, paragraph = (93, 531, 148, 551), (166, 530, 513, 551), (166, 522, 1025, 632)
    boxes = [above, note, paragraph, head]
    assert reading_order(boxes) == [0, 1, 2, 3]  # as boxes alone: the paragraph's top first
    assert reading_order(boxes, heads=[3]) == [0, 1, 3, 2]
    below = (166, 560, 513, 580)  # a heading lower in the box is no run-in heading
    assert reading_order([paragraph, below], heads=[1]) == [0, 1]
