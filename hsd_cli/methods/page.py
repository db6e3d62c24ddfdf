"""`--method page`: page-level spec decoding against one draft, the page's regions in reading order."""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PreparedPage, Region
from hsd_cli.methods.base import PageDrafts, PageJob, PageWork, RowsRequest, truncated
from hsd_cli.methods.loop_repair import loop_repair
from hsd_cli.report.provenance import page_draft
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
        t, drafts = work.target, work.drafts.drafts[0]
        done = yield RowsRequest((work.page.image,), t.family.page_prompt, (drafts,), work.spec)
        (row,) = done.rows
        tokens, origins, repaired = loop_repair(row, drafts, work.spec, ordered=False)
        return PageDecode(
            tokens,
            truncated(row, t.eos_ids),
            None,
            done.report,
            repaired,
            origins=origins,
            draft_map=work.drafts.draft_map,
        )
