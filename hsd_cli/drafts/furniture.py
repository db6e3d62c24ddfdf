"""Page furniture on a single page: page numbers and running lines in the top and bottom bands.

Two passes, neither needing other pages (drafts/running.py finds lines repeated across pages):

* Lines (`split_lines`, before layout boxes take them): the page's topmost text row and the one
  under it, and its two lowest rows, are running heads or feet when the row lies wholly in its
  band, holds at most MAX_PIECES short pieces set no larger than the body text (but for a page
  number beside a piece of furniture by pattern: a newspaper's bold folio), and one piece
  reads as furniture by pattern: a page number, a chapter mark ("[Ch. XIX." / "Ch. XIV.]"), a
  revision, document number, date, URL/DOI or copyright line, a volume/issue citation, a word
  such as "preprint" or "confidential", an all-caps running title ending in a full stop, or a
  page number beside one of these. The other pieces of that row go with it ("476 ... Bauer and
  Larsen"). A row holding a footnote (a marker then text) or a sentence stays body, and so does
  the second row unless it reads as furniture itself: a section heading under a running head,
  a references entry above a page number, are body. A top row without a pattern (a site name,
  a short title) is a running head when it is a few words, no larger than the body, unnumbered,
  and set a line's height or more above the rest of the page (`_set_apart`; half that for OCR
  pieces in a running head's left and right slots: OCR pads a scan's line boxes).
* Regions (`relabel`): a region wholly in a band that reads as a page number ("12", "- 12 -",
  "Page 3 of 9", "xiv") or is one short line set smaller than the body text that is no
  footnote ("1 See...", "* Corresponding author"). A layout model's footer that reads as a
  footnote is text (`footnote_kept`).

Body text is never touched: a region of several lines, or set at body size, stays whatever it was.
"""

from __future__ import annotations

import re
from dataclasses import replace

from hsd_cli.datatypes import Region, RegionKind, TextSpan
from hsd_cli.drafts.headings import SECTION, size_ratio
from hsd_cli.pages import geometry as geo
from hsd_cli.pages.bands import BAND

SMALL = 0.85  # a running line is set at most this size relative to the body text
MAX_CHARS = 80
_PAGE_NUMBER = re.compile(
    r"^(?:page|p\.|seite|pág\.?)?\s*[-–—(\[]?\s*(?:\d{1,4}|(?=[ivxl])l?x{0,3}(?:ix|iv|v?i{0,3}))\s*[-–—)\]]?"
    r"(?:\s*(?:of|/|de|von|sur)\s*\d{1,4})?$",
    re.I,
)
_FOOTNOTE = re.compile(r"^(?:\d{1,3}|[*†‡§¶])\s*\S")
_LIST_ENTRY = re.compile(r"^(?:\[\d{1,3}\]|\(\d{1,3}\)|[•·▪\-–]\s)")  # a reference or list item
KEPT_KINDS = (RegionKind.TABLE, RegionKind.FIGURE, RegionKind.EQUATION, RegionKind.CODE)
MAX_PIECES = 3  # a running row has left, centre and right slots; a table row has more cells
MAX_WORDS = 10
MAX_ROWS = 2  # rows looked at from each edge
ROW_OVERLAP = 0.25  # a line shares a row with the edge line when it overlaps this much of its height
SKEW = 0.035  # or, that far across the page from it, sits this much of the distance lower (a 2 degree turn)
LARGE = 1.15  # a running row is set no larger than this times the body size
FOLIO = 1.5  # but its page number, beside a running piece, as large as this
TALL = 1.4  # OCR lines (no font size): no taller than this times the median line height
LONE_WORDS = 5  # a top row without a pattern: this many words at most,
LONE_SIZE = 1.1  # no larger than this times the body (drafts/headings.size_ratio),
LONE_GAP = 1.0  # and this many of its heights above the rest of the page,
SLOTS_GAP = 0.5  # or this many, for pieces in a running head's slots,
SLOTS = 4.0  # that stand this many heights apart,
SLOTS_EDGE = 2.0  # within this many heights of the text's left and right edges
MIN_BODY_LINES = 3
FOOTNOTE_WORDS = 4  # a footer region's sentence this long after a marker is a footnote
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_CHAPTER = re.compile(r"\bch(?:ap)?\.\s*[ivxlc\d]|\bchapter\s+[ivxlc\d]+\b", re.I)
_RUNNING = re.compile(
    "|".join(
        (
            r"\b(?:rev(?:ision)?|version|ver)\.?\s*[:#]?\s*v?\d+(?:\.\d+)*\b",  # Revision: 2.4
            r"\b(?:doc(?:ument)?|report|ref)\.?\s*(?:no\.?|number|#|id)\s*[:.]?\s*\S*\d",  # Doc. No. SR-27
            rf"\b{_MONTH}\s+(?:\d{{1,2}},?\s+)?\d{{4}}\b|\b\d{{1,2}}\s+{_MONTH}\s+\d{{4}}\b|\b\d{{4}}-\d\d-\d\d\b",
            r"https?://|\bwww\.|\bdoi\b|\b10\.\d{4,}/|\S@\S+\.\w|\b[\w-]+\.(?:com|org|net|edu|gov|io)\b",
            r"©|\(c\)\s*\d{4}|\bcopyright\b|\ball rights reserved\b",
            r"\bvol(?:ume)?\.?\s*\d|\bno\.\s*\d|\bissue\s+\d|\bpp?\.\s*\d|\b\d+\s*\((?:1[5-9]|20)\d\d\)",
            r"\b(?:preprint|confidential|draft|proprietary|internal use|do not distribute|for review|under review"
            r"|submitted to|proceedings|journal|transactions|annals|bulletin|quarterly)\b|\bet al\.",
        )
    ),
    re.I,
)
_SENTENCE_END = re.compile(r"[.!?]$")


