"""The main job works without a model hub: no model asked for -> the draft pipeline, one warning.

A model asked for explicitly (--model, HSD_MODEL, --method hsd|page|ar, HSD_METHOD) that cannot be
loaded stays an error: exit 3, one line. The half-precision note (bf16/fp16) is checked here too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest
import torch
from fakes import FakeConverter, make_pdf
from typer.testing import CliRunner

from hsd_cli.cli.app import app
from hsd_cli.config import DEFAULT_MODEL
from hsd_cli.driver import converter
from hsd_cli.targets.runtime import registry


@pytest.fixture(autouse=True)
def no_cached_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub is off (conftest sets HF_HUB_OFFLINE) and no cache holds the default model."""
    monkeypatch.setattr(registry, "_is_cached", lambda hub_id: False)


def hsd(*args: object, env: dict[str, str] | None = None):  # noqa: ANN201
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def test_default_model_missing_falls_back_to_drafts(tmp_path: Path) -> None:
    pdf = _text_pdf(tmp_path / "doc.pdf")  # a page of text: one warning, the fallback's
    result = hsd("convert", pdf, "-o", tmp_path / "out", "--quiet")
    assert result.exit_code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hsd: warning: "), result.stderr
    assert DEFAULT_MODEL in lines[0] and "draft" in lines[0] and "--model DIR" in lines[0]
    assert (tmp_path / "out" / "doc.md").exists()
    report = json.loads((tmp_path / "out" / "doc" / "page-0001.json").read_text())
    assert report["method"] == "draft" and report["status"] == "ok"


def _text_pdf(path: Path) -> Path:
    """One page with a line of text (make_pdf's pages hold only ink, which the drafts report)."""
    doc = pymupdf.open()
    doc.new_page(width=300, height=144).insert_text((20, 60), "Offline, the drafts still read this.", fontsize=12)
    doc.save(path)
    doc.close()
    return path


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--model", "does-not-exist"], {}),
        (["--model", DEFAULT_MODEL], {}),
        ([], {"HSD_MODEL": DEFAULT_MODEL}),
        (["--method", "hsd"], {}),
        (["--method", "page"], {}),
        (["--method", "ar"], {}),
        ([], {"HSD_METHOD": "page"}),
    ],
)
def test_model_asked_for_and_missing_exits_3(tmp_path: Path, args: list[str], env: dict[str, str]) -> None:
    result = hsd("convert", make_pdf(tmp_path / "doc.pdf", 1), "-o", tmp_path / "out", *args, env=env)
    assert result.exit_code == 3
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hsd: error: model "), result.stderr
    assert not (tmp_path / "out" / "doc.md").exists()


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Model loading succeeds (a FakeConverter), and "auto" resolves as on a GPU: bfloat16."""
    monkeypatch.setattr(registry, "check_model", lambda model: ({}, "hunyuan_vl"))
    fake = FakeConverter()
    monkeypatch.setattr(
        converter.TargetConverter, "convert_many", lambda self, items: ((k, fake.convert(p)) for k, p in items)
    )
    dtypes = {"auto": torch.bfloat16, "bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
    monkeypatch.setattr(registry, "resolve_dtype", lambda dtype, device: dtypes[dtype])


@pytest.mark.parametrize(
    ("args", "noted"),
    [
        ([], "bfloat16"),
        (["--dtype", "fp16"], "float16"),
        (["--dtype", "fp32"], None),
        (["--tau", "0.75"], None),
        (["--method", "ar"], None),
    ],
)
def test_half_precision_says_equality_is_measured(
    tmp_path: Path, loaded: None, args: list[str], noted: str | None
) -> None:
    result = hsd("convert", make_pdf(tmp_path / "doc.pdf", 1), "-o", tmp_path / "out", "--quiet", *args)
    assert result.exit_code == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("hsd: note: ")]
    if noted is None:
        assert notes == []
    else:
        assert len(notes) == 1 and f"runs in {noted}" in notes[0]
        assert "guaranteed in float32" in notes[0] and "--baseline" in notes[0]
