"""Oracle references: each page's ground truth (split over a document's pages) and region spans.

Multi-page ground truth has no page breaks, so its blocks (blank-line separated) are assigned to
pages in order: each block goes to the page whose text layer contains it best (rapidfuzz partial
ratio), with page numbers never decreasing along the document (a small dynamic program). Pages
that read alike match a block equally well; such ties go by position: a block is expected on the
page where its share of the document's length falls among the pages' text-layer lengths.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from pathlib import Path

import pymupdf
from rapidfuzz import fuzz

from hsd_cli.datatypes import Region
from hsd_cli.drafts.markup import DraftStyle, region_markup

MIN_REGION_SCORE = 60.0  # partial-ratio score below which a region has no span in the reference
MAX_WIDEN = 24  # characters a span may grow to reach word boundaries
TIE_POINTS = 3.0  # partial-ratio points per page of distance from a block's expected page
_BLANK = re.compile(r"\n\s*\n")
_MARKUP = re.compile(r"<[^>]+>|[#|*_`$>\\-]+|\s+")


def split_blocks(markdown: str) -> list[str]:
    """Blank-line separated blocks, stripped, empty ones dropped."""
    return [b.strip() for b in _BLANK.split(markdown) if b.strip()]


def page_references(pdf: Path | None, markdown: str, n_pages: int) -> list[str]:
    """The ground truth of every page of the document, in order."""
    if n_pages <= 1 or pdf is None:
        return [markdown] + [""] * max(n_pages - 1, 0)
    blocks = split_blocks(markdown)
    texts = _page_texts(pdf, n_pages)
    pages: list[list[str]] = [[] for _ in range(n_pages)]
    for block, p in zip(blocks, assign_blocks(blocks, texts), strict=False):
        pages[p].append(block)
    return ["\n\n".join(b) for b in pages]


def assign_blocks(blocks: list[str], page_texts: list[str]) -> list[int]:
    """Page index per block maximizing the total match weight, never decreasing."""
    plain_pages = [_plain(t) for t in page_texts]
    plains = [_plain(b) for b in blocks]
    best: list[float] = [0.0] * len(page_texts)
    back: list[list[int]] = []
    for plain, expected in zip(plains, _expected_pages(plains, plain_pages), strict=True):
        score = [
            (fuzz.partial_ratio(plain, t) - TIE_POINTS * abs(p - expected)) * len(plain) if plain and t else 0.0
            for p, t in enumerate(plain_pages)
        ]
        run, arg, came = -1.0, 0, []
        for p in range(len(page_texts)):  # prefix max over pages q <= p
            if best[p] > run:
                run, arg = best[p], p
            came.append(arg)
        best = [score[p] + best[came[p]] for p in range(len(page_texts))]
        back.append(came)
    p = max(range(len(page_texts)), key=lambda q: best[q])
    out = []
    for came in reversed(back):
        out.append(p)
        p = came[p]
    return out[::-1]


def _expected_pages(plains: list[str], plain_pages: list[str]) -> list[int]:
    """Per block, the page its middle falls on when the document is laid over the pages by length."""
    total, pages_total = sum(map(len, plains)) or 1, sum(map(len, plain_pages)) or 1
    ends, run = [], 0
    for t in plain_pages:
        run += len(t)
        ends.append(run / pages_total)
    out, at = [], 0
    for plain in plains:
        mid = (at + len(plain) / 2) / total
        at += len(plain)
        out.append(min(bisect_left(ends, mid), len(plain_pages) - 1))
    return out


def region_spans(regions: list[Region], page_ref: str, style: DraftStyle) -> list[tuple[int, int]]:
    """For each region, the (start, end) characters of the page reference its draft matches best;
    (0, 0) where nothing matches."""
    return [_span(region_markup(r, style) or r.text, page_ref) for r in regions]


def _span(draft: str, ref: str) -> tuple[int, int]:
    """Matched on the text without markup (a region's draft and the truth may write a table or a
    formula differently), then mapped back and widened over the markup around it."""
    plain, pieces = _plain_pieces(ref)
    needle = _plain(draft)
    if not needle or not plain.strip():
        return (0, 0)
    hit = fuzz.partial_ratio_alignment(needle, plain, score_cutoff=MIN_REGION_SCORE)
    if hit is None or hit.dest_end <= hit.dest_start:
        return (0, 0)
    first, last = hit.dest_start, hit.dest_end - 1
    markup = [m and bool(ref[a:b].strip()) for a, b, m in pieces]  # tags and symbols, not whitespace
    while first > 0 and markup[first - 1]:
        first -= 1
    while last + 1 < len(pieces) and markup[last + 1]:
        last += 1
    start, end = _words(ref, pieces[first][0], pieces[last][1])
    return (start, end)


def _plain_pieces(text: str) -> tuple[str, list[tuple[int, int, bool]]]:
    """`_plain(text)` unstripped, and per character its (start, end) in `text` and whether it stands for markup."""
    chars, pieces, at = [], [], 0
    for m in _MARKUP.finditer(text):
        for i in range(at, m.start()):
            chars.append(text[i])
            pieces.append((i, i + 1, False))
        chars.append(" ")
        pieces.append((m.start(), m.end(), True))
        at = m.end()
    for i in range(at, len(text)):
        chars.append(text[i])
        pieces.append((i, i + 1, False))
    return "".join(chars), pieces


def _words(ref: str, start: int, end: int) -> tuple[int, int]:
    """The span widened to word boundaries (a little) and stripped of outer whitespace."""
    floor, ceil = max(0, start - MAX_WIDEN), min(len(ref), end + MAX_WIDEN)
    while start > floor and not ref[start - 1].isspace():
        start -= 1
    while end < ceil and not ref[end].isspace():
        end += 1
    while start < end and ref[start].isspace():
        start += 1
    while end > start and ref[end - 1].isspace():
        end -= 1
    return (start, end)


def _page_texts(pdf: Path, n_pages: int) -> list[str]:
    with pymupdf.open(pdf) as doc:
        return [doc[i].get_text() if i < doc.page_count else "" for i in range(n_pages)]


def _plain(text: str) -> str:
    return _MARKUP.sub(" ", text).strip()
