"""What benchmarks/olmocr_bench.py makes of the scorer's outcomes: counts per system, test type and
template, the failed tests, a plain-text table, and what moved against an earlier report."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import record

TYPES = ("present", "absent", "order", "table", "math", "baseline")
GENERATED = record.REPO.parent / "shared" / "corpus-gen"  # the generated sets beside the checkout
PLACES = {str(GENERATED.resolve()): "CORPUS_GEN"}


def templates(bench: Path, pdfs: list[Path]) -> dict[str, str]:
    """Each PDF's template: from a generated set's manifest.json, else its folder under pdfs/, else
    its file name without a trailing document number (`html_cards_007` -> `html_cards`)."""
    manifest = bench / "manifest.json"
    named = {}
    if manifest.exists():
        named = {Path(d["pdf"]).name: d["template"] for d in json.loads(manifest.read_text())["documents"]}
    return {
        p.as_posix(): named.get(p.name) or (p.parent.as_posix() if p.parent.name else re.sub(r"_\d+$", "", p.stem))
        for p in pdfs
    }


def _counts(tests: list[dict]) -> dict[str, str]:
    types = defaultdict(lambda: [0, 0])
    for t in tests:
        types[t["type"]][0] += t["passed"]
        types[t["type"]][1] += 1
    return {k: f"{types[k][0]}/{types[k][1]}" for k in TYPES if k in types}


def summarize(bench: Path, outcomes: dict, headline: dict, seconds: dict, pdfs: list[Path]) -> dict:
    """Per system: tests.jsonl tests passed (the scorer's own baseline checks apart), per type, per template."""
    template = templates(bench, pdfs)
    listed = {json.loads(line)["id"] for f in bench.glob("*.jsonl") for line in f.read_text().splitlines() if line}
    systems = {}
    for system, tests in outcomes.items():
        by_template = defaultdict(list)
        for t in tests:
            by_template[template.get(t["pdf"], "?")].append(t)
        jsonl = [t for t in tests if t["id"] in listed]
        systems[system] = {
            "tests_jsonl": f"{sum(t['passed'] for t in jsonl)}/{len(jsonl)}",
            "types": _counts(tests),
            "templates": {name: _counts(by_template[name]) for name in sorted(by_template)},
            "headline_score_pct": headline.get(system),
            "seconds": seconds.get(system),
            "failed": [{k: t[k] for k in ("id", "type", "why")} for t in tests if not t["passed"]],
        }
    return {
        "bench": str(bench),
        "pdfs": len(pdfs),
        "scorer": "olmocr.bench.benchmark 0.4.27 (unmodified)",
        "systems": systems,
    }


def text(report: dict) -> str:
    """Per system, one row per type, then one row per template: passed/total and percent."""
    lines = []
    for system, s in report["systems"].items():
        lines.append(f"\n{system}: {s['tests_jsonl']} tests.jsonl tests, {s['seconds']} s")
        rows = [("all types", s["types"]), *s.get("templates", {}).items()]
        lines.append(f"{'':22}" + "".join(f"{t:>14}" for t in TYPES))
        for name, counts in rows:
            lines.append(f"{name:22}" + "".join(f"{_pct(counts.get(t)):>14}" for t in TYPES))
    return "\n".join(lines)


def _pct(count: str | None) -> str:
    if not count:
        return "-"
    passed, total = map(int, count.split("/"))
    return f"{count} {100 * passed // total}%" if total else count


def compare(old: dict, outcomes: dict) -> str:
    """Per system in both: each type's pass count in `old` and now, over the tests this run scored
    (`outcomes`, the scorer's per test), and the tests that started or stopped failing."""
    lines = []
    for system, tests in outcomes.items():
        if system not in old.get("systems", {}):
            continue
        ran = {t["id"]: t for t in tests}
        failed_before = {f["id"] for f in old["systems"][system]["failed"] if f["id"] in ran}
        lines.append(f"\n{system}, {old.get('commit')} -> now (the tests this run scored):")
        for kind in TYPES:
            of_kind = [t for t in tests if t["type"] == kind]
            if of_kind:
                before = sum(t["id"] not in failed_before for t in of_kind)
                now = sum(t["passed"] for t in of_kind)
                lines.append(f"  {kind:9} {before}/{len(of_kind)} -> {now}/{len(of_kind)}")
        lines += [
            f"  now fails:  {t['id']} ({t['why'][:120]})"
            for t in tests
            if not t["passed"] and t["id"] not in failed_before
        ]
        lines += [f"  now passes: {t['id']}" for t in tests if t["passed"] and t["id"] in failed_before]
    return "\n".join(lines)
