"""`--method page`: page-level spec decoding against one draft, the page's regions in reading order."""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PreparedPage, Region, StageReport
from hsd_cli.methods.base import PageDrafts, PageJob, PageWork, RowsRequest, truncated
from hsd_cli.methods.loop_repair import loop_repair
from hsd_cli.report.provenance import page_draft
from hsd_cli.spec.decode import RowResult
from hsd_cli.targets.runtime.base import VisionTarget


class Page:
    name = "page"
    uses_drafts = True
    prices_crops = False

    def for_page(self, prepared: PreparedPage, target: VisionTarget, spec: SpecConfig, batch: int = 1) -> Page:
        return self

    def drafts(self, target: VisionTarget, regions: list[Region]) -> PageDrafts:
        """One draft, with the span of each region in it."""
        draft, dmap = page_draft(regions, target.family.style, target.encode)
        return PageDrafts([[draft]], dmap)

    def start(self, work: PageWork) -> PageJob:
        """One row: the page image against its draft."""
        done = yield page_request(work, work.drafts)
        (row,) = done.rows
        return page_decode(row, done.report, work, work.drafts)


def page_request(work: PageWork, drafts: PageDrafts) -> RowsRequest:
    """The page's one row against its draft lists."""
    return RowsRequest((work.page.image,), work.target.family.page_prompt, (drafts.drafts[0],), work.spec)


def page_decode(row: RowResult, report: StageReport, work: PageWork, drafts: PageDrafts) -> PageDecode:
    """The row's tokens (a loop repaired from the drafts) with their provenance."""
    tokens, origins, repaired = loop_repair(row, drafts.drafts[0], work.spec, ordered=False)
    truncated_row = truncated(row, work.target.eos_ids)
    return PageDecode(tokens, truncated_row, None, report, repaired, origins=origins, draft_map=drafts.draft_map)