def is_page_number(text: str) -> bool:
    return bool(_PAGE_NUMBER.match(text.strip()))


def band_of(bbox: tuple[float, ...], page_height: float) -> RegionKind | None:
    """HEADER or FOOTER for a box wholly in the top or bottom band, else None."""
    if bbox[3] <= BAND * page_height:
        return RegionKind.HEADER
    if bbox[1] >= (1 - BAND) * page_height:
        return RegionKind.FOOTER
    return None


def relabel(region: Region, lines: list[TextSpan], body: float, page_height: float) -> Region:
    """`region` as HEADER/FOOTER when it is a page number or a small running line in a band; a
    layout model's footer that is a footnote as text (`footnote_kept`)."""
    if region.kind in (RegionKind.HEADER, RegionKind.FOOTER):
        return footnote_kept(region)
    if region.kind in KEPT_KINDS:
        return region
    band = band_of(region.bbox, page_height)
    text = region.text.strip()
    if band is None or not text:
        return region
    if is_page_number(text) or _is_running_line(text, lines, body):
        return replace(region, kind=band, level=0)
    return region


def footnote_kept(region: Region) -> Region:
    """A footer region that reads as a footnote -- a marker, then a sentence of FOOTNOTE_WORDS
    words or more, and no running pattern -- as text. Layout models take the last line of a
    page for its footer, and a footnote there was dropped with the furniture."""
    text = region.text.strip()
    footnote = _FOOTNOTE.match(text) and _SENTENCE_END.search(text) and len(text.split()) >= FOOTNOTE_WORDS
    if region.kind is not RegionKind.FOOTER or not footnote or _RUNNING.search(text):
        return region
    return replace(region, kind=RegionKind.TEXT, level=0)


def _is_running_line(text: str, lines: list[TextSpan], body: float) -> bool:
    if len(lines) != 1 or len(text) > MAX_CHARS or _FOOTNOTE.match(text):
        return False
    return bool(body) and 0 < lines[0].size <= SMALL * body


