"""Draft pages a second: per core on the CPU, and on a CUDA host per host with drafting's models in
torch on the GPU; whether those drafts are ONNX Runtime's.

    python benchmarks/draft_rate.py [--corpus CORPUS] [--workers 4,15] [--tasks 4] [--torch-cpu] \
        [--out-json benchmarks/results/draft-rate-TAG.json] [--dry-run]

Each arm runs in fresh spawned processes that load their engines on one page of each kind, wait
for each other, then prepare pages handed out from one queue (a page with drafts, then again
without: drafting's CPU seconds are the difference, as draft_speed.py counts them):
- `onnxruntime`: one process, ONNX Runtime on one thread (a drafting worker's share of a small
  host): pages a second per core = pages / drafting CPU seconds;
- `torch-cpu` (--torch-cpu): the same with the models in torch on the CPU, one thread;
- `cuda-W` (a CUDA host; one arm per --workers W): W workers with HSD_DRAFT_DEVICE=cuda, pages a
  second per host = pages / wall seconds from all workers warm to the last page prepared (render
  included: what feeds a batch), about --tasks pages a worker; before it `onnxruntime-W`, the same
  W workers drafting on the host's cores (one ONNX Runtime thread each), the rate to beat.
Every arm's drafts (kind, order and text of each region) are compared with `onnxruntime`'s.
Then, on a CUDA host, rec_lines.py's probe: the recogniser's ms a line at widths not seen yet and
seen, with cuDNN and with torch's own convolutions (`recognizer_lines`).
`--dry-run`: the repository's sample_docs, the `cuda-W` arms as one, `host-1`: a worker with
torch on the CPU, and the probe on the CPU, into a temporary JSON unless --out-json is given
(tests/bench/test_draft_rate.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # siblings, also when loaded by path

import record  # noqa: E402
from dashboard_speed import draft_rate_table  # noqa: E402
from draft_speed import PAGES_KIND  # noqa: E402
from rec_lines import probe  # noqa: E402

SAMPLES = {"scanned.pdf": "scanned", "page.png": "page image", "born_digital.pdf": "born-digital"}


@dataclass(frozen=True, slots=True)
class Arm:
    """Where one arm's models run: ONNX Runtime ("onnxruntime") or torch on `device`."""

    name: str
    device: str  # "onnxruntime", or the torch device of the models
    workers: int = 1
    threads: int = 1  # the engines' threads (ONNX Runtime's pools, torch's on the CPU)


def _use(arm: Arm) -> None:
    """This process drafts as `arm` says (a child, before its engines load)."""
    import os

    if arm.device == "onnxruntime":
        os.environ["HSD_DRAFT_DEVICE"] = "cpu"
        return
    os.environ["HSD_DRAFT_DEVICE"] = arm.device
    if arm.device == "cpu":  # "cpu" means ONNX Runtime to hsd: these engines are moved to torch here
        import torch

        from hsd_cli.drafts import rapid_engines

        torch.set_num_threads(arm.threads)
        plain = rapid_engines.load_engines
        rapid_engines.load_engines = lambda conf, threads, device=None: rapid_engines.in_torch(
            plain(conf, threads, "cpu"), "cpu"
        )


def _worker(arm: Arm, warm: list[str], tasks, results, ready) -> None:
    """Child: load, warm up, wait for the others, then prepare pages until the queue says stop."""
    _use(arm)
    from hsd_cli.pipeline.prepare import PrepareConfig, Preparer

    drafting = Preparer(PrepareConfig(ocr_threads=arm.threads))
    rendering = Preparer(PrepareConfig(drafts=None))
    for path in warm:
        drafting(Path(path), 1)
    ready.wait()
    while (path := tasks.get()) is not None:
        c0, w0 = time.process_time(), time.monotonic()
        drafted = drafting(Path(path), 1)
        c1, w1 = time.process_time(), time.monotonic()
        rendering(Path(path), 1)
        c2 = time.process_time()
        row = {"path": path, "draft_cpu_s": max(0.0, (c1 - c0) - (c2 - c1)), "prepare_s": w1 - w0, "end": w1}
        results.put(row | {"source": drafted.draft_source, "drafts": _signature(drafted.regions)})
    results.put({"gpu_mib": _gpu_mib()})


