"""The `hsd` command: exit codes, one-line errors, files written, resume, shards.

In-process runs use typer's CliRunner with FakeConverter in place of the model; a few
subprocess runs check what a user sees (no traceback) and resume after a killed run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakes import FakeConverter, make_corrupted_pdf, make_encrypted_pdf, make_pdf
from typer.testing import CliRunner

from hsd_cli import __version__
from hsd_cli.cli.app import app
from hsd_cli.config import RunConfig
from hsd_cli.driver import choose
from hsd_cli.errors import ModelNotFoundError

REPO = Path(__file__).resolve().parents[2]
FAKE_CLI = [sys.executable, str(REPO / "tests" / "fakes.py")]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeConverter:
    """The converter every in-process `hsd convert` gets; records the RunConfig it was built for."""
    converter = FakeConverter()

    def load(cfg: RunConfig) -> FakeConverter:
        converter.cfg = cfg  # type: ignore[attr-defined]
        return converter

    monkeypatch.setattr(choose, "converter_for", load)
    return converter


def hsd(*args: object, env: dict[str, str] | None = None, stdin: str | None = None):  # noqa: ANN201
    return CliRunner().invoke(app, [str(a) for a in args], env=env, input=stdin)


def run_cli(*args: object, cmd: list[str] = FAKE_CLI, **kw: object) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), **kw.pop("env", {})}  # type: ignore[dict-item]
    return subprocess.Popen(
        [*cmd, *map(str, args)], env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw
    )


def test_version() -> None:
    result = hsd("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"hsd {__version__}"


def test_help_documents_options_env_vars_and_exit_codes() -> None:
    text = " ".join(hsd("convert", "--help").stdout.split())
    for needle in (
        "--max-new-tokens",
        "HSD_MODEL",
        "HSD_DEVICE",
        "HSD_DTYPE",
        "--shard",
        "Examples:",
        "Exit codes:",
        "130/143",
    ):
        assert needle in text


def test_convert_writes_markdown_and_reports(tmp_path: Path, fake: FakeConverter) -> None:
    result = hsd(
        "convert",
        make_pdf(tmp_path / "doc.pdf", 2),
        "-o",
        tmp_path / "out",
        "--method",
        "draft",
        "--tau",
        "0.9",
        "--shard",
        "1/1",
    )
    assert result.exit_code == 0, result.stderr
    assert "doc p2" in (tmp_path / "out" / "doc.md").read_text()
    assert (tmp_path / "out" / "doc" / "page-0002.json").exists()
    assert fake.cfg.method == "draft" and fake.cfg.spec.tau == 0.9  # type: ignore[attr-defined]


def test_options_read_env_vars(tmp_path: Path, fake: FakeConverter) -> None:
    """Every option has HSD_<NAME>; the command line wins over the environment."""
    env = {
        "HSD_MODEL": "/models/x",
        "HSD_DEVICE": "cuda:1",
        "HSD_DTYPE": "fp32",
        "HSD_WINDOW": "5",
        "HSD_NO_REGION_STARTS": "1",
        "HSD_DPI": "200",
    }
    result = hsd("convert", make_pdf(tmp_path / "d.pdf", 1), "-o", tmp_path / "o", "--dpi", "72", env=env)
    cfg = fake.cfg  # type: ignore[attr-defined]
    assert result.exit_code == 0, result.stderr
    assert (cfg.model, cfg.device, cfg.dtype, cfg.spec.window) == ("/models/x", "cuda:1", "fp32", 5)
    assert cfg.spec.region_starts is False and cfg.dpi == 72


def test_json_prints_only_the_run_summary(tmp_path: Path, fake: FakeConverter) -> None:
    result = hsd("convert", make_pdf(tmp_path / "d.pdf", 2), "-o", tmp_path / "o", "--json")
    data = json.loads(result.stdout)
    assert data["exit_code"] == 0 and data["totals"]["pages"] == 2
    assert data["documents"][0]["markdown"] == "d.md"


@pytest.mark.parametrize("args", [["--tau", "2"], ["--shard", "3/2"], ["--dpi", "10"]])
def test_bad_config_is_a_usage_error(tmp_path: Path, fake: FakeConverter, args: list[str]) -> None:
    """ValueError from the config records: exit 2, one line, no traceback."""
    result = hsd("convert", tmp_path / "x.pdf", "-o", tmp_path / "o", *args)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("hsd: error: ")


def test_a_bad_attention_setting_is_a_usage_error_before_any_model(tmp_path: Path, fake: FakeConverter) -> None:
    """HSD_ATTENTION is read when a GPU model loads; a bad value stops the run at once, in one line."""
    result = hsd("convert", make_pdf(tmp_path / "x.pdf", 1), "-o", tmp_path / "o", env={"HSD_ATTENTION": "sparse"})
    assert result.exit_code == 2
    assert result.stderr == "hsd: error: HSD_ATTENTION must be 'dense' or 'ragged', not 'sparse'\n"


def test_model_not_found_exits_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def load(cfg: RunConfig) -> None:
        raise ModelNotFoundError(f"model {cfg.model!r} not found (no such directory or hub id)")

    monkeypatch.setattr(choose, "converter_for", load)
    result = hsd("convert", make_pdf(tmp_path / "x.pdf", 1), "-o", tmp_path / "o", "--model", "nope/nope")
    assert result.exit_code == 3
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("hsd: error: model 'nope/nope' ")


def test_missing_input_is_a_usage_error_before_any_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A path on the command line that does not exist: exit 2, one line, the model never looked for."""
    monkeypatch.setattr(choose, "converter_for", lambda cfg: pytest.fail("model looked for"))
    result = hsd("convert", make_pdf(tmp_path / "a.pdf", 1), tmp_path / "nope.pdf", "-o", tmp_path / "o")
    assert (
        result.exit_code == 2 and result.stderr == f"hsd: error: {tmp_path / 'nope.pdf'}: no such file or directory\n"
    )
    assert not (tmp_path / "o").exists()


