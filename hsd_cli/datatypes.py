"""Records that cross module boundaries."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Protocol

from PIL import Image

from hsd_cli import metrics

BBox = tuple[float, float, float, float]  # x0, y0, x1, y1 in page-image pixels
# Where an output token came from: (draft index, token position in that draft); spec/align.Origin
Origin = tuple[int, int]
MODEL_REGION = -1  # a token no region's draft gave: the model's own
TABLE_STYLES = ("html", "markdown", "otsl", "gfm")


class PageStatus(str, Enum):
    OK = "ok"
    TRUNCATED = "truncated"  # the output hit the token budget or looped
    DEGRADED = "degraded"  # converted, but part of the input could not be read (PageResult.error says what)
    FAILED = "failed"


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
    score: float = 1.0  # recognition confidence (OCR lines); a text layer's own text is exact


@dataclass(frozen=True, slots=True)
class PageImage:
    """One rendered page (or image file) ready for drafting and the target."""

    source: Path
    index: int  # 0-based page index in the source document
    image: Image.Image
    dpi: int
    text_spans: tuple[TextSpan, ...] = ()  # empty when the page has no text layer
    layout: tuple[Region, ...] = ()  # the PDF's own layout analysis: text-less regions, tables with cells
    unread: str = ""  # what of that analysis failed (formulas, figures): the drafts do without it

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
    confidence: float = 1.0  # the draft's recognition confidence, its lines' mean weighted by length


@dataclass(frozen=True, slots=True)
class DraftStyle:
    """How a target writes each kind of region: a target declares it, drafts/markup.py writes drafts in it."""

    # "html" | "markdown" | "otsl" (PaddleOCR-VL's table tokens) | "gfm": pipe tables, and HTML
    # with <th> heading rows where a pipe table's one heading row would flatten a taller heading
    table: str = "markdown"
    heading: str = "hash"  # "hash" (# Title) | "plain"
    formula: str = "dollars"  # "dollars" ($$..$$) | "brackets" (\[..\])
    figure: str = ""  # placeholder written for a figure; "" leaves figures out
    drop_furniture: bool = True  # leave out running headers, footers and page numbers

    def __post_init__(self) -> None:
        if self.table not in TABLE_STYLES:
            raise ValueError(f"table must be one of {TABLE_STYLES}, got {self.table!r}")
        if self.heading not in ("hash", "plain"):
            raise ValueError(f"heading must be 'hash' or 'plain', got {self.heading!r}")
        if self.formula not in ("dollars", "brackets"):
            raise ValueError(f"formula must be 'dollars' or 'brackets', got {self.formula!r}")


class LateDrafts(Protocol):
    """A page's drafts still being made while the page may already decode (pipeline/drafting.py)."""

    def poll(self) -> PreparedPage | None:
        """The page with its drafts once they are made; None until then."""
        ...

    def wait(self) -> PreparedPage:
        """The page with its drafts, waiting for them (a page that cannot start without them)."""
        ...

    def drop(self) -> None:
        """The page was decoded without them: they are no longer wanted."""
        ...


@dataclass(frozen=True, slots=True)
class PreparedPage:
    """A rendered page with its drafts, ready for the model (or, with `later`, drafts to come)."""

    page: PageImage
    regions: tuple[Region, ...] = ()
    draft_source: str = ""  # the source that made the drafts ("" when none were made)
    t_render: float = 0.0
    t_draft: float = 0.0  # text layer, layout, tables, OCR: every cost of making drafts
    draft_error: str = ""  # the draft pipeline crashed: the page goes on without drafts
    draft_note: str = ""  # what the drafts could not use: a text layer too garbled to read
    damage: str = ""  # what of the page could not be read (pages/damage.py): the page is degraded
    later: LateDrafts | None = None  # rendered only: its drafts are being made (no regions yet)


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


@dataclass(frozen=True, slots=True)
class StageReport:
    """Decode statistics of one stage (or of a whole page for page/ar methods)."""

    steps: int = 0  # target forward passes (a batched forward counts once)
    tokens: int = 0
    accepted: int = 0  # = sum(accepted_hist); kept as a field: the stage JSON carries it
    accepted_hist: list[int] = field(default_factory=list)  # per sequence-step (each row of a batch)
    t_prefill: float = 0.0
    t_decode: float = 0.0
    regions: int = 0
    drafted: int = 0  # draft tokens (tree nodes below the root) sent to the target, all steps
    matched: int = 0  # sequence-steps whose row had a draft candidate (its tree may have cut it)

    @property
    def aal(self) -> float:
        return metrics.aal(self.accepted, len(self.accepted_hist))


