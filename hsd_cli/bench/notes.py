"""Lines every benchmark run prints or writes: progress, notes, the lossless check."""

from __future__ import annotations

from rich.console import Console

from hsd_cli.bench.config import BenchConfig
from hsd_cli.bench.records import PageBench
from hsd_cli.bench.report import ORACLE_NOTE


def run_notes(cfg: BenchConfig, n_pages: int, skipped: list[str]) -> list[str]:
    notes = [ORACLE_NOTE] if cfg.oracle else []
    caps = f"at most {cfg.max_new_tokens} new tokens per page and per Stage-1 region"
    if cfg.max_pages or cfg.pages:
        caps += f"; pages {cfg.pages or 'all'}, at most {cfg.max_pages or 'all'} per document"
    notes.append(f"{n_pages} pages measured ({caps}); {len(skipped)} documents/pages skipped (reasons in the JSON)")
    if cfg.noise is not None:
        notes.append("drafts = the reference corrupted at the noise rate (no draft pipeline ran; draft time 0)")
    else:
        notes.append(
            "drafts from the real draft pipeline on the real page image, made once per page and "
            "charged to every speculative method"
        )
    if cfg.max_pixels is not None:
        notes.append(
            f"the target sees each page image (and Stage-1 crop) downscaled to at most {cfg.max_pixels} "
            f"pixels, to keep vision prefill affordable; drafts still come from the {cfg.dpi}-dpi render"
        )
    notes.append(
        f"warm-up: {cfg.warmup} untimed run(s) of every method on the first page; "
        f"each method timed {cfg.repeat} time(s) per page (interleaved), the fastest run counts"
    )
    return notes


def coverage_note(results: list[PageBench]) -> list[str]:
    """How much of the truth the oracle's crop references hold (the rest no region drafted)."""
    pages = [r for r in results if r.ref_covered is not None and r.ref_tokens]
    if not pages:
        return []
    covered, total = sum(r.ref_covered for r in pages), sum(r.ref_tokens for r in pages)
    return [
        f"oracle crop references: each region crop's reference is its region's span of the page truth "
        f"(matched on the text without markup); together they cover {covered / total:.0%} of the "
        f"{total} reference tokens; the rest (model-only) the target writes only on the page"
    ]


def target_note(cfg: BenchConfig, target) -> str:
    """Which model ran, so a reader sees at once whether it was a tiny random-weight one."""
    params = sum(p.numel() for p in target.model.parameters())
    dtype = str(target.model.dtype).removeprefix("torch.")
    return f"target: {cfg.model} ({target.family.model_type}, {params / 1e6:.2f}M parameters, {dtype}, {target.device})"


def progress_line(r: PageBench) -> str:
    runs = " | ".join(
        f"{m}: failed" if run.error else f"{m}: {run.tokens} tok, {run.steps} steps, {run.t_total:.1f}s"
        for m, run in r.runs.items()
    )
    return f"{r.source} p{r.page} [{r.kind}] {runs}"


def lossless_exit(cfg: BenchConfig, results: list[PageBench], err: Console) -> int:
    """At tau = 1 every method must reproduce AR; say where it did not."""
    if cfg.tau < 1.0:
        return 0
    bad = [(r, m) for r in results for m, run in r.runs.items() if run.identical_to_ar is False]
    for r, m in bad:
        err.print(f"hsd bench: {m} differs from AR on {r.source} page {r.page}")
    return 1 if bad else 0
