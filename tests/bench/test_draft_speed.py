"""benchmarks/draft_speed.py: each arm runs its own code, with the packages the path already held
(a lent GPU machine's come on PYTHONPATH), drafting on the CPU; a page's drafting CPU is its least
over the repeats."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import scripts


def test_an_arm_puts_its_code_first_and_keeps_the_path(monkeypatch):
    script = scripts.load("draft_speed")
    monkeypatch.setenv("PYTHONPATH", "/site")
    monkeypatch.setenv("HSD_MODEL", "x")
    env = script.child_env(Path("/arm"), Path("/cache"))
    assert env["PYTHONPATH"].split(os.pathsep) == ["/arm", "/site"]
    assert env["HSD_CACHE_DIR"] == "/cache" and "HSD_MODEL" not in env
    assert env["HSD_DRAFT_DEVICE"] == "cpu"  # ONNX Runtime on the CPU, as the baseline drafts, on a CUDA host too
    monkeypatch.delenv("PYTHONPATH")
    assert script.child_env(Path("/arm"), Path("/cache"))["PYTHONPATH"] == "/arm"


def test_drafting_is_prepare_less_render_at_its_least():
    script = scripts.load("draft_speed")
    runs = [{"p": {"prepare_cpu_s": 2.0, "render_cpu_s": 0.5}}, {"p": {"prepare_cpu_s": 1.6, "render_cpu_s": 0.4}}]
    assert script.draft_cpu(runs, "p") == pytest.approx(1.2)
