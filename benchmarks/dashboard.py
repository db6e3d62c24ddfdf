"""Rewrite the tables of benchmarks/RESULTS.md from benchmarks/results/*.json, so they cannot drift.

    python benchmarks/dashboard.py            # rewrite every table block of RESULTS.md
    python benchmarks/dashboard.py --check    # exit 1 if a block differs from what its JSON gives

RESULTS.md is prose around table blocks. A prose line ending in `<!-- table:NAME -->` opens a block:
the lines after it, up to the end of the table, are written here (a line saying where the figures
come from, a blank line, the table), from the JSON files BLOCKS names. Leave a blank line after
each table; prose is kept as written.
A benchmark that runs again overwrites its JSON under results/ (see benchmarks/README.md); this
script then rewrites its table. tests/bench/test_dashboard.py runs the check.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules, also when imported

import dashboard_quality as quality  # noqa: E402
import dashboard_speed as speed  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS_DIR = HERE / "results"
RESULTS_MD = HERE / "RESULTS.md"
# The summary's rows: file -> (section anchor, batch sizes shown; () for a run one page at a time).
SUMMARY = {
    "oracle-h200-hunyuan_vl.json": ("gpu", ()),
    "throughput-h200-hunyuan_vl.json": ("gpu", (32,)),
    "throughput-cpu-hunyuan_vl.json": ("cpu", (1, 16)),
    "oracle-cpu-qwen2_5_vl.json": ("qwen25-vl-3b", ()),
}
BLOCKS: dict[str, tuple[Callable[[list[dict]], str], tuple[str, ...]]] = {
    "summary": (partial(speed.summary, picks=SUMMARY), tuple(SUMMARY)),
    "gpu-oracle": (speed.oracle, ("oracle-h200-hunyuan_vl.json",)),
    "gpu-throughput": (speed.throughput, ("throughput-h200-hunyuan_vl.json",)),
    "gpu-engine": (speed.engine, ("gpu-engine.json",)),
    "gpu-cost": (speed.cost, ("cost-h200-hunyuan_vl.json", "cost-h200-qwen2_5_vl.json")),
    "gpu-draft-rate": (speed.draft_rate, ("draft-rate-h200.json",)),
    "gpu-cuda-tests": (speed.cuda_tests, ("cuda-tests-h200.json",)),
    "cpu-throughput": (speed.throughput, ("throughput-cpu-hunyuan_vl.json",)),
    "cpu-oracle": (speed.oracle, ("oracle-cpu-hunyuan_vl.json",)),
    "qwen-cpu-oracle": (speed.oracle, ("oracle-cpu-qwen2_5_vl.json",)),
    "draft-quality": (quality.draft_quality, ("draft-quality.json", "draft-speed-cpu.json")),
    "olmocr-bench": (quality.olmocr, ("olmocr-bench-dev.json", "olmocr-bench-generated.json")),
    "acceptance-flat": (quality.acceptance, ("acceptance-flat.json",)),
    "host-step": (speed.host_step, ("host-step-cpu.json",)),
    "attention-fold": (
        quality.attention_fold,
        tuple(f"attention-fold-cpu-{f}.json" for f in ("hunyuan_vl", "qwen2_5_vl")),
    ),
    "gemm-layout": (quality.gemm_layout, ("gemm-layout-cpu-hunyuan_vl.json",)),
    "ray-throughput": (quality.ray, ("ray-cpu-draft.json",)),
}
# The marker, then what this script writes: a line not starting a table, a blank line, table rows.
_BLOCK = re.compile(r"(<!-- table:([\w-]+) -->\n)((?:[^|\n].*\n\n)?(?:\|.*\n)*)")


def load(name: str, results: Path = RESULTS_DIR) -> dict:
    """One results JSON, with its file name as `_name`."""
    return {**json.loads((results / name).read_text(encoding="utf-8")), "_name": name}


def render(name: str, results: Path = RESULTS_DIR, blocks: dict = BLOCKS) -> str:
    """The body of block `name`, from its JSON files."""
    fill, files = blocks[name]
    return fill([load(f, results) for f in files]).strip() + "\n"


def rewrite(text: str, results: Path = RESULTS_DIR, blocks: dict = BLOCKS) -> str:
    """`text` with every table block rendered again; a block missing, or one `blocks` lacks, is an error."""
    names = {m[2] for m in _BLOCK.finditer(text)}
    if unknown := sorted(names - set(blocks)):
        raise KeyError(f"RESULTS.md names unknown table blocks {unknown} (dashboard.BLOCKS)")
    if missing := sorted(set(blocks) - names):
        raise KeyError(f"RESULTS.md lacks the table blocks {missing}")
    return _BLOCK.sub(lambda m: m[1] + render(m[2], results, blocks), text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table differs from its JSON")
    p.add_argument("--results-md", type=Path, default=RESULTS_MD, help="the dashboard file")
    args = p.parse_args(argv)
    text = args.results_md.read_text(encoding="utf-8")
    new = rewrite(text)
    if args.check:
        stale = [m[2] for m, n in zip(_BLOCK.finditer(text), _BLOCK.finditer(new), strict=True) if m[0] != n[0]]
        print("tables match their JSON" if not stale else f"tables differ from their JSON: {', '.join(stale)}")
        return 1 if stale else 0
    args.results_md.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