def split_lines(lines: list[TextSpan], page_height: float) -> tuple[list[Region], list[TextSpan]]:
    """HEADER and FOOTER regions for the running rows at the page's top and bottom edges, and the
    lines left for the body."""
    if not lines:
        return [], lines
    scale, ratio = _scale(lines), size_ratio(lines)
    stamps = side_stamps(lines)
    found: list[Region] = [_row_region([s], RegionKind.HEADER) for s in stamps]
    rest = [s for s in lines if s not in stamps]
    for kind in (RegionKind.HEADER, RegionKind.FOOTER):
        for _ in range(MAX_ROWS):
            row = _running_row(rest, kind, page_height, scale, ratio)
            if not row:
                break
            found.append(_row_region(row, kind))
            rest = [s for s in rest if s not in row]
    return found, rest


def _running_row(lines: list[TextSpan], kind: RegionKind, page_height: float, scale, ratio) -> list[TextSpan]:
    """The edge row of `lines` when it is running, else []: the row as a turned scan's slope
    allows, or else level (a slope's allowance can take the first words of the columns under a
    masthead in, more pieces than a running row has)."""
    for turn in (SKEW, 0.0):
        row = _edge_row(lines, kind, turn)
        if len(row) == len(lines) or not _in_band(row, kind, page_height):
            continue  # (a page of nothing else keeps its lines: the region pass still tells them)
        if _is_running_row(row, scale) or (kind is RegionKind.HEADER and _set_apart(row, lines, ratio)):
            return row
    return []


def side_stamps(lines: list[TextSpan]) -> list[TextSpan]:
    """Lines set sideways in a side margin, left or right of every upright line (an arXiv
    identifier, a journal's or a preprint's stamp along the page's edge): running text."""
    turned = [s for s in lines if geo.sideways(s.bbox, len(s.text.strip()))]
    upright = [s for s in lines if s not in turned]
    if not upright:
        return []
    left, right = min(s.bbox[0] for s in upright), max(s.bbox[2] for s in upright)
    return [s for s in turned if s.bbox[2] <= left or s.bbox[0] >= right]


