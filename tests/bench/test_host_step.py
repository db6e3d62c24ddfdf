"""benchmarks/host_step.py: a short run reports every phase, and the penalty changes no tree."""

from __future__ import annotations

import json

import scripts


def _script():
    return scripts.load("host_step")


def test_a_short_run_reports_each_phase_with_and_without_the_penalty(tmp_path, monkeypatch):
    script = _script()
    monkeypatch.setattr(script, "REFERENCE", 800)  # rows of 800 tokens: enough for the passes
    out = tmp_path / "host.json"
    argv = ["--rows", "1", "3", "--passes", "2", "--rounds", "2", "--warmup", "1", "--layers", "2", "--vocab", "3000"]
    assert script.main([*argv, "--out-json", str(out)]) == 0
    cases = json.loads(out.read_text())["cases"]
    assert [(c["rows"], c["penalty"]) for c in cases] == [(1, 1.0), (1, 1.05), (3, 1.0), (3, 1.05)]
    for off, on in zip(cases[::2], cases[1::2], strict=True):
        # the oracle forces the same tokens: the same trees, the penalty's cost apart
        assert (off["tree_width"], off["tokens_per_pass"]) == (on["tree_width"], on["tokens_per_pass"])
        assert off["tokens_per_pass"] > off["rows"]  # drafts were accepted
        assert on["phases_ms"]["penalty"] > 0 and off["phases_ms"]["penalty"] == 0
        assert set(script.HOST) <= set(off["phases_ms"]) and off["host_ms"] > 0
