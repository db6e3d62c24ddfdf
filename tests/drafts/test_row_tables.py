"""Borderless tables found from OCR lines: level rows set apart, ending in a column of figures."""

from __future__ import annotations

from hsd_cli.datatypes import RegionKind, TextSpan
from hsd_cli.drafts.row_tables import row_tables, unboxed_tables


def line(text: str, x0: float, y: float, width: float) -> TextSpan:
    return TextSpan((x0, y, x0 + width, y + 40), text)


INVOICE = [
    line("INVOICE 2291", 95, 100, 350),
    line("Item", 94, 300, 125),
    line("Price", 942, 300, 139),
    line("Garden hose, 25 m", 94, 374, 298),
    line("34.90", 973, 374, 100),
    line("Brass nozzle", 94, 429, 197),
    line("12.50", 974, 431, 97),
    line("Seed mix, wildflower", 95, 544, 323),
    line("8.75", 993, 541, 80),  # right-aligned with the others
    line("Total", 91, 748, 136),
    line("104.35", 954, 750, 119),
    line("Thank you for your order.", 95, 900, 500),
]


def test_items_and_prices_are_one_table_in_rows():
    (table,), rest = row_tables(INVOICE)
    assert [s.text for s in table] == [s.text for s in INVOICE[1:11]]
    assert [s.text for s in rest] == ["INVOICE 2291", "Thank you for your order."]


def test_two_columns_of_prose_and_short_runs_are_no_table():
    prose = [
        line(t, x, 100 + 50 * i, 420)
        for i in range(5)
        for t, x in (("the harvest was counted by the staff", 90), ("and the crates were sent north by rail", 620))
    ]
    assert row_tables(prose) == ([], prose)
    assert row_tables(INVOICE[:5]) == ([], INVOICE[:5])  # two rows of items: a heading beside a date as likely
    ragged = [line(f"Item {i}", 94, 100 + 50 * i, 200) for i in range(4)]
    ragged += [line(f"{i}.50", 400 + 150 * i, 100 + 50 * i, 90) for i in range(4)]  # figures in no column
    assert row_tables(ragged)[0] == []


def test_a_turned_scans_table_is_found_in_its_sloping_rows():
    """Scanned 1.4 degrees off, a price 900 px right of its item stands over half a line lower:
    level rows are level once the table's own slope is taken out."""
    turned = [line(s.text, s.bbox[0], s.bbox[1] + 0.025 * s.bbox[0], s.bbox[2] - s.bbox[0]) for s in INVOICE]
    (table,), rest = row_tables(turned)
    assert sorted(s.text for s in table) == sorted(s.text for s in INVOICE[1:11])


def test_a_tight_table_beside_a_text_column_is_found_without_the_column():
    """A low-resolution scan's padded boxes: labels 1.7 line heights from their figures, the figure
    columns under one line height apart, and a column of prose level with the rows at the left."""
    rows = [
        ("Linear threshold", "95.8", "9.3"),
        ("Bounded temperature", "96.8", "0.022"),
        ("Simulated orbit", "0.683", "440"),
    ]
    lines, prose = [], []
    for i, (label, a, b) in enumerate(rows):
        y = 100 + 50 * i
        prose.append(line("and the method was compared for each variance of the signal", 50, y, 530))
        lines += [line(label, 700, y, 250), line(a, 1018, y, 80), line(b, 1125, y, 80)]
    tables, rest = row_tables(prose + lines)
    assert [sorted(s.text for s in t) for t in tables] == [sorted(s.text for s in lines)]
    assert rest == prose


