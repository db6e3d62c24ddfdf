"""benchmarks/olmocr_bench.py and olmocr_report.py: the pieces that need neither the scorer nor a model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))  # the scripts import their siblings by name

import olmocr_bench  # noqa: E402
import olmocr_report  # noqa: E402


def _bench(tmp_path: Path) -> Path:
    """A folder in olmOCR-bench's layout: three PDFs (one in a subfolder), tests in two files."""
    bench = tmp_path / "bench"
    for name in ("html_cards_001.pdf", "html_cards_002.pdf", "sub/scan_007.pdf"):
        (bench / "pdfs" / name).parent.mkdir(parents=True, exist_ok=True)
        (bench / "pdfs" / name).write_bytes(b"%PDF-1.4\n")
    tests = [
        {"pdf": "html_cards_001.pdf", "page": 1, "id": "c1_present", "type": "present", "text": "a"},
        {"pdf": "html_cards_002.pdf", "page": 1, "id": "c2_absent", "type": "absent", "text": "b"},
    ]
    (bench / "tests.jsonl").write_text("\n".join(json.dumps(t) for t in tests) + "\n")
    (bench / "more.jsonl").write_text(json.dumps({"pdf": "sub/scan_007.pdf", "page": 1, "id": "s", "type": "order"}))
    return bench


def test_only_picks_pdfs_by_a_regex_on_their_path(tmp_path):
    bench = _bench(tmp_path)
    assert [p.as_posix() for p in olmocr_bench.select(bench, None)] == [
        "html_cards_001.pdf",
        "html_cards_002.pdf",
        "sub/scan_007.pdf",
    ]
    assert [p.as_posix() for p in olmocr_bench.select(bench, ["cards_00[2-9]", "^sub/"])] == [
        "html_cards_002.pdf",
        "sub/scan_007.pdf",
    ]


def test_prepare_links_the_chosen_pdfs_and_keeps_only_their_tests(tmp_path):
    bench, work = _bench(tmp_path), tmp_path / "work" / "scored"
    pdfs = olmocr_bench.select(bench, ["002"])
    olmocr_bench.prepare(bench, work, pdfs, ("hsd_draft",))
    assert sorted(p.name for p in (work / "pdfs").rglob("*.pdf")) == ["html_cards_002.pdf"]
    assert [json.loads(line)["id"] for line in (work / "tests.jsonl").read_text().splitlines()] == ["c2_absent"]
    assert not (work / "more.jsonl").exists()  # no test left in it: the scorer would count an empty file
    assert sorted(p.name for p in work.iterdir() if p.is_dir()) == ["hsd_draft", "pdfs"]


def test_systems_are_checked():
    assert olmocr_bench._parse_args(["--systems", "hsd_draft"]).systems == ("hsd_draft",)
    with pytest.raises(SystemExit):
        olmocr_bench._parse_args(["--systems", "hsd_draft,marker"])


def test_templates_from_the_manifest_else_folder_else_name(tmp_path):
    bench = _bench(tmp_path)
    pdfs = olmocr_bench.select(bench, None)
    assert olmocr_report.templates(bench, pdfs) == {
        "html_cards_001.pdf": "html_cards",
        "html_cards_002.pdf": "html_cards",
        "sub/scan_007.pdf": "sub",
    }
    docs = [{"pdf": "pdfs/html_cards_001.pdf", "template": "html-eq-cards"}]
    (bench / "manifest.json").write_text(json.dumps({"documents": docs}))
    assert olmocr_report.templates(bench, pdfs)["html_cards_001.pdf"] == "html-eq-cards"


def _outcomes(passed: dict[str, bool]) -> dict:
    kinds = {"c1_present": ("present", "html_cards_001.pdf"), "c2_absent": ("absent", "html_cards_002.pdf")}
    return {
        "hsd_draft": [
            {"id": i, "type": kinds[i][0], "pdf": kinds[i][1], "page": 1, "passed": ok, "why": "x"}
            for i, ok in passed.items()
        ]
        + [{"id": "b", "type": "baseline", "pdf": "html_cards_001.pdf", "page": 1, "passed": True, "why": ""}]
    }


def test_summary_counts_per_type_and_template_and_compare_names_what_moved(tmp_path):
    bench = _bench(tmp_path)
    pdfs = olmocr_bench.select(bench, None)
    old = olmocr_report.summarize(bench, _outcomes({"c1_present": True, "c2_absent": False}), {}, {}, pdfs)
    s = old["systems"]["hsd_draft"]
    assert s["tests_jsonl"] == "1/2"  # the scorer's baseline check apart
    assert s["types"] == {"present": "1/1", "absent": "0/1", "baseline": "1/1"}
    assert s["templates"] == {"html_cards": {"present": "1/1", "absent": "0/1", "baseline": "1/1"}}
    assert "html_cards" in olmocr_report.text(old)
    moved = olmocr_report.compare(old, _outcomes({"c1_present": False, "c2_absent": True}))
    assert "present   1/1 -> 0/1" in moved and "absent    0/1 -> 1/1" in moved
    assert "now fails:  c1_present" in moved and "now passes: c2_absent" in moved
    only_one = olmocr_report.compare(old, {"hsd_draft": _outcomes({"c1_present": True})["hsd_draft"][:1]})
    assert "absent" not in only_one  # tests this run did not score are not compared
