"""Draft quality on the dev corpus: `--method draft` Markdown vs ground truth, and vs pymupdf4llm.

Metric: NED = Levenshtein distance / length of the longer text, after `md_metrics.normalize`
(markup, HTML tags, images, comments and whitespace runs removed), per whole document; 0 is a
perfect transcription, 1 shares nothing. olmOCR-bench files have unit tests instead: we report
the fraction of present / absent / order / baseline tests passed (table and math tests are not
evaluated). Kinds: born-digital, scanned, page image. Bad inputs must raise InputError.

    python benchmarks/draft_quality.py [--corpus DIR] [--out-json FILE] [--no-peer]
    python benchmarks/draft_quality.py --compare BEFORE.json AFTER.json

The current report is benchmarks/results/draft-quality.json (`--no-peer`); `--compare` prints per
kind and per moved document what changed between two reports (draft_report.py reads them).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import record
from draft_report import compare, print_tables, summarize
from md_metrics import ned, run_test

from hsd_cli.config import draft_source_choices
from hsd_cli.drafts import AutoSource, page_markdown
from hsd_cli.errors import InputError
from hsd_cli.pages.render import iter_pages


def main(argv: list[str] | None = None) -> dict:
    args = _parse_args(argv)
    if args.compare:
        print(compare(*args.compare))
        return {}
    corpus = args.corpus.resolve()
    items = json.loads((corpus / "manifest.json").read_text())["items"]
    olm_tests = _olmocr_tests(corpus)
    converter = AutoSource(args.draft_source)
    rows = []
    for item in items:
        rows.append(evaluate(item, corpus, converter, olm_tests, args.peer))
        print(f"{rows[-1]['id']}: {rows[-1].get('ned_draft', rows[-1].get('tests_draft'))}")
    report = record.header("draft_quality.py", sys.argv[1:] if argv is None else argv)
    report |= {"corpus": str(corpus), "draft_source": args.draft_source, "documents": rows, "summary": summarize(rows)}
    print_tables(report)
    if args.out_json:
        record.write(args.out_json, report)
    return report


def _parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=record.CORPUS)
    parser.add_argument("--out-json", type=Path, help="write the full report here")
    parser.add_argument("--draft-source", default="auto", choices=draft_source_choices())
    parser.add_argument(
        "--no-peer",
        dest="peer",
        action="store_false",
        help="skip pymupdf4llm (it OCRs scans itself, which takes minutes)",
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("BEFORE", "AFTER"),
        help="compare two --out-json reports (no conversion); per kind and per changed document",
    )
    return parser.parse_args(argv)


def evaluate(item: dict, corpus: Path, converter: AutoSource, olm_tests: dict, peer: bool) -> dict:
    """One document: convert, time, score against its ground truth (and the peer's)."""
    path = corpus / item["file"]
    row = {"id": item["id"], "kind": _kind(item["kind"]), "pages": item["pages"]}
    if "encrypted" in item["kind"]:
        return row | check_encrypted(path)
    try:
        pages = convert(path, converter)
    except Exception as e:  # every corpus file but the encrypted one must convert
        return row | {"error": f"{type(e).__name__}: {e}"}
    row["sources"] = dict(Counter(p["source"] for p in pages))
    row["timing"] = pages
    peer_pages = peer_markdown(path) if peer else None
    draft_pages = [p["markdown"] for p in pages]
    tests = [
        t
        for gt in item["ground_truth"]
        if "selector" in gt and "pdf" in gt["selector"]
        for t in olm_tests.get(gt["selector"]["pdf"], [])
    ]
    if tests:
        row["tests_draft"] = score_tests(tests, draft_pages)
        row["tests_peer"] = score_tests(tests, peer_pages) if peer_pages else None
        return row
    truth = _ground_truth_md(item, corpus)
    row["ned_draft"] = round(ned("\n\n".join(draft_pages), truth), 4)
    row["ned_peer"] = round(ned("\n\n".join(peer_pages), truth), 4) if peer_pages else None
    return row


def convert(path: Path, converter: AutoSource) -> list[dict]:
    """Markdown, draft source and timings of every page (render timed with and without analysis)."""
    plain = _render_times(path, analyze=False)
    pages, start = [], time.perf_counter()
    for n, page in enumerate(iter_pages(path)):
        t_render = time.perf_counter() - start
        source = converter.select(page)
        markdown = page_markdown(source.regions(page))
        t_draft = time.perf_counter() - start - t_render
        pages.append(
            {
                "page": page.number,
                "source": source.name,
                "markdown": markdown,
                "t_render": round(t_render, 4),
                "t_render_plain": round(plain[n], 4),
                "t_draft": round(t_draft, 4),
            }
        )
        start = time.perf_counter()
    return pages


def _render_times(path: Path, analyze: bool) -> list[float]:
    times, start = [], time.perf_counter()
    for _ in iter_pages(path, analyze=analyze):
        times.append(time.perf_counter() - start)
        start = time.perf_counter()
    return times


def check_encrypted(path: Path) -> dict:
    """The encrypted file must raise InputError without a password and convert with one."""
    outcome = {}
    for label, password in (("no_password", None), ("wrong_password", "nope")):
        try:
            list(iter_pages(path, password=password))
            outcome[label] = "converted (unexpected)"
        except InputError as e:
            outcome[label] = f"InputError: {e}"
    outcome["right_password"] = f"{len(list(iter_pages(path, password='1234')))} page(s) rendered"
    return outcome


def peer_markdown(path: Path) -> list[str] | None:
    """pymupdf4llm's Markdown per page (its messages silenced), None if it fails."""
    import pymupdf4llm

    logging.disable(logging.WARNING)  # its OCR engine logs each empty detection
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            chunks = pymupdf4llm.to_markdown(str(path), page_chunks=True)
        return [c["text"] for c in chunks]
    except Exception:
        return None
    finally:
        logging.disable(logging.NOTSET)


def score_tests(tests: list[dict], pages: list[str]) -> dict:
    """{type: [passed, evaluated]} over the tests whose type we evaluate."""
    score: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for test in tests:
        page = pages[test["page"] - 1] if test["page"] <= len(pages) else ""
        passed = run_test(test, page)
        if passed is not None:
            score[test["type"]][0] += passed
            score[test["type"]][1] += 1
    return dict(score)


def _kind(kind: str) -> str:
    for name in ("born-digital, encrypted", "born-digital", "scanned", "page image"):
        if kind.startswith(name):
            return "bad input" if "encrypted" in name else name
    return kind


def _olmocr_tests(corpus: Path) -> dict[str, list[dict]]:
    tests = defaultdict(list)
    path = corpus / "olmocr_bench" / "tests.jsonl"
    for line in path.read_text().splitlines() if path.exists() else ():
        if line.strip():
            test = json.loads(line)
            tests[test["pdf"]].append(test)
    return tests


def _ground_truth_md(item: dict, corpus: Path) -> str:
    md = next(gt["file"] for gt in item["ground_truth"] if gt["file"].endswith(".md"))
    return (corpus / md).read_text(encoding="utf-8")


if __name__ == "__main__":
    main()
