"""Which layout region each output token came from: draft origins -> region indices.

The speculative core tags every accepted token with its (draft, position) origin (spec/align.py).
A `DraftMap` (datatypes.py) says which region each draft position belongs to: in `page` the one draft is the
page Markdown, cut into its regions' token spans; in `hsd` Stage 2 each draft is one region's
Stage-1 output. MODEL_REGION (-1) stands for no region: the model's own tokens.
The methods build the maps (`page_draft`, `one_per_draft`); the page's blocks read them (`token_regions`).
"""

from __future__ import annotations

from collections.abc import Callable

from hsd_cli.datatypes import MODEL_REGION, DraftMap, DraftStyle, Region
from hsd_cli.drafts.markup import PAGE_SEP, page_parts


def one_per_draft(owners: list[int]) -> DraftMap:
    """Drafts that each belong to one region (hsd's Stage 2): draft d is region owners[d]'s."""
    return DraftMap(tuple((0,) for _ in owners), tuple((r,) for r in owners))


def page_draft(
    regions: list[Region], style: DraftStyle, encode: Callable[[str], list[int]]
) -> tuple[list[int], DraftMap]:
    """The page draft's tokens (exactly `encode(page_markdown)`) and where each region starts in them."""
    parts = page_parts(regions, style)
    text = PAGE_SEP.join(t for _, t in parts)
    starts, at = [], 0
    for _, part in parts:
        # Tokenizing a prefix gives the token offset of a character offset (separators go to
        # the region before); one tokenizer call per region, no tokenizer-specific offsets.
        starts.append(len(encode(text[:at])) if at else 0)
        at += len(part) + len(PAGE_SEP)
    return encode(text) if parts else [], DraftMap((tuple(starts),), (tuple(r for r, _ in parts),))


def token_regions(origins: list[tuple[int, int]], dmap: DraftMap | None) -> list[int]:
    """Per output token, the region whose draft it was accepted from (MODEL_REGION for none)."""
    if dmap is None:
        return [MODEL_REGION] * len(origins)
    return [dmap.region_of(o) for o in origins]
