"""The driver: one page's job, its requests decoded one by one with the shared stepper.

Batch 1 of a future scheduler that merges several pages' requests into one forward."""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PageImage, Region
from hsd_cli.methods.base import Method, PageDrafts, PageWork
from hsd_cli.methods.crops import CropOutOfMemory
from hsd_cli.methods.priors import prior_for
from hsd_cli.methods.rows import RowsDone, RowsRequest, decode_rows, join
from hsd_cli.targets.runtime.base import VisionTarget
from hsd_cli.targets.runtime.memory import is_oom, release


def decode_page(method: Method, work: PageWork) -> PageDecode:
    """Run `method`'s job for the page to its end; a crop that does not fit alone is thrown into it."""
    job = method.start(work)
    prior = prior_for(work.draft_source)
    try:
        request = next(job)
        while True:
            if request.prior is None:  # the method did not choose: the page's draft source decides
                request = replace(request, prior=prior)
            try:
                done = serve(work.target, request)
            except CropOutOfMemory as e:
                request = job.throw(e)  # hsd falls back to the page method; others let it rise
                continue
            request = job.send(done)
    except StopIteration as stop:
        return stop.value


def serve(target: VisionTarget, request: RowsRequest) -> RowsDone:
    """The request's rows; out of memory, region crops are retried in halves."""
    try:
        return decode_rows(target, request)
    except Exception as e:
        if not (request.split_on_oom and is_oom(e)):
            raise
    release()  # here, not in the handler: the failed batch's tensors went with its frames
    if len(request.images) == 1:
        raise CropOutOfMemory
    first, second = request.halves()
    a, b = serve(target, first), serve(target, second)
    return RowsDone(a.rows + b.rows, join(a.report, b.report))


def decode(
    method: Method,
    target: VisionTarget,
    page: PageImage,
    regions: list[Region],
    spec: SpecConfig,
    drafts: PageDrafts | None = None,
    draft_source: str = "",
) -> PageDecode:
    """A page decoded outside a converter (benchmarks, tests); the method makes the drafts unless given."""
    drafts = method.drafts(target, regions) if drafts is None else drafts
    return decode_page(method, PageWork(target, page, regions, drafts, spec, draft_source))
