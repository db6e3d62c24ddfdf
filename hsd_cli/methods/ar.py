"""`--method ar`: plain greedy decoding of the page, the reference every other method equals."""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PreparedPage, Region, StageReport
from hsd_cli.methods.base import PageDrafts, PageJob, PageWork, RowsRequest, truncated
from hsd_cli.spec.decode import RowResult
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
        done = yield ar_request(work)
        (row,) = done.rows
        return ar_decode(row, done.report, work.target)


def ar_request(work: PageWork) -> RowsRequest:
    """The page's one row with no drafts: `ar`, and the start of a page whose drafts are not made yet."""
    return RowsRequest((work.page.image,), work.target.family.page_prompt, None, work.spec)


def ar_decode(row: RowResult, report: StageReport, target: VisionTarget) -> PageDecode:
    return PageDecode(row.tokens, truncated(row, target.eos_ids), None, report, origins=row.origins)
