"""The verify stage of the target methods (auto, hsd, page, ar), with an optional AR baseline."""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import replace

from hsd_cli.config import RunConfig, spec_options
from hsd_cli.datatypes import PageDecode, PageResult, PreparedPage
from hsd_cli.driver.batch import Batcher
from hsd_cli.driver.ordered import InOrder
from hsd_cli.methods.ar import AR
from hsd_cli.methods.base import Method, PageDrafts, PageWork
from hsd_cli.methods.elements import Elements
from hsd_cli.methods.late import Late
from hsd_cli.methods.page import Page
from hsd_cli.report.result import add_baseline, page_result
from hsd_cli.targets.runtime.base import VisionTarget

PreparedOrFailed = PreparedPage | BaseException  # a prepared page, or what its preparation raised


class TargetConverter:
    """A method on a target; the target loads on the first page unless one is given."""

    def __init__(
        self, method: Method, cfg: RunConfig, target: VisionTarget | None = None, element_level: bool | None = None
    ) -> None:
        self.method_obj, self.cfg, self._target = method, cfg, target
        self.last_batcher: Batcher | None = None
        self.method = method.name
        if element_level is None:  # without a target, the caller knows it from the model's family
            element_level = target.family.element_level
        # Element-level parsers need the layout even for `ar`: their pages are their elements.
        self.uses_drafts = method.uses_drafts or element_level
        # A page-level method's page may start before its drafts are made (methods/late.py).
        self.starts_before_drafts = method.uses_drafts and not element_level

    @property
    def target(self) -> VisionTarget:
        if self._target is None:
            self._target = _load(self.cfg, self.method_obj)
        return self._target

    def options_key(self) -> dict[str, object]:
        return spec_options(self.cfg)

    def convert(self, prepared: PreparedPage) -> PageResult:
        return self.verify(prepared)[0]

    def verify(self, prepared: PreparedPage) -> tuple[PageResult, PageDecode]:
        """Decode one page with this converter's method; the tokens come back for comparisons."""
        ((_, out),) = self.verify_many([(0, prepared)], pages=1)
        if isinstance(out, BaseException):
            raise out
        return out

    def convert_many(
        self, items: Iterable[tuple[Hashable, PreparedOrFailed]]
    ) -> Iterator[tuple[Hashable, PageResult | BaseException]]:
        """Pages decoded `batch_pages` at a time; each (key, result or what failed it), in the order given."""
        for key, out in self.verify_many(items):
            yield key, out if isinstance(out, BaseException) else out[0]

    def verify_many(
        self, items: Iterable[tuple[Hashable, PreparedOrFailed]], pages: int | None = None
    ) -> Iterator[tuple[Hashable, tuple[PageResult, PageDecode] | BaseException]]:
        """(key, (result, decode) or what failed it), in the order given; pages share forward passes.

        An item may be the exception its preparation raised: it passes through in its place."""
        target = self.target  # loads the model (ModelNotFoundError is the run's, not a page's)
        pages = pages or self.batch_pages
        batcher = self.last_batcher = Batcher(target, pages)  # its occupancy: benchmarks
        order = InOrder()
        for key, out in batcher.run(self._works(items, order, pages)):
            order.done(key, out)
            yield from order.ready(self._finish)
        yield from order.ready(self._finish)  # pages that failed before decoding, at the end

    @property
    def batch_pages(self) -> int:
        """--batch-pages, or the device's default (targets/runtime/memory.default_batch_pages)."""
        if self.cfg.batch_pages is None:
            from hsd_cli.targets.runtime.memory import default_batch_pages

            return default_batch_pages(self.target, self.cfg.spec)
        return self.cfg.batch_pages

    def _works(self, items: Iterable[tuple[Hashable, PreparedOrFailed]], order: InOrder, pages: int) -> Iterator[tuple]:
        """Each page's job (and its AR baseline's); a page that fails before decoding is done at once."""
        for key, item in items:
            if isinstance(item, BaseException):
                order.expect(key)
                order.fail(key, item)
                continue
            late = None
            try:
                if item.later is not None and self.target.family.element_level:
                    item = item.later.wait()  # its layout is its structure: the page cannot start without it
                method = self._for_page(self.method_obj.for_page(item, self.target, self.cfg.spec, pages), item)
                if item.later is not None and method.uses_drafts:  # its drafts are being made: it starts without them
                    late = _LatePage(self.target, item)
                    method = Late(method.name, late.fetch, item.later.drop)
                t0 = time.perf_counter()
                work = self._work(item, method.drafts(self.target, list(item.regions)))
            except Exception as e:
                order.expect(key)
                order.fail(key, e)
                continue
            baseline = self.cfg.baseline and method.uses_drafts  # AR is its own baseline
            # tokenizing the drafts is a drafting cost too
            t_tokenize = time.perf_counter() - t0
            order.expect(key, item, method, t_tokenize, late, parts=("page", "baseline")[: 1 + baseline])
            yield (key, "page"), method, work
            if baseline:
                ar = self._for_page(AR(), item)
                yield (key, "baseline"), ar, replace(work, drafts=ar.drafts(self.target, []))

    def _finish(
        self, prepared: PreparedPage, method: Method, t_tokenize: float, late: _LatePage | None, decodes: dict
    ) -> tuple:
        out = decodes["page"]
        if late is not None and method.uses_drafts:  # its drafts joined it while it decoded
            prepared, t_tokenize = late.drafted(), late.t_tokenize
        t_draft = prepared.t_draft + t_tokenize if self.uses_drafts else 0.0
        result = page_result(self.target, self.cfg.spec, prepared, out, method.name, t_draft, method.uses_drafts)
        if "baseline" in decodes:
            result = add_baseline(result, out, decodes["baseline"])
        return result, out

    def _for_page(self, method: Method, prepared: PreparedPage) -> Method:
        """Element-level targets decode a page with a layout element by element, whatever the method."""
        if self.target.family.element_level and prepared.regions:
            return Elements(method.name, verify=method.uses_drafts)
        return method

    def _work(self, prepared: PreparedPage, drafts: PageDrafts) -> PageWork:
        regions = list(prepared.regions)
        return PageWork(self.target, prepared.page, regions, drafts, self.cfg.spec, prepared.draft_source)


