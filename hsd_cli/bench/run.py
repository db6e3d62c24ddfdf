"""The benchmark loop: every method on the same pages, in one process, AR first on each page."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from random import Random

from rapidfuzz.distance import Levenshtein

from hsd_cli.bench.acceptance import MODEL_ONLY, by_kind, token_kinds
from hsd_cli.bench.config import BASELINE, EXTERNAL, BenchConfig, baseline_first
from hsd_cli.bench.generate import run_generate
from hsd_cli.bench.noise import corrupt_text, noisy_regions
from hsd_cli.bench.oracle import OracleTarget
from hsd_cli.bench.pages import BenchPage
from hsd_cli.bench.records import MethodRun, PageBench
from hsd_cli.bench.reference import region_spans
from hsd_cli.config import RunConfig, SpecConfig
from hsd_cli.datatypes import PreparedPage, Region
from hsd_cli.drafts.markup import page_markdown
from hsd_cli.drafts.torch_engines import follow_target
from hsd_cli.driver.choose import converter_with
from hsd_cli.methods.crops import crop_region
from hsd_cli.pipeline.prepare import PrepareConfig, Preparer

WARMUP_TOKENS = 16  # token budget of the untimed warm-up runs


@dataclass(slots=True)
class Drafts:
    """One prepare-stage run for a page, shared by every method."""

    prepared: PreparedPage
    region_refs: list[str] | None = None  # oracle mode: what the target writes for each crop
    region_spans: list[tuple[int, int]] | None = None  # oracle mode: each region's span of the page truth
    token_kinds: list[str] | None = None  # oracle mode: per reference token, its region kind

    @property
    def regions(self) -> list[Region]:
        return list(self.prepared.regions)


class Bench:
    """Holds the target, draft source and converters; `run` measures a list of pages."""

    def __init__(self, cfg: BenchConfig, target):
        self.cfg = cfg
        self.target = OracleTarget(target) if cfg.oracle else target
        self.style = target.family.style
        self._prepare = None  # the prepare stage, built on first use (OCR engines load once)

    def run(self, pages: list[BenchPage], on_page=None) -> list[PageBench]:
        """Warm up on the first page, then measure every page; `on_page` sees each result."""
        spec = self.cfg.spec()
        results = []
        for k, bp in enumerate(pages):
            drafts = self.drafts(bp)
            if k == 0:
                for _ in range(self.cfg.warmup):
                    self.measure(bp, drafts, replace(spec, max_new_tokens=min(WARMUP_TOKENS, spec.max_new_tokens)))
            results.append(self.measure(bp, drafts, spec))
            if on_page:
                on_page(results[-1])
        return results

    def drafts(self, bp: BenchPage) -> Drafts:
        """The real prepare stage (timed), or the corrupted reference in noise mode (not timed)."""
        rng = self.page_rng(bp)
        if self.cfg.noise is not None:
            size = bp.page.image.size
            regions, refs = noisy_regions(bp.reference or "", size, self.cfg.noise, rng)
            return Drafts(PreparedPage(bp.page, tuple(regions), "noise"), _crop_refs(refs, self.cfg.noise, rng))
        if self._prepare is None:
            device = follow_target(self.cfg.device)
            self._prepare = Preparer(PrepareConfig(self.cfg.dpi, None, self.cfg.draft_source, draft_device=device))
        prepared = self._prepare(bp.page.source, bp.page.number)
        prepared = replace(prepared, page=bp.page)  # the same image object the oracle keys on
        if bp.reference is None:
            return Drafts(prepared)
        spans = region_spans(list(prepared.regions), bp.reference, self.style)
        refs = [bp.reference[a:b] for a, b in spans]
        return Drafts(prepared, _crop_refs(refs, self.cfg.crop_noise, rng), spans)

    def page_rng(self, bp: BenchPage) -> Random:
        """The page's own noise stream: a page's figures do not depend on which pages ran before it."""
        return Random(f"{self.cfg.seed}:{bp.page.source.name}:{bp.page.number}")

    def measure(self, bp: BenchPage, drafts: Drafts, spec: SpecConfig) -> PageBench:
        """Every method on the page; AR first, the others compared with it token for token."""
        page = bp.page
        record = PageBench(str(page.source), page.number, bp.kind, drafts.prepared.draft_source)
        if self.cfg.oracle:
            self.target.clear()
            self.expect(bp, drafts, record)
        methods = baseline_first(self.cfg.methods)
        for _ in range(self.cfg.repeat):  # interleaved, so a load change hits every method alike
            for method in methods:
                record.runs[method] = _faster(record.runs.get(method), self._run_method(method, bp, drafts, spec))
        ar = record.runs[BASELINE]
        for method, run in record.runs.items():
            if method != BASELINE and not run.error and not ar.error:
                record.runs[method] = replace(run, identical_to_ar=run.token_ids == ar.token_ids)
        return record

    def expect(self, bp: BenchPage, drafts: Drafts, record: PageBench) -> None:
        """Tell the oracle what the target writes for the page and for every region crop."""
        enc = self.target.encode
        ref_tokens = enc(bp.reference)
        self.target.expect(bp.page.image, ref_tokens)
        for region, text in zip(drafts.regions, drafts.region_refs or [], strict=False):
            self.target.expect(crop_region(bp.page.image, region.bbox), enc(text))
        record.ref_tokens = len(ref_tokens)
        if drafts.region_spans is not None:
            coded = self.target.tokenizer(bp.reference, add_special_tokens=False, return_offsets_mapping=True)
            assert coded["input_ids"] == ref_tokens
            kinds = [r.kind for r in drafts.regions]
            drafts.token_kinds = token_kinds(coded["offset_mapping"], drafts.region_spans, kinds)
            record.ref_covered = sum(k != MODEL_ONLY for k in drafts.token_kinds)
        draft_page = page_markdown(drafts.regions, self.style)
        record.draft_ned = Levenshtein.normalized_distance(draft_page, bp.reference)

    def _run_method(self, method: str, bp: BenchPage, drafts: Drafts, spec: SpecConfig) -> MethodRun:
        if method in EXTERNAL:
            ref = self.target.reference(bp.page.image) if self.cfg.oracle else None
            options = self.cfg.generate_options(method)
            return run_generate(method, self.target, bp.page, spec.max_new_tokens, options, ref)
        try:
            return self._run_spec(method, bp, drafts, spec)
        except Exception as exc:  # noqa: BLE001 - a failing method is a table row, not a crash
            return MethodRun(method, error=f"{type(exc).__name__}: {exc}"[:160])

    def converter(self, method: str, spec: SpecConfig):
        """The converter `hsd convert` would run for `method`, on the bench's target."""
        run_cfg = RunConfig(
            inputs=(),
            out_dir=Path("."),
            model=self.cfg.model,
            method=method,
            spec=spec,
            draft_source=self.cfg.draft_source,
            dpi=self.cfg.dpi,
            device=self.cfg.device,
            dtype=self.cfg.dtype,
        )
        return converter_with(self.target, run_cfg)

    def _run_spec(self, method: str, bp: BenchPage, drafts: Drafts, spec: SpecConfig) -> MethodRun:
        result, out = self.converter(method, spec).verify(drafts.prepared)
        return MethodRun(
            method,
            chosen=result.method,
            tokens=len(out.tokens),
            steps=result.steps,
            stage1_steps=out.stage1.steps if out.stage1 else 0,
            seq_steps=result.seq_steps,
            accepted=result.accepted,
            drafted=sum(s.drafted for s in (out.stage1, out.page) if s),
            t_draft=result.t_draft,
            t_prefill=result.t_prefill,
            t_decode=result.t_decode,
            t_total=result.t_total,
            truncated=out.truncated,
            token_ids=list(out.tokens),
            by_kind=by_kind(drafts.token_kinds, out.origins) if drafts.token_kinds else {},
        )


def _faster(old: MethodRun | None, new: MethodRun) -> MethodRun:
    """The repetition to keep: the fastest (others' load only ever adds time); errors win."""
    if old is None or new.error:
        return new if old is None or not old.error else old
    if old.error:
        return old
    return new if new.t_total < old.t_total else old


def _crop_refs(refs: list[str] | None, rate: float, rng: Random) -> list[str] | None:
    """What the oracle writes for a region crop: its span of the page truth, corrupted at `rate`
    (a model reading a crop sees less context than on the page, so it is not exact)."""
    return None if refs is None else [corrupt_text(r, rate, rng) for r in refs]