def test_group_labels_and_figures_close_under_long_labels_stay_in_the_table():
    """A low-dpi scan's grouped table: "South" alone on a row between its group's rows, and a long
    label whose right-aligned figures stand barely a line height from it (and from each other)."""
    rows = [  # (text, left, right) of each cell, rows 24 px apart, lines 22 px high
        (("Group", 205, 273), ("Case", 309, 365), ("Median", 506, 582), ("Error", 597, 655)),
        (("Global network", 312, 455), ("49.4", 535, 582), ("531", 612, 655)),
        (("South", 207, 269),),
        (("Recent simulation", 313, 479), ("406", 540, 582), ("81.6", 606, 656)),
        (("Nonlinear response", 313, 489), ("0.384", 522, 582), ("696", 611, 656)),
        (("Low dose", 207, 298), ("General graph", 311, 447), ("0.128", 522, 583), ("49.9", 607, 656)),
        (("Adaptive variance", 313, 476), ("848", 539, 583), ("374", 612, 655)),
    ]
    lines = [TextSpan((x0, 1000 + 24 * i, x1, 1022 + 24 * i), t) for i, row in enumerate(rows) for t, x0, x1 in row]
    (table,), rest = row_tables(lines)
    assert sorted(s.text for s in table) == sorted(s.text for s in lines) and rest == []


def test_a_table_under_a_figure_box_over_the_whole_page_is_still_a_table() -> None:
    """A badly scanned page the layout model boxed as one figure: that box is no paragraph running
    past the table's labels, and the borderless table found from the rows stands."""
    rows = [("Item", "Price"), ("Garden hose", "34.90"), ("Brass nozzle", "12.50"), ("Delivery", "15.00")]
    lines = [TextSpan((90, 100, 600, 140), "A report on the garden and the crates sent north by rail")]
    for i, (item, price) in enumerate(rows):
        y = 200 + 50 * i
        lines += [TextSpan((90, y, 300, y + 40), item), TextSpan((900, y, 1000, y + 40), price)]
    found = unboxed_tables(lines, [(0, 0, 1200, 1600)], [RegionKind.FIGURE])
    assert len(found.tables) == 1 and [s.text for s in found.lines] == [lines[0].text]
    assert found.boxes == ()  # the figure box was the table's: the title line is text


def test_a_text_column_beside_a_boxed_table_is_no_table_of_its_own() -> None:
    """A worksheet: a question's last lines in the left column stand level with the rows of a
    table the layout model boxed (as a formula) in the right column. The box holds the table's
    heading too, past the rows: the rows' first cells are a text column, not labels."""
    left = [
        TextSpan((165, 1246 + 45 * i, 460, 1290 + 45 * i), t)
        for i, t in enumerate(("what fraction of the", "cake remains?"))
    ]
    right = [TextSpan((960, 1160, 1300, 1200), "Birthday Money")]
    right += [TextSpan((1010, 1235 + 45 * i, 1066, 1280 + 45 * i), f"${v}") for i, v in enumerate((5, 10, 20))]
    right += [TextSpan((1202, 1240 + 45 * i, 1231, 1276 + 45 * i), n) for i, n in enumerate(("5", "3", "2"))]
    lines = left + right
    found = unboxed_tables(lines, [(934, 1155, 1325, 1595)], [RegionKind.EQUATION])
    assert found.tables == () and found.lines == tuple(lines) and found.boxes == ((934, 1155, 1325, 1595),)


