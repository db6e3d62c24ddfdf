"""What every dashboard table shares: Markdown tables, labels, and where a figure comes from.

A block of RESULTS.md is one provenance line (code, date, machine, the JSON file, and the command
that made it, collapsed), a blank line and its table. Commands over the 16 pages of gpu.py's PAGES are
written with `$(python benchmarks/gpu.py --list-pages ...)`, which prints those paths.
"""

from __future__ import annotations

import html
import shlex

from gpu import PAGES

MODELS = {"hunyuan_vl": "HunyuanOCR (1B)", "qwen2_5_vl": "Qwen2.5-VL-3B"}


def table(columns: tuple[str, ...] | list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def block(runs: list[dict], body: str, note: str = "") -> str:
    """One line: where `runs` come from, `note`, their commands (collapsed); a blank line; `body`."""
    commands = "<br>".join(f"<code>{html.escape(short_command(run['command']), quote=False)}</code>" for run in runs)
    return f"{provenance(runs)}.{note} <details><summary>Command</summary>{commands}</details>\n\n{body}"


def provenance(runs: list[dict]) -> str:
    """Code, date and machine of the runs (once when they share them), and links to their JSON."""
    wheres = [_where(run) for run in runs]
    links = [f"[{run['_name']}](results/{run['_name']})" for run in runs]
    if len(set(wheres)) == 1:
        return f"{wheres[0]}: {', '.join(links)}"
    return "; ".join(f"{w}: {link}" for w, link in zip(wheres, links, strict=True))


def _where(run: dict) -> str:
    date = str(run.get("machine", {}).get("date", "?"))[:10]
    return f"Code `{run.get('commit', '?')}`, {date}, {machine(run)}"


def machine(run: dict) -> str:
    """The device a run measured, in a few words."""
    m = run.get("machine", {})
    if "gpu" in m:
        return f"{m['gpu']} ({m.get('cores', '?')} host cores)"
    isa = f" ({m['cpu_isa']})" if m.get("cpu_isa") else ""
    n = m.get("torch_threads")
    threads = "" if n is None else f", {n} torch thread{'s' if n != 1 else ''}"
    return f"{m.get('cpu', '?')}{isa}, {m.get('cores', '?')} cores{threads}"


def short_command(command: str) -> str:
    """`command` with its inputs written as the call that lists them, when they are the first N of
    gpu.py's PAGES (under CORPUS/) and nothing else."""
    argv = shlex.split(command)
    corpus = [f"CORPUS/{p}" for p in PAGES]
    start = next((i for i, a in enumerate(argv) if a == corpus[0]), None)
    if start is None:
        return command
    n = 0
    while n < len(corpus) and start + n < len(argv) and argv[start + n] == corpus[n]:
        n += 1
    if start + n < len(argv) and argv[start + n].startswith("CORPUS/"):
        return command  # other pages follow: written out
    listed = "$(python benchmarks/gpu.py --list-pages" + ("" if n == len(PAGES) else f" --pages {n}") + ")"
    words = [shlex.quote(a) for a in argv[:start]] + [listed] + [shlex.quote(a) for a in argv[start + n :]]
    return " ".join(words)


def option(command: str, name: str) -> str | None:
    """The value of `--name` in a recorded command, None when absent."""
    argv = shlex.split(command)
    return argv[argv.index(name) + 1] if name in argv[:-1] else None


def model(run: dict) -> str:
    family = option(run["command"], "--full-size") or option(run["command"], "--family") or "?"
    return MODELS.get(family, family)


def device(run: dict) -> str:
    """GPU kind or CPU, and the dtype: "H100, bf16", "2-core AMD EPYC (AVX512), fp32"."""
    m, dtype = run.get("machine", {}), option(run["command"], "--dtype") or "fp32"
    if "gpu" in m:
        return f"{m['gpu'].split()[1]}, {dtype}"
    isa = f" ({m['cpu_isa']})" if m.get("cpu_isa") else ""
    return f"{m.get('cores', '?')}-core {m.get('cpu', '?')}{isa}, {dtype}"


def x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"
