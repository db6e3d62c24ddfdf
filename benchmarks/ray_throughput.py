"""Pages per minute of `hsd convert --method draft`: the local engine vs `--engine ray`, on one
machine, over a corpus (not a test), with the per-stage costs the N-GPU scaling argument of
docs/ray.md rests on (render + draft s/page from the page reports).

    nice -n 19 python benchmarks/ray_throughput.py [--corpus DIR] [--max-pages 2] [--out-json FILE]

Writes benchmarks/results/ray-cpu-draft.json unless --out-json says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import record


def convert(corpus: Path, out: Path, max_pages: int, engine: str) -> dict:
    cmd = [
        sys.executable,
        "-m",
        "hsd_cli",
        "convert",
        str(corpus),
        "-o",
        str(out),
        "--method",
        "draft",
        "--max-pages",
        str(max_pages),
        "--engine",
        engine,
        "--json",
        "--quiet",
    ]
    t0 = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    summary = json.loads(run.stdout)
    reports = [json.loads(p.read_text()) for p in out.rglob("page-*.json")]
    done = [r for r in reports if r["status"] in ("ok", "truncated")]
    n = len(done) or 1
    return {
        "engine": engine,
        "exit_code": run.returncode,
        "wall_s": round(wall, 2),
        "pages": len(done),
        "failed_pages": len(reports) - len(done),
        "documents": len(summary["documents"]),
        "pages_per_min": round(60 * len(done) / wall, 1),
        "render_s_per_page": round(sum(r["t_render"] for r in done) / n, 3),
        "draft_s_per_page": round(sum(r["t_draft"] for r in done) / n, 3),
        "verify_s_per_page": round(sum(r["t_total"] - r["t_draft"] for r in done) / n, 4),
    }


def markdown(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.md")}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=record.CORPUS)
    ap.add_argument("--max-pages", type=int, default=2)
    ap.add_argument("--out-json", type=Path, default=record.REPO / "benchmarks" / "results" / "ray-cpu-draft.json")
    args = ap.parse_args(argv)
    res = record.header("ray_throughput.py", sys.argv[1:] if argv is None else argv)
    res |= {"corpus": str(args.corpus), "max_pages": args.max_pages, "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="hsd-ray-bench-") as tmp:
        for engine in ("local", "ray"):
            res[engine] = convert(args.corpus, Path(tmp) / engine, args.max_pages, engine)
            print(json.dumps(res[engine]), file=sys.stderr)
        res["identical_markdown"] = markdown(Path(tmp) / "local") == markdown(Path(tmp) / "ray")
    record.write(args.out_json, res)


if __name__ == "__main__":
    main()
