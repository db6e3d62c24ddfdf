"""benchmarks/draft_rate.py: its dry run drafts in worker processes to the end, and its figures are
pages over drafting CPU seconds (per core) and over wall seconds (per host)."""

from __future__ import annotations

import json

import pytest
import scripts

from hsd_cli.pages import torch_models


def _script():
    return scripts.load("draft_rate")


def _row(path: str, cpu: float, drafts: str = "a") -> dict:
    return {"path": path, "draft_cpu_s": cpu, "prepare_s": cpu, "end": 0.0, "source": "rapidocr", "drafts": drafts}


def test_pages_a_second_per_core_and_per_host(monkeypatch):
    script = _script()
    monkeypatch.setattr(script, "_kind", lambda path: "scanned" if path.name.startswith("s") else "page image")
    reference = {"arm": {"name": "onnxruntime", "workers": 1}, "wall_s": 8.0, "gpu_mib": []}
    reference["rows"] = [_row("s1.pdf", 1.0), _row("s2.pdf", 1.0), _row("p1.jpg", 2.0), _row("p2.jpg", 4.0)]
    summary = script.summarize(reference, None)
    assert summary["pages_per_s_per_core"] == 0.5  # 4 pages over 8 CPU s; Not the mean of per-page rates
    assert summary["pages_per_s_host"] == 0.5 and "drafts_differ" not in summary
    assert summary["kinds"]["page image"] == {"pages": 2, "draft_cpu_s": 3.0, "pages_per_s_per_core": 0.333}
    monkeypatch.setattr(script, "_below", lambda path: str(path))
    cuda = {"arm": {"name": "cuda-4", "workers": 4}, "wall_s": 2.0, "gpu_mib": [900.0, 950.0]}
    cuda["rows"] = [_row("s1.pdf", 0.5), _row("s2.pdf", 0.5, drafts="b"), _row("p1.jpg", 0.5), _row("p2.jpg", 0.5)]
    summary = script.summarize(cuda, reference)
    assert summary["pages_per_s_host"] == 2.0 and summary["gpu_mib_per_worker"] == 950.0
    assert summary["drafts_differ"] == ["s2.pdf"]
    lines = script.draft_rate_table({"arms": [script.summarize(reference, None), summary]}).splitlines()
    assert lines[0].startswith("| arm | workers | pages/s per core | pages/s per host | scanned CPU s |")
    assert lines[2].endswith("| reference |") and lines[3].endswith("| no: s2.pdf |")


@pytest.mark.slow
def test_dry_run_drafts_in_workers_and_compares_the_drafts(tmp_path, monkeypatch, capsys):
    """One sample page, ONNX Runtime's arm and torch's in a worker process: same drafts; the
    recogniser's line probe reads every frame as ONNX Runtime does."""
    if not torch_models.available():
        pytest.skip("onnx2torch is not installed")
    script = _script()
    monkeypatch.setattr(script, "SAMPLES", {"page.png": "page image"})
    out = tmp_path / "rate.json"
    assert script.main(["--dry-run", "--out-json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [a["arm"]["name"] for a in report["arms"]] == ["onnxruntime", "host-1"]
    assert all(a["pages"] == 1 and a["pages_per_s_host"] > 0 for a in report["arms"])
    assert report["arms"][1]["drafts_differ"] == []
    printed = capsys.readouterr().out
    assert str(tmp_path) not in json.dumps(report["arms"]) and "| host-1 | 1 |" in printed
    lines = report["recognizer_lines"]  # the recogniser's probe, two line widths on the CPU
    assert lines["lines"] == 2 and lines["torch"]["frames_as_onnxruntime"] == 1.0
    assert "The recogniser in torch on cpu, 2 line widths an arm (torch: " in printed
