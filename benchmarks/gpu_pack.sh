#!/usr/bin/env bash
# Pack what benchmarks/gpu.py needs on a lent GPU machine that reaches no package index and gets
# only the repository (at most 64 MiB a call): bash benchmarks/gpu_pack.sh HY_TOK_DIR
#
# Writes .whl/ and .gpu/ (add `/.whl/` and `/.gpu/` to .git/info/exclude): siteA.tar.xz
# (transformers, pymupdf with only the ONNX models hsd loads, small dependencies) and siteB.tar
# (rapidocr, rapid-layout, onnx2torch: drafting on the GPU), each under the limit with the rest of
# the tree; corpus/ (the PAGES of gpu.py with their ground truth, and draft_rate.py's pages);
# hy-tok/ (the tokenizer directory without its weights; regen.py gives it random ones there).
# Then, on one warm machine, with SCRATCH a folder outside the repository, OUT the folder whose
# files come back and HEAD this checkout's `git rev-parse --short HEAD` (the machine's copy of .git
# may be older than the tree that travels), call 1 carries siteA, corpus, hy-tok and regen.py and runs:
#   mkdir -p SCRATCH/site && tar xJf .gpu/siteA.tar.xz -C SCRATCH/site && export PYTHONPATH=SCRATCH/site:$PWD
#   cp -r .gpu/corpus .gpu/hy-tok SCRATCH/ && python3 .gpu/regen.py SCRATCH/hy-tok
#   python3 benchmarks/gpu.py --only engine,tests,cost --out SCRATCH/r --budget-s 240 --commit HEAD --pack OUT/r1.tar.gz
# and call 2 (within the machine's 30 s idle window) carries siteB and runs:
#   tar xf .gpu/siteB.tar -C SCRATCH/site && export PYTHONPATH=SCRATCH/site:$PWD
#   python3 benchmarks/gpu.py --corpus SCRATCH/corpus --model SCRATCH/hy-tok --only drafts,model,throughput,oracle \
#     --out SCRATCH/r --budget-s 400 --commit HEAD --pack OUT/r2.tar.gz
# (--budget-s under the call's timeout: the steps that do not fit are skipped, the one running is
# stopped in time, and the archive is written). A fresh machine took about 200 s of a 15-minute
# lease to start one time and 32 s another (2026-11-28, H200), and PYTHONPATH must keep the
# repository (hsd_cli) on it; `model` builds Qwen's model directory for its throughput step. The
# sixth run carried siteB, corpus and hy-tok in a first call that only unpacked them, then siteA
# with one gpu.py per group (each its own --budget-s and --pack), so a call stopped early keeps
# what finished; four calls measured throughput, draft rate, the oracle, cost and the CUDA tests.
# The next lease: `--only throughput` first (it fills two batches at each size now: 64 pages at
# batch 32, 128 at 64: some 300 s against the sixth run's 206 s), then tests, oracle and drafts; `compiled`
# (the engine step with the inductor-compiled step, minutes of compiles) only with time to spare.
# The engine step now also times ragged attention (graphs+ragged, mixed_step_ms: 32 rows, one 4x
# as long); if it beats graphs there, HSD_ATTENTION=ragged on `--only throughput` (another --out).
# The lent host's CPU has been an Intel Xeon (AVX-512), where the detector's denormal weights cost
# what issue 44's draft CPU bar was set against; with siteA and siteB on PYTHONPATH and a minute
# to spare, the bar's same-machine figures (the code before the flush, 9fa4383, against HEAD):
#   python3 benchmarks/draft_speed.py --corpus SCRATCH/corpus --repeats 1 --out-json OUT/draft-speed-xeon.json
set -euo pipefail
cd "$(dirname "$0")/.."
HY=${1:?usage: bash benchmarks/gpu_pack.sh HY_TOK_DIR (the HunyuanOCR tokenizer directory)}
PY=3.12  # the GPU image's python3
mkdir -p .gpu .whl
pip download -q --no-deps --only-binary=:all: --python-version $PY --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
  transformers==5.23.0 "pymupdf==$(python -c 'import pymupdf; print(pymupdf.__version__)')" \
  pymupdf_layout rapid-layout rapidfuzz rapidocr pyclipper shapely omegaconf colorlog regex onnx2torch
site=$(mktemp -d)
for w in .whl/*.whl; do unzip -q -o "$w" -d "$site"; done
# pymupdf.layout loads these three (checked by hooking onnxruntime.InferenceSession on the dev corpus)
keep='feature_imf1.onnx|layout_rf2.4.1\+imf1\.(onnx|yaml)|table_grid_model_v4_ep.onnx'
find "$site/pymupdf/layout/resources/onnx" -type f | grep -Ev "$keep" | xargs -r rm
tar cf - -C "$site" --exclude='rapidocr*' --exclude='rapid_layout*' --exclude='onnx2torch*' . | xz -T0 -6 >.gpu/siteA.tar.xz
tar cf .gpu/siteB.tar -C "$site" $(cd "$site" && ls -d rapidocr* rapid_layout* onnx2torch*)
rm -rf "$site"
python - <<'PY'
import importlib.util, json, shutil, sys
from pathlib import Path
spec = importlib.util.spec_from_file_location("gpu", "benchmarks/gpu.py")
gpu = importlib.util.module_from_spec(spec); sys.modules["gpu"] = gpu; spec.loader.exec_module(gpu)
src, dst = gpu.CORPUS, Path(".gpu/corpus")
manifest = json.loads((src / "manifest.json").read_text())
items = {i["file"]: i for i in manifest["items"]}
import draft_speed  # draft_rate.py's pages too (gpu.py put benchmarks/ on sys.path)
manifest["items"] = [items[p] for p in dict.fromkeys(gpu.PAGES + tuple(draft_speed.PAGES_KIND))]
for item in manifest["items"]:
    for f in [item["file"], *(g["file"] for g in item.get("ground_truth", []) if g["file"].endswith(".md"))]:
        (dst / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src / f, dst / f)
(dst / "manifest.json").write_text(json.dumps(manifest))
PY
mkdir -p .gpu/hy-tok && cp "$HY"/* .gpu/hy-tok/ && rm -f .gpu/hy-tok/model.safetensors
cat >.gpu/regen.py <<'PY'
"""Random weights for a --model directory that travelled without them (only its tokenizer counts)."""
import sys

import torch
from transformers import AutoConfig, AutoModelForImageTextToText

torch.manual_seed(0)
AutoModelForImageTextToText.from_config(AutoConfig.from_pretrained(sys.argv[1])).save_pretrained(sys.argv[1])
PY
du -sh .gpu/*
