"""One page decoded on its own: a batch of one page."""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PageImage, Region
from hsd_cli.driver.batch import Batcher
from hsd_cli.methods.base import Method, PageDrafts, PageWork
from hsd_cli.targets.runtime.base import VisionTarget


def decode_page(method: Method, work: PageWork) -> PageDecode:
    """Run `method`'s job for the page to its end: a batch of one page."""
    ((_, out),) = Batcher(work.target).run([(0, method, work)])
    if isinstance(out, Exception):
        raise out
    return out


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
