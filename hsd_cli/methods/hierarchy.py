"""Page methods on a target: AR, page-level spec decoding, and two-stage HSD.

Stage 1 verifies every region crop against its region draft, all rows in one batched forward
per step; Stage 2 verifies the whole page with the Stage-1 outputs as an unordered draft set.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from PIL import Image, ImageOps

from hsd_cli.config import RunConfig, SpecConfig
from hsd_cli.datatypes import PageImage, Region, RegionKind, StageReport
from hsd_cli.methods.provenance import DraftMap, one_per_draft, page_draft
from hsd_cli.spec.align import MODEL, Origin
from hsd_cli.spec.decode import DecodeOptions, RowResult, ar_decode, spec_decode
from hsd_cli.spec.loop import repair_loop
from hsd_cli.spec.stop import StopReason, StopRule
from hsd_cli.targets.runtime.base import VisionTarget
from hsd_cli.targets.runtime.costs import sync
from hsd_cli.targets.runtime.memory import is_oom, release

CROP_MARGIN = 8  # pixels around a region crop: glyphs often touch the detected box
MIN_CROP_SIDE = 32  # processors reject tiny or extremely thin images
MAX_ASPECT = 20.0
SKIP_KINDS = {RegionKind.FIGURE}
TEXT_LAYER = "text_layer"  # regions drafted from the PDF's own text: exact, Stage 1 adds nothing
STAGE1_SLACK, STAGE1_EXTRA = 1.5, 16  # a region's Stage-1 budget: 1.5 x its draft + 16 tokens
GIVE_UP_STEPS, GIVE_UP_AAL = 4, 1.0  # cut a row whose drafts give < 1 token per step after 4 steps
FURNITURE = {RegionKind.HEADER, RegionKind.FOOTER}


@dataclass(slots=True)
class PageDecode:
    """What one method produced for a page."""

    tokens: list[int]
    truncated: bool
    stage1: StageReport | None  # hsd: the region crops
    page: StageReport  # the page-level decode: hsd's Stage 2, or the only stage of page / ar
    loop_repaired: bool = False  # the output looped; its tail is the draft's rest (--on-loop draft)
    markdown: str | None = None  # element-level targets: the page assembled from its elements
    fault: str = ""  # what went wrong on the way and how the page got around it
    origins: list[Origin] = field(default_factory=list)  # per token: (draft, position) or MODEL
    draft_map: DraftMap | None = None  # which region each draft position belongs to


class CropOutOfMemory(RuntimeError):
    """A single region crop did not fit in memory (even a batch of one)."""

    def __init__(self) -> None:
        super().__init__("out of memory on a single region crop")


STAGE1_OOM = "Stage 1 ran out of memory even one region at a time; verified the page with the page method"


def decode_rows(
    target: VisionTarget, images: list[Image.Image], prompt: str, drafts: list[list[list[int]]] | None,
    spec: SpecConfig, starts: bool = False, give_up=None,
) -> tuple[list[RowResult], StageReport]:
    """Prefill a batch and decode it (AR when `drafts` is None); time both parts (device-synced)."""
    rule = StopRule(target.eos_ids, spec.max_new_tokens, spec.repeat_guard)
    sync(target.device)
    t0 = time.perf_counter()
    session, first = target.prefill(images, prompt)
    sync(target.device)
    t1 = time.perf_counter()
    opts = DecodeOptions(
        starts, target.boundary_ids, target.cost if spec.cost_aware and drafts is not None else None,
        target.repetition_penalty, session.prompt_ids, give_up,
    )  # fmt: skip
    rows = ar_decode(session, first, rule, opts) if drafts is None else spec_decode(session, first, drafts, spec, rule, opts)
    sync(target.device)
    report = StageReport(
        steps=session.forward_calls, tokens=sum(len(r.tokens) for r in rows),
        accepted=sum(r.stats.accepted for r in rows), t_prefill=t1 - t0,
        t_decode=time.perf_counter() - t1, regions=len(rows),
        accepted_hist=[a for r in rows for a in r.stats.accepted_hist], drafted=sum(r.stats.drafted for r in rows),
    )
    return rows, report


def run_ar(target: VisionTarget, page: PageImage, spec: SpecConfig) -> PageDecode:
    (row,), report = decode_rows(target, [page.image], target.spec.page_prompt, None, spec)
    return PageDecode(row.tokens, _truncated(row, target), None, report, origins=row.origins)


def run_page(
    target: VisionTarget, page: PageImage, drafts: list[list[int]], spec: SpecConfig, dmap: DraftMap | None = None
) -> PageDecode:
    """Page-level spec decoding; `dmap` says which region each draft position came from."""
    (row,), report = decode_rows(target, [page.image], target.spec.page_prompt, [drafts], spec)
    tokens, origins, repaired = _on_loop(row, drafts, spec, ordered=False)
    return PageDecode(tokens, _truncated(row, target), None, report, repaired, origins=origins, draft_map=dmap)


def run_hsd(
    target: VisionTarget, page: PageImage, regions: list[Region], region_drafts: list[list[list[int]]],
    cfg: RunConfig,
) -> PageDecode:
    """Stage 1 over region crops (batched), then Stage 2 over the page with their outputs.

    Out of memory in Stage 1, a batch is retried in halves; when one region alone does not fit,
    the page falls back to the `page` method (same output at tau = 1, the report says so).
    """
    try:
        by_region, stage1 = stage1_outputs(target, page, regions, region_drafts, cfg)
    except CropOutOfMemory:
        draft, dmap = page_draft(regions, target.spec.style, target.encode)
        return replace(run_page(target, page, [draft], cfg.spec, dmap), fault=STAGE1_OOM)
    outputs = [d for i in sorted(by_region) for d in by_region[i]]
    dmap = one_per_draft([i for i in sorted(by_region) for _ in by_region[i]])
    (row,), stage2 = decode_rows(
        target, [page.image], target.spec.page_prompt, [outputs], cfg.spec, starts=cfg.spec.region_starts
    )
    # Stage-1 outputs are the page's regions in reading order: the page's draft, one sequence.
    tokens, origins, repaired = _on_loop(row, outputs, cfg.spec, ordered=True, sep=target.encode("\n\n"))
    return PageDecode(tokens, _truncated(row, target), stage1, stage2, repaired, origins=origins, draft_map=dmap)


def run_stage1(
    target: VisionTarget, page: PageImage, regions: list[Region], region_drafts: list[list[list[int]]],
    cfg: RunConfig,
) -> tuple[list[list[int]], StageReport]:
    """Stage-2 drafts from every region: its verified crop output, or its own drafts.

    Stage 1 only makes drafts, so at tau = 1 it may stop anywhere without changing the page's
    output. Its cost is bounded: a row's budget is `stage1_budget(draft)` tokens, so Stage 1 takes
    at most max over rows of that many forward passes per batch; a row whose acceptance collapses
    (AAL < GIVE_UP_AAL after GIVE_UP_STEPS steps) is cut, and regions drafted from a trusted
    text layer skip it: both pass their own drafts on.
    """
    outputs, total = stage1_outputs(target, page, regions, region_drafts, cfg)
    return [d for i in sorted(outputs) for d in outputs[i]], total


def stage1_outputs(
    target: VisionTarget, page: PageImage, regions: list[Region], region_drafts: list[list[list[int]]],
    cfg: RunConfig,
) -> tuple[dict[int, list[list[int]]], StageReport]:
    """run_stage1's drafts keyed by region index (the Stage-2 drafts' provenance)."""
    own = {i for i, r in enumerate(regions) if verifiable(r, target) and r.source == TEXT_LAYER}
    chosen = [i for i, r in enumerate(regions) if verifiable(r, target) and i not in own]
    outputs: dict[int, list[list[int]]] = {i: region_drafts[i][:1] for i in own}
    rows, total = _decode_crops(target, page, regions, region_drafts, chosen, cfg, final=False)
    for i, row in rows.items():
        outputs[i] = _stage1_drafts(row, region_drafts[i], cfg.spec, target)
    return outputs, total


def run_elements(
    target: VisionTarget, page: PageImage, regions: list[Region], region_drafts: list[list[list[int]]] | None,
    cfg: RunConfig,
) -> PageDecode:
    """Element-level parsers (PaddleOCR-VL, GLM-OCR), used as their official pipelines use them:
    each layout element's crop with its kind's prompt, AR (`region_drafts` None) or verified
    against its drafts to the end (no budget, no cut: these outputs are the page), then the
    elements' Markdown in reading order."""
    chosen = [i for i, r in enumerate(regions) if verifiable(r, target)]
    rows, report = _decode_crops(target, page, regions, region_drafts, chosen, cfg, final=True)
    out = PageDecode([], False, None, report, draft_map=one_per_draft([]))
    owners, blocks = [], []
    for i in sorted(rows):
        drafts = region_drafts[i] if region_drafts else []
        own, origins, fixed = _on_loop(rows[i], drafts, cfg.spec, ordered=False)
        keep = [k for k, t in enumerate(own) if t not in target.eos_ids]
        out.tokens += [own[k] for k in keep]
        # Element i's drafts follow the earlier elements' in one page-wide draft numbering.
        at = [origins[k] if k < len(origins) else MODEL for k in keep]
        out.origins += [MODEL if o == MODEL else (o[0] + len(owners), o[1]) for o in at]
        owners += [i] * len(drafts)
        out.truncated |= _truncated(rows[i], target)
        out.loop_repaired |= fixed
        body = target.decode([own[k] for k in keep])
        blocks.append(target.element_markdown(regions[i].kind.value, body, regions[i].level or 1))
    out.draft_map, out.markdown = one_per_draft(owners), "\n".join(blocks)
    return out


