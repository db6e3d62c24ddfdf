"""Each speculative knob is declared once (SpecConfig) and reaches both commands and the resume key;
the CLI checks and plans before it looks for a model; what `hsd models` and the table show."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path

import pytest
from fakes import FakeConverter, make_pdf
from typer.main import get_command
from typer.testing import CliRunner

from hsd_cli.cli.app import app
from hsd_cli.cli.options import envvar
from hsd_cli.config import RunConfig, SpecConfig, spec_options
from hsd_cli.driver import choose
from hsd_cli.pages.inputs import discover
from hsd_cli.report.summary import DocStatus, DocSummary, RunSummary, Totals
from hsd_cli.report.table import run_table

REPO = Path(__file__).resolve().parents[2]
CHANGED = {
    "tau": 0.5,
    "window": 5,
    "min_window": 2,
    "max_depth": 7,
    "max_candidates": 3,
    "max_new_tokens": 99,
    "repeat_guard": 0,
    "max_nodes": 9,
    "cost_aware": False,
    "cost_model": "flat",
    "on_loop": "draft",
    "region_starts": False,
    "stage1_batch": 2,
}
AT_TAU_1_TOO = {"max_new_tokens", "repeat_guard", "on_loop"}  # change the output even when lossless


def _options(command: str) -> dict:
    cmd = get_command(app).commands[command]  # type: ignore[attr-defined]
    return {p.opts[0]: p for p in cmd.params if p.opts[0].startswith("--")}


def test_every_knob_is_one_option_of_both_commands() -> None:
    """convert and bench take each SpecConfig field with the same flag, env var and default."""
    assert set(CHANGED) == {f.name for f in fields(SpecConfig)}  # a new knob: add it here too
    convert, bench = _options("convert"), _options("bench")
    for f in fields(SpecConfig):
        flag = f.metadata["flag"]
        for param in (convert[flag], bench[flag]):
            assert param.envvar == envvar(flag)
            assert param.default == (False if isinstance(f.default, bool) else f.default)


def test_json_means_stdout_in_every_command_and_bench_writes_with_out_json() -> None:
    for command in ("convert", "bench", "models"):
        assert _options(command)["--json"].is_flag
    out_json = _options("bench")["--out-json"]
    assert not out_json.is_flag and "HSD_BENCH_JSON" in out_json.envvar


def test_knob_values_reach_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}
    converter = FakeConverter()
    monkeypatch.setattr(choose, "converter_for", lambda cfg: seen.setdefault("cfg", cfg) and converter)
    args = []
    for f in fields(SpecConfig):
        value = CHANGED[f.name]
        args += [f.metadata["flag"]] if isinstance(value, bool) else [f.metadata["flag"], str(value)]
    result = CliRunner().invoke(
        app, ["convert", str(make_pdf(tmp_path / "d.pdf", 1)), "-o", str(tmp_path / "o"), *args]
    )
    assert result.exit_code == 0, result.stderr
    assert seen["cfg"].spec == SpecConfig(**CHANGED)


@pytest.mark.parametrize("tau", [1.0, 0.5])
@pytest.mark.parametrize("name", sorted(CHANGED))
def test_resume_key_follows_each_knob(name: str, tau: float) -> None:
    """Below tau 1 every knob is in the key; at tau 1 only those that change the output even then."""
    base = RunConfig(inputs=(), out_dir=Path("."), spec=SpecConfig(tau=tau))
    value = CHANGED[name] if name != "tau" else (0.75 if tau == 1.0 else 1.0)
    changed = replace(base, spec=replace(base.spec, **{name: value}))
    expect = tau < 1.0 or name in AT_TAU_1_TOO or name == "tau"
    assert (spec_options(base) != spec_options(changed)) is expect


def test_resume_key_keeps_the_run_settings_and_old_names() -> None:
    key = spec_options(RunConfig(inputs=(), out_dir=Path("."), spec=SpecConfig(tau=0.5)))
    assert {"method", "model", "dpi", "draft_source", "dtype", "max_nodes", "cost_aware"} <= set(key)
    for name, value in (("method", "ar"), ("model", "m"), ("dpi", 200), ("draft_source", "ocr"), ("dtype", "fp32")):
        cfg = replace(RunConfig(inputs=(), out_dir=Path(".")), **{name: value})
        assert spec_options(cfg)[name] == value


def test_resume_with_nothing_to_do_never_loads_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rerun plans, finds both pages finished and converts nothing: a target would never load."""
    converter = FakeConverter()
    monkeypatch.setattr(choose, "converter_for", lambda cfg: converter)
    args = ["convert", str(make_pdf(tmp_path / "d.pdf", 2)), "-o", str(tmp_path / "o")]
    assert CliRunner().invoke(app, args).exit_code == 0 and len(converter.calls) == 2
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0 and len(converter.calls) == 2
    assert "resumed" in result.stdout


