"""One page decoded on its own (a batch of one), and a lone request served with its out-of-memory fallbacks."""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PageImage, Region
from hsd_cli.methods.base import Method, PageDrafts, PageWork
from hsd_cli.methods.batch import Batcher
from hsd_cli.methods.crops import CropOutOfMemory
from hsd_cli.methods.rows import RowsDone, RowsRequest, decode_rows, join
from hsd_cli.targets.runtime.base import VisionTarget
from hsd_cli.targets.runtime.memory import is_oom, release


def decode_page(method: Method, work: PageWork) -> PageDecode:
    """Run `method`'s job for the page to its end: a batch of one page."""
    ((_, out),) = Batcher(work.target).run([(0, method, work)])
    if isinstance(out, Exception):
        raise out
    return out


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