def test_a_tight_tables_overlapping_boxes_and_a_paragraph_line_level_with_its_heading() -> None:
    """A revtex table scanned at 150 dpi: the OCR boxes of two figure columns overlap a little
    (padded), and the last line of the left column's paragraph stands level with the heading
    row. The rows are read again without the paragraph's lines: one table, the line is text."""
    paragraph = [TextSpan((104, 930 + 24 * i, 600, 954 + 24 * i), "the rows of a paragraph go on here") for i in (0, 1)]
    paragraph.append(TextSpan((104, 1002, 301, 1027), "of the accurate solution."))
    rows = [
        (("Material", 695, 765), ("Error Median Count Delay", 843, 1056)),
        (("Gradual budget", 692, 814), ("417", 853, 892), ("0.640 0.662", 903, 1011), ("0.972", 1003, 1056)),
        (("Marginal particle", 693, 827), ("0.726", 839, 892), ("19.4 0.202", 910, 1007), ("78.9", 1006, 1056)),
        (("Internal limit", 695, 798), ("3.0", 858, 892), ("0.364 0.991", 903, 1007), ("65.0", 1008, 1056)),
    ]
    table = [TextSpan((x0, 1007 + 21 * i, x1, 1031 + 21 * i), t) for i, row in enumerate(rows) for t, x0, x1 in row]
    boxes = [(100, 925, 605, 1030), (690, 1005, 1060, 1100)]
    found = unboxed_tables(paragraph + table, boxes, [RegionKind.TEXT, RegionKind.TEXT])
    assert [sorted(s.text for s in t) for t in found.tables] == [sorted(s.text for s in table)]
    assert list(found.lines) == paragraph


def test_a_table_beside_a_column_of_another_pitch_under_a_box_over_both() -> None:
    """A scanned two-column page: the text column's lines stand between the table's rows (another
    pitch), rows of their own with no cell, and the layout boxed both columns as one paragraph.
    The rows go on past those lines, and a box holding the whole table with the column is no
    paragraph running past the table's labels: one table of five rows."""
    rows = [("Method", "Score", "Delay"), ("Numerical region", "36.2", "0.727"), ("Adaptive survey", "482", "0.076")]
    rows += [("Invariant interval", "44.5", "579"), ("Approximate wave", "937", "432")]
    table = []
    for i, (label, a, b) in enumerate(rows):
        y = 880 + 26 * i
        table += [TextSpan((190, y, 190 + 10 * len(label), y + 30), label), TextSpan((390, y, 443, y + 30), a)]
        table.append(TextSpan((455, y, 520, y + 30), b))
    column = [
        TextSpan((618, 866 + 28 * k, 1122, 896 + 28 * k), "and the surface reduces as the steady domain produces")
        for k in range(7)
    ]
    found = unboxed_tables(table + column, [(99, 590, 1124, 1060)], [RegionKind.TEXT])
    assert [sorted(s.text for s in t) for t in found.tables] == [sorted(s.text for s in table)]
    assert list(found.lines) == column


def test_a_table_beside_a_formula_ends_at_its_last_row_of_figures() -> None:
    """A scanned table in the right column: pieces of a display formula in the middle column
    stand level with its heading rows, and the formula below it (its number "(2)" a figure)
    runs on as rows. The table is its rows down to the last of figures, without the pieces left
    of its body; a prose line of the middle column between its rows does not end it."""
    heads = [line("Site", 1224, 539, 60), line("Yield", 1372, 534, 55), line("Mean", 1460, 528, 60)]
    pieces = [line("∂g", 770, 512, 35), line("∂2g", 834, 508, 45), line("(1)", 1054, 515, 40)]
    pieces += [line("∂t", 772, 535, 35), line("=4", 803, 526, 30)]
    body = [
        line(text, x, y, w)
        for row in (
            (("Transient density", 1183, 570, 130), ("0.858", 1369, 570, 56), ("0.923", 1463, 570, 56)),
            (("General density", 1188, 620, 120), ("0.241", 1372, 620, 56), ("0.717", 1460, 620, 56)),
            (("Empirical wave", 1189, 670, 115), ("500", 1379, 670, 40), ("75.6", 1468, 670, 45)),
        )
        for text, x, y, w in row
    ]
    prose = [line("the other hand, the elastic protein describes", 589, 645, 510)]
    below = [line("follow all cases", 1126, 720, 150), line("sin 12t", 780, 770, 90), line("(2)", 1054, 770, 40)]
    (table,), rest = row_tables(heads + pieces + body + prose + below)
    assert {s.text for s in table} == {s.text for s in heads + body}
    assert {s.text for s in rest} == {s.text for s in pieces + prose + below}
