"""olmOCR-bench on a folder in its layout: hsd `--method draft` and pymupdf4llm, one scorer run.

The folder holds `pdfs/` (any depth) and `*.jsonl` test files. Each system writes one Markdown
per PDF page, `<pdf stem>_pg<N>_repeat1.md`, into its candidate folder beside a link to `pdfs/`
and the tests; then olmOCR-bench's own scorer (`python -m olmocr.bench.benchmark`, unmodified)
scores every candidate. We quote the tests.jsonl count per test type; the scorer's headline
score also averages in one "baseline" check per PDF (non-empty, no repetition, no stray scripts).

Setup (not in CI: it needs apt and PyPI):

    pip install --no-deps olmocr==0.4.27              # the scorer, without its GPU pipeline
    pip install pypdf beautifulsoup4 lxml fuzzysearch playwright   # what olmocr.bench imports
    apt-get update && apt-get install -y chromium     # math tests render KaTeX in a browser
    pip install pymupdf4llm                           # the baseline (layout mode with pymupdf.layout)

Playwright's own browser download is unreachable here, and olmocr launches `chromium.launch()`
with no arguments, so the scorer runs in a child process (`--score`) that makes Debian's
Chromium ($HSD_CHROMIUM, default /usr/bin/chromium) Playwright's default executable, records
each test's outcome, then calls `olmocr.bench.benchmark.main()` as it is.

    python benchmarks/olmocr_bench.py [--bench DIR] [--work DIR] [--out-json FILE]

The current report is benchmarks/results/olmocr-bench-dev.json (`--out-json` that path).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import record

REPO = record.REPO
sys.path.insert(0, str(REPO))  # run as a script: hsd_cli from this checkout, as the conversion uses
DEFAULT_BENCH = record.CORPUS / "olmocr_bench"
TYPES = ("present", "absent", "order", "table", "math", "baseline")
SYSTEMS = ("hsd_draft", "pymupdf4llm")


def main(argv: list[str] | None = None) -> dict:
    args = _parse_args(argv)
    if args.score:
        return _score_child(args.score, args.outcomes)
    bench, work = args.bench.resolve(), args.work.resolve() / "scored"  # the scorer's --dir
    if not any(bench.glob("pdfs/**/*.pdf")):
        sys.exit(f"no PDFs under {bench / 'pdfs'} (--bench: a folder with pdfs/ and *.jsonl)")
    prepare(bench, work)
    pdfs = sorted(p.relative_to(work / "pdfs") for p in (work / "pdfs").rglob("*.pdf"))
    seconds = {
        "hsd_draft": write_hsd(work, pdfs, args.dpi),
        "pymupdf4llm": write_pymupdf4llm(work, pdfs),
    }
    outcomes, headline = score(work)
    report = record.header("olmocr_bench.py", sys.argv[1:] if argv is None else argv)
    report |= summarize(bench, outcomes, headline, seconds)
    print(json.dumps(report["systems"], indent=1))
    if args.out_json:
        record.write(args.out_json, report)
    return report


def _parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="folder with pdfs/ and *.jsonl")
    scratch = Path(tempfile.gettempdir()) / "hsd-olmocr-bench"
    parser.add_argument("--work", type=Path, default=scratch, help="scratch folder, emptied [default: %(default)s]")
    parser.add_argument("--dpi", type=int, default=None, help="hsd --dpi [default: hsd's own]")
    parser.add_argument("--out-json", type=Path, help="write the report (per type, per test) here")
    parser.add_argument("--score", type=Path, help=argparse.SUPPRESS)  # child: run the scorer on this dir
    parser.add_argument("--outcomes", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def prepare(bench: Path, work: Path) -> None:
    """`work`: links to the bench's pdfs/ and tests, and empty candidate folders."""
    if work.parent.exists():
        shutil.rmtree(work.parent)
    work.mkdir(parents=True)
    (work / "pdfs").symlink_to(bench / "pdfs", target_is_directory=True)
    for tests in bench.glob("*.jsonl"):
        (work / tests.name).symlink_to(tests)
    for system in SYSTEMS:
        (work / system).mkdir()


def write_page(candidate: Path, pdf: Path, page: int, text: str) -> None:
    out = candidate / pdf.parent / f"{pdf.stem}_pg{page}_repeat1.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")


