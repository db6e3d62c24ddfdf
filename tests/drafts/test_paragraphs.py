"""OCR lines into paragraphs from line geometry: indents, pitch, short last lines, columns."""

from __future__ import annotations

from hsd_cli.datatypes import RegionKind, TextSpan
from hsd_cli.drafts.paragraphs import paragraphs
from hsd_cli.drafts.rapid import _region

CHAR = 10.0  # pixels per character in these synthetic lines
PITCH = 24.0


def line(row: int, text: str, indent: int = 0, x: float = 100.0, top: float = 100.0) -> TextSpan:
    """A line of `text` on `row`, `indent` characters in from `x`, CHAR pixels per character."""
    x0 = x + indent * CHAR
    y0 = top + row * PITCH
    return TextSpan((x0, y0, x0 + len(text) * CHAR, y0 + 16), text)


FULL = "a" * 40  # a row that reaches the column's right edge (x = 500)


def texts(paras: list[list[TextSpan]]) -> list[list[str]]:
    return [[s.text for s in p] for p in paras]


def test_indented_first_line_starts_a_paragraph() -> None:
    """Justified rows; the row indented by two characters starts the second paragraph."""
    lines = [line(0, FULL), line(1, FULL), line(2, "x" * 38, indent=2), line(3, FULL), line(4, FULL)]
    # Not one paragraph of five rows: the indent is the only cue here.
    assert texts(paragraphs(lines)) == [[FULL, FULL], ["x" * 38, FULL, FULL]]


def test_short_last_line_ends_a_paragraph() -> None:
    """Block paragraphs (no indent): a row ending well short of the right edge ends its paragraph."""
    lines = [line(0, FULL), line(1, "end."), line(2, FULL), line(3, FULL), line(4, "b" * 20)]
    assert texts(paragraphs(lines)) == [[FULL, "end."], [FULL, FULL, "b" * 20]]


def test_wide_gap_starts_a_paragraph() -> None:
    """A gap of two pitches between full rows breaks; the usual pitch does not."""
    lines = [line(0, FULL), line(1, FULL), line(3, FULL), line(4, FULL), line(5, FULL)]
    assert texts(paragraphs(lines)) == [[FULL, FULL], [FULL, FULL, FULL]]


def test_hanging_indent_keeps_entries_whole() -> None:
    """Numbered entries whose continuation rows are indented under a full first row."""
    lines = [line(0, "1 " + "q" * 38), line(1, "more", indent=3), line(2, "2 " + "r" * 38), line(3, "end", indent=3)]
    # Not four paragraphs: the indented rows continue their entry.
    assert texts(paragraphs(lines)) == [["1 " + "q" * 38, "more"], ["2 " + "r" * 38, "end"]]


def test_columns_are_never_joined_row_by_row() -> None:
    """Two columns in one box: each column's rows stay together, left column first."""
    left = [line(r, "L" * 20, x=100) for r in range(4)]
    right = [line(r, "R" * 20, x=400) for r in range(4)]
    paras = paragraphs(right + left)
    # Not "LLL RRR LLL RRR ...": rows of two columns interleaved.
    assert ["".join(s.text[0] for s in p) for p in paras] == ["LLLL", "RRRR"]


def test_cjk_heading_inside_a_block_is_its_own_paragraph() -> None:
    """A heading set at full width in larger type between two CJK paragraphs."""
    body = "字" * 20
    heading = TextSpan((100.0, 100 + 2 * PITCH, 100 + 16 * 13.0, 100 + 2 * PITCH + 16), "标" * 16)
    lines = [line(0, body), line(1, body), heading, line(3, body), line(4, body)]
    assert texts(paragraphs(lines)) == [[body, body], ["标" * 16], [body, body]]


def test_region_text_separates_paragraphs_with_blank_lines() -> None:
    """An OCR text region writes its paragraphs apart; a title's lines stay one line."""
    lines = [line(0, FULL), line(1, "end."), line(2, FULL), line(3, "b" * 20)]
    assert _region((0, 0, 600, 300), RegionKind.TEXT, lines).text == f"{FULL} end.\n\n{FULL} {'b' * 20}"
    assert "\n" not in _region((0, 0, 600, 300), RegionKind.TITLE, lines).text


def test_indented_items_whose_lines_wrap_to_the_margin() -> None:
    """Indented one-row items, one wrapping back to the left margin: the wrap continues its item."""
    lines = [
        line(0, "(1) " + "s" * 20, indent=3),
        line(1, "(2) " + "t" * 33, indent=3),
        line(2, "wrap"),
        line(3, "(3) " + "u" * 20, indent=3),
    ]
    # Not a hanging list (most rows indented): "wrap" would start a paragraph of its own.
    assert texts(paragraphs(lines)) == [["(1) " + "s" * 20], ["(2) " + "t" * 33, "wrap"], ["(3) " + "u" * 20]]


def test_a_turned_scans_column_drifts_across_and_its_rows_are_not_indents() -> None:
    """A page scanned 1.3 degrees off: the column's edges shift 0.7 px left a row (14 px over the
    page), so its top rows stood 1.4 characters right of the lowest: each read as indented, a
    paragraph of its own. Measured upright, the two indented first lines alone start one."""
    rows = [FULL, FULL, "end of it.", "y" * 38, FULL, FULL, FULL, FULL, "z" * 38, FULL, FULL, FULL, FULL, FULL]
    rows += [FULL] * 6
    firsts = {3, 8}
    lines = [
        TextSpan(
            (
                x0 := 100 - 0.7 * k + (2 * CHAR if k in firsts else 0),
                100 + PITCH * k,
                x0 + len(t) * CHAR,
                116 + PITCH * k,
            ),
            t,
        )
        for k, t in enumerate(rows)
    ]
    for s in lines[3:4] + lines[8:9]:  # indented first lines end at the right edge too
        assert abs(s.bbox[2] - (500 - 0.7 * lines.index(s))) < 1
    assert [len(p) for p in paragraphs(lines)] == [3, 5, 12]
