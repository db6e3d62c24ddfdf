"""The verify stage of the target methods (auto, hsd, page, ar), with an optional AR baseline."""

from __future__ import annotations

import time

from hsd_cli.config import RunConfig, spec_options
from hsd_cli.datatypes import PageDecode, PageResult, PreparedPage
from hsd_cli.methods.ar import AR
from hsd_cli.methods.base import Method, PageDrafts, PageWork
from hsd_cli.methods.elements import Elements
from hsd_cli.methods.result import add_baseline, page_result
from hsd_cli.methods.run import decode_page
from hsd_cli.targets.runtime.base import VisionTarget


class TargetConverter:
    """A method on a target; the target loads on the first page unless one is given."""

    def __init__(
        self, method: Method, cfg: RunConfig, target: VisionTarget | None = None, element_level: bool | None = None
    ) -> None:
        self.method_obj, self.cfg, self._target = method, cfg, target
        self.method = method.name
        if element_level is None:  # without a target, the caller knows it from the model's family
            element_level = target.spec.element_level
        # Element-level parsers need the layout even for `ar`: their pages are their elements.
        self.uses_drafts = method.uses_drafts or element_level

    @property
    def target(self) -> VisionTarget:
        if self._target is None:
            self._target = _load(self.cfg)
        return self._target

    def options_key(self) -> dict[str, object]:
        return spec_options(self.cfg)

    def convert(self, prepared: PreparedPage) -> PageResult:
        return self.verify(prepared)[0]

    def verify(self, prepared: PreparedPage) -> tuple[PageResult, PageDecode]:
        """Decode the page with this converter's method; the tokens come back for comparisons."""
        target = self.target
        method = self._for_page(self.method_obj.for_page(prepared, target, self.cfg.spec), prepared)
        t0 = time.perf_counter()
        drafts = method.drafts(target, list(prepared.regions))
        t_tokenize = time.perf_counter() - t0  # tokenizing drafts is a drafting cost too
        out = decode_page(method, self._work(prepared, drafts))
        t_draft = prepared.t_draft + t_tokenize if self.uses_drafts else 0.0
        result = page_result(target, self.cfg.spec, prepared, out, method.name, t_draft)
        if self.cfg.baseline and method.name != "ar":
            ar = self._for_page(AR(), prepared)
            result = add_baseline(result, out, decode_page(ar, self._work(prepared, ar.drafts(target, []))))
        return result, out

    def _for_page(self, method: Method, prepared: PreparedPage) -> Method:
        """Element-level targets decode a page with a layout element by element, whatever the method."""
        if self.target.spec.element_level and prepared.regions:
            return Elements(method.name, verify=method.name != "ar")
        return method

    def _work(self, prepared: PreparedPage, drafts: PageDrafts) -> PageWork:
        regions = list(prepared.regions)
        return PageWork(self.target, prepared.page, regions, drafts, self.cfg.spec, prepared.draft_source)


def _load(cfg: RunConfig) -> VisionTarget:
    from hsd_cli.targets.runtime.registry import load_target

    target = load_target(cfg.model, cfg.device, cfg.dtype)
    if cfg.spec.cost_aware and cfg.spec.cost_model == "measured" and cfg.method != "ar":
        target.cost  # measured once per model and device (cached), at load, not in a page's time  # noqa: B018
        if cfg.method in ("hsd", "auto"):
            target.prefill_cost  # prices Stage-1 crops; likewise measured at load  # noqa: B018
    return target
