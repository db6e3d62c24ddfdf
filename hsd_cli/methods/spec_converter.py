"""The verify stage for the target methods (auto, hsd, page, ar), with an optional AR baseline."""

from __future__ import annotations

import time

from hsd_cli.config import RunConfig, spec_options
from hsd_cli.datatypes import PageResult, PreparedPage, Region
from hsd_cli.methods.hierarchy import (
    PageDecode,
    run_ar,
    run_elements,
    run_hsd,
    run_page,
)
from hsd_cli.methods.provenance import DraftMap, page_draft
from hsd_cli.methods.result import add_baseline, page_result
from hsd_cli.targets.runtime.base import VisionTarget


class SpecConverter:
    def __init__(self, target: VisionTarget, cfg: RunConfig):
        self.target = target
        self.cfg = cfg
        self.method = cfg.method
        # Element-level parsers need the layout even for `ar`: their pages are their elements.
        self.uses_drafts = cfg.method != "ar" or target.spec.element_level

    @classmethod
    def load(cls, cfg: RunConfig) -> SpecConverter:
        from hsd_cli.targets.runtime.registry import load_target

        target = load_target(cfg.model, cfg.device, cfg.dtype)
        if cfg.spec.cost_aware and cfg.method != "ar":
            target.cost  # measured once per model and device (cached), at load, not in a page's time
        return cls(target, cfg)

    def options_key(self) -> dict[str, object]:
        return spec_options(self.cfg)

    def convert(self, prepared: PreparedPage) -> PageResult:
        return self.verify(prepared)[0]

    def verify(self, prepared: PreparedPage) -> tuple[PageResult, PageDecode]:
        """Decode the page with this converter's method; the tokens come back for comparisons."""
        method = self._method_for(prepared)
        t0 = time.perf_counter()
        drafts, dmap = self._drafts(method, list(prepared.regions))
        t_tokenize = time.perf_counter() - t0  # tokenizing drafts is a drafting cost too
        out = self._decode(method, prepared, drafts, dmap)
        t_draft = prepared.t_draft + t_tokenize if self.uses_drafts else 0.0
        result = page_result(self.target, self.cfg.spec, prepared, out, method, t_draft)
        if self.cfg.baseline and method != "ar":
            result = add_baseline(result, out, self._ar(prepared))
        return result, out

    def _method_for(self, prepared: PreparedPage) -> str:
        if self.method != "auto":
            return self.method
        from hsd_cli.methods.auto import choose_method

        return choose_method(prepared, self.target, self.cfg)

    def _drafts(self, method: str, regions: list[Region]) -> tuple[list[list[list[int]]], DraftMap | None]:
        """Token drafts: one list for `page` (with its regions' spans), one per region (markup and
        plain) for `hsd`."""
        from hsd_cli.drafts.markup import region_markup

        style, enc = self.target.spec.style, self.target.encode
        if method == "ar":
            return [], None
        if method == "page" and not self._elements(regions):
            draft, dmap = page_draft(regions, style, enc)
            return [[draft]], dmap
        return [[enc(v) for v in _unique([region_markup(r, style), r.text])] for r in regions], None

    def _elements(self, regions) -> bool:
        """Decode per layout element: an element-level target on a page with a layout."""
        return self.target.spec.element_level and bool(regions)

    def _ar(self, prepared: PreparedPage) -> PageDecode:
        """The reference decoding: greedy AR of the page, or of each element for element-level targets."""
        if self._elements(prepared.regions):
            return run_elements(self.target, prepared.page, list(prepared.regions), None, self.cfg)
        return run_ar(self.target, prepared.page, self.cfg.spec)

    def _decode(self, method: str, prepared: PreparedPage, drafts: list[list[list[int]]],
                dmap: DraftMap | None) -> PageDecode:  # fmt: skip
        page, spec = prepared.page, self.cfg.spec
        if method == "ar":
            return self._ar(prepared)
        if self._elements(prepared.regions):
            return run_elements(self.target, page, list(prepared.regions), drafts, self.cfg)
        if method == "page":
            return run_page(self.target, page, drafts[0], spec, dmap)
        return run_hsd(self.target, page, list(prepared.regions), drafts, self.cfg)


def _unique(texts: list[str]) -> list[str]:
    return list(dict.fromkeys(t for t in texts if t.strip()))
