"""A draft-quality report read back: its summary per kind and per draft source, its tables, and two
reports compared (benchmarks/draft_quality.py writes them; NED: lower is better)."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

from dashboard_format import table
from rich.console import Console
from rich.table import Table


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


def compare(before_path: Path, after_path: Path) -> str:
    """Per kind: NED and tests passed, before and after; then every document whose score moved."""
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
        [r["id"], *(_num(x.get("ned_draft")) for x in (old[r["id"]], r))]
        + [_tests(x.get("tests_draft")) for x in (old[r["id"]], r)]
        for r in after["documents"]
        if r["id"] in old and _score(r) != _score(old[r["id"]])
    ]
    return (
        table(("kind", "docs", "NED before", "NED after", "tests before", "tests after"), kinds)
        + "\n\nDocuments whose score moved:\n\n"
        + table(("document", "NED before", "NED after", "tests before", "tests after"), moved)
    )


def _score(row: dict):
    return round(row.get("ned_draft") or 0, 3), json.dumps(row.get("tests_draft"), sort_keys=True)


def print_tables(report: dict) -> None:
    """Per document, per kind, and seconds per page per draft source, on the terminal."""
    console = Console(width=200)
    columns = ("document", "kind", "pages", "draft source", "NED draft", "NED pymupdf4llm", "tests draft")
    docs = Table(*columns, "tests peer", title="Draft quality per document (NED: lower is better)")
    for r in report["documents"]:
        ned = (_num(r.get("ned_draft")), _num(r.get("ned_peer")))
        docs.add_row(_short(r["id"]), r["kind"], str(r["pages"]), _sources(r), *ned, *_both_tests(r))
    console.print(docs)
    kinds = Table(
        "kind", "docs", "mean NED draft", "mean NED pymupdf4llm", "tests draft", "tests peer", title="Per kind"
    )
    for kind, s in report["summary"]["kinds"].items():
        ned = (_num(s["ned_draft"]), _num(s["ned_peer"]))
        kinds.add_row(kind, str(s["documents"]), *ned, _ratio(s["tests_draft"]), _ratio(s["tests_peer"]))
    o = report["summary"]["overall"]
    kinds.add_row("all (NED docs)", str(o["documents"]), _num(o["ned_draft"]), _num(o["ned_peer"]))
    console.print(kinds)
    title = "Seconds per page by draft source (render incl. layout+tables / plain)"
    timing = Table("source", "pages", "t_render", "t_render plain", "t_draft", title=title)
    for src, t in report["summary"]["timing"].items():
        timing.add_row(src, str(t["pages"]), *(_num(t[k]) for k in ("t_render", "t_render_plain", "t_draft")))
    console.print(timing)


def _both_tests(row: dict) -> tuple[str, str]:
    return _tests(row.get("tests_draft")), _tests(row.get("tests_peer"))


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