def test_usage_errors_import_no_torch(tmp_path: Path) -> None:
    code = (
        "import sys; from hsd_cli.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n"
        "    print(e.code, 'torch' in sys.modules, 'transformers' in sys.modules)"
    )
    for args in (
        ["convert", str(tmp_path / "nope.pdf"), "-o", str(tmp_path / "o")],
        ["convert", str(tmp_path), "-o", str(tmp_path / "o"), "--tau", "2"],
    ):
        proc = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
            timeout=120,
        )
        assert proc.stdout.split() == ["2", "False", "False"], proc.stderr
        assert proc.stderr.count("\n") == 1


def test_help_usage_reads_inputs() -> None:
    text = CliRunner().invoke(app, ["convert", "--help"]).stdout
    assert "[OPTIONS] INPUTS..." in text and "{" not in text.splitlines()[0]


def test_documents_run_in_the_order_given(tmp_path: Path) -> None:
    for name in ("b.pdf", "a.pdf", "d/z.pdf", "d/y.pdf"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"%PDF")
    docs = discover([tmp_path / "b.pdf", tmp_path / "d", tmp_path / "a.pdf"])
    assert [d.key for d in docs] == ["b", "y", "z", "a"]


def test_models_lists_without_transformers_and_as_json() -> None:
    code = (
        "import sys; sys.argv = ['hsd', 'models', '--json']; from hsd_cli.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit:\n    print('transformers' in sys.modules, file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"},
        timeout=120,
    )
    rows = json.loads(proc.stdout)
    assert proc.stderr.strip() == "False"
    assert rows and all("params" not in r and r["hub_id"] for r in rows)


def test_models_table_never_cuts_hub_ids() -> None:
    result = CliRunner().invoke(app, ["models"], env={"COLUMNS": "60", "HF_HUB_OFFLINE": "1"})
    assert "deepseek-community/DeepSeek-OCR-2" in result.stdout and "None" not in result.stdout


def test_table_shows_resumed_documents_without_old_times() -> None:
    old = DocSummary("a.pdf", "a", DocStatus.OK, 2, resumed=2, totals=Totals(pages=2, t_total=30.0))
    new = DocSummary("b.pdf", "b", DocStatus.OK, 1, totals=Totals(pages=1, t_total=1.5))
    table = run_table(RunSummary((old, new), {}))
    cells = {c.header: list(c._cells) for c in table.columns}  # noqa: SLF001
    assert cells["status"][:2] == ["resumed", "ok"]
    assert cells["time s"] == ["-", "1.5", "1.5"]  # the total counts this run's pages only


def test_resume_without_the_default_model_imports_no_torch(tmp_path: Path) -> None:
    """No model asked for and the default missing: the rerun falls back, plans, finds nothing to do
    and ends without importing torch or transformers."""
    code = (
        "import sys; from hsd_cli.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n"
        "    print(e.code, 'torch' in sys.modules, 'transformers' in sys.modules)"
    )
    run = [sys.executable, "-c", code, "convert", str(make_pdf(tmp_path / "d.pdf", 1)), "-o", str(tmp_path / "o")]
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    first = subprocess.run(run, capture_output=True, text=True, env=env, timeout=300)
    assert first.stdout.split()[-3] == "0", first.stderr
    again = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
    assert again.stdout.split()[-3:] == ["0", "False", "False"], again.stderr  # after the summary table
