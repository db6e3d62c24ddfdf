"""What one method did on one page, and totals over pages (sums first, ratios last)."""

from __future__ import annotations

from dataclasses import dataclass, field

from hsd_cli.datatypes import aal


@dataclass(slots=True)
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
    t_decode_loop: float = 0.0  # T_decode: drafts + every decode loop (Stage 1 and 2), no prefill
    t_full: float = 0.0  # T_full: drafts + every prefill + every decode loop
    identical_to_ar: bool | None = None
    truncated: bool = False
    error: str = ""
    token_ids: list[int] = field(default_factory=list, repr=False)  # not written to JSON

    @property
    def aal(self) -> float:
        return aal(self.accepted, self.seq_steps)


@dataclass(slots=True)
class PageBench:
    """Every method on one page."""

    source: str
    page: int
    kind: str  # born-digital / scanned / image
    draft_source: str = ""
    ref_tokens: int | None = None  # oracle mode: reference length
    draft_ned: float | None = None  # oracle mode: normalized edit distance draft page vs reference
    runs: dict[str, MethodRun] = field(default_factory=dict)


@dataclass(slots=True)
class MethodTotals:
    """A method summed over the pages where it and AR both ran."""

    method: str
    pages: int = 0
    tokens: int = 0
    steps: int = 0
    stage1_steps: int = 0
    seq_steps: int = 0
    accepted: int = 0
    drafted: int = 0
    t_draft: float = 0.0
    t_decode_loop: float = 0.0
    t_full: float = 0.0
    ar_decode_loop: float = 0.0
    ar_full: float = 0.0
    identical: int = 0
    compared: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def aal(self) -> float:
        return aal(self.accepted, self.seq_steps)

    @property
    def tree_tokens(self) -> float:
        """Tokens per sequence-step in the verification forward: the root plus its draft nodes."""
        return 1 + self.drafted / self.seq_steps if self.seq_steps else 0.0

    @property
    def sr_decode(self) -> float | None:
        """Sum of AR decode times over sum of this method's: a ratio of totals, not a mean of ratios."""
        return self.ar_decode_loop / self.t_decode_loop if self.t_decode_loop and self.ar_decode_loop else None

    @property
    def sr_e2e(self) -> float | None:
        return self.ar_full / self.t_full if self.t_full and self.ar_full else None


def totals(pages: list[PageBench], methods: tuple[str, ...]) -> list[MethodTotals]:
    """Per method, over the pages where it ran; failures are listed, not summed."""
    out = []
    for method in methods:
        tot = MethodTotals(method)
        for page in pages:
            run, ar = page.runs.get(method), page.runs.get("ar")
            if run is None:
                continue
            if run.error:
                tot.errors.append(run.error)
                continue
            _add(tot, run, ar)
        out.append(tot)
    return out


def _add(tot: MethodTotals, run: MethodRun, ar: MethodRun | None) -> None:
    tot.pages += 1
    tot.tokens += run.tokens
    tot.steps += run.steps
    tot.stage1_steps += run.stage1_steps
    tot.seq_steps += run.seq_steps
    tot.accepted += run.accepted
    tot.drafted += run.drafted
    tot.t_draft += run.t_draft
    if ar is not None and not ar.error:
        tot.t_decode_loop += run.t_decode_loop
        tot.t_full += run.t_full
        tot.ar_decode_loop += ar.t_decode_loop
        tot.ar_full += ar.t_full
    if run.identical_to_ar is not None:
        tot.compared += 1
        tot.identical += run.identical_to_ar
