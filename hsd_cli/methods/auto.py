"""`--method auto`: per page, `page` or `hsd`, from the drafts and the device's measured costs.

Stage 1 pays one extra prefill per region crop and one batched forward over every region per
step; it pays off only where those drafts are not already exact (not a PDF text layer) and the
device verifies a batch of all regions at about the price of one page step (a GPU; on a CPU a
forward's cost grows with its tokens, so Stage 1 costs about as much as decoding the page).
"""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PreparedPage
from hsd_cli.methods.base import Method
from hsd_cli.methods.cost import run_cost
from hsd_cli.methods.crops import TEXT_LAYER, verifiable
from hsd_cli.methods.hsd import HSD
from hsd_cli.methods.page import Page
from hsd_cli.targets.runtime.base import VisionTarget

STAGE1_TREE = 8  # tokens per region row in a typical Stage-1 step
PARALLEL_RATIO = 2.0  # a batched Stage-1 step may cost at most this many AR steps


def choose_method(prepared: PreparedPage, target, spec: SpecConfig) -> str:
    """`hsd` when Stage 1 can sharpen drafts at little cost on this device, else `page`."""
    rows = [r for r in prepared.regions if verifiable(r, target) and r.source != TEXT_LAYER]
    if len(rows) < 2:
        return "page"  # nothing to verify in parallel, or exact text-layer drafts already
    batch = min(len(rows), spec.stage1_batch) * STAGE1_TREE
    return "hsd" if run_cost(target, spec).ratio(batch) <= PARALLEL_RATIO else "page"


class Auto:
    """Picks the method of each page; it decodes nothing itself."""

    name = "auto"
    uses_drafts = True

    def for_page(self, prepared: PreparedPage, target: VisionTarget, spec: SpecConfig) -> Method:
        return HSD() if choose_method(prepared, target, spec) == "hsd" else Page()
