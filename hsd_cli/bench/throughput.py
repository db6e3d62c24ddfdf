"""`hsd bench --batch-pages 1,4,8,16`: every page through `ar` and each method at every batch
size, pages sharing forward passes as `hsd convert --batch-pages` shares them.

Per method and batch size: decode tokens per second (all pages' tokens over the run's wall time
less its prefills: the batch's prefills run one after another, its decode steps are shared) and
pages per minute with everything charged (render and drafts from the prepare stage, prefill,
decode), forward passes, rows per forward pass and tree tokens per forward pass.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from rich.console import Console

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
class BatchRun:
    """One method over every page at one batch size."""

    method: str
    batch_pages: int
    pages: int
    tokens: int
    wall_s: float  # verify: prefills and shared decode steps
    prefill_s: float
    prepare_s: float  # render + drafts of the pages (charged to every method that needs them)
    forward_passes: int
    rows: int  # rows summed over forward passes
    tree_tokens: int  # tree tokens summed over forward passes (rows x their root + draft nodes)
    computed: int  # tokens the passes computed: each pass's rows x its widest tree (padding included)
    identical: int  # pages whose tokens equal AR's at batch 1
    pass_s: float  # the forward passes' wall time (each step: forward, accept, commit)
    priced_s: float | None  # what the target's cost model charges for those passes (None: no model)

    @property
    def decode_tokens_per_s(self) -> float:
        return self.tokens / max(self.wall_s - self.prefill_s, 1e-9)

    @property
    def pages_per_min(self) -> float:
        return 60.0 * self.pages / max(self.wall_s + self.prepare_s, 1e-9)


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
    methods = ("ar", *(m for m in cfg.methods if m != "ar"))
    for method in methods:  # untimed warm-up, one page
        list(
            bench.converter(method, replace(spec, max_new_tokens=WARMUP_TOKENS)).verify_many([(0, drafts[0].prepared)])
        )
    runs, reference = [], None
    for size in cfg.batch_pages:
        for method in methods:
            # The curve only if the run has one (measured or read): pricing must not measure one.
            run, tokens = _one(bench, method, spec, size, drafts, reference, target.__dict__.get("cost"))
            reference = reference or tokens  # AR at the first batch size
            runs.append(run)
            err.print(
                f"{method} @ {size}: {run.decode_tokens_per_s:.1f} decode tok/s, {run.pages_per_min:.2f} pages/min"
            )
    return _report(cfg, target, pages, skipped, clock, runs)


def _one(bench: Bench, method: str, spec, size: int, drafts, reference, cost=None) -> tuple[BatchRun, list]:
    """`method` over every page at batch `size`; `cost`: the target's measured curve, to price the passes."""
    conv = bench.converter(method, spec)
    t0 = time.perf_counter()
    outs = dict(conv.verify_many([(i, d.prepared) for i, d in enumerate(drafts)], pages=size))
    wall = time.perf_counter() - t0
    failed = [o for o in outs.values() if isinstance(o, BaseException)]
    if failed:
        raise failed[0]
    results = [outs[i] for i in range(len(drafts))]
    tokens = [list(out.tokens) for _, out in results]
    per_step = conv.last_batcher.rows_per_step
    drafted = sum(s.drafted for _, out in results for s in (out.stage1, out.page) if s)
    uses_drafts = method != "ar"
    prepare = sum(d.prepared.t_render + (d.prepared.t_draft if uses_drafts else 0.0) for d in drafts)
    run = BatchRun(
        method,
        size,
        len(drafts),
        sum(map(len, tokens)),
        wall,
        sum(r.t_prefill for r, _ in results),
        prepare,
        len(per_step),
        sum(per_step),
        sum(per_step) + drafted,
        sum(conv.last_batcher.padded_per_step),
        sum(t == ref for t, ref in zip(tokens, reference or tokens, strict=True)),
        sum(conv.last_batcher.seconds_per_step),
        _priced(cost, conv.last_batcher),
    )
    return run, tokens


def _priced(cost, batcher) -> float | None:
    """Seconds `cost` charges for the batcher's passes, each at its rows, padded width and cache
    length (None without a measured curve)."""
    if cost is None:
        return None
    passes = zip(batcher.rows_per_step, batcher.padded_per_step, batcher.slots_per_step, strict=True)
    return sum(cost.step(r, max(1, p // r), c) for r, p, c in passes if r)


def _report(cfg, target, pages, skipped, clock, runs: list[BatchRun]) -> int:
    ar = {r.batch_pages: r for r in runs if r.method == "ar"}
    rows = [_row(r, ar.get(r.batch_pages)) for r in runs]
    # The tokens every run is held to: AR's at the first batch size measured.
    columns = (*COLUMNS, f"identical to ar@{cfg.batch_pages[0]}")
    title = f"hsd bench: throughput, oracle={cfg.oracle}, max {cfg.max_new_tokens} new tokens, batch sizes " + ",".join(
        map(str, cfg.batch_pages)
    )
    print_table(title, columns, rows)
    info = machine_info(target.device.type, clock)
    notes = [target_note(cfg, target), *run_notes(cfg, len(pages), skipped)]
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
    bad = [r for r in runs if r.identical < r.pages]
    return 1 if bad and cfg.tau >= 1.0 else 0


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
        "decode_tokens_per_s": r.decode_tokens_per_s,
        "pages_per_min": r.pages_per_min,
        "forward_passes": r.forward_passes,
        "rows_per_step": r.rows / max(r.forward_passes, 1),
        "tree_tokens_per_step": r.tree_tokens / max(r.forward_passes, 1),
        "computed_tokens_per_step": r.computed / max(r.forward_passes, 1),
        "identical_to_ar": r.identical,
        "pass_s": r.pass_s,
        "priced_pass_s": r.priced_s,
    }
