"""Masked steps with grouped heads, folded onto the K/V heads or not: step time, A/B interleaved.

    python benchmarks/attention_fold.py --family hunyuan_vl --threads 2 \
        --out-json benchmarks/results/attention-fold-cpu-hunyuan_vl.json

A full-size random-weight language model (vision tower of one block), one prompt of `--context`
random tokens copied into each row; every shape's `step + commit` is timed with transformers' own
SDPA attention and with `attention.folded_sdpa`, alternating, after an untimed step each. Time on a
quiet machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
from record import header
from record import write as save_report
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward

from hsd_cli.bench.fullsize import decode_model
from hsd_cli.targets.runtime.attention import folded_sdpa
from hsd_cli.targets.runtime.costs import _copies, prefill_text, time_step
from hsd_cli.targets.runtime.registry import FAMILIES

PATHS = {"transformers": sdpa_attention_forward, "folded": folded_sdpa}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", default="hunyuan_vl")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--context", type=int, default=700, help="cache slots of every row")
    p.add_argument("--shapes", default="16x1,8x8,4x8,16x4,1x16", help="rows x tree tokens")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--out-json", type=Path)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    _, model = decode_model(args.family, "cpu", torch.float32, shrink_vision=True)
    prompt = prefill_text(model, args.context, FAMILIES[args.family][0].n_axes)
    results = []
    try:
        for shape in args.shapes.split(","):
            rows, k = map(int, shape.split("x"))
            session = _copies(prompt, rows)
            times = {name: [] for name in PATHS}
            for _ in range(args.reps):
                for name, fn in PATHS.items():
                    AttentionInterface.register("sdpa", fn)
                    time_step(session, k)
                    times[name].append(time_step(session, k))
            row = {"rows": rows, "tree_tokens": k, **{f"{n}_s": sorted(t)[len(t) // 2] for n, t in times.items()}}
            results.append(row)
            print(f"{rows} x {k}: {row['transformers_s'] * 1e3:.0f} -> {row['folded_s'] * 1e3:.0f} ms (medians)")
    finally:
        AttentionInterface.register("sdpa", folded_sdpa)
    if args.out_json:
        data = header("attention_fold.py", sys.argv[1:] if argv is None else argv)
        data |= {"family": args.family, "threads": args.threads, "context": args.context, "steps": results}
        save_report(args.out_json, data)


if __name__ == "__main__":
    main()
