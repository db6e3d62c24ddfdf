"""Records that cross module boundaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

if TYPE_CHECKING:  # annotations only: the methods and the loop import these records
    from hsd_cli.methods.provenance import DraftMap
    from hsd_cli.spec.align import Origin

BBox = tuple[float, float, float, float]  # x0, y0, x1, y1 in page-image pixels


def aal(accepted: int, seq_steps: int) -> float:
    """AAL (HSD paper 4.2): accepted draft tokens per sequence-step; the bonus token is not
    counted, a fully rejected step counts 0, and a batched forward is one step of each of its rows.
    """
    return accepted / seq_steps if seq_steps else 0.0


class PageStatus(str, Enum):
    OK = "ok"
    TRUNCATED = "truncated"
    FAILED = "failed"
    SKIPPED = "skipped"


class RegionKind(str, Enum):
    TITLE = "title"
    TEXT = "text"
    TABLE = "table"
    FIGURE = "figure"
    CAPTION = "caption"
    HEADER = "header"
    FOOTER = "footer"
    EQUATION = "equation"
    REFERENCE = "reference"
    LIST = "list"
    CODE = "code"


@dataclass(frozen=True, slots=True)
class TextSpan:
    """A line of the PDF's own text layer, in page-image pixels."""

    bbox: BBox
    text: str
    size: float = 0.0  # font size in points; headings stand out by it
    bold: bool = False


@dataclass(frozen=True, slots=True)
class PageImage:
    """One rendered page (or image file) ready for drafting and the target."""

    source: Path
    index: int  # 0-based page index in the source document
    image: Image.Image
    dpi: int
    text_spans: tuple[TextSpan, ...] = ()  # empty when the page has no text layer
    layout: tuple[Region, ...] = ()  # the PDF's own layout analysis: text-less regions, tables with cells

    @property
    def number(self) -> int:
        return self.index + 1


@dataclass(frozen=True, slots=True)
class TableCell:
    row: int
    col: int
    text: str
    row_span: int = 1
    col_span: int = 1
    is_header: bool = False


@dataclass(frozen=True, slots=True)
class Region:
    """A layout region with its draft text; `order` is its place in reading order."""

    bbox: BBox
    kind: RegionKind
    order: int
    text: str
    cells: tuple[TableCell, ...] = ()  # table regions: cells when the source found them
    level: int = 0  # title regions: heading level (1 = top), 0 = unknown
    source: str = ""  # which draft source produced the text ("text_layer", "rapidocr", ...)


@dataclass(frozen=True, slots=True)
class PreparedPage:
    """A rendered page with its drafts, ready for the model."""

    page: PageImage
    regions: tuple[Region, ...] = ()
    draft_source: str = ""  # the source that made the drafts ("" when none were made)
    t_render: float = 0.0
    t_draft: float = 0.0  # text layer, layout, tables, OCR: every cost of making drafts
    draft_error: str = ""  # the draft pipeline crashed: the page goes on without drafts


@dataclass(frozen=True, slots=True)
class Block:
    """One block of a converted page, in reading order: a layout region and its final text."""

    kind: str  # a RegionKind value
    bbox: BBox  # page-image pixels; the whole page for text no region claims
    order: int  # reading order on the page
    text: str  # final text: the verified output attributed to the region, or its draft
    source: str = "model"  # "draft" (unverified drafts), "verified" (model output), "model" (no region)
    tokens: int = 0  # output tokens attributed to the block
    from_draft: int = 0  # of those, tokens accepted from this region's drafts
    html: str | None = None  # tables: the table as HTML, whatever markup the text used
    caption: str = ""  # figures: the adjacent caption's text, when the layout found one
    image: str = ""  # figures with --images: the crop's path relative to the document's Markdown


@dataclass(slots=True)
class StageReport:
    """Decode statistics of one stage (or of a whole page for page/ar methods)."""

    steps: int = 0  # target forward passes (a batched forward counts once)
    tokens: int = 0
    accepted: int = 0
    accepted_hist: list[int] = field(default_factory=list)
    t_prefill: float = 0.0
    t_decode: float = 0.0
    regions: int = 0
    drafted: int = 0  # draft tokens (tree nodes below the root) sent to the target, all steps

    @property
    def aal(self) -> float:
        return aal(self.accepted, len(self.accepted_hist))


@dataclass(slots=True)
class PageResult:
    """Everything known about one converted page; the JSON page report is its dump."""

    source: str  # input path as given
    page: int  # 1-based page number
    status: PageStatus
    markdown: str = ""
    method: str = ""
    draft_source: str = ""
    tau: float = 1.0
    window: int = 3
    tokens: int = 0
    steps: int = 0  # target forward passes in the decode loop (prefill excluded)
    aal: float = 0.0
    accepted_hist: list[int] = field(default_factory=list)  # accepted draft tokens per step
    t_render: float = 0.0
    t_draft: float = 0.0
    t_prefill: float = 0.0
    t_decode: float = 0.0
    t_total: float = 0.0
    stage1: StageReport | None = None
    stage2: StageReport | None = None
    sr_decode: float | None = None
    sr_e2e: float | None = None
    identical_to_ar: bool | None = None
    first_divergence: int | None = None  # token index where spec and AR first differ
    # --on-loop draft: the output looped, and its tail after the loop's first period is the page's
    # unverified draft (status stays truncated: the model did not finish the page by itself)
    loop_repaired: bool = False
    error: str = ""
    draft_error: str = ""  # the draft pipeline crashed on this page; it was converted without drafts
    fault: str = ""  # a failure on the way that the page got around (e.g. Stage 1 out of memory)
    width: int = 0  # page image size in pixels, rendered at `dpi` (0: unknown, a failed page)
    height: int = 0
    dpi: int = 0
    # Share of output tokens accepted from drafts, per region kind; "model" for the rest (the
    # model's own tokens). Empty for the draft method (no model tokens).
    coverage: dict[str, float] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)  # reading order, figures included


@dataclass(frozen=True, slots=True)
class PageDecode:
    """What one method decoded for a page (the verify stage's record before its PageResult)."""

    tokens: list[int]
    truncated: bool
    stage1: StageReport | None  # hsd: the region crops
    page: StageReport  # the page-level decode: hsd's Stage 2, or the only stage of page / ar
    loop_repaired: bool = False  # the output looped; its tail is the draft's rest (--on-loop draft)
    markdown: str | None = None  # element-level targets: the page assembled from its elements
    fault: str = ""  # what went wrong on the way and how the page got around it
    origins: list[Origin] = field(default_factory=list)  # per token: (draft, position) or MODEL
    draft_map: DraftMap | None = None  # which region each draft position belongs to
