"""`--method ar`: plain greedy decoding of the page, the reference every other method equals."""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PreparedPage, Region
from hsd_cli.methods.base import PageDrafts, PageJob, PageWork, RowsRequest, truncated
from hsd_cli.targets.runtime.base import VisionTarget


class AR:
    name = "ar"
    uses_drafts = False
    prices_crops = False

    def for_page(self, prepared: PreparedPage, target: VisionTarget, spec: SpecConfig, batch: int = 1) -> AR:
        return self

    def drafts(self, target: VisionTarget, regions: list[Region]) -> PageDrafts:
        return PageDrafts([])

    def start(self, work: PageWork) -> PageJob:
        """One row: the page image, no drafts."""
        t = work.target
        done = yield RowsRequest((work.page.image,), t.family.page_prompt, None, work.spec)
        (row,) = done.rows
        return PageDecode(row.tokens, truncated(row, t.eos_ids), None, done.report, origins=row.origins)