class _LatePage:
    """A page that started before its drafts were made: they come from the prepare stage."""

    def __init__(self, target: VisionTarget, rendered: PreparedPage) -> None:
        self.target, self.rendered = target, rendered
        self.arrived: PreparedPage | None = None
        self.t_tokenize = 0.0

    def fetch(self) -> tuple[PageDrafts, str] | None:
        """The page-level drafts and their source once made (methods/late.Fetch)."""
        arrived = self.rendered.later.poll()
        if arrived is None:
            return None
        t0 = time.perf_counter()
        drafts = Page().drafts(self.target, list(arrived.regions))
        self.arrived, self.t_tokenize = arrived, time.perf_counter() - t0
        return drafts, arrived.draft_source

    def drafted(self) -> PreparedPage:
        """The page as its report shows it: its drafts, rendered when it started."""
        r = self.rendered
        return replace(self.arrived, page=r.page, t_render=r.t_render, damage=r.damage, later=None)


def _load(cfg: RunConfig, method: Method) -> VisionTarget:
    from hsd_cli.targets.runtime.registry import load_target

    target = load_target(cfg.model, cfg.device, cfg.dtype, cfg.graphs)
    if cfg.spec.cost_aware and cfg.spec.cost_model == "measured" and method.uses_drafts:
        target.cost  # measured once per model and device (cached), at load, not in a page's time  # noqa: B018
        if method.prices_crops:
            target.prefill_cost  # prices Stage-1 crops; likewise measured at load  # noqa: B018
    return target
