"""PageConverter for the target methods (ar, page, hsd), with an optional AR baseline."""

from __future__ import annotations

import time
from typing import Callable

from hsd_cli.config import RunConfig
from hsd_cli.datatypes import PageImage, PageResult, PageStatus, Region
from hsd_cli.hierarchy import PageDecode, run_ar, run_hsd, run_page
from hsd_cli.report.summary import spec_decode_time
from hsd_cli.targets.base import VisionTarget

# Benchmark hook: page -> (regions, name); replaces the draft pipeline (e.g. oracle drafts).
RegionProvider = Callable[[PageImage], tuple[list[Region], str]]


class SpecConverter:
    def __init__(self, target: VisionTarget, cfg: RunConfig, regions: RegionProvider | None = None):
        self.target = target
        self.cfg = cfg
        self.method = cfg.method
        self._regions = regions or _pipeline_regions(cfg.draft_source)

    @classmethod
    def load(cls, cfg: RunConfig) -> SpecConverter:
        from hsd_cli.targets.registry import load_target

        return cls(load_target(cfg.model, cfg.device, cfg.dtype), cfg)

    def options_key(self) -> dict[str, object]:
        s, c = self.cfg.spec, self.cfg
        return {
            "method": c.method, "model": c.model, "dpi": c.dpi, "draft_source": c.draft_source,
            "tau": s.tau, "window": s.window, "min_window": s.min_window, "max_depth": s.max_depth,
            "max_candidates": s.max_candidates, "max_new_tokens": s.max_new_tokens,
            "repeat_guard": s.repeat_guard, "region_starts": c.region_starts, "dtype": c.dtype,
        }

    def convert(self, page: PageImage) -> PageResult:
        t0 = time.perf_counter()
        regions, source = self._regions(page) if self.method != "ar" else ([], "")
        t_draft = time.perf_counter() - t0
        out = self._decode(page, regions)
        result = self._result(page, out, source, t_draft)
        if self.cfg.baseline and self.method != "ar":
            _add_baseline(result, out, run_ar(self.target, page, self.cfg.spec))
        return result

    def convert_regions(
        self, page: PageImage, regions: list[Region], source: str, t_draft: float
    ) -> tuple[PageResult, PageDecode]:
        """Decode with drafts made elsewhere (benchmarks: one draft run shared by every method)."""
        out = self._decode(page, regions)
        return self._result(page, out, source, t_draft), out

    def _decode(self, page: PageImage, regions: list[Region]) -> PageDecode:
        spec, style, enc = self.cfg.spec, self.target.spec.style, self.target.encode
        if self.method == "ar":
            return run_ar(self.target, page, spec)
        from hsd_cli.drafts.markup import page_markdown, region_markup

        if self.method == "page":
            return run_page(self.target, page, [enc(page_markdown(regions, style))], spec)
        variants = [_unique([region_markup(r, style), r.text]) for r in regions]
        return run_hsd(self.target, page, regions, [[enc(v) for v in vs] for vs in variants], self.cfg)

    def _result(self, page: PageImage, out: PageDecode, source: str, t_draft: float) -> PageResult:
        text = self.target.decode(out.tokens)
        stages = [s for s in (out.stage1, out.stage2) if s is not None]
        t_prefill = sum(s.t_prefill for s in stages)
        t_decode = sum(s.t_decode for s in stages)
        return PageResult(
            source=str(page.source), page=page.number,
            status=PageStatus.TRUNCATED if out.truncated else PageStatus.OK,
            markdown=self.target.to_markdown(text), method=self.method, draft_source=source,
            tau=self.cfg.spec.tau, window=self.cfg.spec.window, tokens=len(out.tokens),
            steps=sum(s.steps for s in stages), aal=_aal(stages),
            accepted_hist=[a for s in stages for a in s.accepted_hist], t_draft=t_draft,
            t_prefill=t_prefill, t_decode=t_decode, t_total=t_draft + t_prefill + t_decode,
            stage1=out.stage1, stage2=out.stage2 if out.stage1 is not None else None,
        )


def _add_baseline(result: PageResult, spec: PageDecode, ar: PageDecode) -> None:
    """SR_decode and SR_e2e (paper 4.2); draft generation counts on the spec side in both."""
    ar_full = ar.stage2.t_prefill + ar.stage2.t_decode
    spec_decode = spec_decode_time(result)
    result.sr_decode = ar.stage2.t_decode / spec_decode if spec_decode else None
    result.sr_e2e = ar_full / result.t_total if result.t_total else None
    result.identical_to_ar = spec.tokens == ar.tokens
    if not result.identical_to_ar:
        pairs = zip(spec.tokens, ar.tokens)
        result.first_divergence = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(spec.tokens), len(ar.tokens)))


def _aal(stages) -> float:
    hist = [a for s in stages for a in s.accepted_hist]
    return sum(hist) / len(hist) if hist else 0.0


def _unique(texts: list[str]) -> list[str]:
    return list(dict.fromkeys(t for t in texts if t.strip()))


def _pipeline_regions(mode: str) -> RegionProvider:
    from hsd_cli.drafts import AutoSource

    auto = AutoSource(mode)  # one instance: the OCR engines load once per run

    def regions(page: PageImage) -> tuple[list[Region], str]:
        source = auto.select(page)
        return source.regions(page), source.name

    return regions
