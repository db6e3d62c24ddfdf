"""Borderless tables found from OCR lines: level rows set apart, ending in a column of figures."""

from __future__ import annotations

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.row_tables import row_tables


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
