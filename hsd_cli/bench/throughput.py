"""`hsd bench --batch-pages 1,4,8,16`: every page through `ar` and each method at every batch
size, pages sharing forward passes as `hsd convert --batch-pages` shares them.

Per method and batch size: decode tokens per second (all pages' tokens over the run's wall time
less its prefills and its waits for prepared pages: the batch's prefills run one after another,
its decode steps are shared) and pages per minute with everything charged (render and drafts
from the prepare stage, prefill, decode), forward passes, rows per forward pass and tree tokens
per forward pass. Pages are prepared once beforehand and their prepare seconds added to each
run's; with `--workers N` every run prepares its pages again in N background processes beside
verification, as `hsd convert --workers N` does, and pages per minute is its wall time.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from rich.console import Console

from hsd_cli.bench.config import BASELINE, baseline_first
from hsd_cli.bench.feed import Feed
from hsd_cli.bench.machine import machine_info, machine_line
from hsd_cli.bench.notes import run_notes, target_note
from hsd_cli.bench.records import PageBench
from hsd_cli.bench.report import markdown_table, print_table, section_header, write_outputs
from hsd_cli.bench.run import WARMUP_TOKENS, Bench
from hsd_cli.targets.runtime.load import LoadClock

COLUMNS = (
    "method",
    "batch",
    "pages",
    "decode tok/s",
    "pages/min",
    "x ar (same batch)",
    "forward passes",
    "rows/pass",
    "tree tok/pass",
    "computed tok/pass",
    "s/pass (priced)",
)


@dataclass(frozen=True, slots=True)
class PageRun:
    """One page of a run: where a batch's passes went (its longest row sets how many there are)."""

    page: str  # file name and page number
    method: str  # what decoded it: `ar` for a page that started before its drafts and never got them
    tokens: int
    row_steps: int  # passes its page row took part in (sequence steps)
    stage1_steps: int  # passes its Stage-1 region rows took part in
    accepted: int  # draft tokens accepted on its page row
    t_prefill: float
    t_draft: float  # seconds its drafts took to make (in a worker, beside the decode)

    @classmethod
    def of(cls, r) -> PageRun:
        stage1 = len(r.stage1.accepted_hist) if r.stage1 else 0
        name = f"{Path(r.source).name}#{r.page}"
        return cls(name, r.method, r.tokens, r.seq_steps, stage1, r.accepted, r.t_prefill, r.t_draft)


@dataclass(frozen=True, slots=True)
class BatchRun:
    """One method over every page at one batch size."""

    method: str
    batch_pages: int
    pages: int
    tokens: int
    wall_s: float  # verify: prefills, shared decode steps and waits for prepared pages
    prefill_s: float
    prepare_s: float  # render + drafts of the pages (charged to every method that needs them)
    wait_s: float  # verify waited for the prepare stage (with workers: their drafts were not ready)
    overlapped: bool  # prepared beside verification (wall_s holds it) or beforehand (prepare_s added)
    drafts_differ: int  # pages the workers drafted otherwise than the bench did (should be 0)
    forward_passes: int
    rows: int  # rows summed over forward passes
    tree_tokens: int  # tree tokens summed over forward passes (rows x their root + draft nodes)
    computed: int  # tokens the passes computed: each pass's rows x its widest tree (padding included)
    identical: int  # pages whose tokens equal AR's at batch 1
    pass_s: float  # the forward passes' wall time (each step: forward, accept, commit)
    priced_s: float | None  # what the target's cost model charges for those passes (None: no model)
    per_page: tuple[PageRun, ...] = ()
    captures: int = 0  # CUDA graphs captured during the run (static_step.StepRunner), in pass_s
    capture_s: float = 0.0
    # ms a pass by phase (spec/clock.py: the host's time; on a GPU `readback` waits for the device)
    phases_ms: tuple[tuple[str, float], ...] = ()

    @property
    def decode_tokens_per_s(self) -> float:
        return self.tokens / max(self.wall_s - self.prefill_s - self.wait_s, 1e-9)

    @property
    def pages_per_min(self) -> float:
        return 60.0 * self.pages / max(self.wall_s + (0.0 if self.overlapped else self.prepare_s), 1e-9)


