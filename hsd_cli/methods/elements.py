"""Element-level targets (PaddleOCR-VL, GLM-OCR), used as their official pipelines use them:
each layout element's crop with its kind's prompt, AR or verified against its drafts to the end
(no budget, no cut: these outputs are the page), then the elements' Markdown in reading order.
Any method on such a target, on a page with a layout, decodes this way."""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PreparedPage, Region, StageReport
from hsd_cli.methods.base import PageDrafts, PageWork, join, truncated
from hsd_cli.methods.crops import crop_chunks, crop_request, region_drafts, verifiable
from hsd_cli.methods.loop_repair import loop_repair
from hsd_cli.report.provenance import one_per_draft
from hsd_cli.spec.align import MODEL, TokenDrafts
from hsd_cli.spec.decode import RowResult
from hsd_cli.targets.runtime.base import VisionTarget


class Elements:
    """`name` is the method the page reports; `verify` False decodes each element AR."""

    prices_crops = False  # every element is decoded: no plan to price

    def __init__(self, name: str, verify: bool) -> None:
        self.name, self.verify = name, verify

    @property
    def uses_drafts(self) -> bool:
        return self.verify

    def for_page(self, prepared: PreparedPage, target: VisionTarget, spec: SpecConfig, batch: int = 1) -> Elements:
        return self

    def drafts(self, target: VisionTarget, regions: list[Region]) -> PageDrafts:
        return PageDrafts(region_drafts(target, regions) if self.verify else [])

    def start(self, work: PageWork):
        """One request per prompt chunk of element crops; returns the assembled page."""
        t, regions = work.target, work.regions
        drafts = work.drafts.drafts if self.verify else None
        chosen = [i for i, r in enumerate(regions) if verifiable(r, t)]
        rows: dict[int, RowResult] = {}
        report = StageReport()
        for prompt, chunk in crop_chunks(t, regions, chosen, work.spec.stage1_batch):
            rows_drafts = None if drafts is None else [drafts[i] for i in chunk]
            done = yield crop_request(work.page.image, regions, chunk, prompt, rows_drafts, work.spec)
            report = join(report, done.report)
            rows.update(zip(chunk, done.rows, strict=False))
        return _assemble(work, rows, drafts, report)


def _assemble(
    work: PageWork, rows: dict[int, RowResult], region_drafts: TokenDrafts | None, report: StageReport
) -> PageDecode:
    """The elements' tokens and Markdown in reading order; their drafts numbered page-wide."""
    t, regions = work.target, work.regions
    tokens, all_origins, owners, blocks = [], [], [], []
    cut = repaired = False
    for i in sorted(rows):
        drafts = region_drafts[i] if region_drafts else []
        own, origins, fixed = loop_repair(rows[i], drafts, work.spec, ordered=False)
        keep = [k for k, tok in enumerate(own) if tok not in t.eos_ids]
        tokens += [own[k] for k in keep]
        # Element i's drafts follow the earlier elements' in one page-wide draft numbering.
        at = [origins[k] if k < len(origins) else MODEL for k in keep]
        all_origins += [MODEL if o == MODEL else (o[0] + len(owners), o[1]) for o in at]
        owners += [i] * len(drafts)
        cut |= truncated(rows[i], t.eos_ids)
        repaired |= fixed
        body = t.decode([own[k] for k in keep])
        blocks.append(t.element_markdown(regions[i].kind.value, body, regions[i].level or 1))
    return PageDecode(
        tokens, cut, None, report, repaired, "\n".join(blocks), origins=all_origins, draft_map=one_per_draft(owners)
    )
