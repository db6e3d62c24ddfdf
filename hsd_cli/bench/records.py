"""What one method did on one page, and totals over pages (sums first, ratios last)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce

from hsd_cli import metrics
from hsd_cli.bench.acceptance import KindCount, add_counts
from hsd_cli.bench.config import BASELINE


@dataclass(frozen=True, slots=True)
class MethodRun:
    """One method on one page. Times in seconds; `error` set means the method failed there."""

    method: str
    chosen: str = ""  # the method that ran (auto picks page or hsd per page)
    tokens: int = 0
    steps: int = 0  # target forward passes in the decode loop (prefill excluded)
    stage1_steps: int = 0  # hsd: the part of `steps` spent on the batched region crops
    seq_steps: int = 0  # sequence-steps: a batched Stage-1 forward counts once per row
    accepted: int = 0  # accepted draft tokens, summed over sequence-steps
    drafted: int = 0  # draft tokens sent to the target (tree nodes below the roots), summed
    t_draft: float = 0.0
    t_prefill: float = 0.0
    t_decode: float = 0.0  # every decode loop (Stage 1 and 2); no drafting, no prefill
    t_total: float = 0.0  # T_full: drafts + every prefill + every decode loop
    identical_to_ar: bool | None = None
    truncated: bool = False
    error: str = ""
    token_ids: list[int] = field(default_factory=list, repr=False)  # not written to JSON
    by_kind: dict[str, KindCount] = field(default_factory=dict)  # oracle mode: output tokens per region kind

    @property
    def aal(self) -> float:
        return metrics.aal(self.accepted, self.seq_steps)

    @property
    def t_decode_spec(self) -> float:
        """T_decode: drafts + every decode loop."""
        return metrics.decode_time(self.t_draft, self.t_decode)


@dataclass(slots=True)
class PageBench:
    """Every method on one page."""

    source: str
    page: int
    kind: str  # born-digital / scanned / image
    draft_source: str = ""
    ref_tokens: int | None = None  # oracle mode: reference length
    ref_covered: int | None = None  # oracle mode: reference tokens inside some region's span (crop references)
    draft_ned: float | None = None  # oracle mode: normalized edit distance draft page vs reference
    runs: dict[str, MethodRun] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class MethodTotals(metrics.SummedRatios):
    """A method summed over the pages where it ran; the *_spec / *_ar sums only over the pages
    where AR ran too, so each speedup compares the same pages."""

    method: str
    pages: int = 0
    tokens: int = 0
    steps: int = 0
    stage1_steps: int = 0
    seq_steps: int = 0
    accepted: int = 0
    drafted: int = 0
    t_draft: float = 0.0
    baseline_pages: int = 0  # pages where AR ran too
    steps_spec: int = 0
    steps_ar: int = 0
    t_decode_spec: float = 0.0  # T_decode of this method (drafts + decode loops)
    t_decode_ar: float = 0.0  # T_decode of AR on the same pages
    t_total_spec: float = 0.0
    t_total_ar: float = 0.0
    identical: int = 0
    compared: int = 0
    errors: tuple[str, ...] = ()
    by_kind: dict[str, KindCount] = field(default_factory=dict)

    @property
    def tree_tokens(self) -> float:
        """Tokens per sequence-step in the verification forward: the root plus its draft nodes."""
        return 1 + self.drafted / self.seq_steps if self.seq_steps else 0.0


def totals(pages: list[PageBench], methods: tuple[str, ...]) -> list[MethodTotals]:
    """Per method, over the pages where it ran; failures are listed, not summed."""
    return [_method_totals(method, pages) for method in methods]


def _method_totals(method: str, pages: list[PageBench]) -> MethodTotals:
    ran = [(p.runs[method], p.runs.get(BASELINE)) for p in pages if method in p.runs]
    ok = [(run, ar) for run, ar in ran if not run.error]
    paired = [(run, ar) for run, ar in ok if ar is not None and not ar.error]
    compared = [run.identical_to_ar for run, _ in ok if run.identical_to_ar is not None]
    return MethodTotals(
        method,
        pages=len(ok),
        tokens=sum(r.tokens for r, _ in ok),
        steps=sum(r.steps for r, _ in ok),
        stage1_steps=sum(r.stage1_steps for r, _ in ok),
        seq_steps=sum(r.seq_steps for r, _ in ok),
        accepted=sum(r.accepted for r, _ in ok),
        drafted=sum(r.drafted for r, _ in ok),
        t_draft=sum(r.t_draft for r, _ in ok),
        baseline_pages=len(paired),
        steps_spec=sum(r.steps for r, _ in paired),
        steps_ar=sum(a.steps for _, a in paired),
        t_decode_spec=sum(r.t_decode_spec for r, _ in paired),
        t_decode_ar=sum(a.t_decode_spec for _, a in paired),
        t_total_spec=sum(r.t_total for r, _ in paired),
        t_total_ar=sum(a.t_total for _, a in paired),
        identical=sum(compared),
        compared=len(compared),
        errors=tuple(r.error for r, _ in ran if r.error),
        by_kind=reduce(add_counts, (r.by_kind for r, _ in ok), {}),
    )
