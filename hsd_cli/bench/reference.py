"""Oracle references: each page's ground truth (split over a document's pages) and region spans.

Multi-page ground truth has no page breaks, so its blocks (blank-line separated) are assigned to
pages in order: each block goes to the page whose text layer contains it best (rapidfuzz partial
ratio), with page numbers never decreasing along the document (a small dynamic program).
"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
from rapidfuzz import fuzz

from hsd_cli.datatypes import Region
from hsd_cli.drafts.markup import DraftStyle, region_markup

MIN_REGION_SCORE = 60.0  # partial-ratio score below which a region has no span in the reference
MAX_WIDEN = 24  # characters a span may grow to reach word boundaries
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
    best: list[float] = [0.0] * len(page_texts)
    back: list[list[int]] = []
    for block in blocks:
        plain = _plain(block)
        score = [fuzz.partial_ratio(plain, t) * len(plain) if plain and t else 0.0 for t in plain_pages]
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


def region_references(regions: list[Region], page_ref: str, style: DraftStyle) -> list[str]:
    """For each region, the span of the page reference that best matches its draft text."""
    return [_span(region_markup(r, style) or r.text, page_ref) for r in regions]


def _span(draft: str, ref: str) -> str:
    if not draft.strip() or not ref.strip():
        return ""
    hit = fuzz.partial_ratio_alignment(draft, ref, score_cutoff=MIN_REGION_SCORE)
    if hit is None:
        return ""
    start, end = hit.dest_start, hit.dest_end
    floor, ceil = max(0, start - MAX_WIDEN), min(len(ref), end + MAX_WIDEN)
    while start > floor and not ref[start - 1].isspace():
        start -= 1
    while end < ceil and not ref[end].isspace():
        end += 1
    return ref[start:end].strip()


def _page_texts(pdf: Path, n_pages: int) -> list[str]:
    with pymupdf.open(pdf) as doc:
        return [doc[i].get_text() if i < doc.page_count else "" for i in range(n_pages)]


def _plain(text: str) -> str:
    return _MARKUP.sub(" ", text).strip()
