"""The README's batch and CI commands run as written (drafts only: no model needed)."""

from __future__ import annotations

import json
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