def _decode_crops(
    target: VisionTarget, page: PageImage, regions: list[Region], region_drafts: list[list[list[int]]] | None,
    chosen: list[int], cfg: RunConfig, final: bool,
) -> tuple[dict[int, RowResult], StageReport]:
    """Regions `chosen` decoded from their crops, grouped by their kind's prompt, `stage1_batch` per forward."""
    by_prompt: dict[str, list[int]] = {}
    for i in chosen:
        by_prompt.setdefault(target.spec.prompt_for(regions[i].kind.value), []).append(i)
    rows: dict[int, RowResult] = {}
    total = StageReport()
    for prompt, group in by_prompt.items():
        batch = _CropBatch(target, page, regions, region_drafts, prompt, cfg, final)
        for start in range(0, len(group), cfg.spec.stage1_batch):
            total = _add(total, batch.decode(group[start : start + cfg.spec.stage1_batch], rows))
    return rows, total


@dataclass(slots=True)
class _CropBatch:
    """Region crops of one prompt, decoded in batches that halve when out of memory.

    Stage 1 (`final` False) bounds each batch by its drafts' budget and cuts useless rows;
    element-level outputs (`final` True) are the page's, so they run to the end."""

    target: VisionTarget
    page: PageImage
    regions: list[Region]
    region_drafts: list[list[list[int]]] | None  # None: AR
    prompt: str
    cfg: RunConfig
    final: bool

    def decode(self, chunk: list[int], rows: dict[int, RowResult]) -> StageReport:
        """Decode regions `chunk` into `rows`; CropOutOfMemory when a single crop does not fit."""
        drafts = None if self.region_drafts is None else [self.region_drafts[i] for i in chunk]
        spec, give_up = self.cfg.spec, None
        if not self.final:
            spec = replace(spec, max_new_tokens=min(spec.max_new_tokens, max(map(stage1_budget, drafts))))
            give_up = _gives_up
        crops = [crop_region(self.page.image, self.regions[i].bbox) for i in chunk]
        try:
            results, report = decode_rows(self.target, crops, self.prompt, drafts, spec, give_up=give_up)
        except Exception as e:
            if not is_oom(e):
                raise
            results = None  # retried below, once this frame's tensors are gone
        if results is None:
            release()
            if len(chunk) == 1:
                raise CropOutOfMemory
            half = len(chunk) // 2
            return _add(self.decode(chunk[:half], rows), self.decode(chunk[half:], rows))
        rows.update(zip(chunk, results))
        return report


