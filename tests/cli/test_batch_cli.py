"""Issue 13 at the command line: usage errors up front, one-line device and weight errors,
help that keeps its notes, and a run summary whatever failed after the arguments."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fakes import FakeConverter, make_pdf
from typer.testing import CliRunner

from hsd_cli.cli.app import app
from hsd_cli.cli.checks import model_spelling as _model_spelling
from hsd_cli.config import RunConfig
from hsd_cli.driver import choose
from hsd_cli.errors import UsageError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeConverter:
    converter = FakeConverter()
    monkeypatch.setattr(choose, "converter_for", lambda cfg: converter)
    return converter


def hsd(*args: object):  # noqa: ANN201
    return CliRunner().invoke(app, [str(a) for a in args])


def one_error_line(stderr: str) -> bool:
    return stderr.count("\n") == 1 and stderr.startswith("hsd: error: ") and "Traceback" not in stderr


@pytest.mark.parametrize("pages", ["1-x", "3-1", "0", ",", "1--2"])
def test_malformed_pages_is_one_usage_error(tmp_path: Path, fake: FakeConverter, pages: str) -> None:
    """Issue 13.8: a bad --pages fails the command up front, not every document."""
    pdfs = [make_pdf(tmp_path / f"d{i}.pdf", 1) for i in range(3)]
    result = hsd("convert", *pdfs, "-o", tmp_path / "o", "--pages", pages)
    assert result.exit_code == 2 and one_error_line(result.stderr) and fake.calls == []


@pytest.mark.parametrize("device", ["tpu", "cuda:x", "CPU"])
def test_unknown_device_is_a_usage_error(tmp_path: Path, fake: FakeConverter, device: str) -> None:
    """Issue 13.10: --device tpu is one line, exit 2."""
    result = hsd("convert", make_pdf(tmp_path / "d.pdf", 1), "-o", tmp_path / "o", "--device", device)
    assert result.exit_code == 2 and one_error_line(result.stderr) and "--device" in result.stderr


def test_missing_cuda_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13.10: --device cuda on a machine without CUDA names the cause."""
    import torch

    from hsd_cli.targets.runtime.registry import resolve_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for device in ("cuda", "cuda:1"):
        with pytest.raises(UsageError, match="CUDA is not available"):
            resolve_device(device)
    assert resolve_device("auto") == "cpu" and resolve_device("cpu") == "cpu"


def test_model_errors_exit_3_naming_the_file_and_leave_a_run_summary(
    tmp_path: Path, tiny_model_dir, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13.10: a truncated model.safetensors is exit 3 naming the file; --device cuda
    without CUDA is exit 2; both after argument parsing, so run-summary.json exists."""
    import torch

    model = shutil.copytree(tiny_model_dir("hunyuan_vl"), tmp_path / "model")
    weights = model / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    pdf = make_pdf(tmp_path / "d.pdf", 1)
    result = hsd("convert", pdf, "-o", tmp_path / "o", "--model", model, "--method", "ar")
    assert result.exit_code == 3 and one_error_line(result.stderr)
    assert f"{weights}: truncated or corrupt weights" in result.stderr
    summary = json.loads((tmp_path / "o" / "run-summary.json").read_text())
    assert summary["exit_code"] == 3 and "truncated" in summary["error"] and summary["documents"] == []

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    args = ("convert", pdf, "-o", tmp_path / "o2", "--model", model, "--device", "cuda", "--method", "ar")
    result = hsd(*args)
    assert result.exit_code == 2 and one_error_line(result.stderr) and "CUDA" in result.stderr
    assert json.loads((tmp_path / "o2" / "run-summary.json").read_text())["exit_code"] == 2


def test_model_spellings_are_one_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13.7: a trailing slash or a relative path names the same model (resume keeps pages)."""
    (tmp_path / "m").mkdir()
    monkeypatch.chdir(tmp_path)
    same = {_model_spelling(s) for s in ("m", "m/", "./m", str(tmp_path / "m") + "/")}
    assert same == {str(tmp_path / "m")}
    assert _model_spelling("tencent/HunyuanOCR/") == "tencent/HunyuanOCR"


def test_help_keeps_default_notes_and_flags_take_no_value() -> None:
    """Issue 13.12: "[default: ...]" survives; flags are not shown as taking <bool>."""
    text = hsd("convert", "--help").stdout
    assert "[default: all]" in " ".join(text.split()) and "<bool>" not in text
    assert "[default: pdf png jpg jpeg jfif tif tiff webp bmp gif" in " ".join(text.split())  # inputs.EXTENSIONS
    assert "  0        all pages ok" in text  # the exit-code table is not rewrapped


def test_bare_hsd_prints_the_help_once() -> None:
    """Issue 13.12: `hsd` with no arguments: usage once, exit 2."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "hsd_cli"], capture_output=True, text=True, env=env, timeout=60)
    both = proc.stdout + proc.stderr
    assert proc.returncode == 2 and both.count("Usage:") == 1 and "convert" in both


def test_run_summary_written_when_the_model_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "run-summary.json exists after every run that got past argument parsing"."""
    from hsd_cli.errors import ModelNotFoundError

    def load(cfg: RunConfig) -> None:
        raise ModelNotFoundError("model 'nope/nope' not found")

    monkeypatch.setattr(choose, "converter_for", load)
    docs = [make_pdf(tmp_path / f"x{i}.pdf", 1) for i in range(6)]  # some land in shard 2: a model is needed
    result = hsd("convert", *docs, "-o", tmp_path / "o", "--shard", "2/3")
    assert result.exit_code == 3
    data = json.loads((tmp_path / "o" / "run-summary-2-of-3.json").read_text())
    assert data["exit_code"] == 3 and data["error"] == "model 'nope/nope' not found"


def test_readme_examples_do_not_share_an_output_folder() -> None:
    """Issue 13.12: the tiny-model and draft examples must not replace the main command's Markdown."""
    import re

    text = (REPO / "README.md").read_text()
    setup = text[text.index("## Set-up") : text.index("Install and run the tests")]
    outs = re.findall(r"hsd convert sample_docs/ -o (\S+)", setup)
    assert len(outs) >= 3 and len(set(outs)) == len(outs), outs
