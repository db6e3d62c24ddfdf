"""The README's main, batch and CI commands run as written (drafts only: no model needed)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _batch_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Batches, scripts and CI\s+```bash\n(.*?)```", text, re.S)
    assert block, "README lost its batch usage block"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if "hsd convert" in line]


def test_readme_lists_batch_usages():
    commands = _batch_commands()
    assert len(commands) >= 5
    assert any("--shard" in c for c in commands) and any("--json" in c for c in commands)


@pytest.mark.parametrize("command", _batch_commands())
def test_readme_batch_command_runs(command, tmp_path):
    """Each command, with --method draft added, converts the docs and exits 0."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("born_digital.pdf", "two_columns.pdf"):
        shutil.copy(ROOT / "sample_docs" / name, docs / name)
    run = subprocess.run(
        ["bash", "-c", f"{command} --method draft"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    if "--shard" not in command:
        assert sorted(p.name for p in (tmp_path / "out").glob("*.md")) == ["born_digital.md", "two_columns.md"]
    if "> run.json" in command:
        assert json.loads((tmp_path / "run.json").read_text())["documents"]


def _main_command() -> str:
    """The set-up block's conversion, without the install steps before it."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Set-up: two commands.*?```bash\n(.*?)```", text, re.S)
    assert block, "README lost its main command"
    return block.group(1).strip().split(" && ")[-1]


def test_readme_main_command_without_a_model_hub(tmp_path):
    """No hub, no cache: exit 0, Markdown for every sample document, one warning line; the
    page reports say method: draft (the README says which of the two happened)."""
    command = _main_command()
    assert command.startswith("hsd convert sample_docs/ ")
    shutil.copytree(ROOT / "sample_docs", tmp_path / "sample_docs")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty-cache")}
    run = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    progress = "hsd: ["  # one line per document when stderr is not a terminal (issue 13.12)
    assert [ln.split(":")[1] for ln in run.stderr.splitlines() if not ln.startswith(progress)] == [" warning"], (
        run.stderr
    )
    docs = {p.stem for p in (ROOT / "sample_docs").iterdir() if p.suffix in (".pdf", ".png")}
    assert {p.stem for p in (tmp_path / "out").glob("*.md") if p.read_text().strip()} == docs
    methods = {json.loads(p.read_text())["method"] for p in (tmp_path / "out").glob("*/page-*.json")}
    assert methods == {"draft"}
    assert "method: draft" in (ROOT / "README.md").read_text()


def test_readme_model_asked_for_and_missing_exits_3(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty-cache")}
    command = f"hsd convert {ROOT / 'sample_docs'} -o out/ --model does-not-exist"
    run = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 3
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("hsd: error: model 'does-not-exist'")
