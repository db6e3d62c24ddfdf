"""A word hyphenated at the end of a region and finished at the start of the next one.

A paragraph broken at a column's foot (or a layout box's end) goes on in the next region in
reading order; a word hyphenated across the break (`distribu-` / `tions`) is rejoined in the
region that starts it, as a reader writes it, and the next region starts at its next word.
Inside a region, the lines' hyphens are rejoined when the lines are (geometry.join_lines).
"""

from __future__ import annotations

import re
from dataclasses import replace

from hsd_cli.datatypes import Region, RegionKind

_PROSE = (RegionKind.TEXT, RegionKind.LIST)
_FURNITURE = (RegionKind.HEADER, RegionKind.FOOTER)  # a running line between the two is skipped
_HYPHENATED = re.compile(r"[^\W\d_]-$")  # a letter, then the hyphen, at the very end


def rejoined(regions: list[Region]) -> list[Region]:
    """`regions` with each word hyphenated at a prose region's end finished there; a region the
    word's end was all of is left out."""
    order = [
        i for i in sorted(range(len(regions)), key=lambda i: regions[i].order) if regions[i].kind not in _FURNITURE
    ]
    out = list(regions)
    for a, b in zip(order, order[1:], strict=False):
        first, second = out[a], out[b]
        if (
            first.kind in _PROSE
            and second.kind in _PROSE
            and _HYPHENATED.search(first.text)
            and second.text[:1].islower()
        ):
            end, _, rest = second.text.partition(" ")
            out[a], out[b] = replace(first, text=first.text[:-1] + end), replace(second, text=rest.lstrip())
    return [r for r, old in zip(out, regions, strict=True) if r.text or not old.text]
