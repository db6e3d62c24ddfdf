"""benchmarks/engine_step.py: its dry run times every engine and figure the GPU run writes."""

from __future__ import annotations

import json

import scripts


def _script():
    return scripts.load("engine_step")


def test_dry_run_reports_each_engines_step_times(capsys, monkeypatch):
    script = _script()
    monkeypatch.setattr(script, "AR_ROWS", (1, 3))  # the shapes of the GPU run, fewer of them
    monkeypatch.setattr(script, "TREE_WIDTHS", (16,))
    assert script.main(["--dry-run", "--reps", "1", "--prompt", "16", "--pages", "ignored"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["device"] == "cpu" and report["dtype"] == "float32"
    assert set(report["ar_step_ms"]) == {"eager", "static"}  # graphs only on CUDA
    assert set(report["ar_step_ms"]["static"]) == {"1", "3"} and set(report["tree_step_ms"]["eager"]) == {"16"}
    # Ragged attention: its mixed step only on the CPU (each bucket compiles FlexAttention)
    assert set(report["mixed_step_ms"]) == {"eager", "static", "static+ragged"} and not report["errors"]
    assert all(ms > 0 for fig in script.FIGURES for engine in report[fig].values() for ms in engine.values())
    lines = script.engine_table(report).splitlines()
    assert lines[0] == "| step | rows | tree tokens | eager ms | static ms | static+ragged ms |"
    assert lines[2].startswith("| ar step | 1 | 1 |") and lines[2].endswith(" | - |")
    assert lines[-2].startswith("| tree step | 1 | 16 |") and lines[-1].startswith("| mixed step | 3 | 1 |")
