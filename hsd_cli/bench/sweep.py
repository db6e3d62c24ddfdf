"""Speed against draft quality (paper Fig. 3): the oracle run at every draft-noise rate."""

from __future__ import annotations

import statistics
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from hsd_cli.bench.config import BASELINE, BenchConfig, baseline_first
from hsd_cli.bench.machine import machine_info, machine_line
from hsd_cli.bench.notes import lossless_exit, progress_line, run_notes, target_note
from hsd_cli.bench.pages import BenchPage
from hsd_cli.bench.records import MethodTotals, totals
from hsd_cli.bench.report import (
    markdown_table,
    print_table,
    section_header,
    write_outputs,
)
from hsd_cli.bench.run import Bench
from hsd_cli.targets.runtime.load import LoadClock

COLUMNS = ("noise", "draft NED", "method", "pages", "steps", "AAL", "SR_decode", "SR_e2e", "= AR")


def run_sweep(cfg: BenchConfig, target, pages: list[BenchPage], skipped: list[str], clock: LoadClock) -> int:
    """Measure every rate on the same pages; table, JSON, results section and plot."""
    err = Console(stderr=True)
    points, code = [], 0
    methods = baseline_first(cfg.methods)
    for i, rate in enumerate(cfg.noise_sweep):
        run_cfg = replace(cfg, noise=rate, noise_sweep=(), warmup=cfg.warmup if i == 0 else 0)
        err.print(f"noise {rate:g}")
        results = Bench(run_cfg, target).run(pages, on_page=lambda r: err.print(progress_line(r)))
        code |= lossless_exit(run_cfg, results, err)
        ned = statistics.mean(r.draft_ned for r in results if r.draft_ned is not None)
        points.append({"noise": rate, "draft_ned": ned, "totals": totals(results, methods)})
    wall = clock.elapsed()
    rows = sweep_rows(points)
    title = f"hsd bench: oracle target, draft-noise sweep, tau={cfg.tau:g}, max {cfg.max_new_tokens} new tokens"
    print_table(title, COLUMNS, rows)
    info = machine_info(target.device.type, clock)
    notes = [target_note(cfg, target), *run_notes(replace(cfg, noise=0.0), len(pages), skipped)] + [
        "draft NED = mean normalized edit distance between the page draft and the reference"
    ]
    body = section_header(title, cfg.command_line(), machine_line(info), wall, notes)
    body += "\n" + markdown_table(COLUMNS, rows) + "\n"
    if cfg.plot_path is not None:
        plot_curve(points, cfg.plot_path, title)
        body += f"\n![SR and AAL against draft noise]({_relative(cfg.plot_path, cfg.markdown_path)})\n"
    data = {
        "command": cfg.command_line(),
        "machine": info,
        "wall_s": wall,
        "notes": notes,
        "points": [{**p, "totals": [_totals_json(t) for t in p["totals"]]} for p in points],
    }
    write_outputs(cfg.json_path, cfg.markdown_path, "noise-sweep", body, data)
    return code


def sweep_rows(points: list[dict]) -> list[list[str]]:
    rows = []
    for p in points:
        for t in p["totals"]:
            same = f"{t.identical}/{t.compared}" if t.compared else "-"
            rows.append(
                [
                    f"{p['noise']:.0%}",
                    f"{p['draft_ned']:.3f}",
                    t.method,
                    str(t.pages),
                    str(t.steps),
                    f"{t.aal:.2f}",
                    _ratio(t.sr_decode),
                    _ratio(t.sr_e2e),
                    same,
                ]
            )
    return rows


def plot_curve(points: list[dict], path: Path, title: str) -> None:
    """AAL and SR against the noise rate, one line per speculative method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rates = [100 * p["noise"] for p in points]
    methods = [t.method for t in points[0]["totals"] if t.method != BASELINE]
    fig, (ax_aal, ax_sr) = plt.subplots(1, 2, figsize=(10, 4))
    for m, color in zip(methods, plt.rcParams["axes.prop_cycle"].by_key()["color"], strict=False):
        tots = [next(t for t in p["totals"] if t.method == m) for p in points]
        ax_aal.plot(rates, [t.aal for t in tots], marker="o", color=color, label=m)
        ax_sr.plot(rates, [t.sr_decode or 0 for t in tots], marker="o", color=color, label=f"{m} SR_decode")
        ax_sr.plot(rates, [t.sr_e2e or 0 for t in tots], marker="s", linestyle="--", color=color, label=f"{m} SR_e2e")
    ax_aal.set(xlabel="draft noise rate (%)", ylabel="AAL (accepted tokens / step)")
    ax_sr.set(xlabel="draft noise rate (%)", ylabel="speedup vs AR (x)")
    ax_sr.axhline(1.0, color="grey", linewidth=0.8)
    for ax in (ax_aal, ax_sr):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _totals_json(t: MethodTotals) -> dict:
    return {
        "method": t.method,
        "pages": t.pages,
        "tokens": t.tokens,
        "steps": t.steps,
        "aal": t.aal,
        "sr_decode": t.sr_decode,
        "sr_e2e": t.sr_e2e,
        "identical": t.identical,
        "compared": t.compared,
        "errors": t.errors,
    }


def _ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def _relative(plot: Path, markdown: Path | None) -> str:
    if markdown is None:
        return str(plot)
    try:
        return str(plot.resolve().relative_to(markdown.resolve().parent))
    except ValueError:
        return str(plot)
