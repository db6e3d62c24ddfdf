"""Page numbers standing in a side margin, outside the body's columns.

A landscape page typeset in a portrait frame (LaTeX's pdflscape, a rotated table in a report)
keeps its folio where the portrait page had it: shown upright, the number stands alone in the
left or right margin, mid-height, where no top or bottom band (drafts/running.py, furniture.py)
finds it, and the drafts wrote it as a paragraph of its own. A page number wholly beside the
body's text, left or right of every other text region, is furniture like a footer's.
"""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.datatypes import Region, RegionKind
from hsd_cli.drafts.furniture import KEPT_KINDS, is_page_number

FURNITURE = (RegionKind.HEADER, RegionKind.FOOTER)


def relabel(regions: list[Region]) -> list[Region]:
    """`regions` with a page number in a side margin as a FOOTER."""
    body = [r for r in regions if r.kind not in KEPT_KINDS + FURNITURE and r.text.strip() and not _folio(r)]
    if not body:
        return regions
    left, right = min(r.bbox[0] for r in body), max(r.bbox[2] for r in body)
    return [replace(r, kind=RegionKind.FOOTER, level=0) if _beside(r, left, right) else r for r in regions]


def _folio(region: Region) -> bool:
    return region.kind not in KEPT_KINDS + FURNITURE and is_page_number(region.text)


def _beside(region: Region, left: float, right: float) -> bool:
    return _folio(region) and (region.bbox[2] <= left or region.bbox[0] >= right)
