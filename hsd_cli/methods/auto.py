"""`--method auto`: per page, `page` or `hsd`, by the forward passes (or time) each should take.

`hsd` runs Stage 1 only on batches that pay: a batched step saves about one Stage-2 step per
running row and costs the device's price of a batch, beside the crops' prefill (`hsd.stage1_plan`).
Where no batch pays (exact text-layer drafts, a single region, a CPU whose forward cost grows with
its tokens) hsd's Stage 2 is the page method itself, so auto takes `page`; elsewhere Stage 1 is
expected to save more passes than it spends, and auto takes `hsd`, holding the plan it made.
"""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PreparedPage
from hsd_cli.methods.base import Method
from hsd_cli.methods.crops import region_drafts
from hsd_cli.methods.hsd import HSD, stage1_plan
from hsd_cli.methods.page import Page
from hsd_cli.targets.runtime.base import VisionTarget


def method_for(prepared: PreparedPage, target, spec: SpecConfig, batch: int = 1) -> HSD | Page:
    """`hsd` with its Stage-1 plan when some batch pays for itself on this device, else `page`."""
    regions = list(prepared.regions)
    drafts = region_drafts(target, regions)
    plan = stage1_plan(target, regions, drafts, spec, batch)
    # The job runs this plan and these drafts: planning twice cost a second tokenization and a
    # second pricing of every crop per page.
    return HSD(tuple(plan), drafts) if plan else Page()


class Auto:
    """Picks the method of each page; it decodes nothing itself."""

    name = "auto"
    uses_drafts = True
    prices_crops = True  # it plans hsd's Stage 1 to choose

    def for_page(self, prepared: PreparedPage, target: VisionTarget, spec: SpecConfig, batch: int = 1) -> Method:
        return method_for(prepared, target, spec, batch)
