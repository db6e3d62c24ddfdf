"""Snapshot what `hsd convert` writes for fixed inputs, and compare two snapshots.

A guard for refactors that must not change behaviour: snapshot the old code, snapshot the new
code, compare. Standard library only; hsd runs as `python -m hsd_cli convert` in a subprocess
with PYTHONPATH=--python-path, so any checkout can be snapshotted. From the checkout's root
(sample_docs/ is relative; tiny model: tests/make_tiny_model.py --family hunyuan_vl DIR):

    python benchmarks/snapshot_outputs.py run --out SNAP/old --python-path OLD_CHECKOUT \
        --tiny-model SNAP/tiny-hunyuan --corpus ../shared/corpus/dev --cost-cache SNAP/hsd-cache
    python benchmarks/snapshot_outputs.py run --out SNAP/new --python-path . ...(same options)
    python benchmarks/snapshot_outputs.py compare SNAP/old SNAP/new

`run` converts each case of build_cases into OUT/<case>/ (`--cases` picks some) and writes
OUT/cases.json: each case's hsd arguments (snapshot paths written <samples>, <corpus>, <model>,
<out>) and exit status (non-zero is recorded, not fatal: the corpus holds an encrypted PDF), and
a "meta" block (times, commands, code location, cost curves) that compare ignores. Logs go to
OUT/_logs/ (not compared). HSD_* variables are cleared and HSD_CACHE_DIR set to --cost-cache.
Give both snapshots the same --cost-cache: the device cost curve, measured on first use, sizes
hsd's trees and picks auto's method per page, so with another measurement `drafted`, step counts
and auto's choices differ (the Markdown does not); compare prints a note when the curves differ.

`compare A B` (snapshot_compare.py) compares every file: JSON canonically, after dropping VOLATILE_KEYS and every
`t_*` key (the only fields that differed between two runs of the same cases: wall-clock timings,
`tokens_per_s`; `sr_decode`/`sr_e2e` are speedups from timings, with --baseline) and with each
snapshot's own roots in strings written as placeholders (reports hold the source's absolute
path); everything else byte for byte. One line per differing file, a count; exit 1 if any.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # snapshot_compare.py, also when loaded by path

from snapshot_compare import PRIVATE, cmd_compare, replace_roots  # noqa: E402

# --cost-model flat: a measured cost curve follows the machine's load, and with it tree sizes, auto's
# choices and the page reports' speculation fields (never the Markdown); flat makes two runs comparable.
TINY = ("--max-new-tokens", "64", "--pages", "1", "--format", "md,json", "--dtype", "fp32", "--device", "cpu")
TINY += ("--cost-model", "flat")
TINY_METHODS = ("ar", "page", "hsd", "auto")
# The whole dev corpus takes ~4 min per model method on 2 CPU cores, so the model cases use this
# fixed subset (paths below the corpus root), one or more of each kind.
CORPUS_SUBSET = (
    "docling/2305.03393v1-pg9.pdf",  # born-digital, tables, two columns
    "olmocr_bench/pdfs/math_2503_04086.pdf",  # born-digital, formulas
    "docling/right_to_left_01.pdf",  # born-digital, Arabic
    "mineru_bench/research_report_1f978cd81fb7260c8f7644039ec2c054.pdf",  # born-digital, Chinese
    "docling/ocr_test.pdf",  # scanned
    "docling/ocr_test_rotated_90.pdf",  # scanned, rotated page
    "olmocr_bench/pdfs/mattsnotes.pdf",  # scanned handwriting, invisible OCR text layer
    "olmocr_bench/pdfs/test-graphical-text.pdf",  # text drawn as graphics, almost no text layer
    "omnidocbench/images/jiaocaineedrop_jiaocai_needrop_en_1898.jpg",  # page image, blurry scan
    "omnidocbench/images/notes_1ba14cb325bc448f7201b20502ecf2b5_15.jpg",  # page image, notes
    "edge_cases/2206.01062_pg3_encrypted.pdf",  # encrypted: fails without --password
)
DOC_SUFFIXES = (".pdf", ".png", ".jpg", ".jpeg")


def corpus_documents(corpus: Path) -> list[str]:
    """The documents of the corpus manifest (PDFs and page images), below the corpus root."""
    items = json.loads((corpus / "manifest.json").read_text())["items"]
    return sorted(i["file"] for i in items if i["file"].lower().endswith(DOC_SUFFIXES))


def build_cases(samples: str, corpus: Path, model: str | None) -> dict[str, list[str]]:
    """Case name -> `hsd convert` arguments (without -o)."""
    everything = [str(corpus / f) for f in corpus_documents(corpus)]
    subset = [str(corpus / f) for f in CORPUS_SUBSET]
    cases = {
        "draft-samples": [samples, "--method", "draft", "--format", "md,json"],
        "draft-corpus": [*everything, "--method", "draft", "--pages", "1", "--format", "md,json"],
        "ray-draft": [samples, "--engine", "ray", "--method", "draft", "--format", "md,json"],
    }
    if model:
        for method in TINY_METHODS:
            cases[f"tiny-{method}"] = [samples, *subset, "--model", model, "--method", method, *TINY]
        cases["tiny-auto-batch4"] = [
            samples,
            *subset,
            "--model",
            model,
            "--method",
            "auto",
            "--batch-pages",
            "4",
            *TINY,
        ]
        cases["ray-tiny-page"] = [samples, "--engine", "ray", "--model", model, "--method", "page", *TINY]
    return cases


def child_env(python_path: str | None, cost_cache: Path) -> dict[str, str]:
    """This environment without HSD_* settings, with the cost cache and code path pinned."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HSD_")}
    env.update(HSD_CACHE_DIR=str(cost_cache), HF_HUB_OFFLINE="1", PYTHONHASHSEED="0")
    if python_path:
        env["PYTHONPATH"] = str(Path(python_path).resolve())
    return env


