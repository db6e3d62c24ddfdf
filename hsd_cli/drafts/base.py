"""The one interface every draft source implements."""

from __future__ import annotations

import re
from typing import Protocol

from hsd_cli.datatypes import PageImage, Region

_NUMBERED = re.compile(r"^(\d+(?:\.\d+)*)\.?\s+\S")  # "3.1 Results" -> level 3


class DraftSource(Protocol):
    """Cheap page reader whose region texts serve as drafts for the target model."""

    name: str

    def regions(self, page: PageImage) -> list[Region]:
        """Regions of the page with their draft texts, `order` numbered 0.. in reading order."""
        ...


def heading_level(text: str, default: int) -> int:
    """Level from section numbering ("2" -> 2, "2.1" -> 3), else `default`."""
    match = _NUMBERED.match(text)
    return min(match[1].count(".") + 2, 6) if match else default
