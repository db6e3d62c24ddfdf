"""`--method hsd`: two-stage hierarchical speculative decoding.

Stage 1 verifies region crops against their region drafts, the rows of a prompt in one batched
forward per step; Stage 2 verifies the whole page against the Stage-1 outputs in reading order
and, beside them, the page draft (so it never has a worse draft set than `page`). Stage 1 only
makes drafts, so at tau = 1 it may stop anywhere without changing the page's output.

Stage 1 pays only by parallelism: a region's crop accepts about what the page draft gives the
same region in Stage 2, so a batched step saves about one Stage-2 step per running row. It
therefore verifies the regions whose drafts may be wrong (not a text layer's, save its tables and
formulas, whose markup is a guess), in batches of similar length, only batches whose rows outnumber
a batched step's price plus its crops' prefill (measured on the device: a processor may upscale a
crop to a page's size), on a device whose batched step costs at most PARALLEL_RATIO AR steps, and
stops a batch once its running rows no longer pay (spec/stats.BatchStop), and Stage 1 once its
measured seconds exceed what its row steps save (`overspent`). Where pages share forward passes
(`--batch-pages`), a Stage-2 step saved is worth one row's share of a step the other pages take
anyway, and a Stage-1 step costs what its rows add to theirs (`_shared`, `_step_price`).
A batch takes at most `stage1_budget` forward passes; a row stops where the page's own token
budget would run out (`tokens_left`), since Stage 2 never reaches the rest. Out of memory on a
single crop, the page is verified with the page method (same output at tau = 1).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import DraftMap, PageDecode, PreparedPage, Region, RegionKind, StageReport
from hsd_cli.drafts.auto import source_class
from hsd_cli.methods.base import PageDrafts, PageWork, RowsRequest, join, truncated
from hsd_cli.methods.cost import run_cost
from hsd_cli.methods.crops import (
    CROP_MARGIN,
    CropOutOfMemory,
    crop_chunks,
    crop_request,
    region_drafts,
    verifiable,
)
from hsd_cli.methods.loop_repair import loop_repair
from hsd_cli.methods.page import Page
from hsd_cli.report.provenance import one_per_draft, page_draft
from hsd_cli.spec.align import TokenDrafts
from hsd_cli.spec.decode import RowResult
from hsd_cli.spec.stats import BatchStop
from hsd_cli.spec.stop import StopReason
from hsd_cli.targets.runtime.base import VisionTarget

STAGE1_SLACK, STAGE1_EXTRA = 1.5, 16  # a region's Stage-1 budget: 1.5 x its draft + 16 tokens
MIN_DRAFT = 4  # tokens: a shorter region gains nothing from a row of its own
MARKUP_KINDS = {RegionKind.TABLE, RegionKind.EQUATION}  # text-layer characters, guessed markup
SAVING = 0.75  # Stage-2 steps a running row's Stage-1 step saves (crops read a little differently)
ROW_TREE = 8  # tree tokens per row in a typical Stage-1 step (prices a batched step)
TOKENS_PER_STEP = 2.0  # a Stage-1 row's expected tokens per step (AAL ~1) before any is measured
PIXELS_PER_TOKEN = 28 * 28  # a merged vision token's pixels (Qwen-style 14-px patches, 2 x 2 merge)
PROMPT_TOKENS = 32  # chat template and region prompt around each crop
# A crop's vision token also passes the vision tower (about 4 patches per merged token): for the
# OCR families (HunyuanOCR: a 0.4B ViT beside a 1B LM; Qwen2.5-VL-3B: 0.67B beside 3B) it costs
# about 1.5-2.5 text tokens more. Without it a CPU took a 16-crop Stage 1 at 7x the page's time.
VISION_FACTOR = 2.5
# A Stage-1 batch runs only where its batched step costs at most this many AR steps (the rule auto
# used before Stage 1 was priced; a flat cost model always passes it): on a CPU a batched step of a full-size
# model over rows with long caches cost 2.4 page steps, and its rows saved 0.45 Stage-2 steps per
# batched step (eastmoney, 384 tokens), far below what SAVING assumes; a GPU's step is ~flat.
PARALLEL_RATIO = 2.0
STAGE1_OOM = "Stage 1 ran out of memory even one region at a time; verified the page with the page method"


@dataclass(frozen=True)
class HSD:
    """hsd on one page; `auto` hands it the Stage-1 plan and region drafts it already made."""

    plan: tuple[tuple[str, list[int]], ...] | None = None  # None: planned when the job starts
    regions_drafts: TokenDrafts | None = None  # per region its drafts, as `plan` saw them

    name: ClassVar[str] = "hsd"
    uses_drafts: ClassVar[bool] = True
    prices_crops: ClassVar[bool] = True

    def for_page(self, prepared: PreparedPage, target: VisionTarget, spec: SpecConfig, batch: int = 1) -> HSD:
        if batch == 1 or self.plan is not None:
            return self
        regions = list(prepared.regions)
        drafts = region_drafts(target, regions)
        return HSD(tuple(stage1_plan(target, regions, drafts, spec, batch)), drafts)

    def drafts(self, target: VisionTarget, regions: list[Region]) -> PageDrafts:
        """Per region its drafts, then the page draft as the last row."""
        draft, dmap = page_draft(regions, target.family.style, target.encode)
        per_region = self.regions_drafts if self.regions_drafts is not None else region_drafts(target, regions)
        return PageDrafts([*per_region, [draft]], dmap)

    def start(self, work: PageWork):
        """Stage 1's requests (one per paying batch of region crops), then Stage 2's one row."""
        t, spec = work.target, work.spec
        page_drafts = PageDrafts([work.drafts.drafts[-1]], work.drafts.draft_map)
        plan = self.plan if self.plan is not None else stage1_plan(t, work.regions, work.drafts.drafts[:-1], spec)
        if not plan:  # nothing pays: Stage 2 alone is the page method
            return (yield from Page().start(replace(work, drafts=page_drafts)))
        try:
            by_region, stage1_report = yield from stage1(work, plan)
        except CropOutOfMemory:
            out = yield from Page().start(replace(work, drafts=page_drafts))
            return replace(out, fault=STAGE1_OOM)
        owners = [i for i in sorted(by_region) if by_region[i]]
        outputs = [by_region[i] for i in owners]
        drafts = [*outputs, *page_drafts.drafts[0]]
        done = yield RowsRequest((work.page.image,), t.family.page_prompt, (drafts,), spec, starts=spec.region_starts)
        (row,) = done.rows
        # Stage-1 outputs are the page's regions in reading order: one sequence (the page draft follows them).
        tokens, origins, repaired = loop_repair(row, outputs, spec, ordered=True, sep=t.encode("\n\n"))
        dmap = _joined(one_per_draft(owners), page_drafts.draft_map)
        return PageDecode(
            tokens, truncated(row, t.eos_ids), stage1_report, done.report, repaired, origins=origins, draft_map=dmap
        )


def stage1_plan(
    target: VisionTarget, regions: list[Region], drafts: TokenDrafts, spec: SpecConfig, batch: int = 1
) -> list[tuple[str, list[int]]]:
    """The Stage-1 batches worth running: (prompt, region indices), longest drafts first; `batch`
    pages share the run's forward passes."""
    left = tokens_left(drafts, spec.max_new_tokens)
    chosen = [i for i, n in enumerate(left) if n > 0 and _worth_a_row(regions[i], drafts[i], target)]
    length = [min(_longest(d), n) for d, n in zip(drafts, left, strict=True)]
    chosen.sort(key=lambda i: -length[i])  # a batch runs as long as its longest row
    cost, stop, prefill = run_cost(target, spec), batch_stop(target, spec), crop_prefill(target, spec)
    saving = stop.saving * _shared(cost, batch)
    plan = []
    for prompt, chunk in crop_chunks(target, regions, chosen, spec.stage1_batch):
        if cost.step(len(chunk), ROW_TREE) / cost.step(1, 1) > PARALLEL_RATIO:
            continue  # a batched step costs several AR steps: Stage 1 is a second decode (a CPU)
        steps = sum(length[i] for i in chunk) / len(chunk) / TOKENS_PER_STEP
        price = _step_price(cost, stop, len(chunk), batch)
        if saving * len(chunk) * steps > prefill([regions[i] for i in chunk]) + steps * price:
            plan.append((prompt, chunk))
    return plan


