"""`--method hsd`: two-stage hierarchical speculative decoding.

Stage 1 verifies every region crop against its region drafts, all rows of a prompt in one
batched forward per step; Stage 2 verifies the whole page with the Stage-1 outputs as one
ordered draft set. Stage 1 only makes drafts, so at tau = 1 it may stop anywhere without changing
the page's output. Its cost is bounded: a row's budget is `stage1_budget(drafts)` tokens, so a
batch takes at most that many forward passes; a row whose acceptance collapses (GIVE_UP) is cut,
and regions drafted from a trusted text layer skip it: both pass their own drafts on. Out of
memory on a single crop, the page is verified with the page method (same output at tau = 1).
"""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PreparedPage, Region, StageReport
from hsd_cli.methods.base import PageDrafts, PageWork
from hsd_cli.methods.crops import (
    TEXT_LAYER,
    CropOutOfMemory,
    crop_chunks,
    crop_request,
    region_drafts,
    verifiable,
)
from hsd_cli.methods.loop_repair import loop_repair
from hsd_cli.methods.page import Page
from hsd_cli.methods.provenance import one_per_draft
from hsd_cli.methods.rows import RowsRequest, join, truncated
from hsd_cli.spec.decode import RowResult
from hsd_cli.spec.stats import GiveUp
from hsd_cli.spec.stop import StopReason
from hsd_cli.targets.runtime.base import VisionTarget

STAGE1_SLACK, STAGE1_EXTRA = 1.5, 16  # a region's Stage-1 budget: 1.5 x its draft + 16 tokens
GIVE_UP = GiveUp(steps=4, aal=1.0)  # cut a row whose drafts give < 1 token per step after 4 steps
STAGE1_OOM = "Stage 1 ran out of memory even one region at a time; verified the page with the page method"


class HSD:
    name = "hsd"
    uses_drafts = True

    def for_page(self, prepared: PreparedPage, target: VisionTarget, spec: SpecConfig) -> HSD:
        return self

    def drafts(self, target: VisionTarget, regions: list[Region]) -> PageDrafts:
        return PageDrafts(region_drafts(target, regions))

    def start(self, work: PageWork):
        """Stage 1's requests (one per prompt chunk of region crops), then Stage 2's one row."""
        t, spec = work.target, work.spec
        try:
            by_region, stage1_report = yield from stage1(work)
        except CropOutOfMemory:
            page = Page()
            out = yield from page.start(replace(work, drafts=page.drafts(t, work.regions)))
            return replace(out, fault=STAGE1_OOM)
        outputs = [d for i in sorted(by_region) for d in by_region[i]]
        dmap = one_per_draft([i for i in sorted(by_region) for _ in by_region[i]])
        done = yield RowsRequest((work.page.image,), t.spec.page_prompt, (outputs,), spec, starts=spec.region_starts)
        (row,) = done.rows
        # Stage-1 outputs are the page's regions in reading order: the page's draft, one sequence.
        tokens, origins, repaired = loop_repair(row, outputs, spec, ordered=True, sep=t.encode("\n\n"))
        return PageDecode(
            tokens, truncated(row, t.eos_ids), stage1_report, done.report, repaired, origins=origins, draft_map=dmap
        )


def stage1(work: PageWork):
    """Stage 1's requests; returns the Stage-2 drafts keyed by region index, and its report."""
    t, regions, drafts = work.target, work.regions, work.drafts.drafts
    own = {i for i, r in enumerate(regions) if verifiable(r, t) and r.source == TEXT_LAYER}
    chosen = [i for i, r in enumerate(regions) if verifiable(r, t) and i not in own]
    outputs: dict[int, list[list[int]]] = {i: drafts[i][:1] for i in own}
    total = StageReport()
    for prompt, chunk in crop_chunks(t, regions, chosen, work.spec.stage1_batch):
        rows = [drafts[i] for i in chunk]
        budget = min(work.spec.max_new_tokens, max(map(stage1_budget, rows)))
        spec = replace(work.spec, max_new_tokens=budget)
        done = yield crop_request(work.page.image, regions, chunk, prompt, rows, spec, GIVE_UP)
        total = join(total, done.report)
        for i, row in zip(chunk, done.rows, strict=False):
            outputs[i] = _stage2_drafts(row, drafts[i], work.spec, t)
    return outputs, total


def stage1_budget(drafts: list[list[int]]) -> int:
    """Most tokens Stage 1 spends on a region: its longest draft, with room for the model's edits."""
    return int(STAGE1_SLACK * max((len(d) for d in drafts), default=0)) + STAGE1_EXTRA


def _stage2_drafts(row: RowResult, drafts: list[list[int]], spec: SpecConfig, target: VisionTarget) -> list[list[int]]:
    """What a Stage-1 row hands to Stage 2: its output when it finished, else its own drafts."""
    if row.stop is StopReason.CUT:
        return drafts[:1]
    tokens, _, _ = loop_repair(row, drafts, spec, ordered=False)  # only drafts change
    return [[t for t in tokens if t not in target.eos_ids]]