ZERO_PAGES = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n"
)


def writer(data: bytes):  # noqa: ANN201
    def write(path: Path) -> Path:
        path.write_bytes(data)
        return path

    return write


BAD_INPUTS = {
    "corrupted": (make_corrupted_pdf, "corrupted PDF"),
    "encrypted": (make_encrypted_pdf, "password"),
    "empty": (writer(b""), "empty file"),
    "zero-pages": (writer(ZERO_PAGES), "zero pages"),
    "text-as-pdf": (writer(b"hello\n"), "not a PDF"),
}


@pytest.mark.parametrize("kind", BAD_INPUTS)
def test_bad_input_is_one_line_and_exit_1(tmp_path: Path, fake: FakeConverter, kind: str) -> None:
    make, cause = BAD_INPUTS[kind]
    path = make(tmp_path / "bad.pdf")
    result = hsd("convert", path, "-o", tmp_path / "o")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"hsd: error: {path}: ")
    assert cause in result.stderr and "Traceback" not in result.stderr


def test_unwritable_output_is_one_line(tmp_path: Path, fake: FakeConverter) -> None:
    """An output path below a regular file cannot be created (this holds for root too)."""
    (tmp_path / "file").write_text("")
    result = hsd("convert", make_pdf(tmp_path / "d.pdf", 1), "-o", tmp_path / "file" / "out")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "cannot write" in result.stderr


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores chmod")
def test_read_only_output_folder(tmp_path: Path, fake: FakeConverter) -> None:
    out = tmp_path / "ro"
    out.mkdir(mode=0o555)
    result = hsd("convert", make_pdf(tmp_path / "d.pdf", 1), "-o", out)
    assert result.exit_code == 1 and "cannot write" in result.stderr


def test_resume_skips_finished_pages_and_force_redoes(tmp_path: Path, fake: FakeConverter) -> None:
    pdf, out = make_pdf(tmp_path / "d.pdf", 2), tmp_path / "o"
    hsd("convert", pdf, "-o", out)
    fake.calls.clear()
    assert hsd("convert", pdf, "-o", out).exit_code == 0 and fake.calls == []
    assert hsd("convert", pdf, "-o", out, "--force").exit_code == 0 and len(fake.calls) == 2


def test_shards_partition_a_batch(tmp_path: Path, fake: FakeConverter) -> None:
    """Shards 1/3..3/3 into one out dir: every document converted exactly once."""
    src = tmp_path / "in"
    for i in range(6):
        make_pdf(src / f"d{i}.pdf", 1)
    for i in (1, 2, 3):
        assert hsd("convert", src, "-o", tmp_path / "o", "--shard", f"{i}/3").exit_code == 0
    assert sorted(fake.calls) == [(f"d{i}.pdf", 1) for i in range(6)]
    assert len(list((tmp_path / "o").glob("run-summary-*-of-3.json"))) == 3