def run_throughput(cfg, target, pages, skipped: list[str], clock: LoadClock) -> int:
    """Every method at every batch size, in one process; table, JSON and results section."""
    err = Console(stderr=True)
    bench = Bench(cfg, target)
    drafts = [bench.drafts(bp) for bp in pages]
    if cfg.oracle:
        bench.target.clear()
        for bp, d in zip(pages, drafts, strict=True):
            bench.expect(bp, d, PageBench(str(bp.page.source), bp.page.number, bp.kind, d.prepared.draft_source))
    spec = cfg.spec()
    methods = baseline_first(cfg.methods)
    for method in methods:  # untimed warm-up, one page
        list(
            bench.converter(method, replace(spec, max_new_tokens=WARMUP_TOKENS)).verify_many([(0, drafts[0].prepared)])
        )
    runs, reference = [], None
    planned = len(cfg.batch_pages) * len(methods)
    for size in cfg.batch_pages:
        work = filled(drafts, size * cfg.fill)
        for method in methods:
            # The curve only if the run has one (measured or read): pricing must not measure one.
            run, tokens = _one(bench, method, spec, size, work, reference, target.__dict__.get("cost"))
            reference = reference or tokens[: len(drafts)]  # AR at the first batch size
            runs.append(run)
            err.print(
                f"{method} @ {size}: {run.decode_tokens_per_s:.1f} decode tok/s, {run.pages_per_min:.2f} pages/min"
            )
            # Written after every run: a run cut short (a lease's end, a kill) keeps what it measured.
            title, columns, rows = _write(cfg, target, pages, skipped, clock, runs, planned)
    print_table(title, columns, rows)
    bad = [r for r in runs if r.identical < r.pages]
    return 1 if bad and cfg.tau >= 1.0 else 0


def filled(pages: list, n: int) -> list:
    """`pages`, then again from the first, until there are `n` (`--fill`: a batch's rows that
    finish are refilled, as in a folder conversion, instead of the run ending with its first batch)."""
    return [pages[i % len(pages)] for i in range(max(n, len(pages)))]


def _one(bench: Bench, method: str, spec, size: int, drafts, reference, cost=None) -> tuple[BatchRun, list]:
    """`method` over every page at batch `size`; `reference`: each distinct page's tokens (the
    pages repeat past them); `cost`: the target's measured curve, to price the passes."""
    conv = bench.converter(method, spec)
    feed = Feed(conv, drafts, bench.cfg.workers)
    before = _captures(bench.target)
    t0 = time.perf_counter()
    outs = dict(conv.verify_many(feed, pages=size))
    wall = time.perf_counter() - t0
    captured = [now - then for now, then in zip(_captures(bench.target), before, strict=True)]
    failed = [o for o in outs.values() if isinstance(o, BaseException)]
    if failed:
        raise failed[0]
    results = [outs[i] for i in range(len(drafts))]
    tokens = [list(out.tokens) for _, out in results]
    per_step = conv.last_batcher.rows_per_step
    drafted = sum(s.drafted for _, out in results for s in (out.stage1, out.page) if s)
    ref = reference or tokens  # each distinct page's tokens; a page's copies are held to them
    run = BatchRun(
        method,
        size,
        len(drafts),
        sum(map(len, tokens)),
        wall,
        sum(r.t_prefill for r, _ in results),
        feed.prepare_s,
        feed.wait_s,
        feed.workers > 0,
        feed.differ,
        len(per_step),
        sum(per_step),
        sum(per_step) + drafted,
        sum(conv.last_batcher.padded_per_step),
        sum(t == ref[i % len(ref)] for i, t in enumerate(tokens)),
        sum(conv.last_batcher.seconds_per_step),
        _priced(cost, conv.last_batcher),
        tuple(PageRun.of(r) for r, _ in results),
        *captured,
        _phases(conv.last_batcher),
    )
    return run, tokens


def _phases(batcher) -> tuple[tuple[str, float], ...]:
    """The batch's passes' ms a pass by phase of the loop's clock."""
    passes = max(len(batcher.seconds_per_step), 1)
    return tuple((name, 1000 * s / passes) for name, s in batcher.stepper.clock.seconds.items())


def _captures(target) -> tuple[int, float]:
    """CUDA graphs the target's engine captured so far, and their seconds (0 without graphs)."""
    runner = getattr(getattr(target, "static_engine", None), "runner", None)
    return (runner.captures, runner.capture_s) if runner is not None else (0, 0.0)


