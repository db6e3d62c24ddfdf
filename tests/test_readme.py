"""The README's and docs/usage.md's commands run as written (drafts only: no model needed), and
the README stays an entry page: short, its set-up and results first, its links alive."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
USAGE = ROOT / "docs" / "usage.md"
SAMPLES = ("born_digital.pdf", "two_columns.pdf")  # the fast, born-digital sample documents
# Appended to each usage line: no model, no GPU; pages drafted inline (a worker's start-up would
# double each case's time, and the workers have tests of their own).
DRAFT_ONLY = " --method draft --workers 0"


def _block(path: Path, heading: str) -> str:
    """The first bash block under a `## heading`."""
    block = re.search(rf"## {re.escape(heading)}.*?```bash\n(.*?)```", path.read_text(), re.S)
    assert block, f"{path.name} lost its {heading!r} block"
    return block.group(1)


def _commands(path: Path, heading: str) -> list[str]:
    lines = _block(path, heading).splitlines()
    return [line.split("  #")[0].strip() for line in lines if "hsd convert" in line]


def _run(command: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _batch_commands() -> list[str]:
    return _commands(USAGE, "Batches, scripts and CI")


def test_usage_lists_batch_usages():
    commands = _batch_commands()
    assert len(commands) >= 5
    assert any("--shard" in c for c in commands) and any("--json" in c for c in commands)


@pytest.mark.parametrize("command", _batch_commands())
def test_usage_batch_command_runs(command, tmp_path):
    """Each command, with DRAFT_ONLY added, converts the docs and exits 0."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in SAMPLES:
        shutil.copy(ROOT / "sample_docs" / name, docs / name)
    run = _run(command + DRAFT_ONLY, tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    if "--shard" not in command:
        assert sorted(p.name for p in (tmp_path / "out").glob("*.md")) == ["born_digital.md", "two_columns.md"]
    if "> run.json" in command:
        assert json.loads((tmp_path / "run.json").read_text())["documents"]


def _usage_commands() -> list[str]:
    return _commands(README, "Usage")


def test_readme_usage_covers_a_file_a_folder_a_gpu_and_offline():
    commands = _usage_commands()
    assert any(c.split()[2].endswith(".pdf") for c in commands)  # one file
    assert any(c.split()[2].endswith("/") for c in commands)  # a folder
    assert any("--device cuda" in c for c in commands) and any("--method draft" in c for c in commands)


@pytest.mark.parametrize("command", _usage_commands())
def test_readme_usage_command_runs(command, tmp_path):
    """Each usage line, with DRAFT_ONLY added, writes its Markdown."""
    (tmp_path / "sample_docs").mkdir()
    for name in SAMPLES:
        shutil.copy(ROOT / "sample_docs" / name, tmp_path / "sample_docs" / name)
    run = _run(command + DRAFT_ONLY, tmp_path)
    assert run.returncode == 0, run.stderr
    one_file = shlex.split(command)[2].endswith(".pdf")
    expected = ["born_digital.md"] if one_file else ["born_digital.md", "two_columns.md"]
    assert sorted(p.name for p in (tmp_path / "out").glob("*.md")) == expected


def _main_command() -> str:
    """The set-up block's conversion, without the install steps before it."""
    return _block(README, "Set-up: two commands").strip().split(" && ")[-1]


def test_readme_main_command_without_a_model_hub(tmp_path):
    """No hub, no cache: exit 0, Markdown for every sample document, one warning line; the
    page reports say method: draft (the README says which of the two happened)."""
    command = _main_command()
    assert command.startswith("hsd convert sample_docs/ ")
    shutil.copytree(ROOT / "sample_docs", tmp_path / "sample_docs")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty-cache")}
    run = _run(command, tmp_path, env)
    assert run.returncode == 0, run.stderr
    progress = "hsd: ["  # one line per document when stderr is not a terminal (issue 13.12)
    assert [ln.split(":")[1] for ln in run.stderr.splitlines() if not ln.startswith(progress)] == [" warning"], (
        run.stderr
    )
    docs = {p.stem for p in (ROOT / "sample_docs").iterdir() if p.suffix in (".pdf", ".png")}
    assert {p.stem for p in (tmp_path / "out").glob("*.md") if p.read_text().strip()} == docs
    methods = {json.loads(p.read_text())["method"] for p in (tmp_path / "out").glob("*/page-*.json")}
    assert methods == {"draft"}
    assert "method: draft" in README.read_text()


def test_readme_model_asked_for_and_missing_exits_3(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty-cache")}
    run = _run(f"hsd convert {ROOT / 'sample_docs'} -o out/ --model does-not-exist", tmp_path, env)
    assert run.returncode == 3
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("hsd: error: model 'does-not-exist'")


def test_readme_test_command_is_what_ci_runs():
    """The README's test command ends in the pytest line .ci/run runs, after installing its extras."""
    readme = README.read_text()
    test_block = re.search(r"Install and run the tests.*?```bash\n(.*?)```", readme, re.S)
    assert test_block, "README lost its test command"
    command = test_block.group(1).strip()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    pytest_line = [ln.strip() for ln in ci if ln.strip().startswith("python -m pytest")]
    assert len(pytest_line) == 1 and command.split(" && ")[-1] == pytest_line[0]
    extras = re.search(r'pip install -q -e "(\.\[[a-z,]+\])"', "\n".join(ci))
    assert extras and f'pip install -e "{extras.group(1)}"' in command


def test_readme_is_an_entry_page():
    """Under 150 lines; both set-up commands and the one results table on the first 60."""
    lines = README.read_text().splitlines()
    assert len(lines) < 150
    head = "\n".join(lines[:60])
    assert "hsd convert sample_docs/" in head and "python -m pytest" in head
    tables = [ln for ln in lines if ln.startswith("| device |")]
    assert len(tables) == 1 and tables[0] in head
    assert "benchmarks/RESULTS.md" in head


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize(
    "doc", ["README.md", "CHANGELOG.md", "docs/usage.md", "docs/how-it-works.md", "docs/ray.md", "docs/targets.md"]
)
def test_links_resolve(doc):
    """Every relative link names a file of the repository, and its #anchor a heading there."""
    path = ROOT / doc
    prose = re.sub(r"```.*?```|`[^`]*`", "", path.read_text(), flags=re.S)  # code holds examples, not links
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"[a-z]+://", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.exists(), f"{doc}: {target}"
        if anchor:
            headings = re.findall(r"^#+ (.*)$", linked.read_text(), re.M)
            assert anchor in {_slug(h) for h in headings}, f"{doc}: {target}"
