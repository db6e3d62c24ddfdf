"""Drafts of born-digital pages from the PDF's own text layer.

The layout boxes come from PyMuPDF's layout model (`PageImage.layout`, filled by render);
lines it leaves out are grouped into blocks here and typed by font size and position.
Reading order is XY-cut over all regions.
"""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.datatypes import BBox, PageImage, Region, RegionKind, TextSpan
from hsd_cli.drafts import (
    carryover,
    figure_body,
    figure_tables,
    furniture,
    headings,
    layout_tables,
    line_numbers,
    tablegrid,
)
from hsd_cli.drafts.base import heading_level
from hsd_cli.drafts.reading_order import numbered
from hsd_cli.drafts.validity import MAX_INVALID, invalid_share, is_page_text, layer_text
from hsd_cli.pages import geometry as geo
from hsd_cli.pages.bands import BAND

HEADING_TYPE = 0.95  # of a heading box's largest type: a line set smaller is no part of the heading
FORMULA_GRID = 2  # display formulas in a layout table box that make it text

_MARGIN = 0.06  # top/bottom fraction of the page where running headers and footers live
# Kinds whose box is their lines' extent (a table's or figure's box also holds rules and drawings).
_FITTED = frozenset([RegionKind.TEXT, RegionKind.TITLE, RegionKind.LIST, RegionKind.CAPTION, RegionKind.REFERENCE])


# A layer failing the validity test (drafts.validity: unreadable characters, words garbled by
# fonts without a Unicode map) is broken and OCR reads the page better; its valid lines still
# win on the page OCR reads (drafts.overlay).


def has_text_layer(page: PageImage) -> bool:
    """True when the page carries enough valid visible text to draft from, in its body: a stamp
    in the top or bottom band (a court's filing line over a scanned page) is no text of the
    body, which OCR then reads (the stamp's own lines kept, drafts.overlay)."""
    text = layer_text(page.text_spans)
    return is_page_text(layer_text(_body_lines(page))) and invalid_share(text) <= MAX_INVALID


def _body_lines(page: PageImage) -> list[TextSpan]:
    top, bottom = BAND * page.image.height, (1 - BAND) * page.image.height
    return [s for s in page.text_spans if s.bbox[3] > top and s.bbox[1] < bottom]


class TextLayerSource:
    """Regions of a page with a visible text layer; an empty list when it has none."""

    name = "text_layer"
    exact = True
    # Exact characters: a window match is rarely a coincidence. Fitted to the page method's AAL
    # with the oracle target (8.51 on 9 text-layer pages; driver/priors.py).
    prior = (0.85, 0.9)
    wants_layout = True  # its regions are the PDF layout model's boxes
    wants_ocr_render = False

    def __init__(self, threads: int | None = None, device: str | None = None) -> None:
        """Nothing to load: the text comes with the page (`threads`, `device`: every source's)."""

    def reads(self, page: PageImage) -> bool:
        return has_text_layer(page)

    def regions(self, page: PageImage) -> list[Region]:
        # Glyphs without Unicode (U+FFFD) are no letters a model would write: left out.
        lines = [s for s in map(_readable, page.text_spans) if s.text]
        if not lines:
            return []
        layout = _without_formula_grids(list(page.layout))
        # A review copy's margin line numbers would join the lines they stand beside.
        numbered = line_numbers.strip(lines, [r.bbox for r in layout if r.kind is RegionKind.TABLE])
        lines = numbered.lines
        if numbered.numbers:  # the layout model took each numbered line for an item: lines regrouped
            layout = [r for r in layout if not _cut_by(r, numbered)]
        # Running rows at the page's edges first: a layout box must not join them to the body.
        running, lines = furniture.split_lines(lines, page.image.height)
        inside, leftovers = geo.assign_lines(lines, [r.bbox for r in layout])
        groups = [geo.spanned_pieces_joined(leftovers)]  # a justified line cut at its wide spaces
        parts: list[tuple[Region, list[TextSpan]]] = []
        for region, held in zip(layout, inside, strict=True):
            loose = _loose_lines(region, held)
            if loose:  # prose the layout model put in a table or formula: blocks of their own
                groups.append(loose)
                held = [s for s in held if s not in loose]
            elif region.kind is RegionKind.TABLE and (beside := tablegrid.prose_beside(held)):
                groups.append(geo.joined_rows(beside))  # a justified line's pieces, one line again
                held = [s for s in held if s not in beside]
                region = replace(region, bbox=geo.union_box([s.bbox for s in held]), cells=())
            if region.kind is RegionKind.FIGURE:  # body text in its box stays on the page
                split = figure_body.split_figure(region.bbox, held)
                groups.append(list(split.body))
                for box, own in split.pieces:
                    found = figure_tables.figure_text(box, list(own))
                    parts += _figure_parts(replace(region, bbox=box), found, own)
                    groups.append(list(found.notes))
            else:
                parts.append((_fitted(region, held), held))
        body = geo.body_size(lines)
        height = page.image.height
        found = [_typed(_fill(r, ls), ls, body, height) for r, ls in parts]
        found = [r for r in found if r.text or r.cells or r.kind is RegionKind.FIGURE]
        # Numbered lines join at the numbers' pitch: review copies set double-spaced lines
        # further apart than a block's usual gap.
        blocks = [b for g in groups for b in geo.group_lines(g, numbered.pitch)]
        extra = [_typed(_block_region(b, body, height), b, body, height) for b in blocks]
        typed = headings.page_levels(found + extra, lines, page.image.width)
        return carryover.rejoined(_in_reading_order(typed + [replace(r, source=self.name) for r in running]))