def test_same_name_in_two_folders_gives_two_outputs(tmp_path: Path, fake: FakeConverter) -> None:
    a, b = make_pdf(tmp_path / "a" / "x.pdf", 1), make_pdf(tmp_path / "b" / "x.pdf", 2)
    assert hsd("convert", b, a, "-o", tmp_path / "o").exit_code == 0
    mds = {p.read_text().count("x p"): p.name for p in (tmp_path / "o").glob("x-*.md")}
    assert sorted(mds) == [1, 2]  # each its own file, named by its own path's hash


def test_paths_from_stdin(tmp_path: Path, fake: FakeConverter) -> None:
    pdf = make_pdf(tmp_path / "d.pdf", 1)
    result = hsd("convert", "-", "-o", tmp_path / "o", stdin=f"{pdf}\n")
    assert result.exit_code == 0 and (tmp_path / "o" / "d.md").exists()


def test_mixed_folder_subprocess(tmp_path: Path) -> None:
    """The real entry point: one line per bad file, no traceback, good files converted, exit 1."""
    src = tmp_path / "in"
    make_pdf(src / "good.pdf", 1)
    make_corrupted_pdf(src / "corrupt.pdf")
    make_encrypted_pdf(src / "locked.pdf")
    (src / "text.pdf").write_text("notes")
    proc = run_cli("convert", src, "-o", tmp_path / "o", "--json")
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "Traceback" not in stderr
    lines = stderr.splitlines()  # one per bad file, and the good one's progress line (no terminal)
    assert [ln.startswith("hsd: error: ") for ln in lines].count(True) == 3 and len(lines) == 4
    assert (tmp_path / "o" / "good.md").exists()
    assert json.loads(stdout)["documents_failed"] == 3


def test_usage_error_subprocess() -> None:
    """Click's own parse errors also come out as one line with exit 2."""
    proc = run_cli("convert", "x.pdf", "--window", "0", cmd=[sys.executable, "-m", "hsd_cli"])
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 2 and stderr.startswith("hsd: error: ") and stderr.count("\n") == 1


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_resume_after_kill(tmp_path: Path, fake: FakeConverter, sig: signal.Signals) -> None:
    """Kill a 5-page run after page 2's report appears; the rerun keeps pages 1-2 as they are
    and the final Markdown equals an uninterrupted run's."""
    pdf = make_pdf(tmp_path / "doc.pdf", 5)
    out = tmp_path / "o"
    proc = run_cli("convert", pdf, "-o", out, env={"HSD_FAKE_DELAY": "0.3"})
    page2 = out / "doc" / "page-0002.json"
    deadline = time.monotonic() + 30
    while not page2.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(sig)
    proc.communicate(timeout=30)
    assert proc.returncode == (143 if sig == signal.SIGTERM else -signal.SIGKILL)
    assert not (out / "doc" / "page-0005.json").exists()  # it really stopped midway
    first_two = [out / "doc" / "page-0001.json", page2]
    kept = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in first_two}
    assert hsd("convert", pdf, "-o", out).exit_code == 0
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in kept} == kept
    assert ("doc.pdf", 1) not in fake.calls and ("doc.pdf", 2) not in fake.calls
    assert hsd("convert", pdf, "-o", tmp_path / "ref").exit_code == 0
    assert (out / "doc.md").read_text() == (tmp_path / "ref" / "doc.md").read_text()


def test_draft_method_end_to_end(tmp_path: Path) -> None:
    """The real DraftConverter (no model) through the CLI: text-layer PDF in, Markdown out."""
    pytest.importorskip("hsd_cli.methods.draft")
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    page.insert_text((30, 60), "Hello draft world", fontsize=14)
    body = "A paragraph of body text, long enough for the layout to see a text block."
    page.insert_textbox(pymupdf.Rect(30, 80, 280, 180), body, fontsize=10)
    doc.save(tmp_path / "t.pdf")
    result = hsd("convert", tmp_path / "t.pdf", "-o", tmp_path / "o", "--method", "draft", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["totals"]["pages"] == 1
    assert "Hello draft world" in (tmp_path / "o" / "t.md").read_text()
