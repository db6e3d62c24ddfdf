"""Does the cost model price batched tree passes right? Measured step time of R rows x K tree tokens
against `CostModel.step(R, K, cache)`, on a full-size random-weight language model.

    python benchmarks/price_check.py --family hunyuan_vl --threads 1 --out-json price.json

The curve is measured as `targets/runtime/costs.cost_model` measures it (one row over a short
prompt; one-token rows over ROW_CONTEXT-token caches and the most rows over short ones), then each
R x K step over caches of each context length, priced at that length. Time on a quiet machine
(`taskset -c N`, nothing on the other cores).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

import torch

from hsd_cli.bench.fullsize import decode_model
from hsd_cli.targets.runtime.costs import _copies, batch_price, fastest_step, measure, prefill_text
from hsd_cli.targets.runtime.load import LoadClock
from hsd_cli.targets.runtime.registry import FAMILIES


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", default="hunyuan_vl")
    p.add_argument("--device", default="cpu")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--contexts", default="512,1024", help="cache lengths of the rows")
    p.add_argument("--rows", default="1,2,4,8")
    p.add_argument("--widths", default="1,2,4,8", help="tree tokens per row")
    p.add_argument("--out-json")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    clock = LoadClock.start()
    dtype = torch.float32 if args.device == "cpu" else torch.bfloat16
    _, model = decode_model(args.family, args.device, dtype, shrink_vision=True)
    axes = FAMILIES[args.family][0].n_axes
    cost = batch_price(model, axes, measure(model, axes))
    print("curve", [(k, round(t, 3)) for k, t in cost.points], "rows", [(r, round(t, 3)) for r, t in cost.rows])
    print(f"slot {cost.slot * 1e6:.1f} us over {cost.base} slots")
    steps = []
    for ctx in map(int, args.contexts.split(",")):
        for rows in map(int, args.rows.split(",")):
            session = _copies(prefill_text(model, ctx, axes), rows)
            for k in map(int, args.widths.split(",")):
                measured = fastest_step(session, 3, k)
                priced = cost.step(rows, k, ctx)
                steps.append({"ctx": ctx, "rows": rows, "k": k, "measured": measured, "priced": priced})
                print(f"ctx {ctx} rows {rows} k {k}: measured {measured:.3f} s, priced {priced:.3f} s")
    busy = clock.others_busy()
    print(f"other cores busy meanwhile: {busy:.2f}")
    if args.out_json:
        data = {**asdict(cost), "steps": steps, "other_cores_busy": busy}
        with open(args.out_json, "w") as f:
            json.dump(data, f, indent=1)


if __name__ == "__main__":
    main()