def run_case(name: str, args: list[str], out: Path, env: dict[str, str]) -> dict:
    """Convert one case into out/<name>/; its log goes to out/_logs/<name>.log."""
    target = out / name
    if target.exists():
        shutil.rmtree(target)  # a leftover folder would make hsd resume instead of convert
    command = [sys.executable, "-m", "hsd_cli", "convert", *args, "-o", str(target), "--quiet"]
    log = out / f"{PRIVATE}logs" / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with log.open("w") as handle:
        # cwd: `python -m` puts it first on sys.path, so a checkout there would shadow --python-path
        run = subprocess.run(command, env=env, cwd=out, stdout=handle, stderr=subprocess.STDOUT, check=False)
        rc = run.returncode
    wall = time.monotonic() - start
    print(f"{name}: exit {rc}, {wall:.1f} s", flush=True)
    return {"command": command, "returncode": rc, "wall_s": round(wall, 1)}


def describe_code(env: dict[str, str], cwd: Path) -> dict:
    """Which hsd_cli the children import, and the commit of its checkout if it is one."""
    probe = "import hsd_cli, sys; print(hsd_cli.__file__); print(sys.version.split()[0])"
    out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=cwd, capture_output=True, text=True, check=True)
    module, version = out.stdout.split()
    git_head = ["git", "-C", str(Path(module).parent), "rev-parse", "HEAD"]
    git = subprocess.run(git_head, capture_output=True, text=True, check=False)
    return {"hsd_cli": module, "python": version, "commit": git.stdout.strip() or None}


def cost_files(cache: Path) -> dict[str, str]:
    """sha256 of every cached device cost curve (they steer --method auto and tree sizes)."""
    folder = cache / "costs"
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}


def cmd_run(opts: argparse.Namespace) -> int:
    out = Path(opts.out).resolve()
    corpus = Path(opts.corpus).resolve()
    model = str(Path(opts.tiny_model).resolve()) if opts.tiny_model else None
    cache = Path(opts.cost_cache).resolve() if opts.cost_cache else out.parent / "hsd-cache"
    cases = build_cases(str(Path(opts.samples).resolve()), corpus, model)
    chosen = opts.cases or list(cases)
    if unknown := sorted(set(chosen) - set(cases)):
        sys.exit(f"unknown case(s) {unknown}; known: {list(cases)}")
    out.mkdir(parents=True, exist_ok=True)
    env = child_env(opts.python_path, cache)
    roots = {"out": str(out), "corpus": str(corpus), "samples": str(Path(opts.samples).resolve()), "model": model}
    meta = {
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "cwd": os.getcwd(),
        "roots": roots,
        "cost_cache": str(cache),
        "code": describe_code(env, out),
    }
    results: dict[str, dict] = {}
    for name in chosen:
        result = run_case(name, cases[name], out, env)
        results[name] = {"args": [replace_roots(x, roots) for x in cases[name]], "returncode": result["returncode"]}
        meta.setdefault("cases", {})[name] = {"command": result["command"], "wall_s": result["wall_s"]}
    meta["costs"] = cost_files(cache)
    record = out / "cases.json"
    if record.exists():  # a run of some cases keeps the others' records
        old = json.loads(record.read_text())
        results = {**old["cases"], **results}
        meta["cases"] = {**old["meta"].get("cases", {}), **meta.get("cases", {})}
    record.write_text(json.dumps({"cases": results, "meta": meta}, indent=2) + "\n")
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="convert every case into OUT/<case>/")
    run.add_argument("--out", required=True, help="snapshot folder (case folders in it are replaced)")
    run.add_argument("--python-path", help="PYTHONPATH for hsd (the checkout to snapshot)")
    run.add_argument("--tiny-model", help="model folder for the tiny-* and ray-tiny-page cases (else skipped)")
    run.add_argument("--corpus", default="../shared/corpus/dev", help="corpus root with manifest.json")
    run.add_argument("--samples", default="sample_docs", help="sample documents folder")
    run.add_argument("--cost-cache", help="HSD_CACHE_DIR for the runs [default: OUT/../hsd-cache]")
    run.add_argument("--cases", nargs="+", metavar="CASE", help="only these cases")
    run.set_defaults(func=cmd_run)
    compare = sub.add_parser("compare", help="compare two snapshots; exit 1 if any file differs")
    compare.add_argument("a")
    compare.add_argument("b")
    compare.add_argument("--ignore-key", action="append", default=[], metavar="KEY", help="also ignore this JSON key")
    compare.add_argument("--cases", nargs="+", metavar="CASE", help="only these cases' folders")
    compare.add_argument("--normalize", action="store_true", help="forgive documents' order and '#' in title text")
    compare.set_defaults(func=cmd_compare)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return (opts := parse_args(argv)).func(opts)


if __name__ == "__main__":
    sys.exit(main())
