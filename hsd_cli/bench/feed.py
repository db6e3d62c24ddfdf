"""The pages a throughput run verifies, as `hsd convert`'s prepare stage hands them over."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

from hsd_cli.bench.run import Drafts
from hsd_cli.datatypes import PreparedPage
from hsd_cli.pipeline.local import on_accelerator, prepare_config
from hsd_cli.pipeline.workers import PrepareQueue


class Feed:
    """The pages as the verify stage reads them. Without workers: the bench's prepared pages at
    once, their prepare seconds charged after. With workers: as `hsd convert --workers` reads them
    (`PrepareQueue`), the run's wall time holding them: a method that can start a page before its
    drafts (the converter's `starts_before_drafts`) gets each page once it is rendered and its
    drafts when background processes have made them again (pipeline/drafting.py); otherwise each
    page once they are made. The bench's own copy of the same drafts is what is verified, since
    the oracle knows the regions it drafted (`differ` counts pages drafted otherwise)."""

    def __init__(self, conv, drafts: list[Drafts], workers: int) -> None:
        self.conv, self.drafts, self.workers = conv, drafts, workers
        self.cfg = prepare_config(conv.cfg, conv, workers)  # the prepare stage `hsd convert` would run
        self.uses_drafts = self.cfg.drafts is not None
        self.prepare_s = self.wait_s = 0.0
        self.differ = 0

    def __iter__(self) -> Iterator[tuple[int, PreparedPage]]:
        if not self.workers:
            for i, d in enumerate(self.drafts):
                self._charge(d.prepared)
                yield i, d.prepared
            return
        overlap = getattr(self.conv, "starts_before_drafts", False)
        ahead = on_accelerator(self.conv.cfg.device)  # as `hsd convert` renders beside a GPU
        queue = PrepareQueue(self.cfg, self.workers, beside_model=True, overlap=overlap, render_ahead=ahead)
        fresh = queue.run((d.prepared.page.source, d.prepared.page.number) for d in self.drafts)
        try:
            for i, d in enumerate(self.drafts):
                t0 = time.perf_counter()
                page = next(fresh)
                self.wait_s += time.perf_counter() - t0
                if isinstance(page, BaseException):
                    raise page
                if page.later is not None:  # rendered; its drafts join it while it decodes
                    late = _BenchDrafts(self, page.later, d.prepared)
                    rendered = replace(d.prepared, regions=(), draft_source="", t_render=page.t_render, t_draft=0.0)
                    yield i, replace(rendered, later=late)
                    self.prepare_s += page.t_render
                    continue
                yield i, self._own(page, d.prepared)
        finally:
            queue.close()

    def _own(self, made: PreparedPage, own: PreparedPage, rendered: bool = False) -> PreparedPage:
        """The bench's copy of a page the workers made, with their seconds; counted if they differ.
        `rendered`: the page was rendered here and charged then (a late page): its drafts only."""
        self.differ += self.uses_drafts and made.regions != own.regions
        return self._charge(replace(own, t_render=made.t_render, t_draft=made.t_draft), not rendered)

    def _charge(self, prepared: PreparedPage, render: bool = True) -> PreparedPage:
        self.prepare_s += (prepared.t_render if render else 0.0) + (prepared.t_draft if self.uses_drafts else 0.0)
        return prepared


class _BenchDrafts:
    """A late page's drafts (datatypes.LateDrafts) as the bench verifies them: when the workers'
    copy is made, the bench's own, with the workers' drafting seconds."""

    def __init__(self, feed: Feed, later, own: PreparedPage) -> None:
        self.feed, self.later, self.own = feed, later, own

    def poll(self) -> PreparedPage | None:
        made = self.later.poll()
        return None if made is None else self._arrived(made)

    def wait(self) -> PreparedPage:
        return self._arrived(self.later.wait())

    def drop(self) -> None:
        self.later.drop()

    def _arrived(self, made: PreparedPage) -> PreparedPage:
        return self.feed._own(made, self.own, rendered=True)
