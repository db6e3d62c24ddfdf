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