def stage1_budget(drafts: list[list[int]]) -> int:
    """Most tokens Stage 1 spends on a region: its longest draft, with room for the model's edits."""
    return int(STAGE1_SLACK * max((len(d) for d in drafts), default=0)) + STAGE1_EXTRA


def _gives_up(stats, tokens: int) -> bool:
    return stats.steps >= GIVE_UP_STEPS and stats.aal < GIVE_UP_AAL


def _stage1_drafts(row: RowResult, drafts: list[list[int]], spec: SpecConfig, target: VisionTarget) -> list[list[int]]:
    """What a Stage-1 row hands to Stage 2: its output when it finished, else its own drafts."""
    if row.stop is StopReason.CUT:
        return drafts[:1]
    tokens, _, _ = _on_loop(row, drafts, spec, ordered=False)  # only drafts change
    return [[t for t in tokens if t not in target.eos_ids]]


def crop_region(image: Image.Image, bbox: tuple[float, float, float, float]) -> Image.Image:
    """The region with a margin, padded white to a size and aspect ratio processors accept."""
    x0, y0, x1, y1 = bbox
    box = (
        max(0, int(x0) - CROP_MARGIN), max(0, int(y0) - CROP_MARGIN),
        min(image.width, int(x1) + CROP_MARGIN), min(image.height, int(y1) + CROP_MARGIN),
    )
    crop = image.crop(box)
    w = max(crop.width, MIN_CROP_SIDE, int(crop.height / MAX_ASPECT) + 1)
    h = max(crop.height, MIN_CROP_SIDE, int(crop.width / MAX_ASPECT) + 1)
    if (w, h) != crop.size:
        crop = ImageOps.pad(crop, (w, h), color="white", centering=(0, 0.5))
    return crop


