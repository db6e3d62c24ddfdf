"""End to end through the CLI on sample_docs/: spec methods write exactly the AR Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from hsd_cli.cli.app import app

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
pytestmark = pytest.mark.slow


def _convert(model: Path, out: Path, method: str, *extra: str) -> dict[str, bytes]:
    args = [
        "convert",
        str(SAMPLES),
        "-o",
        str(out),
        "--model",
        str(model),
        "--method",
        method,
        "--max-new-tokens",
        "48",
        "--quiet",
        "--dpi",
        "72",
        *extra,
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.md"))}


def test_page_and_hsd_markdown_byte_identical_to_ar(tiny_model_dir, tmp_path):
    """tau = 1: `auto`, `page` and `hsd` Markdown equals `ar` on every page of every sample,
    with cost-sized trees, Stage-1 cut-offs and background prepare workers. One family: the CLI's
    path is the same for each; every family's tokens equal AR in tests/targets/test_lossless.py."""
    model = tiny_model_dir("qwen2_5_vl")
    ar = _convert(model, tmp_path / "ar", "ar")
    assert len(ar) == len([p for p in SAMPLES.iterdir() if p.suffix in {".pdf", ".png"}])
    assert all(md.strip() for md in ar.values())
    assert _convert(model, tmp_path / "page", "page") == ar
    assert _convert(model, tmp_path / "hsd", "hsd", "--workers", "1") == ar
    assert _convert(model, tmp_path / "auto", "auto") == ar
    assert _convert(model, tmp_path / "fixed", "hsd", "--no-cost-trees", "--max-nodes", "5") == ar