def _cut_by(region: Region, numbered: line_numbers.Stripped) -> bool:
    """A text or list box of the layout model holding a margin line number: it takes numbered
    lines for list items, a line each on a double-spaced page, or joins a footnote to the text."""
    kinds = (RegionKind.TEXT, RegionKind.LIST)
    return region.kind in kinds and any(geo.mostly_in(box, region.bbox) for box in numbered.numbers)


def _without_formula_grids(layout: list[Region]) -> list[Region]:
    """The layout less its table boxes over two or more display formulas: a grid of formula cards
    or a formula sheet the layout model took for a table, whose titles came out as a table's
    cells and its formulas after it. Tables hold values; the formulas are displays of the text."""
    shown = [r.bbox for r in layout if r.kind is RegionKind.EQUATION]
    return [
        r
        for r in layout
        if r.kind is not RegionKind.TABLE or sum(geo.mostly_in(e, r.bbox) for e in shown) < FORMULA_GRID
    ]


def _readable(line: TextSpan) -> TextSpan:
    return replace(line, text=line.text.replace("\ufffd", "").strip()) if "\ufffd" in line.text else line


def _fitted(region: Region, lines: list[TextSpan]) -> Region:
    """A text box as wide and tall as the lines it holds: a layout box that also took in a
    formula of the next column (its glyphs rebuilt apart, pages/pdfmath.py) reaches across the
    gutter, and reading order would place its text in the wrong column."""
    if region.kind not in _FITTED or not lines:
        return region
    return replace(region, bbox=geo.union_box([s.bbox for s in lines]))


def _loose_lines(region: Region, lines: list[TextSpan]) -> list[TextSpan]:
    """Lines of a table that is really text, or prose lines inside a formula box."""
    if region.kind is RegionKind.TABLE and tablegrid.is_text_table(lines, region.cells):
        return lines
    if region.kind is RegionKind.TEXT and len(geo.line_columns(lines)) > 1:
        return lines  # a text box reaching across a gutter: its columns' blocks apart
    if region.kind is RegionKind.EQUATION:
        return geo.prose_lines(lines)[1]
    if region.kind is RegionKind.TITLE:
        return _beside_heading(lines)
    return []


def _beside_heading(lines: list[TextSpan]) -> list[TextSpan]:
    """Lines of a heading box in columns holding none of its largest type: the next column's
    text, level with a heading set in a narrow column (its box reached over the gutter)."""
    columns = geo.line_columns(lines)
    if len(columns) < 2:
        return []
    top = max(s.size for s in lines)
    return [s for column in columns if all(s.size < HEADING_TYPE * top for s in column) for s in column]


def _figure_parts(
    region: Region, split: figure_tables.FigureText, lines: tuple[TextSpan, ...]
) -> list[tuple[Region, list[TextSpan]]]:
    """The figure, its labels as its text (no text of the page), and the table found in its box."""
    labels = [s for s in lines if s not in split.notes and geo.mostly_in(s.bbox, split.figure)]
    figure = (replace(region, bbox=split.figure), labels)
    if not split.table:
        return [figure]
    table = Region(geo.union_box([c.bbox for c in split.table]), RegionKind.TABLE, 0, "")
    return [figure, (table, list(split.table))]


def _fill(region: Region, lines: list[TextSpan]) -> Region:
    """A layout region with the text of its lines."""
    if region.kind is RegionKind.CODE:
        text = "\n".join(line.text for line in geo.sort_lines(lines))
    elif region.kind is RegionKind.EQUATION and region.text and lines:
        text = region.text  # LaTeX the page's glyphs were rebuilt into (pages/pdfmath.py)
    else:
        text = geo.join_lines(lines)
    level = heading_level(text, region.level) if region.kind is RegionKind.TITLE else 0
    cells = layout_tables.table_cells(region, lines) if region.kind is RegionKind.TABLE or region.cells else ()
    return replace(region, text=text, level=level, cells=cells, source=TextLayerSource.name)


def _typed(region: Region, lines: list[TextSpan], body: float, page_height: float) -> Region:
    """Page furniture by position and pattern; short large-type text as a heading."""
    region = furniture.relabel(region, lines, body, page_height)
    return headings.promote(region, lines, body)


def _block_region(lines: list[TextSpan], body: float, page_height: float) -> Region:
    """A region for lines no layout box claimed, typed by size, weight and position."""
    bbox = geo.union_box([line.bbox for line in lines])
    text = geo.join_lines(lines)
    kind, level = _block_kind(lines, text, bbox, body, page_height)
    return Region(bbox, kind, 0, text, level=level, source=TextLayerSource.name)


def _block_kind(
    lines: list[TextSpan], text: str, bbox: BBox, body: float, page_height: float
) -> tuple[RegionKind, int]:
    short = len(lines) <= 2 and len(text) < 120
    if short and bbox[3] < _MARGIN * page_height:
        return RegionKind.HEADER, 0
    if short and bbox[1] > (1 - _MARGIN) * page_height:
        return RegionKind.FOOTER, 0
    size = max(line.size for line in lines)
    if len(lines) <= 3 and body and size >= 1.2 * body:
        return RegionKind.TITLE, heading_level(text, 1 if size >= 1.6 * body else 2)
    if len(lines) == 1 and lines[0].bold and len(text.split()) <= 12 and not text.endswith("."):
        return RegionKind.TITLE, heading_level(text, 3)
    return RegionKind.TEXT, 0


def _in_reading_order(regions: list[Region]) -> list[Region]:
    """Regions numbered in XY-cut order; right-to-left pages read columns from the right."""
    # XY-cut beats the layout model's own order on the corpus (mean NED 0.125 vs 0.176 on
    # born-digital documents): the model reads some two-column pages row by row.
    return numbered(regions, rtl=geo.is_rtl(" ".join(r.text for r in regions)))
