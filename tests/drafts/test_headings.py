"""Heading levels by one page-wide rule, for text-layer lines (font sizes) and OCR lines (boxes)."""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.datatypes import Region, RegionKind, TextSpan
from hsd_cli.drafts import headings

W = 1000
CHAR = 8.0  # body text: 8 px a character, 20 px high


def line(text: str, x0: float, y0: float, scale: float = 1.0, size: float = 10.0) -> TextSpan:
    """A line `scale` times the body's type: taller, and wider a character."""
    return TextSpan((x0, y0, x0 + len(text) * CHAR * scale, y0 + 20 * scale), text, size * scale)


def region(lines: list[TextSpan], kind: RegionKind = RegionKind.TEXT, level: int = 0) -> Region:
    box = (min(s.bbox[0] for s in lines), min(s.bbox[1] for s in lines))
    box += (max(s.bbox[2] for s in lines), max(s.bbox[3] for s in lines))
    return Region(box, kind, 0, " ".join(s.text for s in lines), level=level)


def centred(text: str, y0: float, scale: float = 1.0) -> TextSpan:
    return line(text, (W - len(text) * CHAR * scale) / 2, y0, scale)


PARAGRAPH = "This paragraph of body text runs on for a good while, as paragraphs do."


def paper(scale_title: float, title_kind: RegionKind) -> tuple[list[Region], list[TextSpan]]:
    """A first page: title, byline, date, a numbered section over a paragraph, a subsection."""
    title = [centred("Pattern Inference in Physical Models", 60, scale_title)]
    byline = [centred("George Santos, Li Okafor and G. Foster", 130, 1.2)]
    date = [centred("February 1, 2009", 160)]
    section = [line("1 Amplitude Estimates", 100, 220, 1.4)]
    body = [line(PARAGRAPH, 100, 260 + 25 * k) for k in range(12)]
    sub = [line("1.1 Galaxy Models", 100, 600, 1.2)]
    regions = [
        region(title, title_kind),
        region(byline, RegionKind.TITLE),  # the layout's "title" label on an author line
        region(date),
        region(section, RegionKind.TITLE),
        region(body),
        region(sub, RegionKind.TITLE),
    ]
    return regions, title + byline + date + section + body + sub


def levels(regions: list[Region]) -> list[tuple[str, int]]:
    return [(r.kind.name, r.level) for r in regions]


def test_title_hash_sections_double_hash_byline_text_on_a_text_layer() -> None:
    regions, lines = paper(1.58, RegionKind.TITLE)  # an 11 pt class's \LARGE title: under 1.6
    out = headings.page_levels(regions, lines, W)
    assert levels(out) == [("TITLE", 1), ("TEXT", 0), ("TEXT", 0), ("TITLE", 2), ("TEXT", 0), ("TITLE", 3)]


def test_the_same_rule_on_ocr_lines_without_font_sizes() -> None:
    """OCR boxes give a title only 1.2 times the body's height: its wide characters and the
    byline under it still make it the title, labelled text or title by the layout model."""
    for kind in (RegionKind.TITLE, RegionKind.TEXT):
        regions, lines = paper(1.0, kind)
        lines = [replace(s, size=0.0) for s in lines]
        x0 = (W - 36 * CHAR * 1.9) / 2
        wide = TextSpan((x0, 60, x0 + 36 * CHAR * 1.9, 60 + 24), "Pattern Inference in Physical Models")
        regions[0] = replace(regions[0], bbox=wide.bbox)
        out = headings.page_levels(regions, [wide, *lines[1:]], W)
        assert levels(out)[0] == ("TITLE", 1) and levels(out)[3:] == [("TITLE", 2), ("TEXT", 0), ("TITLE", 3)]


def test_no_title_on_a_page_of_sections() -> None:
    """A later page: a section heading over a paragraph is no title, numbered or not."""
    section = [line("Discussion", 100, 60, 1.44)]
    body = [line(PARAGRAPH, 100, 100 + 25 * k) for k in range(12)]
    sub = [line("Limits of the Method", 100, 500, 1.2)]
    regions = [region(section, RegionKind.TITLE, 1), region(body), region(sub, RegionKind.TITLE)]
    out = headings.page_levels(regions, section + body + sub, W)
    assert levels(out) == [("TITLE", 2), ("TEXT", 0), ("TITLE", 2)]


def test_a_formula_or_a_numbered_heading_is_no_title() -> None:
    formula = [line("+rS dv", 100, 60, 1.6)]
    numbered = [line("XX. OF SHEEP AND OXEN", 100, 120, 1.6)]
    byline = [line("short", 100, 200)]
    body = [line(PARAGRAPH, 100, 260 + 25 * k) for k in range(8)]
    regions = [region(formula), region(numbered, RegionKind.TITLE), region(byline), region(body)]
    out = headings.page_levels(regions, formula + numbered + byline + body, W)
    assert levels(out)[:2] == [("TEXT", 0), ("TITLE", 2)]


def test_a_left_aligned_title_keeps_the_heading_under_it() -> None:
    """Under a title set flush left, a short heading is not told from a byline: it stays a heading."""
    title = [line("Disclosures", 100, 60, 1.5)]
    heading = [line("About the Analysts", 100, 120, 1.2)]
    body = [line(PARAGRAPH, 100, 160 + 25 * k) for k in range(12)]
    regions = [region(title, RegionKind.TITLE), region(heading, RegionKind.TITLE), region(body)]
    out = headings.page_levels(regions, title + heading + body, W)
    assert levels(out) == [("TITLE", 1), ("TITLE", 2), ("TEXT", 0)]


def test_a_page_header_set_large_is_the_pages_heading() -> None:
    """A layout model's page header in type 1.5 times the body (the page's title under a site
    name) is a heading, not a running head to drop; one at body size stays a header."""
    big = line("15 Formulas on One Page", 80, 60, scale=1.5, size=0)
    small = line("Formula Notes", 80, 20, size=0)
    body = [line(PARAGRAPH, 80, 140 + 30 * k, size=0) for k in range(4)]
    regions = [region([small], RegionKind.HEADER), region([big], RegionKind.HEADER), region(body)]
    kinds = [r.kind for r in headings.page_levels(regions, [small, big, *body], W)]
    assert kinds[:2] == [RegionKind.HEADER, RegionKind.TITLE]
