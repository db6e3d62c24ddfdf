"""Cost of one tree step against its tokens K with the checkpoint's row-major linear weights, the
column-major layout (MKL's plain GEMM) and the oneDNN-packed layout `load_target` gives CPU float32
models (hsd_cli/targets/runtime/gemm.py).

The three curves come from the same model in one process.

    python benchmarks/gemm_layout.py --model HY_TOK --full-size hunyuan_vl --threads 1 \
        --out-json benchmarks/results/gemm-layout-cpu-hunyuan_vl.json

HY_TOK: a HunyuanOCR tokenizer directory (docs/benchmarks.md says how to build one).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
from dashboard_format import table
from record import header
from record import write as save_report

from hsd_cli.bench.fullsize import full_size_target
from hsd_cli.targets.runtime import gemm
from hsd_cli.targets.runtime.costs import measure
from hsd_cli.targets.runtime.registry import load_target

SIZES = (1, 2, 4, 8, 12, 16, 32, 64)


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    torch.set_num_threads(args.threads)
    can_pack = gemm.can_pack
    gemm.can_pack = lambda: False
    target = load_target(args.model, "cpu", "fp32")  # column-major: hsd's layout without oneDNN
    if args.full_size:  # the family's published size, random weights, with --model's tokenizer
        target = full_size_target(target, args.full_size)
    gemm.can_pack = can_pack

    def curve() -> dict[int, float]:
        # fit=False: the layouts differ by bumps at some K, which a monotone fit of the curve would hide
        return dict(measure(target.model, target.family.n_axes, sizes=SIZES, reps=args.reps, fit=False))

    column = curve()
    _row_major(target.model)
    row = curve()
    gemm.pack_linears(target.model)  # packed, as hsd runs it (last: packing drops the dense copy)
    packed = curve()
    rows = [
        [str(k), f"{row[k]:.3f}", f"{column[k]:.3f}", f"{packed[k]:.3f}", f"{row[k] / packed[k]:.2f}x"] for k in SIZES
    ]
    print(table(("K", "row-major s", "column-major s", "oneDNN-packed s", "row / packed"), rows))
    if args.out_json:
        data = header("gemm_layout.py", sys.argv[1:] if argv is None else argv)
        save_report(args.out_json, data | {"row_major": row, "column_major": column, "packed": packed})


def _row_major(model: torch.nn.Module) -> None:
    """Back to the checkpoint's layout (W [out, in] contiguous)."""
    for module in model.modules():
        if isinstance(module, torch.nn.Linear):
            module.weight.data = module.weight.data.contiguous()


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--full-size", default=None, help="time this family's full-size network (random weights)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--out-json", type=Path, default=None)
    return p.parse_args(argv)


if __name__ == "__main__":
    main()