def _shared(cost, batch: int) -> float:
    """What a Stage-2 step saved for one page is worth when `batch` pages share each step, relative
    to a step of its own: the other pages' rows step anyway, so it saves one row's share of the step."""
    # The crops' prefill and Stage-1 steps still take their full time, and every page of the batch
    # waits for them: on a CPU (cost growing with the step's tokens) this halves the saving at 4 pages.
    return cost.step(batch, ROW_TREE) / (batch * cost.step(1, ROW_TREE))


def _step_price(cost, stop: BatchStop, rows: int, batch: int) -> float:
    """A Stage-1 step's price in page steps: alone, or what its rows add to a step of the other pages."""
    if batch == 1:
        return stop.price(rows)
    others = batch - 1
    return (cost.step(others + rows, ROW_TREE) - cost.step(others, ROW_TREE)) / cost.step(1, ROW_TREE)


def crop_prefill(target: VisionTarget, spec: SpecConfig):
    """A batch of region crops' prefill, in page steps (forwards of ROW_TREE tokens)."""
    cost = run_cost(target, spec)
    if spec.cost_model == "flat":  # a GPU-like device: the crops' tokens in one forward
        return lambda crops: cost(sum(_crop_tokens(r, target) for r in crops)) / cost(ROW_TREE)
    # Measured on this device per image: the processor's resize and the vision tower are in it.
    return lambda crops: sum(target.prefill_cost(_crop_pixels(r, target)) for r in crops) / cost(ROW_TREE)