def _priced(cost, batcher) -> float | None:
    """Seconds `cost` charges for the batcher's passes, each at its rows, padded width and cache
    length (None without a measured curve)."""
    if cost is None:
        return None
    passes = zip(batcher.rows_per_step, batcher.padded_per_step, batcher.slots_per_step, strict=True)
    return sum(cost.step(r, max(1, p // r), c) for r, p, c in passes if r)


def _write(cfg, target, pages, skipped, clock, runs: list[BatchRun], planned: int) -> tuple[str, tuple, list]:
    """The JSON and results section of the runs so far (`planned` in all); the table's title, columns, rows."""
    ar = {r.batch_pages: r for r in runs if r.method == BASELINE}
    rows = [_row(r, ar.get(r.batch_pages)) for r in runs]
    # The tokens every run is held to: AR's at the first batch size measured.
    columns = (*COLUMNS, f"identical to ar@{cfg.batch_pages[0]}")
    title = f"hsd bench: throughput, oracle={cfg.oracle}, max {cfg.max_new_tokens} new tokens, batch sizes " + ",".join(
        map(str, cfg.batch_pages)
    )
    info = machine_info(target.device.type, clock)
    notes = [target_note(cfg, target), *run_notes(cfg, len(pages), skipped), _prepare_note(cfg.workers, runs)]
    if len(runs) < planned:
        notes.append(f"partial: {len(runs)} of {planned} runs written; the command did not finish")
    wall = clock.elapsed()
    body = section_header(title, cfg.command_line(), machine_line(info), wall, notes)
    body += "\n" + markdown_table(columns, rows) + "\n"
    data = {
        "command": cfg.command_line(),
        "machine": info,
        "wall_s": wall,
        "notes": notes,
        "totals": [_json(r) for r in runs],
        "pass_prices": target.pass_prices.summary(),  # what the run's passes took against their price
    }
    size = f"-fullsize-{cfg.full_size}" if cfg.full_size else ""
    section = f"throughput{size}-{cfg.max_new_tokens}"
    write_outputs(cfg.json_path, cfg.markdown_path, section, body, data, target.device.type)
    return title, columns, rows


def _prepare_note(workers: int, runs: list[BatchRun]) -> str:
    """How pages/min charges the prepare stage."""
    if not workers:
        return (
            "pages/min: the pages' render and drafts, made beforehand, added to each run's verify time "
            "(prepared one after another, as hsd convert --workers 0)"
        )
    differ = sum(r.drafts_differ for r in runs)
    return (
        f"pages/min: the run's wall time, each run rendering and drafting its pages again in {workers} "
        f"background process(es) beside verification, as hsd convert --workers {workers} (a page starts "
        f"once rendered and its drafts join it when made; ar, without drafts, renders inline); the model's "
        f"torch threads take the cores no worker drafts on; decode "
        f"tok/s leaves out the waits for prepared pages; pages the workers drafted otherwise than the "
        f"bench: {differ}"
    )


def _row(r: BatchRun, ar: BatchRun | None) -> list[str]:
    ratio = f"{r.decode_tokens_per_s / ar.decode_tokens_per_s:.2f}x" if ar else "-"
    passes = max(r.forward_passes, 1)
    return [
        r.method,
        str(r.batch_pages),
        str(r.pages),
        f"{r.decode_tokens_per_s:.1f}",
        f"{r.pages_per_min:.2f}",
        ratio,
        str(r.forward_passes),
        f"{r.rows / passes:.2f}",
        f"{r.tree_tokens / passes:.1f}",
        f"{r.computed / passes:.1f}",
        f"{r.pass_s / passes:.3f}" + (f" ({r.priced_s / passes:.3f})" if r.priced_s is not None else ""),
        f"{r.identical}/{r.pages}",
    ]


def _json(r: BatchRun) -> dict:
    return {
        "method": r.method,
        "batch_pages": r.batch_pages,
        "pages": r.pages,
        "tokens": r.tokens,
        "wall_s": r.wall_s,
        "prefill_s": r.prefill_s,
        "prepare_s": r.prepare_s,
        "wait_s": r.wait_s,
        "prepared_beside": r.overlapped,
        "drafts_differ": r.drafts_differ,
        "decode_tokens_per_s": r.decode_tokens_per_s,
        "pages_per_min": r.pages_per_min,
        "forward_passes": r.forward_passes,
        "rows_per_step": r.rows / max(r.forward_passes, 1),
        "tree_tokens_per_step": r.tree_tokens / max(r.forward_passes, 1),
        "computed_tokens_per_step": r.computed / max(r.forward_passes, 1),
        "identical_to_ar": r.identical,
        "pass_s": r.pass_s,
        "priced_pass_s": r.priced_s,
        "captures": r.captures,
        "capture_s": r.capture_s,
        "phases_ms": dict(r.phases_ms),
        "per_page": [asdict(p) for p in r.per_page],
    }
