from __future__ import annotations

from test_text_layer import line, page_of, texts

from hsd_cli.datatypes import Region, RegionKind, TextSpan
from hsd_cli.drafts import TextLayerSource
from hsd_cli.drafts.figure_tables import figure_text, split_figures

FIGURE = Region((40, 100, 500, 420), RegionKind.FIGURE, 0, "")


def _chart() -> list[TextSpan]:
    """A chart's labels: a legend, tick values stacked closer than a line, dates under the plot."""
    legend = [line(100, 110, "Fund", width=50), line(300, 110, "Index 300", width=80)]
    ticks = [line(50, 140 + 6 * i, f"{380 - 20 * i}%", width=33) for i in range(20)]
    dates = [line(80 + 90 * i, 280, f"2021-0{i + 1}", width=45) for i in range(4)]
    return legend + ticks + dates


def _table() -> list[TextSpan]:
    """The chart's figures under it, each row of figures set as one line, and a source note."""
    return [
        line(50, 330, "vs Index 300", width=120),
        *(line(210 + 70 * i, 330, f"{i + 1}M", width=30) for i in range(3)),
        line(50, 356, "Absolute (%)", width=120),
        line(200, 356, "7.18 32.88 80.86", width=184),
        line(50, 382, "Relative (%)", width=120),
        line(200, 382, "8.10 25.93 78.39", width=184),
        line(45, 404, "Source: the bureau of examples and its data", size=8, width=230),
    ]


def test_a_line_of_figures_is_one_cell_per_figure() -> None:
    row = line(200, 356, "7.18 32.88 80.86", width=160)
    cells = split_figures(row)
    assert [c.text for c in cells] == ["7.18", "32.88", "80.86"]
    assert cells[0].bbox[0] == 200 and cells[-1].bbox[2] == 360
    assert all(a.bbox[2] < b.bbox[0] for a, b in zip(cells, cells[1:], strict=False))
    assert split_figures(line(0, 0, "Absolute 7.18")) == [line(0, 0, "Absolute 7.18")]


def test_the_table_under_a_chart_is_drafted_with_its_note_and_the_labels_are_not() -> None:
    regions = TextLayerSource().regions(page_of(*_chart(), *_table(), layout=(FIGURE,)))
    kinds = texts(regions)
    assert [k for k, _ in kinds] == ["figure", "table", "text"]
    table = next(r for r in regions if r.kind is RegionKind.TABLE)
    rows = {(c.row, c.col): c.text for c in table.cells}
    assert rows[(1, 0)] == "Absolute (%)" and [rows[(2, k)] for k in (1, 2, 3)] == ["8.10", "25.93", "78.39"]
    assert kinds[2][1] == "Source: the bureau of examples and its data"
    figure = next(r for r in regions if r.kind is RegionKind.FIGURE)
    assert figure.bbox[3] <= table.bbox[1]  # the picture no longer covers the table


def test_a_chart_without_a_table_keeps_its_labels_to_itself() -> None:
    """Legends, stacked ticks and a row of dates are no table, whatever their numbers: they are
    the figure's text, not the page's."""
    assert figure_text(FIGURE.bbox, _chart()).table == ()
    regions = TextLayerSource().regions(page_of(*_chart(), layout=(FIGURE,)))
    assert [k for k, _ in texts(regions)] == ["figure"] and regions[0].bbox == FIGURE.bbox
    assert regions[0].text.startswith("Fund Index 300") and "2021-04" in regions[0].text


def test_a_table_above_the_picture_leaves_the_labels_below_in_the_figure() -> None:
    table = [TextSpan((b[0], b[1] - 220, b[2], b[3] - 220), t) for b, t in ((s.bbox, s.text) for s in _table()[:-1])]
    found = figure_text(FIGURE.bbox, table + [line(80, 380, "2021-01", width=45)])
    assert len(found.table) == 12 and found.notes == ()
    assert found.figure[1] >= max(c.bbox[3] for c in found.table)
