"""Cost of one tree step against its tokens K with the checkpoint's row-major linear weights, the
column-major layout (MKL's plain GEMM) and the oneDNN-packed layout `load_target` gives CPU float32
models (hsd_cli/targets/runtime/gemm.py).

The three curves come from the same model in one process.

    python benchmarks/gemm_layout.py --model /tmp/hy-tok --full-size hunyuan_vl \
        --json benchmarks/gemm_layout_hunyuan_cpu.json --markdown benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

import torch

from hsd_cli.bench.fullsize import full_size_target
from hsd_cli.bench.machine import machine_info, machine_line
from hsd_cli.bench.report import markdown_table, section_header, update_section
from hsd_cli.targets.runtime import gemm
from hsd_cli.targets.runtime.costs import measure
from hsd_cli.targets.runtime.registry import load_target

SIZES = (1, 2, 4, 8, 12, 16, 32, 64)


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    can_pack = gemm.can_pack
    gemm.can_pack = lambda: False
    target = load_target(args.model, "cpu", "fp32")  # column-major: hsd's layout without oneDNN
    if args.full_size:  # the family's published size, random weights, with --model's tokenizer
        target = full_size_target(target, args.full_size)
    gemm.can_pack = can_pack

    def curve() -> dict[int, float]:
        # fit=False: the layouts differ by bumps at some K, which a monotone fit of the curve would hide
        return dict(measure(target.model, target.spec.n_axes, sizes=SIZES, reps=args.reps, fit=False))

    column = curve()
    _row_major(target.model)
    row = curve()
    gemm.pack_linears(target.model)  # packed, as hsd runs it (last: packing drops the dense copy)
    packed = curve()
    rows = [
        [str(k), f"{row[k]:.3f}", f"{column[k]:.3f}", f"{packed[k]:.3f}", f"{row[k] / packed[k]:.2f}x"] for k in SIZES
    ]
    params = sum(p.numel() for p in target.model.parameters()) / 1e6
    info = machine_info("cpu")
    command = "python benchmarks/gemm_layout.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    note = (
        f"model: {args.model} ({target.spec.model_type}, {params:.0f}M parameters), {args.threads} torch "
        f"threads; seconds of one step + commit over K tree tokens after a 256-token prompt, fastest of {args.reps}"
    )
    body = section_header(
        "Tree-step cost by weight layout (CPU, float32)",
        command,
        machine_line(info),
        time.perf_counter() - started,
        [note],
    )
    columns = ("K", "row-major s", "column-major s", "oneDNN-packed s", "row / packed")
    body += "\n" + markdown_table(columns, rows) + "\n"
    print(body)
    if args.json:
        args.json.write_text(
            json.dumps(
                {"command": command, "machine": info, "row_major": row, "column_major": column, "packed": packed},
                indent=1,
            )
        )
    if args.markdown:
        update_section(args.markdown, "gemm-layout", body)


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
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--markdown", type=Path, default=None)
    return p.parse_args(argv)


if __name__ == "__main__":
    main()
