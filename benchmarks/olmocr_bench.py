"""olmOCR-bench on a folder in its layout: hsd `--method draft` and pymupdf4llm, one scorer run.

The folder holds `pdfs/` (any depth) and `*.jsonl` test files: the dev corpus's olmOCR-bench pages
(the default) or a generated set of ../shared/corpus-gen (`--bench ../shared/corpus-gen/dev`: its
set folder is already in that layout; its manifest.json names each document's template). Each
system writes one Markdown per PDF page, `<pdf stem>_pg<N>_repeat1.md`, into its candidate folder
beside links to the PDFs and the tests; then olmOCR-bench's own scorer (`python -m
olmocr.bench.benchmark`, unmodified) scores every candidate. We quote the tests.jsonl count per
test type and per template; the scorer's headline score also averages in one "baseline" check
per PDF (non-empty, no repetition, no stray scripts).

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
    # while changing a rule: hsd alone, some PDFs (a regex on their path under pdfs/), against the report
    python benchmarks/olmocr_bench.py --bench ../shared/corpus-gen/dev --systems hsd_draft \
        --only 'scan_book|latex_article_00[1-3]' --work OUT --compare benchmarks/results/olmocr-bench-generated.json

`--compare` prints, per test type, the old and new counts over the tests this run scored, and
which tests started or stopped failing. The reports: benchmarks/results/olmocr-bench-dev.json and
olmocr-bench-generated.json (`--out-json` that path, then `python benchmarks/dashboard.py`).
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
from pathlib import Path

import olmocr_report as report_
import record

REPO = record.REPO
sys.path.insert(0, str(REPO))  # run as a script: hsd_cli from this checkout, as the conversion uses
DEFAULT_BENCH = record.CORPUS / "olmocr_bench"
SYSTEMS = ("hsd_draft", "pymupdf4llm")


def main(argv: list[str] | None = None) -> dict:
    args = _parse_args(argv)
    if args.score:
        return _score_child(args.score, args.outcomes)
    bench, work = args.bench.resolve(), args.work.resolve() / "scored"  # the scorer's --dir
    pdfs = select(bench, args.only)
    if not pdfs:
        sys.exit(f"no PDFs under {bench / 'pdfs'} match (--bench: a folder with pdfs/ and *.jsonl; --only)")
    prepare(bench, work, pdfs, args.systems)
    writers = {
        "hsd_draft": lambda: write_hsd(work, pdfs, args.dpi),
        "pymupdf4llm": lambda: write_pymupdf4llm(work, pdfs),
    }
    seconds = {system: writers[system]() for system in args.systems}
    outcomes, headline = score(work)
    report = record.header("olmocr_bench.py", sys.argv[1:] if argv is None else argv)
    report |= report_.summarize(bench, outcomes, headline, seconds, pdfs)
    print(report_.text(report))
    if args.compare:
        print(report_.compare(json.loads(args.compare.read_text(encoding="utf-8")), outcomes))
    if args.out_json:
        record.write(args.out_json, report, {str(args.work.resolve()): "WORK", **report_.PLACES})
    return report


def _parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="folder with pdfs/ and *.jsonl")
    scratch = Path(tempfile.gettempdir()) / "hsd-olmocr-bench"
    parser.add_argument("--work", type=Path, default=scratch, help="scratch folder, emptied [default: %(default)s]")
    parser.add_argument("--dpi", type=int, default=None, help="hsd --dpi [default: hsd's own]")
    parser.add_argument(
        "--systems", type=_systems, default=SYSTEMS, help=f"comma-separated, of {','.join(SYSTEMS)} [default: both]"
    )
    parser.add_argument("--only", action="append", help="regex on a PDF's path under pdfs/; repeatable [default: all]")
    parser.add_argument("--compare", type=Path, help="an earlier report: per type before/after, tests that moved")
    parser.add_argument("--out-json", type=Path, help="write the report (per type, per template, per test) here")
    parser.add_argument("--score", type=Path, help=argparse.SUPPRESS)  # child: run the scorer on this dir
    parser.add_argument("--outcomes", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def _systems(value: str) -> tuple[str, ...]:
    systems = tuple(s.strip() for s in value.split(",") if s.strip())
    if not systems or set(systems) - set(SYSTEMS):
        raise argparse.ArgumentTypeError(f"--systems takes some of {','.join(SYSTEMS)}")
    return systems


def select(bench: Path, only: list[str] | None) -> list[Path]:
    """The bench's PDFs (paths under pdfs/) that match any `only` regex, all without one."""
    pdfs = sorted(p.relative_to(bench / "pdfs") for p in (bench / "pdfs").rglob("*.pdf"))
    return [p for p in pdfs if not only or any(re.search(o, p.as_posix()) for o in only)]


def prepare(bench: Path, work: Path, pdfs: list[Path], systems: tuple[str, ...]) -> None:
    """`work`: links to the chosen PDFs, their tests (each jsonl file kept apart, as the scorer
    averages per file), and an empty candidate folder per system."""
    if work.parent.exists():
        shutil.rmtree(work.parent)
    work.mkdir(parents=True)
    for pdf in pdfs:
        (work / "pdfs" / pdf).parent.mkdir(parents=True, exist_ok=True)
        (work / "pdfs" / pdf).symlink_to(bench / "pdfs" / pdf)
    chosen = {p.as_posix() for p in pdfs}
    for tests in sorted(bench.glob("*.jsonl")):
        lines = [line for line in tests.read_text(encoding="utf-8").splitlines() if line.strip()]
        kept = [line for line in lines if json.loads(line)["pdf"] in chosen]
        if kept:
            (work / tests.name).write_text("\n".join(kept) + "\n", encoding="utf-8")
    for system in systems:
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


if __name__ == "__main__":
    main()