def _scale(lines: list[TextSpan]) -> tuple[str, float]:
    """What "body size" means here: ("size", the most used font size) with a text layer's sizes,
    else ("height", the median line height) for OCR lines."""
    if all(s.size > 0 for s in lines):
        sizes: dict[float, int] = {}
        for s in lines:
            sizes[s.size] = sizes.get(s.size, 0) + len(s.text)
        return "size", max(sizes, key=sizes.__getitem__)
    heights = sorted(s.bbox[3] - s.bbox[1] for s in lines)
    return "height", heights[len(heights) // 2]


def _edge_row(lines: list[TextSpan], kind: RegionKind, turn: float = SKEW) -> list[TextSpan]:
    """The lines sharing a row with the topmost (HEADER) or lowest (FOOTER) line; on a slightly
    turned scan the pieces of one row sit at different heights, so overlap, not centres, decides,
    and a piece at the other side of the page may be lower (or higher) by the turn's slope."""
    if not lines:
        return []
    top = kind is RegionKind.HEADER
    edge = min(lines, key=lambda s: s.bbox[1]) if top else max(lines, key=lambda s: s.bbox[3])
    reach = ROW_OVERLAP * (edge.bbox[3] - edge.bbox[1])
    # A piece across the page from the edge line may sit lower or higher by the scan's turn.
    skew = [turn * max(0.0, s.bbox[0] - edge.bbox[2], edge.bbox[0] - s.bbox[2]) for s in lines]
    if top:
        return [s for s, k in zip(lines, skew, strict=True) if s.bbox[1] <= edge.bbox[3] - reach + k]
    return [s for s, k in zip(lines, skew, strict=True) if s.bbox[3] >= edge.bbox[1] + reach - k]


def _in_band(row: list[TextSpan], kind: RegionKind, page_height: float) -> bool:
    return bool(row) and all(band_of(s.bbox, page_height) is kind for s in row)


def _is_running_row(row: list[TextSpan], scale: tuple[str, float]) -> bool:
    if len(row) > MAX_PIECES or any(_large(s, scale) and not _folio(s, row, scale) for s in row):
        return False
    texts = [s.text.strip() for s in row]
    if any(_body_piece(t) for t in texts):
        return False
    return any(is_page_number(t) or _running_piece(t) for t in texts)


def _folio(line: TextSpan, row: list[TextSpan], scale: tuple[str, float]) -> bool:
    """A page number set larger than the body (a newspaper's bold folio), not a heading's size,
    beside a piece that reads as furniture by its pattern (a date, an issue)."""
    kind, body = scale
    if not is_page_number(line.text) or _large(line, (kind, FOLIO * body)):
        return False
    return any(_running_piece(s.text.strip()) for s in row if s is not line)


def _set_apart(row: list[TextSpan], rest: list[TextSpan], ratio) -> bool:
    """A top row of a few short words (a site name, a short title), set no larger than the body
    and a line's height or more above everything else: a running head without a pattern."""
    if ratio is None or len(row) > MAX_PIECES or len(rest) - len(row) < MIN_BODY_LINES:
        return False
    texts = [s.text.strip() for s in row]
    if any(len(t.split()) > LONE_WORDS or _body_piece(t) or SECTION.match(t) for t in texts) or ratio(row) > LONE_SIZE:
        return False
    bottom, height = max(s.bbox[3] for s in row), max(s.bbox[3] - s.bbox[1] for s in row)
    below = min(s.bbox[1] for s in rest if s not in row)
    return below - bottom >= (SLOTS_GAP if _in_slots(row, rest, height) else LONE_GAP) * height


def _in_slots(row: list[TextSpan], rest: list[TextSpan], height: float) -> bool:
    """OCR lines in a running head's left and right slots: pieces far apart, the first starting
    where the page's text starts and the last ending where it ends (a chart's legend at the top
    of a page stands inside). OCR pads each line's box, narrowing the gap seen under them; a
    heading is one piece."""
    pieces = sorted(row, key=lambda s: s.bbox[0])
    others = [s for s in rest if s not in row]
    left, right = min(s.bbox[0] for s in others), max(s.bbox[2] for s in others)
    edges = max(abs(pieces[0].bbox[0] - left), abs(right - pieces[-1].bbox[2])) <= SLOTS_EDGE * height
    apart = any(b.bbox[0] - a.bbox[2] >= SLOTS * height for a, b in zip(pieces, pieces[1:], strict=False))
    return all(s.size == 0 for s in row) and edges and apart


def _large(line: TextSpan, scale: tuple[str, float]) -> bool:
    kind, body = scale
    if kind == "size":
        return line.size > LARGE * body
    return line.bbox[3] - line.bbox[1] > TALL * body


def _body_piece(text: str) -> bool:
    """A footnote (a marker, then text), a list or reference entry, a sentence, or a line too long
    for a running slot."""
    words = text.split()
    if len(text) > MAX_CHARS or len(words) > MAX_WORDS:
        return True
    if _LIST_ENTRY.match(text):
        return True
    if is_page_number(text) or _running_piece(text):
        return False
    return bool(_FOOTNOTE.match(text)) or (len(words) >= 4 and bool(_SENTENCE_END.search(text)))


def _running_piece(text: str) -> bool:
    """Furniture by its pattern; a page number joined to such a piece by OCR counts too."""
    parts = text.split()
    if _FOOTNOTE.match(text):  # "2As shown below..." is a footnote, "232 A TREATISE ON STREAMS." a head
        rest = " ".join(parts[1:])
        return is_page_number(parts[0]) and bool(_CHAPTER.search(rest) or _caps_title(rest))
    if _CHAPTER.search(text) or _RUNNING.search(text) or _caps_title(text):
        return True
    return len(parts) > 1 and is_page_number(parts[-1]) and _running_piece(" ".join(parts[:-1]))


def _caps_title(text: str) -> bool:
    """An old book's running title: capitals ending in a full stop ("WESTERN ORCHARDS.")."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 4 and text.endswith(".") and sum(c.isupper() for c in letters) >= 0.9 * len(letters)


def _row_region(row: list[TextSpan], kind: RegionKind) -> Region:
    text = " ".join(s.text.strip() for s in sorted(row, key=lambda s: s.bbox[0]))
    return Region(geo.union_box([s.bbox for s in row]), kind, 0, text)
