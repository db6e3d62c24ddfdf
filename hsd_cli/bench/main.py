"""`hsd bench` entry: full-size timing, a noise sweep, or one measured run over the inputs."""

from __future__ import annotations

import time
from dataclasses import asdict

from rich.console import Console

from hsd_cli.bench.config import BenchConfig
from hsd_cli.bench.machine import machine_info, machine_line
from hsd_cli.bench.pages import BenchPage, collect_pages
from hsd_cli.bench.records import PageBench
from hsd_cli.bench.report import (
    COLUMNS, ORACLE_NOTE, group_totals, markdown_table, page_json, print_table, section_header,
    table_rows, totals_json, write_outputs,
)
from hsd_cli.bench.run import Bench
from hsd_cli.errors import HsdError


def bench(cfg: BenchConfig) -> int:
    """Run what `cfg` asks for; the exit code is 1 when a lossless method differs from AR."""
    started = time.perf_counter()
    if cfg.threads:
        import torch

        torch.set_num_threads(cfg.threads)  # on busy shared cores, fewer threads wait less at barriers
    if cfg.full_size:
        from hsd_cli.bench.cost import run_cost

        return run_cost(cfg)
    from hsd_cli.targets.registry import load_target

    target = load_target(cfg.model, cfg.device, cfg.dtype)
    style = target.spec.style if cfg.oracle else None
    pages, skipped = collect_pages(cfg.inputs, cfg.pages, cfg.max_pages, cfg.dpi, style)
    if not pages:
        raise HsdError("no pages to benchmark" + (f" ({skipped[0]})" if skipped else ""))
    if cfg.noise_sweep:
        from hsd_cli.bench.sweep import run_sweep

        return run_sweep(cfg, target, pages, skipped, started)
    return run_single(cfg, target, pages, skipped, started)


def run_single(cfg: BenchConfig, target, pages: list[BenchPage], skipped: list[str], started: float) -> int:
    """Every method on every page; table, JSON and results section."""
    err = Console(stderr=True)
    results = Bench(cfg, target).run(pages, on_page=lambda r: err.print(progress_line(r)))
    wall = time.perf_counter() - started
    methods = ("ar", *(m for m in cfg.methods if m != "ar"))
    groups = group_totals(results, methods)
    rows = table_rows(groups)
    title = run_title(cfg)
    print_table(title, COLUMNS, rows)
    info = machine_info(target.device.type)
    notes = [target_note(cfg, target), *run_notes(cfg, len(pages), skipped)]
    body = section_header(title, cfg.command_line(), machine_line(info), wall, notes)
    body += "\n" + markdown_table(COLUMNS, rows) + "\n"
    data = {"command": cfg.command_line(), "machine": info, "wall_s": wall, "notes": notes,
            "config": _config_json(cfg), "skipped": skipped, "totals": totals_json(groups),
            "pages": [page_json(r) for r in results]}
    write_outputs(cfg.json_path, cfg.markdown_path, section_name(cfg), body, data)
    return lossless_exit(cfg, results, err)


def run_title(cfg: BenchConfig) -> str:
    what = "oracle target" if cfg.oracle else "real target output"
    noise = f", draft noise {cfg.noise:g}" if cfg.noise is not None else ""
    return f"hsd bench: {what}{noise}, tau={cfg.tau:g}, max {cfg.max_new_tokens} new tokens"


def run_notes(cfg: BenchConfig, n_pages: int, skipped: list[str]) -> list[str]:
    notes = [ORACLE_NOTE] if cfg.oracle else []
    caps = f"at most {cfg.max_new_tokens} new tokens per page and per Stage-1 region"
    if cfg.max_pages or cfg.pages:
        caps += f"; pages {cfg.pages or 'all'}, at most {cfg.max_pages or 'all'} per document"
    notes.append(f"{n_pages} pages measured ({caps}); {len(skipped)} documents/pages skipped (reasons in the JSON)")
    if cfg.noise is not None:
        notes.append("drafts = the reference corrupted at the noise rate (no draft pipeline ran; draft time 0)")
    else:
        notes.append("drafts from the real draft pipeline on the real page image, made once per page and "
                     "charged to every speculative method")
    notes.append(f"warm-up: {cfg.warmup} untimed run(s) of every method on the first page; "
                 f"each method timed {cfg.repeat} time(s) per page (interleaved), the fastest run counts")
    return notes


def target_note(cfg: BenchConfig, target) -> str:
    """Which model ran, so a reader sees at once whether it was a tiny random-weight one."""
    params = sum(p.numel() for p in target.model.parameters())
    dtype = str(target.model.dtype).removeprefix("torch.")
    return f"target: {cfg.model} ({target.spec.model_type}, {params / 1e6:.2f}M parameters, {dtype}, {target.device})"


def section_name(cfg: BenchConfig) -> str:
    """One results section per kind of run and token cap, so capped and full runs sit side by side."""
    kind = f"noise-{cfg.noise:g}" if cfg.noise is not None else "oracle" if cfg.oracle else "real"
    return f"{kind}-{cfg.max_new_tokens}"


def progress_line(r: PageBench) -> str:
    runs = " | ".join(
        f"{m}: failed" if run.error else f"{m}: {run.tokens} tok, {run.steps} steps, {run.t_full:.1f}s"
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


def _config_json(cfg: BenchConfig) -> dict:
    return {k: (str(v) if hasattr(v, "__fspath__") else v) for k, v in asdict(cfg).items()
            if k != "inputs"} | {"inputs": [str(p) for p in cfg.inputs]}
