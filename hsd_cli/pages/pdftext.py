"""What a PDF page knows about itself: visible text lines, layout boxes and table cells.

All boxes come out in page-image pixels: `to_px` maps the page's points (upright, `upright`) to pixels.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import warnings
from collections import Counter
from dataclasses import replace

import pymupdf

from hsd_cli.datatypes import Region, RegionKind, TableCell, TextSpan
from hsd_cli.pages import glyphs, layout_model, misread, table_check, table_gutters
from hsd_cli.pages.bands import BAND, BandLine

# Text drawn with render mode 3 (OCR layers over scans) is neither filled nor stroked.
_DRAWN = pymupdf.mupdf.FZ_STEXT_FILLED | pymupdf.mupdf.FZ_STEXT_STROKED
_SYNTHETIC_BOLD = pymupdf.mupdf.FZ_STEXT_BOLD
# Glyphs without a Unicode mapping come out as U+FFFD, not as their raw character codes
# (MuPDF's default for the dict flags), which read as plausible letters; `drafts.auto` can then
# tell a broken layer. Ligatures stay one glyph (MuPDF's own expansion splits words, "infl
# ammation", and reverses Arabic lam-alef): `glyphs` spells them out. MuPDF's spaces stay (it
# knows the fonts' advance widths); `glyphs` adds those its gap rule misses.
_TEXT_FLAGS = (pymupdf.TEXTFLAGS_RAWDICT | pymupdf.TEXT_PRESERVE_LIGATURES) & ~(
    pymupdf.TEXT_PRESERVE_IMAGES | pymupdf.TEXT_CID_FOR_UNKNOWN_UNICODE
)

# pymupdf.layout labels -> (kind, heading level)
LAYOUT_KINDS = {
    "title": (RegionKind.TITLE, 1),
    "section-header": (RegionKind.TITLE, 2),
    "text": (RegionKind.TEXT, 0),
    "footnote": (RegionKind.TEXT, 0),
    "list-item": (RegionKind.LIST, 0),
    "caption": (RegionKind.CAPTION, 0),
    "table": (RegionKind.TABLE, 0),
    "picture": (RegionKind.FIGURE, 0),
    "formula": (RegionKind.EQUATION, 0),
    "code": (RegionKind.CODE, 0),
    "page-header": (RegionKind.HEADER, 0),
    "page-footer": (RegionKind.FOOTER, 0),
}


SHORT_LINE = 0.7  # a horizontal line's box at least this many ems tall: its font's metrics hold


def upright(page: pymupdf.Page) -> pymupdf.Page:
    """`page` in the frame a reader sees: any /Rotate baked into its content (the same pixels, in
    memory only), so that text, drawings and layout boxes come in the image's own coordinates.
    Read in its stored frame, a landscape page (pdflscape's) ran down the page, and
    pymupdf.layout took its body for a page header, which the drafts dropped."""
    if page.rotation:
        with contextlib.suppress(Exception):  # a page MuPDF cannot rewrite keeps its /Rotate
            page.remove_rotation()
    return page


def text_turn(page: pymupdf.Page) -> int:
    """Clockwise degrees (0, 90 or 270) that make most of `page`'s text run across: a page shown
    sideways (a sideways table, a landscape page printed on a portrait one) reads upright only
    turned, and the layout model and the drafts' line rules read only upright text."""
    counts = Counter()
    for block in page.get_text("dict", flags=0)["blocks"]:
        for line in block.get("lines", ()):
            dx, dy = line["dir"]
            way = 0 if abs(dy) <= abs(dx) else 90 if dy < 0 else 270  # text running up: turn clockwise
            counts[way] += sum(len(s["text"].strip()) for s in line["spans"])
    way, chars = max(counts.items(), key=lambda kv: kv[1], default=(0, 0))
    return way if chars > 2 * counts[0] else 0


def visible_lines(page: pymupdf.Page, to_px: pymupdf.Matrix) -> tuple[TextSpan, ...]:
    """Text lines a reader can see (invisible OCR layers and transparent text are skipped)."""
    lines = []
    for block in page.get_text("rawdict", flags=_TEXT_FLAGS)["blocks"]:
        for line in block.get("lines", ()):
            spans = [s for s in line["spans"] if _is_visible(s)]
            if not spans:
                continue
            size, bold = _line_style(spans)
            vertical = abs(line["dir"][1]) > abs(line["dir"][0])
            chars = [c for s in spans for c in misread.checked_chars(s, misread.is_level(line))]
            text = glyphs.line_text(chars, size, vertical)
            if text:
                box = line["bbox"] if vertical else _line_box(line["bbox"], spans)
                lines.append(TextSpan(tuple(pymupdf.Rect(box) * to_px), text, size, bold))
    return tuple(lines)


def _line_box(bbox: tuple, spans: list[dict]) -> tuple:
    """The line's box, or where a font's metrics made it too short, the box from the baselines and
    sizes (an ascent of 0.8 em, a descent of 0.2): some embedded TeX Gyre fonts come out half an
    em tall, and the leading between lines then read as paragraph breaks."""
    size = max(s["size"] for s in spans)
    if bbox[3] - bbox[1] >= SHORT_LINE * size:
        return bbox
    top = min(s["origin"][1] - 0.8 * s["size"] for s in spans)
    foot = max(s["origin"][1] + 0.2 * s["size"] for s in spans)
    return bbox[0], min(bbox[1], top), bbox[2], max(bbox[3], foot)


def band_lines(pdf: pymupdf.Document, max_pages: int = 40) -> list[list[BandLine]]:
    """Text lines in the top and bottom bands of up to `max_pages` pages spread over `pdf`."""
    n = pdf.page_count
    step = max(1, n // max_pages)  # a long document: every step-th page still shows its running lines
    pages = []
    for index in range(0, n, step)[:max_pages]:
        page = upright(pdf[index])
        rect = page.rect * page.derotation_matrix  # its text's frame (a page MuPDF could not turn)
        height = rect.height or 1.0
        top, bottom = rect.y0 + BAND * height, rect.y1 - BAND * height
        lines = []
        for block in page.get_text("dict", flags=0)["blocks"]:
            for line in block.get("lines", ()):
                y0, y1 = line["bbox"][1], line["bbox"][3]
                if y1 <= top or y0 >= bottom:
                    text = "".join(s["text"] for s in line["spans"]).strip()
                    lines.append(BandLine((y0 - rect.y0) / height, (y1 - rect.y0) / height, text))
        pages.append(lines)
    return pages


def layout_regions(page: pymupdf.Page, to_px: pymupdf.Matrix, threads: int | None = None) -> tuple[Region, ...]:
    """Regions from PyMuPDF's layout model, in its reading order; tables carry cells. The model's
    sessions run `threads` threads (pages/layout_model.py)."""
    layout_model.load(threads)
    with warnings.catch_warnings():  # its features take log(0) on degenerate boxes
        warnings.simplefilter("ignore", RuntimeWarning)
        page.get_layout()
    regions = []
    for *box, label in page.layout_information or ():
        kind, level = LAYOUT_KINDS.get(label, (RegionKind.TEXT, 0))
        rect = pymupdf.Rect(box)
        parts = table_parts(page, rect) if kind is RegionKind.TABLE else [(rect, ())]
        for part, cells in parts:
            regions.append(Region(tuple(part * to_px), kind, len(regions), "", cells, level, "pymupdf.layout"))
    return tuple(regions)


def table_parts(page: pymupdf.Page, clip: pymupdf.Rect) -> list[tuple[pymupdf.Rect, tuple[TableCell, ...]]]:
    """(box, cells) of each table in a layout table box: one, or several that share a heading."""
    table = _largest_table(page, clip)
    if table is None:
        return [(clip, ())]
    words = page.get_text("words", clip=clip)
    cells, boxes = _cells(table, words)
    cells, boxes = table_gutters.split_columns(cells, boxes, words, functools.partial(_cell_text, words))
    if table_check.misses_rows_or_columns(cells, boxes, words):
        return [(clip, ())]  # rules only between groups: the drafts grid the box's lines instead
    parts = split_repeated_headers(cells)
    if len(parts) < 2:
        return [(clip, cells)]
    return [(_union(boxes[i] for i in part), _renumber([cells[i] for i in part])) for part in parts]


def split_repeated_headers(cells: tuple[TableCell, ...]) -> list[list[int]]:
    """Indices of `cells` per table, for layout boxes that hold several tables with one heading.

    Financial statements set tables side by side and one under another with the same column
    heading ("2021 | 2022E | 2023E"); layout models box the whole grid as one table, whose rows
    then interleave two tables. The grid splits into halves where its heading row repeats after
    the middle, and each half splits again at rows that repeat the heading. Otherwise: one part.
    """
    n_cols = max((c.col + c.col_span for c in cells), default=0)
    halves = [list(range(len(cells)))]
    half = n_cols // 2
    heading = _row_texts(cells, 0, n_cols)
    # Two heading cells at least: a "name | value | name | value" grid is one table read by rows.
    if n_cols % 2 == 0 and half >= 3 and any(heading[1:half]) and heading[1:half] == heading[half + 1 :]:
        halves = [[i for i, c in enumerate(cells) if (c.col < half) == left] for left in (True, False)]
    return [part for idx in halves for part in _split_at_repeats(cells, idx)]


def _split_at_repeats(cells: tuple[TableCell, ...], idx: list[int]) -> list[list[int]]:
    """`idx` cut before every row (after the first) whose texts past the first column repeat its first row's."""
    rows = sorted({cells[i].row for i in idx})
    cols = sorted({cells[i].col for i in idx})
    if not rows or len(cols) < 2:
        return [idx] if idx else []
    sub = tuple(cells[i] for i in idx)
    heading = [_text_at(sub, rows[0], c) for c in cols[1:]]
    starts = [r for r in rows[1:] if any(heading) and [_text_at(sub, r, c) for c in cols[1:]] == heading]
    bounds = [rows[0], *starts, rows[-1] + 1]
    return [[i for i in idx if a <= cells[i].row < b] for a, b in itertools.pairwise(bounds)]


def _row_texts(cells: tuple[TableCell, ...], row: int, n_cols: int) -> list[str]:
    return [_text_at(cells, row, c) for c in range(n_cols)]


def _text_at(cells: tuple[TableCell, ...], row: int, col: int) -> str:
    return next((c.text.strip() for c in cells if c.row == row and c.col == col), "")


def _largest_table(page: pymupdf.Page, clip: pymupdf.Rect):
    """The largest table PyMuPDF finds inside `clip` (ruled first, then by text), or None."""
    for strategy in ("lines", "text"):
        tables = page.find_tables(clip=clip, strategy=strategy).tables
        if tables:
            return max(tables, key=lambda t: t.row_count * t.col_count)
    return None


def _cells(table, words: list) -> tuple[tuple[TableCell, ...], list[pymupdf.Rect]]:
    """The table's cells (empty columns dropped) and each cell's box, in the same order."""
    xs = sorted({round(c[0], 1) for row in table.rows for c in row.cells if c} | {table.bbox[2]})
    ys = [row.bbox[1] for row in table.rows] + [table.bbox[3]]
    header = 0 if not table.header.external else -1
    cells, boxes = [], []
    for r, row in enumerate(table.rows):
        for box in filter(None, row.cells):
            col = bisect.bisect_left(xs, round(box[0], 1) - 0.5)
            col_span = max(1, bisect.bisect_left(xs, box[2] - 1) - col)
            row_span = max(1, bisect.bisect_left(ys, box[3] - 1) - r)
            cells.append(TableCell(r, col, _cell_text(words, box), row_span, col_span, r == header))
            boxes.append(pymupdf.Rect(box))
    return _drop_empty_columns(cells, boxes)


def _renumber(cells: list[TableCell]) -> tuple[TableCell, ...]:
    """A part of a grid as a table of its own: rows holding no text dropped, counted from 0."""
    rows = sorted({c.row for c in cells if c.text})
    cols = sorted({c.col for c in cells if c.text})
    row_at, col_at = {r: i for i, r in enumerate(rows)}, {c: i for i, c in enumerate(cols)}
    return tuple(
        replace(c, row=row_at[c.row], col=col_at[c.col], is_header=c.row == rows[0])
        for c in cells
        if c.row in row_at and c.col in col_at
    )


def _union(rects) -> pymupdf.Rect:
    out = pymupdf.Rect()
    for r in rects:
        out |= r
    return out


def _cell_text(words: list, box) -> str:
    """A cell's text as the grid has it: its words, cleaned (glyphs.clean)."""
    return glyphs.clean(_words_in(words, box))


def _words_in(words: list, box) -> str:
    x0, y0, x1, y1 = box
    inside = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
    inside.sort(key=lambda w: (w[5], w[6], w[7]))  # block, line, word number
    return " ".join(w[4] for w in inside)


def _drop_empty_columns(cells: list[TableCell], boxes: list) -> tuple[tuple[TableCell, ...], list]:
    """Ruling lines often split tables into empty slivers; keep the columns that hold text."""
    used = sorted({c.col for c in cells if c.text})
    remap = {col: i for i, col in enumerate(used)}
    kept, kept_boxes = [], []
    for c, box in zip(cells, boxes, strict=False):
        covered = [k for k in used if c.col <= k < c.col + c.col_span]
        if covered:
            col = remap[covered[0]]
            kept.append(TableCell(c.row, col, c.text, c.row_span, len(covered), c.is_header))
            kept_boxes.append(box)
    return tuple(kept), kept_boxes


def _is_visible(span: dict) -> bool:
    return span.get("alpha", 255) > 0 and bool(span.get("char_flags", _DRAWN) & _DRAWN)


def _line_style(spans: list[dict]) -> tuple[float, bool]:
    """Font size (points) and boldness carried by most of the line's characters; capitals set
    smaller right after a larger capital count at its size (small capitals faked by size)."""
    sizes: Counter[float] = Counter()
    bold = 0
    for k, s in enumerate(spans):
        n = sum(not c["c"].isspace() for c in s["chars"])
        sizes[round(_small_caps_size(spans, k), 1)] += n
        if s["flags"] & pymupdf.TEXT_FONT_BOLD or s.get("char_flags", 0) & _SYNTHETIC_BOLD:
            bold += n
    total = sum(sizes.values())
    return sizes.most_common(1)[0][0], total > 0 and bold * 2 > total


def _small_caps_size(spans: list[dict], k: int) -> float:
    """The size of span `k`, or of the capital it goes on from when it holds only capitals set
    smaller, joined to that capital without a space: "M" + "AIN" of a section heading in small
    capitals (IEEE, revtex) is one word at the capital's size, not a line of small type."""
    size = spans[k]["size"]
    text = "".join(c["c"] for c in spans[k]["chars"])
    if k == 0 or not text[:1].isalpha() or not text.isupper():
        return size
    prev = spans[k - 1]
    last = "".join(c["c"] for c in prev["chars"])[-1:]
    return prev["size"] if prev["size"] > size and last.isalpha() and last.isupper() else size
