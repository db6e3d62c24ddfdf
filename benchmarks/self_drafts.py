"""Machinery speedup with drafts that agree with the target: its own AR output as the page draft.

    python benchmarks/self_drafts.py [--model DIR] [--tokens 512] [--json benchmarks/self_drafts.json]

Random-weight targets write arbitrary text, so real drafts cannot agree with them; feeding the
target's own greedy output back as the draft measures what the verification machinery gains
when drafts are right. Both methods run on the same page in one process, after a warm-up.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def main() -> None:
    args = _parse()
    import torch

    torch.set_num_threads(1)  # pinned: tiny models are overhead-bound, and 2 threads fight on 2 cores
    from hsd_cli.config import SpecConfig
    from hsd_cli.methods.ar import AR
    from hsd_cli.methods.base import PageDrafts
    from hsd_cli.methods.page import Page
    from hsd_cli.methods.run import decode
    from hsd_cli.pages.render import iter_pages
    from hsd_cli.targets.runtime.registry import load_target

    model = args.model or _tiny(args.family)
    target = load_target(model, "cpu", "fp32")
    target.eos_ids = frozenset()  # a page of exactly --tokens tokens, whatever the random model says
    page = next(iter_pages(ROOT / "sample_docs" / "born_digital.pdf", "1", 144, None))
    spec = SpecConfig(max_new_tokens=args.tokens, max_depth=args.max_depth, repeat_guard=0)
    run_ar = lambda: decode(AR(), target, page, [], spec)
    run_page = lambda draft: decode(Page(), target, page, [], spec, PageDrafts([[draft]]))
    run_page(run_ar().tokens[:32])  # warm-up
    rows = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        ar = run_ar()
        t1 = time.perf_counter()
        fast = run_page(ar.tokens)
        t2 = time.perf_counter()
        assert fast.tokens == ar.tokens, "self-drafted output differs from AR"
        rows.append({"ar_s": t1 - t0, "page_s": t2 - t1})
    best_ar, best_page = min(r["ar_s"] for r in rows), min(r["page_s"] for r in rows)
    result = {
        "model": model,
        "family": args.family,
        "tokens": len(ar.tokens),
        "max_depth": args.max_depth,
        "ar_forwards": ar.page.steps + 1,
        "page_forwards": fast.page.steps + 1,  # + the prefill
        "forward_ratio": (ar.page.steps + 1) / (fast.page.steps + 1),
        "aal": fast.page.aal,
        "ar_decode_s": ar.page.t_decode,
        "page_decode_s": fast.page.t_decode,
        "decode_ratio": ar.page.t_decode / fast.page.t_decode,
        "wall_ratio_best": best_ar / best_page,
        "runs": rows,
        "identical_to_ar": True,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
    }
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "runs"}, indent=2))


def _tiny(family: str) -> str:
    from make_tiny_model import build_tiny_model

    return str(build_tiny_model(family, Path(tempfile.mkdtemp()) / family))


def _parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", help="model directory (default: a tiny random model of --family)")
    p.add_argument("--family", default="qwen2_5_vl")
    p.add_argument("--tokens", type=int, default=512)
    p.add_argument("--max-depth", type=int, default=24)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", default=str(ROOT / "benchmarks" / "self_drafts.json"))
    return p.parse_args()


if __name__ == "__main__":
    main()
