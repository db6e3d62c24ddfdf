"""Draft CPU seconds a page, by kind of page: the code at a baseline commit against this checkout,
on the same dev pages, in turns; and whether `hsd convert --method draft` writes the same Markdown.

    nice -n 19 python benchmarks/draft_speed.py [--corpus CORPUS] [--baseline REV] [--repeats 2] \
        [--threads 1] [--out-json benchmarks/results/draft-speed-cpu.json]

CPU seconds (the process's, every thread), not wall time: the machine may be busy, and a thread
spinning on a core it shares is work the other drafting workers lose. Each arm runs in a fresh
process with PYTHONPATH at its code (the baseline: `git archive REV`): it loads its engines on
warm-up pages, then prepares each page with drafts and again without (render only); drafting is
the difference. `--threads` is the drafting share (PrepareConfig.ocr_threads), one thread as a
drafting worker on a small host gets. A page's figure is its smallest over the repeats.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import record

# Manifest paths below the corpus root, by kind (the kinds of draft-quality.json's table).
PAGES = {
    "scanned": (
        "docling/ocr_test.pdf",
        "docling/ocr_test_rotated_90.pdf",
        "olmocr_bench/pdfs/buildingnotes.pdf",
        "olmocr_bench/pdfs/mattsnotes.pdf",  # handwriting under an invisible OCR layer
    ),
    "page image": (
        "omnidocbench/images/docstructbench_dianzishu_zhongwenzaixian-o.O-61522235.pdf_170.jpg",
        "omnidocbench/images/jiaocaineedrop_Chapter9.pdf_46.jpg",
        "omnidocbench/images/notes_1ba14cb325bc448f7201b20502ecf2b5_15.jpg",
        "omnidocbench/images/yanbaopptmerge_SE05.pdf_7.jpg",
    ),
    "born-digital": (
        "docling/2305.03393v1-pg9.pdf",
        "olmocr_bench/pdfs/math_2503_04086.pdf",
        "mineru_bench/research_report_1f978cd81fb7260c8f7644039ec2c054.pdf",
    ),
}
PAGES_KIND = {page: kind for kind, pages in PAGES.items() for page in pages}
BASELINE = "9fa4383"  # before the denormal flush and pymupdf-layout's thread cap
CORPUS: Path = record.CORPUS  # --corpus


def measure(files: list[Path], threads: int) -> dict:
    """Child: CPU seconds of preparing page 1 of each file with drafts, and without."""
    from hsd_cli.pipeline.prepare import PrepareConfig, Preparer

    drafting = Preparer(PrepareConfig(ocr_threads=threads))
    rendering = Preparer(PrepareConfig(drafts=None))
    for path in {PAGES_KIND[_below(p)]: p for p in files}.values():  # one of each kind loads its engines
        drafting(path, 1)
    pages = {}
    for path in files:
        t0 = time.process_time()
        drafted = drafting(path, 1)
        t1 = time.process_time()
        rendering(path, 1)
        t2 = time.process_time()
        pages[_below(path)] = {"prepare_cpu_s": t1 - t0, "render_cpu_s": t2 - t1, "source": drafted.draft_source}
    import hsd_cli

    return {"code": str(Path(hsd_cli.__file__).parent), "pages": pages, "sessions": open_sessions()}


def open_sessions() -> list[dict]:
    """The ONNX Runtime sessions this process holds: model file, intra-op and inter-op threads."""
    import gc

    import onnxruntime as ort

    gc.collect()
    sessions = [o for o in gc.get_objects() if isinstance(o, ort.InferenceSession)]
    return [
        {
            "model": str(getattr(s, "_model_path", "?")),
            "intra_op": o.intra_op_num_threads,
            "inter_op": o.inter_op_num_threads,
        }
        for s, o in ((s, s.get_session_options()) for s in sessions)
    ]


def models(sessions: dict[str, list[dict]]) -> dict[str, dict]:
    """Per model the arms ran: its denormal weights, whether the new code ran a flushed copy, and
    each arm's intra-op threads (0: ONNX Runtime's default, every core)."""
    import onnx

    from hsd_cli.pages.onnx_models import flush_denormals

    found: dict[str, dict] = {}
    for s in sessions["before"]:  # the libraries' own files
        name = Path(s["model"]).name
        found[name] = {"denormal_weights": flush_denormals(onnx.load(s["model"])), "threads_before": s["intra_op"]}
    for s in sessions["after"]:
        path = Path(s["model"])
        flushed = path.name not in found  # a copy in the cache, NAME-HASH-vN.onnx
        row = found.setdefault(path.name.rsplit("-", 2)[0] + ".onnx" if flushed else path.name, {})
        row.update(flushed_after=flushed, threads_after=s["intra_op"])
    return dict(sorted(found.items()))


def _below(path: Path) -> str:
    return path.resolve().relative_to(CORPUS.resolve()).as_posix()


def child_env(code: Path, cache: Path) -> dict[str, str]:
    """The arm's environment: its code first on the path, then what the path held (a lent GPU
    machine's packages come on PYTHONPATH); hsd's own settings left out, but drafting on the CPU
    in ONNX Runtime, as the baseline drafts (a CUDA host would otherwise draft in torch there)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HSD_")}
    path = os.pathsep.join(p for p in (str(code), env.get("PYTHONPATH", "")) if p)
    return {**env, "PYTHONPATH": path, "HSD_CACHE_DIR": str(cache), "HSD_DRAFT_DEVICE": "cpu"}