def write_hsd(work: Path, pdfs: list[Path], dpi: int | None) -> float:
    """`hsd convert --method draft` over every PDF in one run; its page reports hold each page's Markdown."""
    out = work.parent / "hsd_out"  # not in `work`: the scorer takes every folder there for a candidate
    command = [sys.executable, "-m", "hsd_cli", "convert", "--method", "draft", "--force", "-o", str(out)]
    command += ["--dpi", str(dpi)] if dpi else []
    start = time.perf_counter()
    subprocess.run(command + [str(work / "pdfs" / p) for p in pdfs], check=True, cwd=REPO)
    seconds = time.perf_counter() - start
    by_path = {str((work / "pdfs" / p).resolve()): p for p in pdfs}
    for summary in out.rglob("summary.json"):
        source = str(Path(json.loads(summary.read_text())["source"]).resolve())
        for report in sorted(summary.parent.glob("page-*.json")):
            page = json.loads(report.read_text())
            write_page(work / "hsd_draft", by_path[source], page["page"], page.get("markdown") or "")
    return round(seconds, 2)


def write_pymupdf4llm(work: Path, pdfs: list[Path]) -> float:
    """pymupdf4llm's Markdown per page, with its defaults (layout mode when pymupdf.layout imports)."""
    import pymupdf4llm

    start = time.perf_counter()
    for pdf in pdfs:
        for n, chunk in enumerate(pymupdf4llm.to_markdown(str(work / "pdfs" / pdf), page_chunks=True), 1):
            write_page(work / "pymupdf4llm", pdf, n, chunk["text"])
    return round(time.perf_counter() - start, 2)


def score(work: Path) -> tuple[dict, dict]:
    """Run the scorer in a child process; per candidate, each test's outcome and the headline score."""
    outcomes = work.parent / "outcomes.json"
    command = [sys.executable, __file__, "--score", str(work), "--outcomes", str(outcomes)]
    run = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    log = work.parent / "scorer.log"
    log.write_text(run.stdout + run.stderr)
    if run.returncode:
        sys.exit(f"olmocr.bench.benchmark failed (exit {run.returncode}); see {log}")
    print(run.stdout[run.stdout.find("Final Summary") :])
    headline = dict(re.findall(r"^(\S+)\s+: Average Score: ([\d.]+)%", run.stdout, re.M))
    return json.loads(outcomes.read_text()), {k: float(v) for k, v in headline.items()}


def _score_child(work: Path, outcomes: Path) -> dict:
    """In the child: Chromium for Playwright, a recorder around evaluate_candidate, then the scorer."""
    _use_system_chromium(os.environ.get("HSD_CHROMIUM", "/usr/bin/chromium"))
    from olmocr.bench import benchmark

    recorded = {}
    evaluate = benchmark.evaluate_candidate

    def recording(candidate_folder, *args, **kwargs):
        result = evaluate(candidate_folder, *args, **kwargs)
        recorded[os.path.basename(candidate_folder)] = [
            {"id": t.id, "type": str(t.type), "pdf": t.pdf, "page": t.page, "passed": ok, "why": why}
            for pages in result[-1].values()
            for results in pages.values()
            for t, ok, why in results
        ]
        return result

    benchmark.evaluate_candidate = recording
    sys.argv = ["olmocr.bench.benchmark", "--dir", str(work)]
    benchmark.main()
    outcomes.write_text(json.dumps(recorded, indent=1, ensure_ascii=False))
    return recorded


def _use_system_chromium(executable: str) -> None:
    """Make `executable` the browser of every Playwright launch that names none."""
    from playwright.sync_api._generated import BrowserType

    launch = BrowserType.launch

    def launch_system(self, *args, **kwargs):
        kwargs.setdefault("executable_path", executable)
        return launch(self, *args, **kwargs)

    BrowserType.launch = launch_system


def summarize(bench: Path, outcomes: dict, headline: dict, seconds: dict) -> dict:
    """Per system and test type: passed/total; tests.jsonl tests counted apart from the baseline checks."""
    listed = {json.loads(line)["id"] for f in bench.glob("*.jsonl") for line in f.read_text().splitlines() if line}
    systems = {}
    for system, tests in outcomes.items():
        types = defaultdict(lambda: [0, 0])
        for t in tests:
            types[t["type"]][0] += t["passed"]
            types[t["type"]][1] += 1
        jsonl = [t for t in tests if t["id"] in listed]
        systems[system] = {
            "tests_jsonl": f"{sum(t['passed'] for t in jsonl)}/{len(jsonl)}",
            "types": {k: f"{types[k][0]}/{types[k][1]}" for k in TYPES if k in types},
            "headline_score_pct": headline.get(system),
            "seconds": seconds.get(system),
            "failed": [{k: t[k] for k in ("id", "type", "why")} for t in tests if not t["passed"]],
        }
    return {"bench": str(bench), "scorer": "olmocr.bench.benchmark 0.4.27 (unmodified)", "systems": systems}


if __name__ == "__main__":
    main()
