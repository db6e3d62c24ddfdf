"""Ablation of the speculative knobs at realistic cost: which default each knob has, and why.

One target (a full-size random-weight network with `--full-size`, oracle-forced to the page's
ground truth), one prepare stage and one AR run per page; then every variant (the defaults with
one knob changed) runs every method on the same pages. Ratios are against that AR run.

    python benchmarks/ablation.py PAGES... --model HY_TOK --full-size hunyuan_vl --max-pixels 250000 \
        --max-new-tokens 192 --out-json benchmarks/results/ablation-cpu-hunyuan_vl.json

HY_TOK: a HunyuanOCR tokenizer directory (docs/benchmarks.md says how to build one).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch
from dashboard_format import table
from record import header
from record import write as save_report

from hsd_cli.bench.config import BenchConfig
from hsd_cli.bench.main import bench_target
from hsd_cli.bench.pages import collect_pages
from hsd_cli.bench.records import PageBench, totals
from hsd_cli.bench.run import Bench

VARIANTS: dict[str, dict[str, object]] = {
    "defaults": {},
    "--window 2": {"window": 2},
    "--window 4": {"window": 4},
    "--min-window 2": {"min_window": 2},
    "--min-window 3": {"min_window": 3},
    "--max-depth 12": {"max_depth": 12},
    "--max-depth 48": {"max_depth": 48},
    "--max-candidates 4": {"max_candidates": 4},
    "--max-candidates 16": {"max_candidates": 16},
    "--max-nodes 16": {"max_nodes": 16},
    "--max-nodes 128": {"max_nodes": 128},
    "--no-cost-trees": {"cost_aware": False},
    "--no-region-starts": {"region_starts": False},
}
COLUMNS = ("variant", "method", "steps", "AAL", "tree tok/step", "SR_decode", "SR_e2e", "= AR")


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    base = BenchConfig(
        inputs=tuple(args.inputs),
        model=args.model,
        methods=tuple(args.methods.split(",")),
        max_new_tokens=args.max_new_tokens,
        max_pages=1,
        oracle=True,
        full_size=args.full_size,
        max_pixels=args.max_pixels,
        device="cpu",
        dtype="fp32",
        threads=args.threads,
        warmup=0,
    )
    target = bench_target(base)
    pages, _ = collect_pages(base.inputs, None, 1, base.dpi, target.family.style)
    bench = Bench(base, target)
    per_variant: dict[str, list[PageBench]] = {name: [] for name in VARIANTS}
    for bp in pages:
        drafts = bench.drafts(bp)
        record = PageBench(str(bp.page.source), bp.page.number, bp.kind)
        bench._expect(bp, drafts, record)
        ar = bench._run_method("ar", bp, drafts, base.spec())
        for name, change in VARIANTS.items():
            cfg = replace(base, **change)
            bench.cfg = cfg
            runs = {m: bench._run_method(m, bp, drafts, cfg.spec()) for m in base.methods}
            for run in runs.values():
                run.identical_to_ar = run.token_ids == ar.token_ids
            per_variant[name].append(replace(record, runs={"ar": ar, **runs}))
            print(
                f"{bp.page.source.name} {name}: "
                + ", ".join(f"{m} {r.steps} steps {r.t_total:.1f}s" for m, r in runs.items()),
                file=sys.stderr,
            )
    _write(args, argv, base, target, per_variant, time.perf_counter() - started)


def _rows(per_variant: dict[str, list[PageBench]], methods: tuple[str, ...]) -> list[list[str]]:
    rows = []
    for name, pages in per_variant.items():
        for t in totals(pages, methods):
            rows.append(
                [
                    name,
                    t.method,
                    str(t.steps),
                    f"{t.aal:.2f}",
                    f"{t.tree_tokens:.1f}",
                    f"{t.sr_decode or 0:.2f}x",
                    f"{t.sr_e2e or 0:.2f}x",
                    f"{t.identical}/{t.compared}",
                ]
            )
    return rows


def _write(args, argv, cfg: BenchConfig, target, per_variant: dict[str, list[PageBench]], wall: float) -> None:
    rows = _rows(per_variant, cfg.methods)
    pages = len(next(iter(per_variant.values())))
    params = sum(p.numel() for p in target.model.parameters()) / 1e6
    notes = [
        f"target: {cfg.model} on a full-size random-weight {cfg.full_size} network ({params:.0f}M "
        f"parameters, float32, cpu), oracle-forced to each page's ground truth",
        f"{pages} pages, at most {cfg.max_new_tokens} new tokens; the page image the target sees is "
        f"at most {cfg.max_pixels} pixels; drafts from the real pipeline, charged to every method",
        "each variant = the defaults with one knob changed; one AR run per page is the baseline of all",
    ]
    print("\n".join(notes) + "\n\n" + table(COLUMNS, rows))
    if args.out_json:
        data = header("ablation.py", sys.argv[1:] if argv is None else argv) | {"wall_s": wall, "notes": notes}
        save_report(args.out_json, data | {"rows": [dict(zip(COLUMNS, r, strict=False)) for r in rows]})


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("inputs", nargs="+", type=Path)
    p.add_argument("--model", required=True)
    p.add_argument("--full-size", default=None)
    p.add_argument("--max-pixels", type=int, default=None)
    p.add_argument("--max-new-tokens", type=int, default=256)
    p.add_argument("--methods", default="page,hsd")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out-json", type=Path, default=None)
    return p.parse_args(argv)


if __name__ == "__main__":
    main()