def run_arm(code: Path, files: list[Path], threads: int, cache: Path, work: Path) -> dict:
    """One arm's measurement, in a process of its own (cwd outside any checkout: `python` puts
    the cwd's package first on sys.path)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--corpus", str(CORPUS), "--measure", str(threads)]
    out = subprocess.run(cmd + [str(f) for f in files], env=child_env(code, cache), cwd=work, capture_output=True)
    if out.returncode:
        raise SystemExit(f"{code}: measuring failed\n{out.stderr.decode()[-2000:]}")
    got = json.loads(out.stdout.decode().splitlines()[-1])
    assert Path(got["code"]).resolve() == (code / "hsd_cli").resolve(), got["code"]  # the arm's own code ran
    return got


def markdown(code: Path, files: list[Path], cache: Path, out: Path) -> dict[str, bytes]:
    """`hsd convert --method draft` of page 1 of each file with the arm's code: Markdown by path."""
    cmd = [sys.executable, "-m", "hsd_cli", "convert", *map(str, files), "-o", str(out)]
    cmd += ["--method", "draft", "--max-pages", "1", "--quiet"]
    subprocess.run(cmd, env=child_env(code, cache), cwd=out.parent, capture_output=True, check=True)
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*.md"))}


def baseline_code(rev: str, into: Path) -> Path:
    """hsd_cli/ as of commit `rev`, unpacked into `into`."""
    into.mkdir()
    git = ["git", "-C", str(record.REPO), "archive", rev, "hsd_cli"]
    archive = subprocess.run(git, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def summarize(pages: dict[str, dict]) -> dict:
    """Per kind: the pages' mean draft CPU seconds before and after, and after / before."""
    kinds = {}
    for kind in PAGES:
        rows = [r for p, r in pages.items() if PAGES_KIND[p] == kind]
        before = sum(r["before_cpu_s"] for r in rows) / len(rows)
        after = sum(r["after_cpu_s"] for r in rows) / len(rows)
        kinds[kind] = {"pages": len(rows), "before_cpu_s": round(before, 3), "after_cpu_s": round(after, 3)}
        kinds[kind]["after_over_before"] = round(after / before, 3)
    return kinds


def draft_cpu(runs: list[dict], page: str) -> float:
    """A page's drafting CPU seconds: the smallest over the repeats of prepare less render."""
    return min(max(0.0, r[page]["prepare_cpu_s"] - r[page]["render_cpu_s"]) for r in runs)


def main(argv: list[str] | None = None) -> int:
    global CORPUS
    opts = parse_args(argv)
    CORPUS = Path(opts.corpus)
    if opts.measure is not None:
        print(json.dumps(measure([Path(f) for f in opts.files], opts.measure)))
        return 0
    files = [CORPUS / p for p in PAGES_KIND]
    with tempfile.TemporaryDirectory(prefix="hsd-draft-speed-") as tmp:
        work = Path(tmp)
        arms = {"before": baseline_code(opts.baseline, work / "before"), "after": record.REPO}
        got: dict[str, list[dict]] = {"before": [], "after": []}
        for rep in range(opts.repeats):  # in turns, the order swapped each time
            for arm in ("before", "after") if rep % 2 == 0 else ("after", "before"):
                got[arm].append(run_arm(arms[arm], files, opts.threads, work / f"cache-{arm}", work))
        md = {arm: markdown(code, files, work / f"cache-{arm}", work / f"md-{arm}") for arm, code in arms.items()}
        sessions = models({arm: runs[-1]["sessions"] for arm, runs in got.items()})
    runs = {arm: [r["pages"] for r in arm_runs] for arm, arm_runs in got.items()}
    pages = {
        p: {
            "kind": PAGES_KIND[p],
            "source": runs["after"][0][p]["source"],
            "before_cpu_s": round(draft_cpu(runs["before"], p), 3),
            "after_cpu_s": round(draft_cpu(runs["after"], p), 3),
        }
        for p in PAGES_KIND
    }
    differing = sorted(k for k in md["before"].keys() | md["after"].keys() if md["before"].get(k) != md["after"].get(k))
    argv = sys.argv[1:] if argv is None else argv
    report = {
        **record.header("draft_speed.py", argv),
        "baseline": opts.baseline,
        "threads": opts.threads,
        "repeats": opts.repeats,
        "kinds": summarize(pages),
        "pages": pages,
        "models": sessions,
        "markdown": {"files": len(md["after"]), "identical": not differing, "differing": differing},
    }
    record.write(Path(opts.out_json), report)
    print(json.dumps(report["kinds"], indent=1), "\nMarkdown identical:", not differing, differing)
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", default=str(record.CORPUS), help="the dev corpus (CORPUS)")
    p.add_argument("--baseline", default=BASELINE, help="the commit whose drafting is 'before'")
    p.add_argument("--repeats", type=int, default=2, help="turns of both arms")
    p.add_argument("--threads", type=int, default=1, help="the drafting share: PrepareConfig.ocr_threads")
    p.add_argument("--out-json", default=str(record.REPO / "benchmarks/results/draft-speed-cpu.json"))
    p.add_argument("--measure", type=int, help=argparse.SUPPRESS)  # child: threads
    p.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    return p.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(main())
