"""The verify stage for the target methods (auto, hsd, page, ar), with an optional AR baseline."""

from __future__ import annotations

import time

from hsd_cli.config import RunConfig
from hsd_cli.methods.blocks import coverage, model_blocks
from hsd_cli.datatypes import PageResult, PageStatus, Region, aal
from hsd_cli.methods.hierarchy import PageDecode, run_ar, run_elements, run_hsd, run_page
from hsd_cli.methods.provenance import DraftMap, page_draft, token_regions
from hsd_cli.report.summary import spec_decode_time
from hsd_cli.pipeline.prepare import PreparedPage
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
        result = self._result(prepared, out, method, t_draft)
        if self.cfg.baseline and method != "ar":
            _add_baseline(result, out, self._ar(prepared))
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

    def _result(self, prepared: PreparedPage, out: PageDecode, method: str, t_draft: float) -> PageResult:
        page = prepared.page
        text = self.target.decode(out.tokens)
        stages = [s for s in (out.stage1, out.page) if s is not None]
        t_prefill = sum(s.t_prefill for s in stages)
        t_decode = sum(s.t_decode for s in stages)
        hist = [a for s in stages for a in s.accepted_hist]  # sequence-steps of every stage
        return PageResult(
            source=str(page.source), page=page.number,
            status=PageStatus.TRUNCATED if out.truncated else PageStatus.OK,
            markdown=self.target.to_markdown(text) if out.markdown is None else out.markdown, method=method,
            draft_source=prepared.draft_source if method != "ar" else "",
            tau=self.cfg.spec.tau, window=self.cfg.spec.window, tokens=len(out.tokens),
            steps=sum(s.steps for s in stages), aal=aal(sum(hist), len(hist)),
            accepted_hist=hist, t_render=prepared.t_render, t_draft=t_draft,
            t_prefill=t_prefill, t_decode=t_decode, t_total=t_draft + t_prefill + t_decode,
            stage1=out.stage1, stage2=out.page if out.stage1 is not None else None,
            draft_error=prepared.draft_error, loop_repaired=out.loop_repaired, fault=out.fault,
            width=page.image.width, height=page.image.height, dpi=page.dpi,
            **self._provenance(prepared, out),
        )

    def _provenance(self, prepared: PreparedPage, out: PageDecode) -> dict[str, object]:
        """Blocks and coverage from the tokens' origins (reporting only: decoding is done)."""
        regions, t = list(prepared.regions), self.target
        owners = token_regions(out.origins, out.draft_map)
        size = prepared.page.image.size
        blocks = model_blocks(regions, out.tokens, owners, size, t.decode, t.to_markdown, t.boundary_ids)
        return {"blocks": blocks, "coverage": coverage(owners, regions)}


def spec_options(cfg: RunConfig) -> dict[str, object]:
    """The settings that change a target method's output (the page reports' resume key)."""
    s, c = cfg.spec, cfg
    return {
        "method": c.method, "model": c.model, "dpi": c.dpi, "draft_source": c.draft_source,
        "tau": s.tau, "window": s.window, "min_window": s.min_window, "max_depth": s.max_depth,
        "max_candidates": s.max_candidates, "max_new_tokens": s.max_new_tokens,
        "repeat_guard": s.repeat_guard, "region_starts": c.region_starts, "dtype": c.dtype,
        "on_loop": s.on_loop,
    }


def _add_baseline(result: PageResult, spec: PageDecode, ar: PageDecode) -> None:
    """SR_decode and SR_e2e (paper 4.2); draft generation counts on the spec side in both."""
    ar_full = ar.page.t_prefill + ar.page.t_decode
    spec_decode = spec_decode_time(result)
    result.sr_decode = ar.page.t_decode / spec_decode if spec_decode else None
    result.sr_e2e = ar_full / result.t_total if result.t_total else None
    result.identical_to_ar = spec.tokens == ar.tokens
    if not result.identical_to_ar:
        pairs = zip(spec.tokens, ar.tokens)
        result.first_divergence = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(spec.tokens), len(ar.tokens)))


def _unique(texts: list[str]) -> list[str]:
    return list(dict.fromkeys(t for t in texts if t.strip()))