def batch_stop(target: VisionTarget, spec: SpecConfig) -> BatchStop:
    """The rule that ends a Stage-1 batch, priced by the run's cost model."""
    cost = run_cost(target, spec)
    one = cost.step(1, ROW_TREE)
    return BatchStop(tuple(cost.step(n, ROW_TREE) / one for n in range(1, spec.stage1_batch + 1)), SAVING)


def stage1(work: PageWork, plan: list[tuple[str, list[int]]]):
    """Stage 1's requests; returns each verified region's Stage-2 draft (maybe empty) and the report."""
    t, regions, drafts = work.target, work.regions, work.drafts.drafts
    outputs: dict[int, list[int]] = {}
    total, stop = StageReport(), batch_stop(t, work.spec)
    left = tokens_left(drafts[: len(regions)], work.spec.max_new_tokens)
    for prompt, chunk in plan:
        if overspent(total, work.spec, run_cost(t, work.spec)):
            break  # lossless: the regions left keep their drafts, the page draft stays in Stage 2
        rows = [drafts[i] for i in chunk]
        limits = tuple(min(stage1_budget(drafts[i]), _slack(left[i])) for i in chunk)
        spec = replace(work.spec, max_new_tokens=min(work.spec.max_new_tokens, max(limits)))
        done = yield crop_request(work.page.image, regions, chunk, prompt, rows, spec, stop, limits)
        total = join(total, done.report)
        for i, row in zip(chunk, done.rows, strict=True):
            outputs[i] = _stage2_draft(row, drafts[i], work.spec, t)
    return outputs, total


def overspent(report: StageReport, spec: SpecConfig, cost) -> bool:
    """Stage 1 so far took more seconds than its row steps can save in Stage 2 (measured regime:
    the flat regime's costs are not seconds). The plan's prices are estimates; this is the bill."""
    if spec.cost_model == "flat" or not report.accepted_hist:
        return False
    saved = SAVING * len(report.accepted_hist) * cost(ROW_TREE)  # a row step saves SAVING page steps
    return report.t_prefill + report.t_decode > saved


def stage1_budget(drafts: list[list[int]]) -> int:
    """Most tokens Stage 1 spends on a region: its longest draft, with slack for the model's edits."""
    return _slack(_longest(drafts))


def _slack(tokens: int) -> int:
    """A length in draft tokens, with slack for the model's edits (and for drafts of what it leaves out)."""
    return int(STAGE1_SLACK * tokens) + STAGE1_EXTRA


def tokens_left(drafts: TokenDrafts, budget: int) -> list[int]:
    """Per region (in reading order), the page's tokens left where it starts: the page never
    reaches a region with none left, nor the part of one past what is left, so Stage-1 output
    there would go unused."""
    out, at = [], 0
    for d in drafts:
        out.append(max(0, budget - at))
        at += _longest(d)
    return out


def _worth_a_row(region: Region, drafts: list[list[int]], target: VisionTarget) -> bool:
    if not verifiable(region, target) or _longest(drafts) < MIN_DRAFT:
        return False
    return not _exact(region.source) or region.kind in MARKUP_KINDS


def _exact(draft_source: str) -> bool:
    """The region's draft is the document's own characters (drafts/base.DraftSource.exact)."""
    source = source_class(draft_source)
    return source is not None and source.exact


def _crop_pixels(region: Region, target: VisionTarget) -> float:
    """A region crop's pixels as the target gets them (margin added, capped by max_pixels)."""
    x0, y0, x1, y1 = region.bbox
    pixels = (x1 - x0 + 2 * CROP_MARGIN) * (y1 - y0 + 2 * CROP_MARGIN)
    return min(pixels, target.family.max_pixels or pixels)


def _crop_tokens(region: Region, target: VisionTarget) -> float:
    """About the text tokens a region crop's prefill costs as (vision tokens weighted, prompt):
    the flat regime's estimate (the measured regime times a prefill instead)."""
    return VISION_FACTOR * _crop_pixels(region, target) / PIXELS_PER_TOKEN + PROMPT_TOKENS


def _longest(drafts: list[list[int]]) -> int:
    return max((len(d) for d in drafts), default=0)


def _stage2_draft(row: RowResult, drafts: list[list[int]], spec: SpecConfig, target: VisionTarget) -> list[int]:
    """What a Stage-1 row hands to Stage 2: its output, or the exact prefix it reached when cut."""
    tokens = row.tokens
    if row.stop is not StopReason.CUT:
        tokens, _, _ = loop_repair(row, drafts, spec, ordered=False)  # only drafts change
    return [t for t in tokens if t not in target.eos_ids]


def _joined(a: DraftMap, b: DraftMap | None) -> DraftMap:
    """Two drafts' maps as one, `b`'s drafts numbered after `a`'s."""
    return a if b is None else DraftMap(a.starts + b.starts, a.regions + b.regions)
