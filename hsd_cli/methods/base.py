"""The interfaces: what the runner sees (PageConverter) and what a target method is (Method).

A method does not run a loop of its own: `start` returns a PageJob, a generator that yields the
row batches it needs decoded (`RowsRequest`), receives each one's rows back (`RowsDone`) and
finally returns the page's `PageDecode`. methods/run.py drives one job with the shared stepper
(methods/rows.py); a scheduler may later merge several pages' requests into one batch.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PageImage, PageResult, PreparedPage, Region
from hsd_cli.methods.provenance import DraftMap

if TYPE_CHECKING:  # torch: the runner imports this module before it knows a model is needed
    from hsd_cli.methods.rows import RowsDone, RowsRequest
    from hsd_cli.targets.runtime.base import VisionTarget


class PageConverter(Protocol):
    method: str
    uses_drafts: bool  # the prepare stage makes drafts only for converters that use them

    def options_key(self) -> dict[str, object]:
        """Settings that change the output; a page report is reused only if they match."""
        ...

    def convert(self, prepared: PreparedPage) -> PageResult:
        """The verify stage: one prepared page -> its result."""
        ...


@dataclass(frozen=True, slots=True)
class PageDrafts:
    """A method's token drafts: per row of its page-level or region decode, its draft lists."""

    drafts: list[list[list[int]]]  # page: [[page draft]]; hsd, elements: per region; ar: []
    draft_map: DraftMap | None = None  # page: which region each draft position belongs to


@dataclass(frozen=True, slots=True)
class PageWork:
    """Everything a method needs to decode one page."""

    target: VisionTarget
    page: PageImage
    regions: list[Region]
    drafts: PageDrafts
    spec: SpecConfig
    draft_source: str = ""  # what made the drafts ("text_layer", "rapidocr"; "" unknown): sets their prior


PageJob = Generator["RowsRequest", "RowsDone", PageDecode]


class Method(Protocol):
    name: str  # what page reports say
    uses_drafts: bool

    def for_page(self, prepared: PreparedPage, target: VisionTarget, spec: SpecConfig, batch: int = 1) -> Method:
        """The method that decodes this page (auto picks one; the others are themselves); `batch`
        pages share the run's forward passes."""
        ...

    def drafts(self, target: VisionTarget, regions: list[Region]) -> PageDrafts:
        """The token drafts this method verifies."""
        ...

    def start(self, work: PageWork) -> PageJob:
        """The page's row batches, one request at a time; returns its PageDecode."""
        ...
