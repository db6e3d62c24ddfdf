"""pymupdf-layout's model as hsd runs it: once per page, whoever asks (hsd's layout regions,
PyMuPDF's find_tables)."""

from __future__ import annotations

import gc

from hsd_cli.pages.layout_model import once_per_page


class Page:  # stands in for pymupdf.Page: hashable by identity, weakly referenced
    pass


def test_the_layout_of_a_page_is_computed_once_per_options():
    calls = []
    layout = once_per_page(lambda page, **options: calls.append((page, options)) or [("box", len(calls))])
    page, other = Page(), Page()
    first = layout(page)
    assert layout(page) is first and len(calls) == 1  # find_tables asking again gets the same answer
    assert layout(page, return_raw=True) == [("box", 2)]  # other options: the model runs
    assert layout(other) == [("box", 3)] and len(calls) == 3


def test_a_closed_page_leaves_nothing_behind():
    layout = once_per_page(lambda page, **options: [])
    page = Page()
    layout(page)
    cells = layout.__closure__
    (done,) = [c.cell_contents for c in cells if type(c.cell_contents).__name__ == "WeakKeyDictionary"]
    assert len(done) == 1
    del page
    gc.collect()
    assert len(done) == 0
