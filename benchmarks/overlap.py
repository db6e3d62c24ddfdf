"""Drafting overlapped with decoding: wall time of whole `hsd convert` runs, workers off and on.

Each setting converts the same folder into a fresh output folder (nothing resumed), one after
the other, and the command's own wall time counts; pages per minute = pages / wall time.

    python benchmarks/overlap.py INPUT_DIR --model DIR [--workers 0,1] [-- extra convert options]
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hsd_cli.bench.machine import machine_info, machine_line
from hsd_cli.bench.report import markdown_table, section_header, update_section

COLUMNS = ("--workers", "pages", "failed", "wall s", "pages/min", "vs --workers 0")


def main(argv: list[str] | None = None) -> None:
    args, extra = _parse(argv)
    started = time.perf_counter()
    _warm_up(args, extra)
    runs = [_convert(args, w, extra) for w in args.workers]
    base = runs[0]["wall_s"]
    rows = [
        [
            str(r["workers"]),
            str(r["pages"]),
            str(r["failed"]),
            f"{r['wall_s']:.0f}",
            f"{r['pages_per_min']:.2f}",
            f"{base / r['wall_s']:.2f}x",
        ]
        for r in runs
    ]
    command = "python benchmarks/overlap.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    notes = [
        f"input: {args.input} ({runs[0]['pages']} pages); convert options: `--model {args.model} {' '.join(extra)}`",
        "each setting converts into a fresh folder; wall time of the whole command, model load included; "
        "one untimed page first, so the model's cost curve is cached for every setting",
    ]
    body = section_header(
        "Drafting overlapped with decoding (`hsd convert --workers`)",
        command,
        machine_line(machine_info("cpu")),
        time.perf_counter() - started,
        notes,
    )
    body += "\n" + markdown_table(COLUMNS, rows) + "\n"
    print(body)
    if args.json:
        args.json.write_text(json.dumps({"command": command, "notes": notes, "runs": runs}, indent=1))
    if args.markdown:
        update_section(args.markdown, "overlap", body)


def _convert(args, workers: int, extra: list[str]) -> dict:
    out = Path(tempfile.mkdtemp(prefix=f"hsd-overlap-{workers}-"))
    t0 = time.perf_counter()
    proc = subprocess.run(_command(args.input, out, args.model, workers, extra), capture_output=True, text=True)
    wall = time.perf_counter() - t0
    summary = json.loads((out / "run-summary.json").read_text())
    pages = sum(d["pages"] for d in summary["documents"])
    failed = sum(len(d.get("failed_pages", [])) for d in summary["documents"])
    print(f"--workers {workers}: exit {proc.returncode}, {pages} pages, {wall:.0f} s", file=sys.stderr)
    return {
        "workers": workers,
        "exit": proc.returncode,
        "pages": pages,
        "failed": failed,
        "wall_s": wall,
        "pages_per_min": 60 * pages / wall,
        "stderr": proc.stderr[-2000:],
    }


def _warm_up(args, extra: list[str]) -> None:
    """One untimed page first: the model's measured cost curve is cached then, for every setting."""
    first = sorted(p for p in args.input.iterdir() if p.is_file())[0]
    out = Path(tempfile.mkdtemp(prefix="hsd-overlap-warm-"))
    subprocess.run(_command(first, out, args.model, 0, [*extra, "--max-new-tokens", "2"]), capture_output=True)


def _command(source: Path, out: Path, model: str, workers: int, extra: list[str]) -> list[str]:
    return [
        "hsd",
        "convert",
        str(source),
        "-o",
        str(out),
        "--model",
        model,
        "--workers",
        str(workers),
        "--quiet",
        *extra,
    ]


def _parse(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("input", type=Path)
    p.add_argument("--model", required=True)
    p.add_argument("--workers", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1])
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--markdown", type=Path, default=None)
    return p.parse_known_args(argv)


if __name__ == "__main__":
    main()
