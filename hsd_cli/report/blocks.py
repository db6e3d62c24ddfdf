"""A page's blocks in reading order: layout regions with their final text, and coverage.

Draft method: each region's own draft text. Model methods: the verified output cut into runs
by provenance (the region whose draft each accepted token came from, provenance.py). A run of
the model's own tokens (bonus tokens, plain steps) joins its neighbours: up to and including its
last line break it belongs to the region before, the rest to the region after (a region's text
starts after a line break); with no line break in it, all of it to the region before.
Output no region claims at all becomes one `model` block.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from hsd_cli.datatypes import MODEL_REGION, Block, Region, RegionKind
from hsd_cli.drafts.markup import MARKDOWN, html_table, region_markup
from hsd_cli.report.tables import table_html

_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+", re.M)  # an ATX heading's opening markers


def draft_blocks(regions: list[Region]) -> list[Block]:
    """Every region as a block with its draft text (as `--method draft` writes it)."""
    blocks = []
    for r in sorted(regions, key=lambda r: r.order):
        text = region_markup(r, MARKDOWN)
        html = (html_table(r.cells) if r.cells else table_html(text)) if r.kind is RegionKind.TABLE else None
        blocks.append(Block(r.kind.value, r.bbox, r.order, block_text(r.kind, text), "draft", html=html))
    return with_captions(blocks)


def model_blocks(
    regions: list[Region],
    tokens: list[int],
    owners: list[int],
    size: tuple[int, int],
    decode: Callable[[list[int]], str],
    to_markdown: Callable[[str], str],
    breaks: frozenset[int],
) -> list[Block]:
    """The verified output as blocks: text per region by provenance (`owners`: region per token)."""
    filled = attach(owners, [t in breaks for t in tokens])
    pieces: dict[int, list[str]] = {}
    counts: dict[int, list[int]] = {}
    for owner, start, end in _runs(filled):
        pieces.setdefault(owner, []).append(_piece(decode, tokens, start, end))
        n, own = counts.get(owner, [0, 0])
        counts[owner] = [n + end - start, own + sum(o == owner for o in owners[start:end])]
    if MODEL_REGION in pieces:  # nothing was drafted: the whole page is one block
        text = to_markdown("".join(pieces[MODEL_REGION])).strip()
        return [Block(RegionKind.TEXT.value, (0.0, 0.0, float(size[0]), float(size[1])), 0, text, "model", len(tokens))]
    blocks = []
    for i in sorted(range(len(regions)), key=lambda i: regions[i].order):
        r = regions[i]
        if i not in pieces and r.kind is not RegionKind.FIGURE:
            continue  # the model wrote nothing of it (page furniture, mostly)
        text = to_markdown("".join(pieces.get(i, []))).strip() if i in pieces else ""
        html = table_html(text) if r.kind is RegionKind.TABLE else None
        n, own = counts.get(i, [0, 0])
        blocks.append(Block(r.kind.value, r.bbox, r.order, block_text(r.kind, text), "verified", n, own, html))
    return with_captions(blocks)


def block_text(kind: RegionKind, text: str) -> str:
    """A block's text: a title's is its heading without the Markdown `#` markers (the Markdown keeps them)."""
    return _HEADING.sub("", text) if kind is RegionKind.TITLE else text


def attach(owners: list[int], breaks: list[bool]) -> list[int]:
    """Owners with the model's own runs joined to their neighbours (see the module docstring)."""
    out = list(owners)
    for start, end in _model_runs(owners):
        before = out[start - 1] if start > 0 else MODEL_REGION
        after = owners[end] if end < len(owners) else MODEL_REGION
        cut = next((j + 1 for j in range(end - 1, start - 1, -1) if breaks[j]), end)
        if before in (MODEL_REGION, after) or after == MODEL_REGION:
            cut = end if before != MODEL_REGION else start
        out[start:cut] = [before] * (cut - start)
        out[cut:end] = [after] * (end - cut)
    return out


def coverage(owners: list[int], regions: list[Region]) -> dict[str, float]:
    """Share of output tokens accepted from drafts per region kind; "model" for the rest."""
    if not owners:
        return {}
    counts: dict[str, int] = {}
    for o in owners:
        kind = "model" if o == MODEL_REGION else regions[o].kind.value
        counts[kind] = counts.get(kind, 0) + 1
    return {k: round(v / len(owners), 6) for k, v in sorted(counts.items())}


def with_captions(blocks: list[Block]) -> list[Block]:
    """Figures get the text of an adjacent caption block (the one after first, then before)."""
    out = list(blocks)
    for i, b in enumerate(blocks):
        if b.kind != RegionKind.FIGURE.value:
            continue
        near = [blocks[j] for j in (i + 1, i - 1) if 0 <= j < len(blocks)]
        cap = next((n for n in near if n.kind == RegionKind.CAPTION.value and n.text), None)
        if cap is not None:
            out[i] = replace(b, caption=" ".join(cap.text.split()))
    return out


def _model_runs(owners: list[int]) -> list[tuple[int, int]]:
    return [(s, e) for o, s, e in _runs(owners) if o == MODEL_REGION]


def _runs(owners: list[int]) -> list[tuple[int, int, int]]:
    """Maximal runs of one owner: (owner, start, end)."""
    runs, start = [], 0
    for i in range(1, len(owners) + 1):
        if i == len(owners) or owners[i] != owners[start]:
            runs.append((owners[start], start, i))
            start = i
    return runs if owners else []


def _piece(decode: Callable[[list[int]], str], tokens: list[int], start: int, end: int) -> str:
    """tokens[start:end] as text, cut from decoded prefixes so a character split across the cut
    is not lost to a replacement character."""
    head = decode(tokens[:start]).rstrip("\ufffd") if start else ""
    return decode(tokens[:end]).rstrip("\ufffd")[len(head) :]
