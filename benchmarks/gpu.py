"""The first GPU run in one command: CUDA tests, cost curves, oracle table, batch throughput.

On a machine with a CUDA GPU (about 20 minutes of steps on one H100: the CUDA tests 1.5, the cost
curves 0.5, the oracle table 4.5, throughput at batch 8 and 32 4, at batch 1 over 5, the rest
loading; a 15-minute lease takes it in two, with `--only`):

    python benchmarks/gpu.py                 # or: bash benchmarks/gpu.sh

1. the CUDA test subset: lossless decoding, batched verification and the session cache of every
   tiny family, in float32 on the GPU (HSD_TEST_DEVICE=cuda);
2. the cost curve of the full-size HunyuanOCR and Qwen2.5-VL-3B language models in bf16;
3. the oracle table of ar / page / hsd / auto at batch 1 (full-size HunyuanOCR, bf16, 16 dev
   pages of every kind, 384 tokens);
4. the throughput table of ar and auto at batch 8, 32 and 1 on up to 4 pages of each of those
   documents (32 pages: a batch that drains to its longest page shows nothing of continuous
   batching; the second run's 16 pages could not fill a batch of 16), each run drafting its pages
   in 4 background processes beside the model as `hsd convert` does (the second run charged
   drafting one page after another: 14.2 s of prepare against 8.5 s of verification at batch 8).
Each bench step writes its JSON under --out and its section (`...-cuda`) of --results; the
throughput step rewrites both after each of its runs, so a lease that ends mid-step keeps the runs
it finished (batch 1 comes last: plain decoding of 32 pages one at a time is its longest run).
`--only`, `--pages`, `--tokens` and `--batch-sizes` fit the run to a shorter lease; `--corpus` and
`--model` point at copies where the repository's neighbours did not travel.

`--dry-run` runs every step to its end on a CPU in minutes: float32, the tiny test families'
sizes for the decoders (HSD_FULL_SIZE_LAYERS=1 keeps one full-width layer), the repository's
sample_docs without the oracle, 16 tokens, batch sizes 1 and 2. CI runs it
(tests/bench/test_gpu_script.py), so the GPU run works the first time one is lent.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "dev"
STEPS = ("tests", "model", "cost", "oracle", "throughput")
CUDA_TESTS = (
    "tests/targets/test_lossless.py",
    "tests/targets/test_batched.py",
    "tests/targets/test_session_cache.py",
    "tests/targets/test_generate_parity.py",
)
# 16 dev pages with Markdown ground truth (the oracle needs it), every kind: born-digital, scanned,
# page images, a blurry scan.
PAGES = (
    # the 10 of issue 20's CPU table (RESULTS `oracle-fullsize-hunyuan_vl-384-lead`): --pages 10
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


THROUGHPUT_PAGES = 4  # pages of each document in the throughput step: 32 of PAGES' documents


@dataclass(frozen=True, slots=True)
class Step:
    """One command of the run."""

    name: str
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = field(default=())
    group: str = ""  # one of STEPS, for --only


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
        return cls("cuda", "bf16", 384, "8,32,1", (), (), (), 4)


def plan(
    dry: bool,
    out: Path,
    results: Path,
    corpus: Path = CORPUS,
    model: Path | None = None,
    n_pages: int = len(PAGES),
    tokens: int | None = None,
    batch_sizes: str | None = None,
) -> list[Step]:
    """The steps, in order: tests, the tokenizer directory, cost curves, oracle table, throughput.

    `model`: a ready --model directory for HunyuanOCR (else one is built from `corpus`'s text).
    """
    s = Settings.of(dry)
    s = replace(s, tokens=tokens or s.tokens, batch_sizes=batch_sizes or s.batch_sizes)
    tests = (sys.executable, "-m", "pytest", "-q", *s.tests, *CUDA_TESTS)
    steps = [Step("CUDA tests", tests, (("HSD_TEST_DEVICE", s.device),), "tests")]
    hy = model or out / "hy-tok"
    if model is None:
        steps.append(_tokenizer_dir(dry, hy, corpus))
    for family in ("hunyuan_vl", "qwen2_5_vl"):
        argv = ("bench", "--full-size", family, *s.cost, "--out-json", str(out / f"cost_{family}_{s.device}.json"))
        steps.append(Step(f"cost curve {family}", _hsd(*argv, *_device(s), "--markdown", str(results)), s.env, "cost"))
    pages = [str(REPO / "sample_docs")] if dry else [str(corpus / p) for p in PAGES[:n_pages]]
    common = (*pages, "--model", str(hy), "--max-new-tokens", str(s.tokens), *_device(s))
    common += ("--markdown", str(results))
    common += () if dry else ("--oracle", "--full-size", "hunyuan_vl")  # no truth for sample_docs
    oracle = ("--methods", "ar,page,hsd,auto", "--out-json", str(out / f"oracle_hunyuan_{s.device}_{s.tokens}.json"))
    steps.append(Step("oracle table, batch 1", _hsd("bench", *common, "--max-pages", "1", *oracle), s.env, "oracle"))
    batch = ("--max-pages", str(THROUGHPUT_PAGES), "--methods", "ar,auto", "--batch-pages", s.batch_sizes)
    batch += ("--workers", str(s.workers))
    batch += ("--warmup", "0", "--out-json", str(out / f"throughput_hunyuan_{s.device}_{s.tokens}.json"))
    steps.append(Step(f"throughput, batch {s.batch_sizes}", _hsd("bench", *common, *batch), s.env, "throughput"))
    return steps


def _tokenizer_dir(dry: bool, hy: Path, corpus: Path) -> Step:
    """The --model directory that lends the full-size HunyuanOCR its tokenizer and processor."""
    make = (sys.executable, str(REPO / "tests" / "make_tiny_model.py"), "--family", "hunyuan_vl")
    if dry:  # no corpus on a CI machine: the tiny family's own tokenizer
        return Step("model directory hunyuan_vl", (*make, str(hy)), group="model")
    trained = ("--tokenizer-text", str(corpus), "--vocab", "16000", "--real-images")
    return Step("model directory hunyuan_vl", (*make, *trained, str(hy)), group="model")


def _device(s: Settings) -> tuple[str, ...]:
    return ("--device", s.device, "--dtype", s.dtype)


def _hsd(*args: str) -> tuple[str, ...]:
    return (sys.executable, "-m", "hsd_cli", *args)


def run(steps: list[Step], log=print) -> list[tuple[str, float, int]]:
    """Every step in order, stopping at the first failure; (name, seconds, exit status) per step run."""
    done = []
    for step in steps:
        log(f"== {step.name}: {shlex.join(step.argv)}")
        t0 = time.perf_counter()
        code = subprocess.run(step.argv, cwd=REPO, env={**os.environ, **dict(step.env)}).returncode
        done.append((step.name, time.perf_counter() - t0, code))
        log(f"== {step.name}: exit {code} after {done[-1][1]:.0f} s")
        if code:
            break
    return done


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dry-run", action="store_true", help="CPU, tiny sizes: check every step runs (CI)")
    p.add_argument("--out", type=Path, default=REPO / "benchmarks" / "gpu", help="JSON reports and model dirs")
    p.add_argument("--results", type=Path, default=REPO / "benchmarks" / "RESULTS.md", help="results file")
    p.add_argument("--corpus", type=Path, default=CORPUS, help="the dev corpus (a copy holding PAGES will do)")
    p.add_argument("--model", type=Path, help="a ready HunyuanOCR --model directory (skips building one)")
    p.add_argument("--only", default=",".join(STEPS), help=f"comma-separated steps to run, of {','.join(STEPS)}")
    p.add_argument("--pages", type=int, default=len(PAGES), help="the first N of the 16 pages")
    p.add_argument("--tokens", type=int, help="max new tokens per page (default 384; dry run 16)")
    p.add_argument("--batch-sizes", help="throughput batch sizes (default 8,32,1; dry run 1,2)")
    args = p.parse_args(argv)
    only = set(args.only.split(","))
    if only - set(STEPS):
        p.error(f"--only: unknown step {sorted(only - set(STEPS))[0]!r} (of {','.join(STEPS)})")
    if not args.dry_run:
        import torch

        if not torch.cuda.is_available():
            sys.exit("no CUDA device: run on a GPU machine, or pass --dry-run")
    args.out.mkdir(parents=True, exist_ok=True)
    steps = plan(
        args.dry_run,
        args.out.resolve(),
        args.results.resolve(),
        args.corpus.resolve(),
        args.model and args.model.resolve(),
        args.pages,
        args.tokens,
        args.batch_sizes,
    )
    done = run([s for s in steps if s.group in only])
    failed = [name for name, _, code in done if code]
    print(f"{len(done)} steps, {sum(s for _, s, _ in done):.0f} s" + (f"; failed: {failed[0]}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
