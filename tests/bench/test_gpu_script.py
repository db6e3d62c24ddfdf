"""benchmarks/gpu.py: the GPU run's plan, and its CPU dry run to the end (so the first GPU run works)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from hsd_cli.bench.report import write_outputs

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))  # the scripts import their siblings by name


def _gpu():
    spec = importlib.util.spec_from_file_location("gpu_bench", REPO / "benchmarks" / "gpu.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the script loads
    spec.loader.exec_module(module)
    return module


def _option(argv: tuple[str, ...], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_gpu_plan_runs_the_issue_s_tables_on_cuda(tmp_path):
    gpu = _gpu()
    steps = {s.name: s for s in gpu.plan(False, tmp_path)}
    assert dict(steps["CUDA tests"].env) == {"HSD_TEST_DEVICE": "cuda"}
    benches = [s.argv for s in steps.values() if "bench" in s.argv]
    assert all((_option(a, "--device"), _option(a, "--dtype")) == ("cuda", "bf16") for a in benches)
    assert {_option(a, "--full-size") for a in benches} == {"hunyuan_vl", "qwen2_5_vl"}
    assert all("--markdown" not in a for a in benches)  # RESULTS.md is the dashboard's, from the JSON
    oracle, throughput = steps["oracle table, batch 1"].argv, steps["throughput, batch 32,8,64,1"].argv
    assert "--oracle" in oracle and _option(oracle, "--methods") == "ar,page,hsd,auto"
    assert _option(throughput, "--batch-pages") == "32,8,64,1" and _option(throughput, "--max-new-tokens") == "384"
    qwen = steps["throughput qwen2_5_vl, batch 1,32"].argv
    assert (
        _option(qwen, "--full-size") == "qwen2_5_vl" and "--oracle" in qwen and _option(qwen, "--batch-pages") == "1,32"
    )
    assert _option(steps["model directory qwen2_5_vl"].argv, "--repetition-penalty") == "1.05"
    external = steps["transformers generate, static cache"].argv
    assert _option(external, "--methods") == "ar,hf-static" and "--oracle" in external
    assert len([a for a in external if a.startswith(str(gpu.CORPUS))]) == 4  # a compile per prompt shape
    from hsd_cli.cores import default_workers

    workers = str(default_workers(accelerator=True))  # drafting beside the model, as hsd convert runs
    assert _option(throughput, "--workers") == workers
    pages = [a for a in oracle if a.startswith(str(gpu.CORPUS))]
    assert len(pages) == 16 and _option(oracle, "--max-pages") == "1"
    if gpu.CORPUS.is_dir():
        assert all(Path(p).is_file() for p in pages)
        # More pages than the largest batch, so rows that finish are refilled (continuous batching).
        import pymupdf

        per_doc = int(_option(throughput, "--max-pages"))
        counts = [pymupdf.open(p).page_count if p.endswith(".pdf") else 1 for p in pages]
        assert sum(min(n, per_doc) for n in counts) >= 32


def test_a_gpu_run_writes_the_json_files_the_dashboard_reads(tmp_path):
    """Each step's JSON is named as benchmarks/dashboard.py's GPU tables expect it, whichever card
    (h100, h200) their figures came from."""
    import dashboard

    steps = _gpu().plan(False, tmp_path, tag="GPU")
    written = {s.out.name for s in steps if s.out is not None}
    assert all(s.out.parent == tmp_path for s in steps if s.out is not None)
    assert all(_option(s.argv, "--out-json") == str(s.out) for s in steps if "bench" in s.argv)
    files = {f for _, names in dashboard.BLOCKS.values() for f in names}
    read = {re.sub(r"-h[0-9]00(?=[-.])", "-GPU", f) for f in files}  # the card's tag
    assert written == (read & written) | {f.format(tag="GPU") for f in _gpu().AWAITING}
    assert {f for f in read if "GPU" in f or f.startswith("gpu-")} <= written


def test_the_card_names_its_files():
    gpu = _gpu()
    assert gpu.gpu_tag("NVIDIA H100 80GB HBM3") == "h100" and gpu.gpu_tag("NVIDIA H200") == "h200"
    assert gpu.gpu_tag("NVIDIA A100-SXM4-80GB") == "a100" and gpu.gpu_tag("a GPU") == "cuda"


def test_hsd_bench_on_an_accelerator_writes_its_own_results_section(tmp_path):
    """`hsd bench --markdown` gives a GPU run its own section (`-cuda`): GPU and CPU tables side by side."""
    results = tmp_path / "R.md"
    write_outputs(None, results, "throughput-384", "cpu table", {})
    write_outputs(None, results, "throughput-384", "gpu table", {}, device="cuda:0")
    text = results.read_text()
    assert "<!-- bench:throughput-384 -->\ncpu table" in text
    assert "<!-- bench:throughput-384-cuda -->\ngpu table" in text


@pytest.mark.slow
def test_dry_run_runs_every_step_to_its_end(tmp_path, monkeypatch):
    """Every step ends, its JSON names the code and no path of this machine, and the dashboard reads it."""
    import dashboard_speed as speed

    # The steps' `hsd bench` on one torch thread (its --threads, read from HSD_THREADS): on every
    # core, the tiny decoders beside other work took half as long again.
    monkeypatch.setenv("HSD_THREADS", "1")
    out = tmp_path / "out"
    assert _gpu().main(["--dry-run", "--out", str(out), "--commit", "abc1234"]) == 0
    runs = {}
    for name in ("cuda-tests-dry", "cost-dry-hunyuan_vl", "cost-dry-qwen2_5_vl", "oracle-dry-hunyuan_vl"):
        text = (out / f"{name}.json").read_text()
        assert str(out) not in text and str(REPO) not in text
        runs[name] = {**json.loads(text), "_name": f"{name}.json"}
    runs["throughput"] = {**json.loads((out / "throughput-dry-hunyuan_vl.json").read_text()), "_name": "t.json"}
    assert runs["cost-dry-hunyuan_vl"]["commit"] == "abc1234" and runs["oracle-dry-hunyuan_vl"]["schema_version"]
    totals = runs["throughput"]["totals"]
    assert [(t["method"], t["batch_pages"]) for t in totals] == [("ar", 1), ("auto", 1), ("ar", 2), ("auto", 2)]
    assert all(t["prepared_beside"] and t["drafts_differ"] == 0 for t in totals)
    assert runs["cuda-tests-dry"]["runs"][0]["passed"] > 0 == runs["cuda-tests-dry"]["runs"][0]["failed"]
    assert "| 2 |" in speed.throughput([runs["throughput"]])
    assert "| overall |" in speed.oracle([runs["oracle-dry-hunyuan_vl"]])
    assert "prefill" in speed.cost([runs["cost-dry-hunyuan_vl"], runs["cost-dry-qwen2_5_vl"]])


def test_a_short_lease_plan_takes_a_ready_model_and_the_first_pages(tmp_path):
    """--model skips building one; --pages N runs the first N pages (the CPU oracle table's 10 come first)."""
    gpu = _gpu()
    corpus, model = tmp_path / "corpus", tmp_path / "hy"
    steps = gpu.plan(False, tmp_path, corpus, model, 10, 128, "1,10")
    groups = ["engine", "drafts", "tests", "cost", "cost", "throughput", "oracle", "oracle", "model", "throughput"]
    groups += ["compiled"]
    assert [s.group for s in steps] == groups  # most wanted first: a lease that ends early keeps them
    throughput, oracle = steps[5].argv, steps[6].argv
    assert _option(oracle, "--model") == str(model) and _option(oracle, "--max-new-tokens") == "128"
    assert [a for a in oracle if a.startswith(str(corpus))] == [str(corpus / p) for p in gpu.PAGES[:10]]
    assert _option(throughput, "--batch-pages") == "1,10" and _option(steps[9].argv, "--batch-pages") == "1"
    assert _option(steps[0].argv, "--out") == str(tmp_path) and steps[0].optional
    assert steps[10].argv == (*steps[0].argv, "--inductor") and steps[10].optional  # the engine step compiled
    assert _option(steps[1].argv, "--corpus") == str(corpus) and steps[1].optional  # draft pages a second


def _step(gpu, name: str, seconds: float, estimate: float, partial: bool = False):
    argv = (sys.executable, "-c", f"import time; time.sleep({seconds})")
    return gpu.Step(name, argv, group="throughput", estimate_s=estimate, partial=partial)


def test_a_budget_skips_what_no_longer_fits_and_stops_what_overruns():
    """A step whose estimate exceeds the time left is skipped; one that keeps partial runs starts
    anyway and is stopped at the deadline (exit 124); nothing starts after it."""
    import time

    gpu = _gpu()
    steps = [
        _step(gpu, "too long", 0, estimate=60),
        _step(gpu, "partial", 30, estimate=60, partial=True),
        _step(gpu, "quick", 0, estimate=0),
    ]
    logged: list[str] = []
    t0 = time.monotonic()
    done = gpu.run(steps, {}, "abc1234", log=logged.append, deadline=t0 + 8)
    assert [(name, code) for name, _, code in done] == [("partial", 124)]
    assert time.monotonic() - t0 < 25 and any("too long: skipped" in line for line in logged)
    assert not any("quick" in line for line in logged)


def test_pack_puts_every_json_in_one_archive(tmp_path):
    import tarfile

    for name in ("a.json", "b.json", "c.txt"):
        (tmp_path / name).write_text("{}")
    _gpu().pack(tmp_path, tmp_path / "back" / "r.tar.gz")
    with tarfile.open(tmp_path / "back" / "r.tar.gz") as tar:
        assert sorted(tar.getnames()) == ["a.json", "b.json"]


def test_the_engine_json_gets_pages_a_minute_by_batch_from_the_throughput_beside_it(tmp_path):
    """Issue 46 wants the step times and pages/min in one JSON; the throughput's name and commit
    go with its figures (a lease may run the two steps at different commits)."""
    gpu, engine = _gpu(), tmp_path / "gpu-engine.json"
    gpu.link_pages_per_min(tmp_path, "h200")  # nothing to link: nothing written
    assert not engine.exists()
    engine.write_text(json.dumps({"commit": "aaa1111", "ar_step_ms": {"eager": {"1": 24.0}}}))
    totals = [
        {"method": m, "batch_pages": b, "pages_per_min": v} for m, b, v in (("ar", 32, 162.06), ("auto", 32, 135.0))
    ]
    (tmp_path / "throughput-h200-hunyuan_vl.json").write_text(json.dumps({"commit": "bbb2222", "totals": totals}))
    gpu.link_pages_per_min(tmp_path, "h200")
    data = json.loads(engine.read_text())
    assert data["commit"] == "aaa1111" and data["ar_step_ms"] == {"eager": {"1": 24.0}}
    rates = data["pages_per_min"]
    assert rates == {
        "source": "throughput-h200-hunyuan_vl.json",
        "commit": "bbb2222",
        "ar": {"32": 162.1},
        "auto": {"32": 135.0},
    }


def test_list_pages_prints_the_first_pages_under_the_corpus(tmp_path, capsys):
    gpu = _gpu()
    assert gpu.main(["--list-pages", "--pages", "2", "--corpus", str(tmp_path)]) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / p) for p in gpu.PAGES[:2]]


def test_only_rejects_an_unknown_step(capsys):
    with pytest.raises(SystemExit):
        _gpu().main(["--dry-run", "--only", "tests,bogus"])
    assert "unknown step 'bogus'" in capsys.readouterr().err


def test_the_lent_machines_json_names_the_commit_gpu_py_was_given(tmp_path) -> None:
    """hsd bench's own commit there is none (no repository travels): --commit names the code."""
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"schema_version": 1, "commit": None, "command": "hsd bench", "totals": []}))
    _gpu().stamp(path, {}, "abc1234")
    data = json.loads(path.read_text())
    assert list(data)[:2] == ["command", "commit"] and data["commit"] == "abc1234"
