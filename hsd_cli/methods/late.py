"""A page that starts before its drafts are made: `ar`'s row at once, `page`'s drafts joining it.

The prepare stage drafts pages in worker processes beside the decode (pipeline/drafting.py); a
page whose drafts are not made when the batch has room for it does not wait for them. It decodes
as `ar` does (the same request, methods/ar.py), and when its drafts arrive the driver indexes them
into its running row (spec/decode.SpecStepper.attach): from then on the row is `page`'s, aligned
from the output it already has. The output cannot change, since drafts only propose. Stage 1 never
runs for such a page: its crops would have to be decoded before the page, which is under way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PreparedPage, Region
from hsd_cli.methods.ar import AR, ar_decode, ar_request
from hsd_cli.methods.base import Arrival, PageDrafts, PageJob, PageWork
from hsd_cli.methods.page import page_decode, page_request
from hsd_cli.targets.runtime.base import VisionTarget

Fetch = Callable[[], "tuple[PageDrafts, str] | None"]  # the page's drafts and their source, once made


class Late:
    """One page's job; `name` is the method it reports once its drafts joined (`ar` if they never did)."""

    prices_crops = False

    def __init__(self, name: str, fetch: Fetch, drop: Callable[[], None] = lambda: None) -> None:
        self._name, self.fetch, self.drop = name, fetch, drop
        self.joined: bool | None = None  # None while the page decodes; then whether its drafts joined

    @property
    def name(self) -> str:
        return self._name if self.joined is not False else AR.name

    @property
    def uses_drafts(self) -> bool:
        """While it decodes, it may verify drafts (so it gets an AR baseline); after, whether it did."""
        return self.joined is not False

    def for_page(self, prepared: PreparedPage, target: VisionTarget, spec: SpecConfig, batch: int = 1) -> Late:
        return self

    def drafts(self, target: VisionTarget, regions: list[Region]) -> PageDrafts:
        return PageDrafts([])

    def start(self, work: PageWork) -> PageJob:
        """`ar`'s request, which the page's drafts join once `fetch` has them."""
        got: list[PageDrafts] = []

        def poll():
            fetched = self.fetch()
            if fetched is None:
                return None
            drafts, source = fetched
            got.append(drafts)
            return page_request(work, drafts), source

        arrival = Arrival(poll)
        try:
            done = yield replace(ar_request(work), late=arrival)
        finally:
            self.joined = arrival.joined is not None
            if not self.joined:
                self.drop()  # decoded (or failed) without them: making them is wasted work now
        (row,) = done.rows
        if not self.joined:
            return ar_decode(row, done.report, work.target)
        return page_decode(row, done.report, work, got[0])
