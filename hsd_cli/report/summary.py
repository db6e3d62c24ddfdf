"""Document and run summaries: additive totals over page results, and the exit-code rule."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from enum import Enum

from hsd_cli.datatypes import PageResult, PageStatus
from hsd_cli.metrics import SummedRatios

EXIT_OK, EXIT_FAILED = 0, 1


class DocStatus(str, Enum):
    OK = "ok"  # every selected page is ok
    TRUNCATED = "truncated"  # every selected page is ok or truncated, at least one truncated
    DEGRADED = "degraded"  # every selected page is done, none failed, at least one degraded
    FAILED = "failed"  # the document could not be opened or written, or a page failed
    INCOMPLETE = "incomplete"  # the run was interrupted before all pages were done
    SKIPPED = "skipped"  # nothing to do: no page of the document is in --pages


@dataclass(frozen=True, slots=True)
class Totals(SummedRatios):
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
    baseline_pages: int = 0  # pages where an AR baseline ran
    identical_pages: int = 0  # baseline pages whose output equals AR
    speculation_off: int = 0  # pages that had drafts but ran as plain AR (PageResult.speculation_off)
    # Summed over baseline pages only, so each ratio compares the same pages
    steps_spec: int = 0
    steps_ar: int = 0  # the baseline's own forward passes
    t_decode_spec: float = 0.0  # T_decode (drafts + decode loops) of the page's method
    t_decode_ar: float = 0.0  # the baseline's own decode time, as stored on each page
    t_total_spec: float = 0.0
    t_total_ar: float = 0.0  # the baseline's own T_full, as stored on each page


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
    """Totals of one page, from its stored counts and times (the baseline's own, not ratios)."""
    base = r.has_baseline
    return Totals(
        pages=1,
        tokens=r.tokens,
        steps=r.steps,
        seq_steps=r.seq_steps,
        accepted=r.accepted,
        t_render=r.t_render,
        t_draft=r.t_draft,
        t_prefill=r.t_prefill,
        t_decode=r.t_decode,
        t_total=r.t_total,
        baseline_pages=int(base),
        identical_pages=int(bool(r.identical_to_ar)),
        speculation_off=int(r.speculation_off),
        steps_spec=r.steps if base else 0,
        steps_ar=r.steps_ar or 0,
        t_decode_spec=r.t_decode_spec if base else 0.0,
        t_decode_ar=r.t_decode_ar or 0.0,
        t_total_spec=r.t_total if base else 0.0,
        t_total_ar=r.t_total_ar or 0.0,
    )


def speculation_line(t: Totals) -> str:
    """One line naming the pages that ran with speculation effectively off ("" when none did)."""
    if not t.speculation_off:
        return ""
    pages = f"{t.speculation_off} of {t.pages} page{'s' if t.pages != 1 else ''}"
    return f"speculation was effectively off on {pages}: drafts were made but hardly verified (see speculation_note)"


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
    elif any(r.status == PageStatus.DEGRADED for r in results):
        status = DocStatus.DEGRADED
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
