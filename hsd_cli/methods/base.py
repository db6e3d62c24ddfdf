"""The method contract: what the runner sees (PageConverter), what a target method is (Method),
and the requests a method's job makes of the driver.

A method does not run a loop of its own: `start` returns a PageJob, a generator that yields the
row batches it needs decoded (`RowsRequest`), receives each one's rows back (`RowsDone`) and
finally returns the page's `PageDecode`. The driver (driver/batch.py) serves the requests of
several pages' jobs at once, their rows sharing every forward pass.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import DraftMap, PageDecode, PageImage, PageResult, PreparedPage, Region, StageReport

if TYPE_CHECKING:  # torch: the runner imports this module before it knows a model is needed
    from PIL import Image

    from hsd_cli.spec.align import TokenDrafts
    from hsd_cli.spec.budget import AcceptPrior
    from hsd_cli.spec.decode import RowResult
    from hsd_cli.spec.stats import BatchStop
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

    drafts: TokenDrafts  # page: [[page draft]]; hsd, elements: per region; ar: []
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
    """A target method. Code that treats methods differently asks these capabilities, never the name."""

    name: str  # what page reports say
    uses_drafts: bool  # verifies drafts (False: plain AR decoding, its own baseline, no cost model)
    prices_crops: bool  # may plan Stage-1 region crops: their prefill is priced when the model loads

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


@dataclass(frozen=True, slots=True)
class RowsRequest:
    """One batch of rows a method wants decoded: one prompt, one image and drafts per row."""

    images: tuple[Image.Image, ...]
    prompt: str
    drafts: tuple[list[list[int]], ...] | None  # per row: its draft token lists; None: AR
    spec: SpecConfig
    starts: bool = False  # offer draft beginnings after a boundary token (region starts)
    batch_stop: BatchStop | None = None  # cut the running rows once more steps do not pay
    split_on_oom: bool = False  # region crops: out of memory, the rows are retried in halves
    prior: AcceptPrior | None = None  # the drafts' acceptance before any is seen; None: the driver's choice
    limits: tuple[int, ...] | None = None  # per row: a token budget under spec.max_new_tokens
    late: Arrival | None = None  # drafts that may join the rows while they decode (they started without)

    def halves(self) -> tuple[RowsRequest, RowsRequest]:
        """The first and second half of the rows, each a request of its own."""
        h = len(self.images) // 2
        d = self.drafts
        n = self.limits
        first = replace(self, images=self.images[:h], drafts=None if d is None else d[:h], limits=n and n[:h])
        return first, replace(self, images=self.images[h:], drafts=None if d is None else d[h:], limits=n and n[h:])


@dataclass(slots=True, eq=False)
class Arrival:
    """Drafts that may come while a request's rows decode without them (a page that started before
    its drafts were made). The driver asks `check` before each forward pass; the first answer is
    the request the rows would have been with the drafts there, and joins them for good."""

    poll: Callable[[], tuple[RowsRequest, str] | None]  # (that request, its drafts' source) once made
    joined: RowsRequest | None = None
    draft_source: str = ""  # what made the drafts that joined: their prior

    def check(self) -> RowsRequest | None:
        """The request whose drafts joined the rows, asking `poll` until they come."""
        if self.joined is None and (got := self.poll()) is not None:
            self.joined, self.draft_source = got
        return self.joined


@dataclass(frozen=True, slots=True)
class RowsDone:
    """The decoded rows of a request, in its order, and what decoding them cost."""

    rows: tuple[RowResult, ...]
    report: StageReport


def join(a: StageReport, b: StageReport) -> StageReport:
    """Two reports of one stage as one."""
    return replace(
        a,
        steps=a.steps + b.steps,
        tokens=a.tokens + b.tokens,
        accepted=a.accepted + b.accepted,
        accepted_hist=a.accepted_hist + b.accepted_hist,
        t_prefill=a.t_prefill + b.t_prefill,
        t_decode=a.t_decode + b.t_decode,
        regions=a.regions + b.regions,
        drafted=a.drafted + b.drafted,
        matched=a.matched + b.matched,
    )


def truncated(row: RowResult, eos_ids: frozenset[int]) -> bool:
    """The row stopped before the model's end of sequence."""
    return not row.tokens or row.tokens[-1] not in eos_ids
