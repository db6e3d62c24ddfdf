"""Document and run summaries: additive totals over page results, and the exit-code rule."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from enum import Enum

from hsd_cli.datatypes import PageResult, PageStatus, aal

EXIT_OK, EXIT_FAILED = 0, 1


class DocStatus(str, Enum):
    OK = "ok"  # every selected page is ok
    TRUNCATED = "truncated"  # every selected page is ok or truncated, at least one truncated
    FAILED = "failed"  # the document could not be opened or written, or a page failed
    INCOMPLETE = "incomplete"  # the run was interrupted before all pages were done
    SKIPPED = "skipped"  # nothing to do: no page of the document is in --pages


@dataclass(frozen=True, slots=True)
class Totals:
    """Sums over pages; speedups are ratios of summed times over the pages that had a baseline."""

    pages: int = 0
    tokens: int = 0
    steps: int = 0  # target forward passes
    seq_steps: int = 0  # per-sequence steps: a batched forward is one step of each row
    accepted: int = 0
    t_render: float = 0.0
    t_draft: float = 0.0
    t_prefill: float = 0.0
    t_decode: float = 0.0
    t_total: float = 0.0
    baseline_pages: int = 0  # pages with sr_decode / sr_e2e (an AR baseline ran)
    identical_pages: int = 0  # baseline pages whose output equals AR
    t_decode_spec: float = 0.0  # spec decode time on baseline pages
    t_decode_ar: float = 0.0  # = sr_decode * t_decode, summed
    t_total_spec: float = 0.0
    t_total_ar: float = 0.0  # = sr_e2e * t_total, summed

    @property
    def aal(self) -> float:
        return aal(self.accepted, self.seq_steps)

    @property
    def sr_decode(self) -> float | None:
        return self.t_decode_ar / self.t_decode_spec if self.t_decode_spec > 0 else None

    @property
    def sr_e2e(self) -> float | None:
        return self.t_total_ar / self.t_total_spec if self.t_total_spec > 0 else None


@dataclass(frozen=True, slots=True)
class DocSummary:
    """Outcome of one document in this run."""

    source: str
    key: str  # output path below out/ without suffix
    status: DocStatus
    pages: int  # pages selected for this run (0 when the document could not be opened)
    statuses: dict[str, int] = field(default_factory=dict)  # PageStatus value -> count
    failed_pages: tuple[int, ...] = ()
    resumed: int = 0  # pages taken from an earlier run's reports
    totals: Totals = field(default_factory=Totals)
    error: str = ""


@dataclass(frozen=True, slots=True)
class RunSummary:
    """Outcome of one `hsd convert` run; `exit_code` is the CLI's exit status."""

    documents: tuple[DocSummary, ...]
    options: dict[str, object]
    shard: tuple[int, int] = (1, 1)
    interrupted_by: int = 0  # signal number that stopped the run, 0 when it ran to the end
    error: str = ""  # why the run stopped before its documents (model not found, ...)
    error_code: int = 0  # that error's exit code

    @property
    def totals(self) -> Totals:
        return sum_totals(d.totals for d in self.documents)

    @property
    def exit_code(self) -> int:
        # 128 + signal number is the shell's convention: 130 SIGINT, 143 SIGTERM.
        if self.interrupted_by:
            return 128 + self.interrupted_by
        if self.error_code:
            return self.error_code
        failed = any(d.status is DocStatus.FAILED for d in self.documents)
        return EXIT_FAILED if failed else EXIT_OK


def page_totals(r: PageResult) -> Totals:
    """Totals of one page; counts come from the per-step histogram when there is one."""
    seq_steps = len(r.accepted_hist) if r.accepted_hist else r.steps
    accepted = sum(r.accepted_hist) if r.accepted_hist else round(r.aal * r.steps)
    has_base = r.sr_decode is not None or r.sr_e2e is not None
    return Totals(
        pages=1, tokens=r.tokens, steps=r.steps, seq_steps=seq_steps, accepted=accepted,
        t_render=r.t_render, t_draft=r.t_draft, t_prefill=r.t_prefill,
        t_decode=r.t_decode, t_total=r.t_total,
        baseline_pages=int(has_base), identical_pages=int(bool(r.identical_to_ar)),
        t_decode_spec=spec_decode_time(r) if r.sr_decode is not None else 0.0,
        t_decode_ar=(r.sr_decode or 0.0) * spec_decode_time(r),
        t_total_spec=r.t_total if r.sr_e2e is not None else 0.0,
        t_total_ar=(r.sr_e2e or 0.0) * r.t_total,
    )  # fmt: skip


def spec_decode_time(r: PageResult) -> float:
    """T_decode of a spec method (paper 4.2): draft generation plus every decode loop, no prefill."""
    return r.t_draft + r.t_decode


def sum_totals(items: Iterable[Totals]) -> Totals:
    """Field-wise sum."""
    acc = {f.name: f.default for f in fields(Totals)}
    for t in items:
        for name in acc:
            acc[name] += getattr(t, name)
    return Totals(**acc)


def summarize_document(
    source: str, key: str, pages: int, results: Iterable[PageResult], resumed: int = 0
) -> DocSummary:
    """Summary of one document from the results of its selected pages (done so far)."""
    results = list(results)
    statuses = {s.value: 0 for s in PageStatus}
    for r in results:
        statuses[PageStatus(r.status).value] += 1
    failed = tuple(r.page for r in results if r.status == PageStatus.FAILED)
    if failed:
        status = DocStatus.FAILED
    elif len(results) < pages:
        status = DocStatus.INCOMPLETE
    else:
        truncated = any(r.status == PageStatus.TRUNCATED for r in results)
        status = DocStatus.TRUNCATED if truncated else DocStatus.OK
    totals = sum_totals(page_totals(r) for r in results)
    return DocSummary(source, key, status, pages, statuses, failed, resumed, totals)


def failed_document(source: str, key: str, error: str) -> DocSummary:
    """Summary of a document that could not be opened or written."""
    return DocSummary(source, key, DocStatus.FAILED, 0, error=error)


def skipped_document(source: str, key: str, reason: str) -> DocSummary:
    """Summary of a document with nothing to do in this run (e.g. no page in --pages)."""
    return DocSummary(source, key, DocStatus.SKIPPED, 0, error=reason)
