"""`hsd bench` entry: full-size timing, a noise sweep, or one measured run over the inputs."""

from __future__ import annotations

import os
from dataclasses import asdict, replace

from rich.console import Console

from hsd_cli.bench.config import BenchConfig, baseline_first
from hsd_cli.bench.machine import busy_warning, machine_info, machine_line
from hsd_cli.bench.notes import coverage_note, lossless_exit, progress_line, run_notes, target_note
from hsd_cli.bench.pages import BenchPage, collect_pages
from hsd_cli.bench.report import (
    COLUMNS,
    group_totals,
    kind_table,
    markdown_table,
    page_json,
    print_table,
    section_header,
    table_rows,
    totals_json,
    write_outputs,
)
from hsd_cli.bench.run import Bench
from hsd_cli.errors import HsdError
from hsd_cli.targets.runtime.load import LoadClock


def bench(cfg: BenchConfig) -> int:
    """Run what `cfg` asks for; the exit code is 1 when a lossless method differs from AR."""
    clock = LoadClock.start()
    import torch

    torch.set_num_threads(cfg.threads or os.cpu_count() or 1)  # pinned, and recorded with the machine
    code = _run(cfg, clock)
    warning = busy_warning(clock.others_busy(), os.cpu_count() or 0)
    if warning:
        Console(stderr=True).print(f"[yellow]warning:[/] {warning}")
    return code


def _run(cfg: BenchConfig, clock: LoadClock) -> int:
    if cfg.full_size and not cfg.inputs:
        from hsd_cli.bench.cost import run_cost

        return run_cost(cfg, clock)
    target = bench_target(cfg)
    style = target.family.style if cfg.oracle else None
    pages, skipped = collect_pages(cfg.inputs, cfg.pages, cfg.max_pages, cfg.dpi, style)
    if not pages:
        raise HsdError("no pages to benchmark" + (f" ({skipped[0]})" if skipped else ""))
    if cfg.noise_sweep:
        from hsd_cli.bench.sweep import run_sweep

        return run_sweep(cfg, target, pages, skipped, clock)
    if cfg.batch_pages:
        from hsd_cli.bench.throughput import run_throughput

        return run_throughput(cfg, target, pages, skipped, clock)
    return run_single(cfg, target, pages, skipped, clock)


def bench_target(cfg: BenchConfig):
    """The target a run measures: `--model` (on a full-size network with --full-size), its image
    capped by --max-pixels, its cost curve measured now, not inside the first timed run."""
    from hsd_cli.targets.runtime.registry import load_target

    target = load_target(cfg.model, cfg.device, cfg.dtype, cfg.graphs)
    if cfg.full_size:
        from hsd_cli.bench.fullsize import full_size_target

        target = full_size_target(target, cfg.full_size)
    if cfg.max_pixels is not None:
        target.family = replace(target.family, max_pixels=cfg.max_pixels)
    if cfg.cost_aware and cfg.knobs.cost_model == "measured":
        target.cost  # measured (or read from the cache)  # noqa: B018
        if {"hsd", "auto"} & set(cfg.methods):
            target.prefill_cost  # prices Stage-1 crops: measured now too  # noqa: B018
    return target


def run_single(cfg: BenchConfig, target, pages: list[BenchPage], skipped: list[str], clock: LoadClock) -> int:
    """Every method on every page; table, JSON and results section."""
    err = Console(stderr=True)
    results = Bench(cfg, target).run(pages, on_page=lambda r: err.print(progress_line(r)))
    wall = clock.elapsed()
    methods = baseline_first(cfg.methods)
    groups = group_totals(results, methods)
    rows = table_rows(groups)
    title = run_title(cfg)
    print_table(title, COLUMNS, rows)
    info = machine_info(target.device.type, clock)
    notes = [target_note(cfg, target), *run_notes(cfg, len(pages), skipped), *coverage_note(results)]
    body = section_header(title, cfg.command_line(), machine_line(info), wall, notes)
    body += "\n" + markdown_table(COLUMNS, rows) + "\n"
    kind_cols, kind_rows = kind_table(groups["overall"])
    if kind_rows:
        print_table("Reference tokens accepted from drafts, per region kind (all pages)", kind_cols, kind_rows)
        body += "\nReference tokens accepted from drafts, per region kind (all pages):\n\n"
        body += markdown_table(kind_cols, kind_rows) + "\n"
    data = {
        "command": cfg.command_line(),
        "machine": info,
        "wall_s": wall,
        "notes": notes,
        "config": _config_json(cfg),
        "skipped": skipped,
        "totals": totals_json(groups),
        "pages": [page_json(r) for r in results],
        "pass_prices": target.pass_prices.summary(),  # what the run's passes took against their price
    }
    write_outputs(cfg.json_path, cfg.markdown_path, section_name(cfg), body, data, target.device.type)
    return lossless_exit(cfg, results, err)


def run_title(cfg: BenchConfig) -> str:
    what = "oracle target" if cfg.oracle else "real target output"
    noise = f", draft noise {cfg.noise:g}" if cfg.noise is not None else ""
    return f"hsd bench: {what}{noise}, tau={cfg.tau:g}, max {cfg.max_new_tokens} new tokens"


def section_name(cfg: BenchConfig) -> str:
    """One results section per kind of run and token cap, so capped and full runs sit side by side."""
    kind = f"noise-{cfg.noise:g}" if cfg.noise is not None else "oracle" if cfg.oracle else "real"
    size = f"-fullsize-{cfg.full_size}" if cfg.full_size else ""
    return f"{kind}{size}-{cfg.max_new_tokens}"


def _config_json(cfg: BenchConfig) -> dict:
    """The run's options, flat (the knobs beside the others, as the report has always had them)."""
    flat = {k: v for k, v in asdict(cfg).items() if k not in ("inputs", "knobs")} | asdict(cfg.knobs)
    return {k: (str(v) if hasattr(v, "__fspath__") else v) for k, v in flat.items()} | {
        "inputs": [str(p) for p in cfg.inputs]
    }
