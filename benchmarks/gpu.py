"""The GPU run in one command: engine step, CUDA tests, cost curves, throughput, oracle table.

On a machine with a CUDA GPU (about 28 minutes of steps on one H100: the engine step 2.5, the
draft rate 2, the CUDA tests 2.5, the cost curves 1, throughput at batch 8, 32 and 64 5, at batch
1 over 5, the oracle table 4.5, the rest loading and Qwen), or as much of it as `--budget-s` allows:

    python benchmarks/gpu.py                 # or: bash benchmarks/gpu.sh
    bash benchmarks/gpu.sh --out DIR --budget-s 520 --pack "$OUT/gpu-results.tar.gz"   # a lease

Steps, most wanted first (a lease that ends early keeps the first):
1. the decode step by engine (benchmarks/engine_step.py: transformers eager, hsd's static KV
   cache, CUDA graphs, and graphs with ragged attention, also at 32 rows of mixed lengths;
   gpu-engine.json);
   then draft pages a second per core and per host, drafting on the host's cores and on its GPU
   (benchmarks/draft_rate.py, 4 and 15 workers; draft-rate-GPU.json);
2. the CUDA test subset: lossless decoding, batched verification, the session cache and the
   static engine of every tiny family, in float32 on the GPU (HSD_TEST_DEVICE=cuda);
3. the cost curve of the full-size HunyuanOCR and Qwen2.5-VL-3B language models in bf16;
4. the throughput table of ar and auto at batch 32, 8, 64 and 1 on up to 4 pages of each of
   the 16 documents below (32 pages), repeated to two batches at least (64 pages at batch 32, 128
   at 64: rows that finish are refilled, as in a folder), each run drafting its
   pages in background processes beside the model, as many as `hsd convert` starts there (11 on a
   16-core host, on its cores: cores.default_workers; a page starts once rendered, its drafts
   join it when made);
5. the oracle table of ar / page / hsd / auto one page at a time (full-size HunyuanOCR, bf16, 16
   dev pages of every kind, 384 tokens), and transformers' own generate on its static cache;
6. full-size Qwen2.5-VL-3B at batch 1 and 32 with the repetition penalty its checkpoint ships
   (1.05), which the oracle pays on every pass;
7. the engine step again with a fourth engine: CUDA graphs of the step compiled by inductor for
   any shapes (fused norms and rotary embeddings: fewer kernels a step; group `compiled`).
Each step writes one JSON into --out (default benchmarks/results/), named as the dashboard reads
it: `gpu-engine.json`, `cuda-tests-GPU.json`, `cost-GPU-FAMILY.json`, `oracle-GPU-hunyuan_vl.json`,
`throughput-GPU-hunyuan_vl.json`, GPU being the card's short name (h100); then
`python benchmarks/dashboard.py` rewrites RESULTS.md's tables. gpu-engine.json also gets the
throughput's pages a minute by batch size (`pages_per_min`, with that JSON's name and commit) once
both are in --out. The throughput steps rewrite their
JSON after each of their runs, so a step stopped by the budget keeps the runs it finished (batch 1
comes last: plain decoding of 32 pages one at a time is its longest run). `--budget-s` skips a step
whose estimate no longer fits and stops the one running when the time is up; `--pack` writes every
JSON into one archive (a lent machine sends back at most 8 files). `--only`, `--pages`, `--tokens`
and `--batch-sizes` fit the run to a shorter lease; `--corpus` and `--model` point at copies where
the repository's neighbours did not travel; `--list-pages` prints the pages and exits.

`--dry-run` runs every step to its end on a CPU in minutes, into a fresh temporary folder unless
--out is given: float32, the tiny test families' sizes for the decoders (HSD_FULL_SIZE_LAYERS=1
keeps one full-width layer), the repository's sample_docs without the oracle, 16 tokens, batch sizes
1 and 2. CI runs it (tests/bench/test_gpu_script.py), so the GPU run works the first time one is lent.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # record.py, also when loaded by path

from record import CORPUS, REPO, commit, scrub  # noqa: E402

STEPS = ("engine", "drafts", "tests", "model", "cost", "throughput", "oracle", "compiled")
CUDA_TESTS = (
    "tests/targets/test_lossless.py",
    "tests/targets/test_batched.py",
    "tests/targets/test_session_cache.py",
    "tests/targets/test_generate_parity.py",
    "tests/targets/test_static_session.py",
    "tests/targets/test_static_step.py",
    "tests/targets/test_late_drafts.py",  # drafts joining running rows, on the static engine's graphs too
    "tests/targets/test_ragged.py",  # ragged attention (FlexAttention) on the GPU, in CUDA graphs too
    "tests/drafts/test_torch_engines.py",  # drafting's models on the GPU: ONNX Runtime's outputs and drafts
)
# 16 dev pages with Markdown ground truth (the oracle needs it), every kind: born-digital, scanned,
# page images, a blurry scan.
PAGES = (
    # the 10 of the CPU oracle table (RESULTS.md, results/oracle-cpu-hunyuan_vl.json): --pages 10
    "docling/2305.03393v1-pg9.pdf",
    "docling/normal_4pages.pdf",
    "docling/code_and_formula.pdf",
    "mineru_bench/academic_literature_0b2c9c91f5232541a7ace8984df306b2.pdf",
    "mineru_bench/research_report_1f978cd81fb7260c8f7644039ec2c054.pdf",
    "docling/ocr_test.pdf",
    "docling/ocr_test_rotated_90.pdf",
    "omnidocbench/images/eastmoney_62b4149b1612ce28d20f26cd5c5b2e18f80b26fca6e4452e090376a2fe72eae3.pdf_0.jpg",
    "omnidocbench/images/jiaocaineedrop_Chapter9.pdf_46.jpg",
    "omnidocbench/images/docstructbench_llm-raw-scihub-o.O-j.chroma.2005.05.085.pdf_4.jpg",
    "docling/redp5110_sampled.pdf",
    "docling/right_to_left_01.pdf",
    "docling/multi_page.pdf",
    "omnidocbench/images/newspaper_1cddf9d22ca549f3a86cf1512a3110cc_1.jpg",
    "omnidocbench/images/docstructbench_dianzishu_zhongwenzaixian-o.O-60599898.pdf_30.jpg",
    "omnidocbench/images/jiaocaineedrop_jiaocai_needrop_en_1898.jpg",
)


FILL = 2  # throughput: at least two batches of pages at each batch size (hsd bench --fill)
THROUGHPUT_PAGES = 4  # pages of each document in the throughput step: 32 of PAGES' documents
# JSON files a GPU run writes whose dashboard table comes with their first figures (dashboard.BLOCKS).
AWAITING = (
    "throughput-{tag}-qwen2_5_vl.json",
    "external-{tag}-hunyuan_vl.json",
)
RESULTS = REPO / "benchmarks" / "results"


@dataclass(frozen=True, slots=True)
class Step:
    """One command of the run, and the JSON it leaves in --out."""

    name: str
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = field(default=())
    group: str = ""  # one of STEPS, for --only
    out: Path | None = None  # the tests step's record is written by run(); the others by hsd bench
    estimate_s: float = 60.0  # seconds on an H100, for --budget-s
    partial: bool = False  # its JSON keeps the runs it finished: worth starting with less time left
    optional: bool = False  # the run goes on when it fails


@dataclass(frozen=True, slots=True)
class Settings:
    """What differs between the GPU run and its CPU dry run."""

    device: str
    dtype: str
    tokens: int
    batch_sizes: str
    cost: tuple[str, ...]  # extra options of the cost-curve steps
    env: tuple[tuple[str, str], ...]
    tests: tuple[str, ...]  # pytest's selection of the CUDA tests
    workers: int  # throughput: processes drafting pages beside verification (hsd convert's default)

    @classmethod
    def of(cls, dry: bool) -> Settings:
        if dry:
            layers = (("HSD_FULL_SIZE_LAYERS", "1"),)
            cost = ("--cost-prompt", "32", "--cost-reps", "1")
            return cls("cpu", "fp32", 16, "1,2", cost, layers, ("-x", "-k", "reuse_the_cache"), 1)
        # The CUDA tests in 4 processes: 107 s serial on an H200 with 16 cores, of a 15-minute lease.
        from hsd_cli.cores import default_workers  # hsd convert's drafting workers beside a GPU target

        return cls("cuda", "bf16", 384, "32,8,64,1", (), (), ("-n", "4"), default_workers(accelerator=True))


def plan(
    dry: bool,
    out: Path,
    corpus: Path = CORPUS,
    model: Path | None = None,
    n_pages: int = len(PAGES),
    tokens: int | None = None,
    batch_sizes: str | None = None,
    tag: str = "h100",
    work: Path | None = None,
) -> list[Step]:
    """The steps, in order: tests, the tokenizer directory, cost curves, oracle table, throughput.

    `model`: a ready --model directory for HunyuanOCR (else one is built into `work`/hy-tok from
    `corpus`'s text; `work` defaults to `out`); `tag`: the device's short name in the JSON names.
    """
    s = Settings.of(dry)
    s = replace(s, tokens=tokens or s.tokens, batch_sizes=batch_sizes or s.batch_sizes)
    engine = (sys.executable, str(REPO / "benchmarks" / "engine_step.py"), "--out", str(out))
    engine += ("--dry-run",) if dry else ()
    engine_json = out / "gpu-engine.json"  # rewritten after each engine: partial
    steps = [Step("engine step", engine, group="engine", out=engine_json, estimate_s=150, partial=True, optional=True)]
    rate = out / f"draft-rate-{tag}.json"
    drafts = (sys.executable, str(REPO / "benchmarks" / "draft_rate.py"), "--corpus", str(corpus), "--tasks", "2")
    drafts += ("--out-json", str(rate), *(("--dry-run",) if dry else ()))
    steps.append(Step("draft rate", drafts, group="drafts", out=rate, estimate_s=150, optional=True))
    tests = (sys.executable, "-m", "pytest", "-q", *s.tests, *CUDA_TESTS)
    env = (("HSD_TEST_DEVICE", s.device),)
    steps.append(Step("CUDA tests", tests, env, "tests", out / f"cuda-tests-{tag}.json", estimate_s=150))
    hy = model or (work or out) / "hy-tok"
    if model is None:
        steps.append(_tokenizer_dir(dry, hy, corpus))
    for family in ("hunyuan_vl", "qwen2_5_vl"):
        path = out / f"cost-{tag}-{family}.json"
        argv = _hsd("bench", "--full-size", family, *s.cost, *_device(s), "--out-json", str(path))
        steps.append(Step(f"cost curve {family}", argv, s.env, "cost", path, estimate_s=40))
    pages = [str(REPO / "sample_docs")] if dry else [str(corpus / p) for p in PAGES[:n_pages]]
    common = (*pages, "--model", str(hy), "--max-new-tokens", str(s.tokens), *_device(s))
    common += () if dry else ("--oracle", "--full-size", "hunyuan_vl")  # no truth for sample_docs
    path = out / f"throughput-{tag}-hunyuan_vl.json"
    batch = ("--max-pages", str(THROUGHPUT_PAGES), "--methods", "ar,auto", "--batch-pages", s.batch_sizes)
    batch += ("--workers", str(s.workers), "--fill", str(FILL), "--warmup", "0", "--out-json", str(path))
    argv = _hsd("bench", *common, *batch)
    steps.append(Step(f"throughput, batch {s.batch_sizes}", argv, s.env, "throughput", path, 600, partial=True))
    path = out / f"oracle-{tag}-hunyuan_vl.json"
    oracle = ("--max-pages", "1", "--methods", "ar,page,hsd,auto", "--out-json", str(path))
    steps.append(Step("oracle table, batch 1", _hsd("bench", *common, *oracle), s.env, "oracle", path, 270))
    # transformers' own generate on its static cache (compiled: a compile per prompt shape, so 4 pages)
    path = out / f"external-{tag}-hunyuan_vl.json"
    external = (*pages[:4], *common[len(pages) :])
    external += ("--max-pages", "1", "--methods", "ar,hf-static", "--out-json", str(path))
    steps.append(Step("transformers generate, static cache", _hsd("bench", *external), s.env, "oracle", path, 240))
    steps += _qwen_throughput(dry, s, out, tag, work or out, pages, corpus)
    # The engine step again with the inductor-compiled step's graphs beside: its JSON replaces the first's.
    compiled = Step("engine step, compiled", (*engine, "--inductor"), group="compiled", out=engine_json)
    steps.append(replace(compiled, estimate_s=300, optional=True))
    return steps


def _qwen_throughput(dry: bool, s: Settings, out: Path, tag: str, work: Path, pages: list, corpus: Path) -> list[Step]:
    """Qwen2.5-VL-3B at batch 1 and 32 (dry: 1 and 2) with the repetition penalty its checkpoint
    ships (1.05), which the oracle pays on every pass; its real vocabulary where the corpus's
    neighbours hold the Qwen tokenizer."""
    qw = work / "qwen-tok"
    make = (sys.executable, str(REPO / "tests" / "make_tiny_model.py"), "--family", "qwen2_5_vl")
    make += ("--repetition-penalty", "1.05")
    tokenizer = corpus.parent.parent / "tokenizers" / "qwen3"
    if not dry and tokenizer.is_dir():
        make += ("--tokenizer", str(tokenizer), "--real-images")
    elif not dry:
        make += ("--tokenizer-text", str(corpus), "--vocab", "16000", "--real-images")
    sizes = s.batch_sizes.split(",")
    batch = ",".join(b for b in ("1", "32") if b in sizes) or sizes[0]
    batch = "1,2" if dry else batch
    path = out / f"throughput-{tag}-qwen2_5_vl.json"
    argv = (*pages, "--model", str(qw), "--max-new-tokens", str(s.tokens), *_device(s))
    argv += () if dry else ("--oracle", "--full-size", "qwen2_5_vl")
    argv += ("--max-pages", str(THROUGHPUT_PAGES), "--methods", "ar,auto", "--batch-pages", batch)
    argv += ("--workers", str(s.workers), "--warmup", "0", "--out-json", str(path))
    return [
        Step("model directory qwen2_5_vl", (*make, str(qw)), group="model"),
        Step(f"throughput qwen2_5_vl, batch {batch}", _hsd("bench", *argv), s.env, "throughput", path, 400, True),
    ]


def _tokenizer_dir(dry: bool, hy: Path, corpus: Path) -> Step:
    """The --model directory that lends the full-size HunyuanOCR its tokenizer and processor."""
    make = (sys.executable, str(REPO / "tests" / "make_tiny_model.py"), "--family", "hunyuan_vl")
    if dry:  # no corpus on a CI machine: the tiny family's own tokenizer
        return Step("model directory hunyuan_vl", (*make, str(hy)), group="model")
    trained = ("--tokenizer-text", str(corpus), "--vocab", "16000", "--real-images")
    return Step("model directory hunyuan_vl", (*make, *trained, str(hy)), group="model", estimate_s=30)


def _device(s: Settings) -> tuple[str, ...]:
    return ("--device", s.device, "--dtype", s.dtype)


def _hsd(*args: str) -> tuple[str, ...]:
    return (sys.executable, "-m", "hsd_cli", *args)


def gpu_tag(name: str) -> str:
    """A card's short name for file names: "NVIDIA H100 80GB HBM3" -> "h100" ("cuda" if none)."""
    found = re.search(r"\b([A-Z]+\d{2,4}[A-Za-z]?)\b", name)
    return found[1].lower() if found else "cuda"


def run(
    steps: list[Step], placeholders: dict[str, str], commit: str | None, log=print, deadline: float | None = None
) -> list[tuple[str, float, int]]:
    """Every step in order, stopping at the first failure of a step that is not optional; (name,
    seconds, exit status) per step run.

    With a `deadline` (time.monotonic()), a step whose estimate no longer fits is skipped unless
    its JSON keeps partial runs, and a step still running at the deadline is stopped. Each JSON a
    step leaves gets the commit, and `placeholders` for this machine's paths."""
    done = []
    for step in steps:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and (left < 5 or (left < step.estimate_s and not step.partial)):
            log(f"== {step.name}: skipped, about {step.estimate_s:.0f} s and {max(left, 0):.0f} s left")
            continue
        log(f"== {step.name}: {shlex.join(step.argv)}")
        t0 = time.perf_counter()
        code, out, err = _run_step(step, left)
        if step.group == "tests":  # its outcome is recorded from pytest's last line
            print(out + err, end="")
            _record_tests(step, out, time.perf_counter() - t0, code)
        done.append((step.name, time.perf_counter() - t0, code))
        log(f"== {step.name}: exit {code} after {done[-1][1]:.0f} s")
        if step.out is not None and step.out.exists():
            stamp(step.out, placeholders, commit)
        if code and not step.optional:
            break
    return done


def _run_step(step: Step, seconds: float | None) -> tuple[int, str, str]:
    """The step's exit status (124: stopped at the deadline) and, for the tests, its stdout and stderr.

    In a session of its own, so that stopping it stops the drafting workers it started too."""
    env = {**os.environ, **dict(step.env)}
    capture = subprocess.PIPE if step.group == "tests" else None
    proc = subprocess.Popen(
        step.argv, cwd=REPO, env=env, stdout=capture, stderr=capture, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=seconds)
        return proc.returncode, out or "", err or ""
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        return 124, out or "", err or ""


def link_pages_per_min(out: Path, tag: str) -> None:
    """gpu-engine.json's `pages_per_min` of `ar` and `auto` by batch size, from the throughput JSON
    beside it (issue 46 wants them together), with that JSON's name and commit: the two steps
    may run at different commits, in different calls of a lease."""
    engine, throughput = out / "gpu-engine.json", out / f"throughput-{tag}-hunyuan_vl.json"
    if not (engine.exists() and throughput.exists()):
        return
    data, runs = json.loads(engine.read_text(encoding="utf-8")), json.loads(throughput.read_text(encoding="utf-8"))
    rates = {"source": throughput.name, "commit": runs.get("commit")}
    for t in runs["totals"]:
        rates.setdefault(t["method"], {})[str(t["batch_pages"])] = round(t["pages_per_min"], 1)
    engine.write_text(
        json.dumps(data | {"pages_per_min": rates}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def pack(out: Path, archive: Path) -> None:
    """Every JSON in `out` into one gzipped tar (a lent machine sends back few files)."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive, "w:gz") as tar:
        for path in sorted(out.glob("*.json")):
            tar.add(path, arcname=path.name)


def _record_tests(step: Step, output: str, seconds: float, code: int) -> None:
    """The tests step as a results JSON: its command, machine and pytest's counts."""
    from hsd_cli.bench.machine import machine_info

    summary = (output.strip().splitlines() or [""])[-1]
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|errors?)", summary)}
    command = " ".join(f"{k}={v}" for k, v in step.env) + " python " + shlex.join(step.argv[1:])
    record = {"command": command, "machine": machine_info(dict(step.env)["HSD_TEST_DEVICE"]), "exit": code}
    record |= {"passed": counts.get("passed", 0), "failed": counts.get("failed", 0), "wall_s": round(seconds, 1)}
    step.out.write_text(json.dumps({"schema_version": 1, "runs": [record | {"summary": summary}]}, indent=1))


def stamp(path: Path, placeholders: dict[str, str], commit: str | None) -> None:
    """Name the code in a results JSON, and write this machine's paths in it as placeholders."""
    data = scrub(json.loads(path.read_text(encoding="utf-8")), placeholders)
    if data.get("runs"):  # the tests' record: the commit goes with each run
        data["runs"] = [{**r, "commit": commit} for r in data["runs"]]
    else:
        data.pop("commit", None)  # hsd bench's own: none where the machine has no repository
        data = {"command": data.pop("command", ""), "commit": commit, **data}
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dry-run", action="store_true", help="CPU, tiny sizes: check every step runs (CI)")
    p.add_argument("--out", type=Path, help="the JSON files [default: benchmarks/results; dry run: a temporary folder]")
    p.add_argument("--corpus", type=Path, default=CORPUS, help="the dev corpus (a copy holding PAGES will do)")
    p.add_argument("--model", type=Path, help="a ready HunyuanOCR --model directory (skips building one)")
    p.add_argument("--only", default=",".join(STEPS), help=f"comma-separated steps to run, of {','.join(STEPS)}")
    p.add_argument("--pages", type=int, default=len(PAGES), help="the first N of the 16 pages")
    p.add_argument("--tokens", type=int, help="max new tokens per page (default 384; dry run 16)")
    p.add_argument("--batch-sizes", help="throughput batch sizes (default 32,8,64,1; dry run 1,2)")
    p.add_argument("--commit", default=commit(), help="the code's commit, for the JSON [default: git's HEAD]")
    p.add_argument("--budget-s", type=float, help="seconds the run may take: steps that do not fit are skipped")
    p.add_argument("--pack", type=Path, help="also write every JSON of --out into this .tar.gz")
    p.add_argument("--list-pages", action="store_true", help="print the first --pages pages under --corpus and exit")
    args = p.parse_args(argv)
    if set(args.only.split(",")) - set(STEPS):
        p.error(f"--only: unknown step {sorted(set(args.only.split(',')) - set(STEPS))[0]!r} (of {','.join(STEPS)})")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    if args.list_pages:
        print("\n".join(str(args.corpus / p) for p in PAGES[: args.pages]))
        return 0
    tag = "dry"
    if not args.dry_run:
        import torch

        if not torch.cuda.is_available():
            sys.exit("no CUDA device: run on a GPU machine, or pass --dry-run")
        tag = gpu_tag(torch.cuda.get_device_name(0))
    out = (args.out or (Path(tempfile.mkdtemp(prefix="hsd-gpu-")) if args.dry_run else RESULTS)).resolve()
    out.mkdir(parents=True, exist_ok=True)
    corpus, model = args.corpus.resolve(), args.model and args.model.resolve()
    work = out if args.dry_run else Path(tempfile.mkdtemp(prefix="hsd-gpu-"))  # the tokenizer directory
    steps = plan(args.dry_run, out, corpus, model, args.pages, args.tokens, args.batch_sizes, tag, work)
    hy = model or work / "hy-tok"
    placeholders = {str(corpus): "CORPUS", str(hy): "HY_TOK", str(out): "benchmarks/results"}
    placeholders |= {str(REPO) + "/": "", str(REPO): "."}
    deadline = None if args.budget_s is None else time.monotonic() + args.budget_s
    done = run([s for s in steps if s.group in args.only.split(",")], placeholders, args.commit, deadline=deadline)
    link_pages_per_min(out, tag)
    if args.pack:
        pack(out, args.pack.resolve())
    failed = [name for name, _, code in done if code]
    print(f"{len(done)} steps, {sum(s for _, s, _ in done):.0f} s" + (f"; failed: {failed[0]}" if failed else ""))
    print(f"JSON in {out}; `python benchmarks/dashboard.py` rewrites RESULTS.md's tables from benchmarks/results/")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
