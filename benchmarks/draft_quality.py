"""Draft quality on the dev corpus: `--method draft` Markdown vs ground truth, and vs pymupdf4llm.

Metric: NED = Levenshtein distance / length of the longer text, after `md_metrics.normalize`
(markup, HTML tags, images, comments and whitespace runs removed), per whole document; 0 is a
perfect transcription, 1 shares nothing. olmOCR-bench files have unit tests instead: we report
the fraction of present / absent / order / baseline tests passed (table and math tests are not
evaluated). Kinds: born-digital, scanned, page image. Bad inputs must raise InputError.

    python benchmarks/draft_quality.py [--corpus DIR] [--json out.json] [--no-peer]
    python benchmarks/draft_quality.py --compare before.json after.json [--markdown RESULTS.md]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import statistics
import time
from collections import Counter, defaultdict
from pathlib import Path

from md_metrics import ned, run_test
from rich.console import Console
from rich.table import Table

from hsd_cli.drafts import AutoSource, page_markdown
from hsd_cli.errors import InputError
from hsd_cli.pages.render import iter_pages

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO / "../shared/corpus/dev"


def main(argv: list[str] | None = None) -> dict:
    args = _parse_args(argv)
    if args.compare:
        return compare(*args.compare, args.markdown)
    corpus = args.corpus.resolve()
    items = json.loads((corpus / "manifest.json").read_text())["items"]
    olm_tests = _olmocr_tests(corpus)
    converter = AutoSource(args.draft_source)
    rows = []
    for item in items:
        rows.append(evaluate(item, corpus, converter, olm_tests, args.peer))
        print(f"{rows[-1]['id']}: {rows[-1].get('ned_draft', rows[-1].get('tests_draft'))}")
    report = {"corpus": str(corpus), "draft_source": args.draft_source, "documents": rows, "summary": summarize(rows)}
    print_tables(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return report


def _parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--json", type=Path, help="write the full report here")
    parser.add_argument("--draft-source", default="auto", choices=("auto", "text", "ocr"))
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
        help="compare two --json reports (no conversion); per kind and per changed document",
    )
    parser.add_argument("--markdown", type=Path, help="with --compare: write the table into this results file")
    return parser.parse_args(argv)


def compare(before_path: Path, after_path: Path, markdown: Path | None) -> dict:
    """Per kind: NED and tests passed, before and after; then every document whose score moved."""
    from hsd_cli.bench.report import markdown_table, update_section

    before, after = (json.loads(p.read_text()) for p in (before_path, after_path))
    kinds = [
        [
            kind,
            str(a["documents"]),
            _num(before["summary"]["kinds"][kind]["ned_draft"]),
            _num(a["ned_draft"]),
            _ratio(before["summary"]["kinds"][kind]["tests_draft"]),
            _ratio(a["tests_draft"]),
        ]
        for kind, a in after["summary"]["kinds"].items()
        if kind != "bad input"
    ]
    old = {r["id"]: r for r in before["documents"]}
    moved = [
        [
            r["id"],
            _num(old[r["id"]].get("ned_draft")),
            _num(r.get("ned_draft")),
            _tests(old[r["id"]].get("tests_draft")),
            _tests(r.get("tests_draft")),
        ]
        for r in after["documents"]
        if r["id"] in old and _score(r) != _score(old[r["id"]])
    ]
    body = (
        "## Draft quality on the dev corpus, before and after (`benchmarks/draft_quality.py`)\n\n"
        f"Command: `python benchmarks/draft_quality.py --compare {before_path} {after_path}`; each report "
        "written by `python benchmarks/draft_quality.py --no-peer --json FILE` on the code named in its "
        "file name\n\nNED: lower is better; tests: olmOCR-bench unit tests passed / evaluated.\n\n"
        + markdown_table(("kind", "docs", "NED before", "NED after", "tests before", "tests after"), kinds)
        + "\n\nDocuments whose score moved:\n\n"
        + markdown_table(("document", "NED before", "NED after", "tests before", "tests after"), moved)
        + "\n"
    )
    print(body)
    if markdown:
        update_section(markdown, "draft-quality", body)
    return {"kinds": kinds, "moved": moved}


def _score(row: dict):
    return round(row.get("ned_draft") or 0, 3), json.dumps(row.get("tests_draft"), sort_keys=True)


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


def summarize(rows: list[dict]) -> dict:
    """Mean NED and test pass rates per kind; mean seconds per page per draft source."""
    by_kind = defaultdict(list)
    for row in rows:
        by_kind[row["kind"]].append(row)
    kinds = {kind: _kind_summary(group) for kind, group in by_kind.items()}
    scored = [r for r in rows if r.get("ned_draft") is not None]
    overall = {
        "ned_draft": _mean(r["ned_draft"] for r in scored),
        "ned_peer": _mean(r["ned_peer"] for r in scored if r.get("ned_peer") is not None),
        "documents": len(scored),
    }
    return {
        "kinds": kinds,
        "overall": overall,
        "timing": _timing(rows),
        "errors": [r["id"] for r in rows if "error" in r],
    }


def _kind_summary(group: list[dict]) -> dict:
    summary = {"documents": len(group)}
    for who in ("draft", "peer"):
        neds = [r[f"ned_{who}"] for r in group if r.get(f"ned_{who}") is not None]
        summary[f"ned_{who}"] = _mean(neds)
        passed = total = 0
        for r in group:
            for p, n in (r.get(f"tests_{who}") or {}).values():
                passed, total = passed + p, total + n
        summary[f"tests_{who}"] = [passed, total]
    return summary


def _timing(rows: list[dict]) -> dict:
    per_source = defaultdict(lambda: defaultdict(list))
    for row in rows:
        for page in row.get("timing", []):
            for key in ("t_render", "t_render_plain", "t_draft"):
                per_source[page["source"]][key].append(page[key])
    return {src: {k: _mean(v) for k, v in t.items()} | {"pages": len(t["t_draft"])} for src, t in per_source.items()}


def print_tables(report: dict) -> None:
    console = Console(width=200)
    docs = Table(title="Draft quality per document (NED: lower is better; tests: passed/evaluated)")
    for col in (
        "document",
        "kind",
        "pages",
        "draft source",
        "NED draft",
        "NED pymupdf4llm",
        "tests draft",
        "tests peer",
    ):
        docs.add_column(col)
    for r in report["documents"]:
        docs.add_row(
            _short(r["id"]),
            r["kind"],
            str(r["pages"]),
            _sources(r),
            _num(r.get("ned_draft")),
            _num(r.get("ned_peer")),
            _tests(r.get("tests_draft")),
            _tests(r.get("tests_peer")),
        )
    console.print(docs)
    kinds = Table(title="Per kind")
    for col in ("kind", "docs", "mean NED draft", "mean NED pymupdf4llm", "tests draft", "tests peer"):
        kinds.add_column(col)
    for kind, s in report["summary"]["kinds"].items():
        kinds.add_row(
            kind,
            str(s["documents"]),
            _num(s["ned_draft"]),
            _num(s["ned_peer"]),
            _ratio(s["tests_draft"]),
            _ratio(s["tests_peer"]),
        )
    o = report["summary"]["overall"]
    kinds.add_row("all (NED docs)", str(o["documents"]), _num(o["ned_draft"]), _num(o["ned_peer"]))
    console.print(kinds)
    timing = Table(title="Seconds per page by draft source (render incl. layout+tables / plain)")
    for col in ("source", "pages", "t_render", "t_render plain", "t_draft"):
        timing.add_column(col)
    for src, t in report["summary"]["timing"].items():
        timing.add_row(src, str(t["pages"]), _num(t["t_render"]), _num(t["t_render_plain"]), _num(t["t_draft"]))
    console.print(timing)


def _short(name: str, width: int = 52) -> str:
    return name if len(name) <= width else name[: width - 12] + "…" + name[-11:]


def _sources(row: dict) -> str:
    if "error" in row:
        return f"ERROR {row['error']}"
    if "no_password" in row:
        return f"{row['no_password']} | password 1234: {row['right_password']}"
    return ", ".join(f"{k} x{v}" for k, v in row["sources"].items())


def _tests(score: dict | None) -> str:
    if not score:
        return ""
    return " ".join(f"{k} {p}/{n}" for k, (p, n) in score.items())


def _ratio(pair: list[int]) -> str:
    return f"{pair[0]}/{pair[1]} ({pair[0] / pair[1]:.0%})" if pair[1] else ""


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.3f}"


def _mean(values) -> float | None:
    values = list(values)
    return round(statistics.mean(values), 4) if values else None


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