@dataclass(frozen=True, slots=True)
class PageResult(metrics.Ratios):
    """Everything known about one converted page; the JSON page report is its dump.

    Frozen: the AR baseline's numbers go in at construction (`dataclasses.replace`). The metrics
    (aal, sr_*: `metrics.Ratios`) are computed from the stored counts and times.
    """

    source: str  # input path as given
    page: int  # 1-based page number
    status: PageStatus
    markdown: str = ""
    method: str = ""
    draft_source: str = ""
    tau: float = 1.0
    window: int = 3
    tokens: int = 0
    steps: int = 0  # target forward passes in the decode loops (prefill excluded; a batch counts once)
    accepted_hist: list[int] = field(default_factory=list)  # accepted draft tokens per sequence-step
    t_render: float = 0.0
    t_draft: float = 0.0
    t_prefill: float = 0.0
    t_decode: float = 0.0  # the decode loops only (no drafting, no prefill)
    t_total: float = 0.0  # T_full: t_draft + t_prefill + t_decode (t_render apart)
    stage1: StageReport | None = None
    stage2: StageReport | None = None
    # The AR baseline's own counts and times on this page (None: no baseline ran)
    steps_ar: int | None = None
    t_decode_ar: float | None = None  # T_decode(AR): its decode loop
    t_total_ar: float | None = None  # T_full(AR): its prefill and decode loop
    identical_to_ar: bool | None = None
    first_divergence: int | None = None  # token index where spec and AR first differ
    # --on-loop draft: the output looped, and its tail after the loop's first period is the page's
    # unverified draft (status stays truncated: the model did not finish the page by itself)
    loop_repaired: bool = False
    error: str = ""  # why the page failed, or what of a degraded page could not be read
    draft_error: str = ""  # the draft pipeline crashed on this page; it was converted without drafts
    fault: str = ""  # a failure on the way that the page got around (e.g. Stage 1 out of memory)
    # The page had drafts but its trees were (nearly) the root alone: it ran as plain AR
    # (spec/stats.py, speculation_off); the note says why in one line
    speculation_off: bool = False
    speculation_note: str = ""
    width: int = 0  # page image size in pixels, rendered at `dpi` (0: unknown, a failed page)
    height: int = 0
    dpi: int = 0
    # Share of output tokens accepted from drafts, per region kind; "model" for the rest (the
    # model's own tokens). Empty for the draft method (no model tokens).
    coverage: dict[str, float] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)  # reading order, figures included

    @property
    def seq_steps(self) -> int:
        return len(self.accepted_hist)

    @property
    def accepted(self) -> int:
        return sum(self.accepted_hist)

    @property
    def has_baseline(self) -> bool:
        return self.t_decode_ar is not None

    @property
    def steps_spec(self) -> int:
        return self.steps

    @property
    def t_decode_spec(self) -> float:
        """T_decode of this page's method (drafts included)."""
        return metrics.decode_time(self.t_draft, self.t_decode)

    @property
    def t_total_spec(self) -> float:
        return self.t_total


@dataclass(frozen=True, slots=True)
class DraftMap:
    """Which layout region each draft position belongs to: per draft, the token offsets where its
    regions start, and those regions' indices (report/provenance.py builds and reads it)."""

    starts: tuple[tuple[int, ...], ...] = ()
    regions: tuple[tuple[int, ...], ...] = ()

    def region_of(self, origin: Origin) -> int:
        """The region the draft token at `origin` belongs to; MODEL_REGION for none."""
        d, pos = origin
        if not 0 <= d < len(self.starts):
            return MODEL_REGION
        i = bisect_right(self.starts[d], pos) - 1
        return self.regions[d][i] if i >= 0 else MODEL_REGION


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
    origins: list[Origin] = field(default_factory=list)  # per token: (draft, position) or spec/align.MODEL
    draft_map: DraftMap | None = None  # which region each draft position belongs to