def _signature(regions) -> str:
    """The drafts as the decode sees them: each region's kind, order and text."""
    rows = [(str(r.kind), r.order, r.text) for r in regions]
    return hashlib.sha1(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()[:16]


def _gpu_mib() -> float:
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_initialized():
        return 0.0
    return round(torch.cuda.max_memory_reserved() / 2**20, 1)


def run_arm(arm: Arm, files: list[Path], tasks: int) -> dict:
    """One arm: its workers' rows, wall seconds from all warm to the last page, GPU MiB a worker."""
    ctx = multiprocessing.get_context("spawn")
    todo, results, ready = ctx.Queue(), ctx.Queue(), ctx.Barrier(arm.workers + 1)
    warm = [str(p) for p in {_kind(p): p for p in files}.values()]  # one of each kind loads its engines
    work = [str(p) for p in files] * max(1, -(-tasks * arm.workers // len(files)))  # whole rounds: every kind alike
    for path in work + [None] * arm.workers:
        todo.put(path)
    procs = [ctx.Process(target=_worker, args=(arm, warm, todo, results, ready)) for _ in range(arm.workers)]
    for p in procs:
        p.start()
    ready.wait(timeout=300)  # all loaded and warm
    t0 = time.monotonic()
    got = [results.get(timeout=600) for _ in range(len(work) + arm.workers)]
    for p in procs:
        p.join()
    rows = [r for r in got if "path" in r]
    wall = max(r["end"] for r in rows) - t0
    return {"arm": asdict(arm), "rows": rows, "wall_s": wall, "gpu_mib": [r["gpu_mib"] for r in got if "gpu_mib" in r]}


def summarize(run: dict, reference: dict | None) -> dict:
    """An arm's pages a second (per core: pages / drafting CPU s; per host: pages / wall s), by
    kind, and the pages whose drafts differ from the reference arm's."""
    rows = run["rows"]
    kinds = {}
    for kind in dict.fromkeys(_kind(Path(r["path"])) for r in rows):
        mine = [r for r in rows if _kind(Path(r["path"])) == kind]
        cpu = sum(r["draft_cpu_s"] for r in mine)
        kinds[kind] = {"pages": len(mine), "draft_cpu_s": round(cpu / len(mine), 3)}
        kinds[kind]["pages_per_s_per_core"] = round(len(mine) / cpu, 3) if cpu else None
    cpu = sum(r["draft_cpu_s"] for r in rows)
    out = {"arm": run["arm"], "pages": len(rows), "kinds": kinds}
    out["pages_per_s_per_core"] = round(len(rows) / cpu, 3) if cpu else None
    out["pages_per_s_host"] = round(len(rows) / run["wall_s"], 3)
    out["gpu_mib_per_worker"] = max(run["gpu_mib"], default=0.0)
    if reference is not None:
        want = {r["path"]: r["drafts"] for r in reference["rows"]}
        out["drafts_differ"] = sorted({_below(r["path"]) for r in rows if r["drafts"] != want.get(r["path"])})
    return out


def arms(opts: argparse.Namespace) -> list[Arm]:
    """onnxruntime first (the reference), torch on the CPU if asked, then a CUDA arm per W."""
    found = [Arm("onnxruntime", "onnxruntime")]
    if opts.torch_cpu:
        found.append(Arm("torch-cpu", "cpu"))
    if opts.dry_run:
        return found + [Arm("host-1", "cpu", workers=1)]  # the per-host path, on a CPU
    import torch

    from hsd_cli.pages import torch_models

    if torch.cuda.is_available() and not torch_models.available():
        print("no CUDA arms: onnx2torch is not installed (pip install --no-deps onnx2torch)", file=sys.stderr)
    elif torch.cuda.is_available():  # the host's rate drafting on its cores, then on its GPU
        for w in map(int, opts.workers.split(",")):
            found += [Arm(f"onnxruntime-{w}", "onnxruntime", workers=w), Arm(f"cuda-{w}", "cuda", workers=w)]
    return found


def _kind(path: Path) -> str:
    return SAMPLES.get(path.name) or PAGES_KIND[_below(path)]


def _below(path: str | Path) -> str:
    path = Path(path)
    return path.name if path.name in SAMPLES else path.resolve().relative_to(CORPUS.resolve()).as_posix()


CORPUS: Path = record.CORPUS  # --corpus


def main(argv: list[str] | None = None) -> int:
    global CORPUS
    opts = parse_args(argv)
    CORPUS = Path(opts.corpus)
    if opts.dry_run:
        files = [record.REPO / "sample_docs" / name for name in SAMPLES]
    else:  # a corpus copy may hold only some of them (gpu_pack.sh's)
        files = [CORPUS / p for p in PAGES_KIND if (CORPUS / p).is_file()]
    if not files:
        raise SystemExit(f"none of draft_speed.py's pages is under {CORPUS} (--corpus)")
    runs = [run_arm(arm, files, opts.tasks if arm.workers > 1 else 1) for arm in arms(opts)]
    tag = "dry" if opts.dry_run else _tag()
    argv = sys.argv[1:] if argv is None else argv
    device = "cuda" if tag not in ("dry", "cpu") else "cpu"
    report = {**record.header("draft_rate.py", argv, device), "arms": [summarize(runs[0], None)]}
    report["arms"] += [summarize(run, runs[0]) for run in runs[1:]]
    if device == "cuda" or opts.dry_run:  # the dry run on the CPU, two lines
        report["recognizer_lines"] = probe(device, 2 if opts.dry_run else 40)
    out = opts.out_json or (
        Path(tempfile.mkdtemp(prefix="hsd-draft-rate-")) / "draft-rate-dry.json"
        if opts.dry_run
        else record.REPO / "benchmarks" / "results" / f"draft-rate-{tag}.json"
    )
    record.write(Path(out), report, {str(CORPUS): "CORPUS"})
    print(draft_rate_table(report))
    print(f"JSON in {out}")
    return 0


def _tag() -> str:
    import torch
    from gpu import gpu_tag

    return gpu_tag(torch.cuda.get_device_name(0)) if torch.cuda.is_available() else "cpu"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", default=str(record.CORPUS), help="the dev corpus (CORPUS)")
    p.add_argument("--workers", default="4,15", help="drafting workers of each CUDA arm (comma-separated)")
    p.add_argument("--tasks", type=int, default=4, help="pages a CUDA arm's worker prepares, at least every page once")
    p.add_argument("--torch-cpu", action="store_true", help="also the models in torch on the CPU, one thread")
    p.add_argument("--dry-run", action="store_true", help="sample_docs, CPU arms only (CI)")
    p.add_argument("--out-json", help="[benchmarks/results/draft-rate-TAG.json; dry run: a temporary folder]")
    opts, _ = p.parse_known_args(argv)  # gpu.sh passes the GPU run's options along
    return opts


if __name__ == "__main__":
    raise SystemExit(main())