def verifiable(region: Region, target: VisionTarget) -> bool:
    if region.kind in SKIP_KINDS:
        return False
    return not (target.spec.style.drop_furniture and region.kind in FURNITURE)


def _on_loop(
    row: RowResult, drafts: list[list[int]], spec: SpecConfig, ordered: bool, sep: list[int] | None = None
) -> tuple[list[int], list[Origin], bool]:  # fmt: skip
    """The row's tokens and origins; with on_loop="draft" a looping row's tail is its drafts' rest
    (spec/loop.py), credited to the drafts it was copied from."""
    if spec.on_loop != "draft" or row.stop is not StopReason.REPEAT:
        return row.tokens, row.origins, False
    fixed = repair_loop(row.tokens, drafts, spec.repeat_guard, ordered=ordered, sep=sep or ())
    if fixed is None:
        return row.tokens, row.origins, False
    origins = row.origins[: fixed.loop.keep]
    if (a := fixed.anchor) is not None:
        origins += [(a.draft, j) for j in range(a.pos, len(drafts[a.draft]))]
        for d in range(a.draft + 1, len(drafts)) if ordered else ():
            if drafts[d]:
                origins += [MODEL] * len(sep or ()) + [(d, j) for j in range(len(drafts[d]))]
    return fixed.tokens, origins, True


def _truncated(row: RowResult, target: VisionTarget) -> bool:
    return not row.tokens or row.tokens[-1] not in target.eos_ids


def _add(a: StageReport, b: StageReport) -> StageReport:
    return replace(
        a, steps=a.steps + b.steps, tokens=a.tokens + b.tokens, accepted=a.accepted + b.accepted,
        accepted_hist=a.accepted_hist + b.accepted_hist, t_prefill=a.t_prefill + b.t_prefill,
        t_decode=a.t_decode + b.t_decode, regions=a.regions + b.regions, drafted=a.drafted + b.drafted,
    )
