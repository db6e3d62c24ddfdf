"""The one interface every draft source implements."""

from __future__ import annotations

import re
from typing import Protocol

from hsd_cli.datatypes import PageImage, Region

_NUMBERED = re.compile(r"^(\d+(?:\.\d+)*)\.?\s+\S")  # "3.1 Results" -> level 3


class DraftSource(Protocol):
    """Cheap page reader whose region texts serve as drafts for the target model.

    Registered by one row of config.DRAFT_SOURCES (its `--draft-source` name) and built as
    `Source(threads=N, device=D)`: N CPU threads its engines may use (None: their default), D the
    device its models run on (torch_engines.draft_device; None: HSD_DRAFT_DEVICE). It carries what
    the rest of the run needs to know of it, so no other file names a source."""

    name: str  # what page reports and regions say (PreparedPage.draft_source, Region.source)
    # Its characters are the document's own (a text layer): verifying a region's crop can only fix
    # its markup (tables, formulas), so hsd's Stage 1 leaves its other regions out.
    exact: bool
    # The acceptance its drafts get before any is seen: the full-window first-token rate and the
    # continuation rate (driver/priors.py turns them into a spec/budget.AcceptPrior).
    prior: tuple[float, float]
    wants_layout: bool  # the prepare stage adds the PDF's layout boxes (pages/render.with_layout)
    wants_ocr_render: bool  # it reads a render at the page's OCR resolution (pages/render.render_for_ocr)

    def reads(self, page: PageImage) -> bool:
        """Whether it can draft this page (its validity test): `auto` takes the first source that can."""
        ...

    def regions(self, page: PageImage) -> list[Region]:
        """Regions of the page with their draft texts, `order` numbered 0.. in reading order."""
        ...


def heading_level(text: str, default: int) -> int:
    """Level from section numbering ("2" -> 2, "2.1" -> 3), else `default`."""
    match = _NUMBERED.match(text)
    return min(match[1].count(".") + 2, 6) if match else default
