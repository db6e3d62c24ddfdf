"""One decode step's time on each engine: transformers eager (HFSession) against hsd's static KV
cache, eager and (on CUDA) replayed as CUDA graphs, on a full-size random-weight model.

    python benchmarks/engine_step.py                       # CUDA: results/gpu-engine.json
    python benchmarks/engine_step.py --dry-run             # CPU, a tiny model, seconds; prints the JSON
    python benchmarks/engine_step.py --inductor            # also graphs of the inductor-compiled step

`ar_step_ms`: a one-token step (+ commit) of 1, 8 and 32 rows; `tree_step_ms`: a step of a 16- and
a 64-node tree at one row. Each is the fastest of --reps steps after an untimed one (on graphs
the bucket's eager first use; the first timed step captures it), over caches of --prompt tokens.
`engine_s`: each engine's whole measurement, its compiles and captures included. The figures the
issue asks of `hsd bench` (pages per minute of `ar` and `auto`) come from benchmarks/gpu.py's
throughput runs.
Arguments it does not know (gpu.sh passes gpu.py's) are ignored.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))  # dashboard_speed, also when loaded by path

import record  # noqa: E402
from dashboard_speed import engine_table  # noqa: E402

from hsd_cli.bench.fullsize import build_model  # noqa: E402
from hsd_cli.targets.runtime.attention import attention_for  # noqa: E402
from hsd_cli.targets.runtime.costs import fastest_step, prefill_text  # noqa: E402
from hsd_cli.targets.runtime.gemm import pack_linears  # noqa: E402
from hsd_cli.targets.runtime.registry import FAMILIES  # noqa: E402
from hsd_cli.targets.runtime.static_session import StaticEngine  # noqa: E402

RESULT = REPO / "benchmarks" / "results" / "gpu-engine.json"
AR_ROWS = (1, 8, 32)
TREE_WIDTHS = (16, 64)
# A dry run's text decoder: the family's layout at a width a CPU steps in milliseconds.
TINY_TEXT = dict(
    hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2
)


def tiny_text(model_config, n_axes: int) -> None:
    """Shrink the text decoder of a full-size config in place (head_dim 32, vocabulary 1024)."""
    text = model_config.get_text_config()
    for name, value in TINY_TEXT.items():
        setattr(text, name, value)
    text.head_dim, text.vocab_size = 32, 1024
    if text.rope_parameters and "mrope_section" in text.rope_parameters:
        section = [4, 4, 4, 4] if n_axes == 4 else [4, 6, 6]
        text.rope_parameters = dict(text.rope_parameters, mrope_section=section)


def load(family: str, device: str, dtype: torch.dtype, dry: bool):
    """The family's model with random weights: full size, or (dry run) its tiny text decoder."""
    from transformers import AutoModelForImageTextToText

    from hsd_cli.bench.fullsize import full_size_config

    attention_for(device)
    n_axes = FAMILIES[family][0].n_axes
    if not dry:
        hub_id, model = build_model(family, device, dtype, shrink_vision=True)
        return hub_id, pack_linears(model), n_axes
    hub_id, config = full_size_config(family)
    tiny_text(config, n_axes)
    for name in ("depth", "num_hidden_layers"):
        if hasattr(config.vision_config, name):
            setattr(config.vision_config, name, 1)
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForImageTextToText.from_config(config, dtype=dtype)
    return hub_id + " (tiny text decoder)", pack_linears(model.eval()), n_axes


def session(model, engine: StaticEngine | None, rows: int, prompt: int, n_axes: int):
    """`rows` rows of `prompt` random tokens each: an HFSession (engine None) or a static one."""
    out = prefill_text(model, prompt, n_axes, engine)
    for _ in range(rows - 1):
        out.extend(prefill_text(model, prompt, n_axes, engine))
    return out


def time_engine(model, mode: tuple | None, n_axes: int, prompt: int, reps: int) -> dict:
    """{"ar_step_ms": {rows: ms}, "tree_step_ms": {width: ms}} on one engine: (mode, compile
    backend) of a StaticEngine, or None for HFSession."""
    engine = None if mode is None else StaticEngine(*mode)
    ar, tree = {}, {}
    for rows in AR_ROWS:
        s = session(model, engine, rows, prompt, n_axes)
        ar[str(rows)] = round(1e3 * fastest_step(s, reps, 1), 3)
        del s
    for width in TREE_WIDTHS:
        s = session(model, engine, 1, prompt, n_axes)
        tree[str(width)] = round(1e3 * fastest_step(s, reps, width), 3)
        del s
    return {"ar_step_ms": ar, "tree_step_ms": tree}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny text decoder, a few steps; print only")
    parser.add_argument("--family", default="hunyuan_vl")
    parser.add_argument("--prompt", type=int, default=None, help="prompt tokens per row [1024; dry run 64]")
    parser.add_argument("--reps", type=int, default=None, help="timed steps per figure [20; dry run 2]")
    parser.add_argument("--inductor", action="store_true", help="also CUDA graphs of the inductor-compiled step")
    parser.add_argument("--out", type=Path, default=None, help="folder of the JSON [benchmarks/results]")
    args, _ = parser.parse_known_args(argv)
    dry = args.dry_run or not torch.cuda.is_available()
    device, dtype = ("cpu", torch.float32) if dry else ("cuda", torch.bfloat16)
    prompt, reps = args.prompt or (64 if dry else 1024), args.reps or (2 if dry else 20)
    hub_id, model, n_axes = load(args.family, device, dtype, dry)
    engines = {"eager": None, "static": ("eager", None)} | ({} if dry else {"graphs": ("graphs", None)})
    if args.inductor and not dry:  # compiled for any shapes: three compiles (rows 1, rows 8 and 32, trees)
        engines["graphs+inductor"] = ("graphs", "inductor", True)
    times, setup = {}, {}
    for name, mode in engines.items():
        t0 = time.perf_counter()
        times[name] = time_engine(model, mode, n_axes, prompt, reps)
        setup[name] = round(time.perf_counter() - t0, 1)
    report = {
        "schema_version": 1,
        "device": torch.cuda.get_device_name(0) if device == "cuda" else "cpu",
        "model": hub_id,
        "family": args.family,
        "dtype": str(dtype).removeprefix("torch."),
        **record.header("engine_step.py", sys.argv[1:] if argv is None else argv, device),
        "prompt_tokens": prompt,
        "reps": reps,
        "engine_s": setup,  # each engine's measurement, its compiles and captures included
        # engine -> figure -> rows (ar) or tree width at one row (tree) -> ms
        **{fig: {name: t[fig] for name, t in times.items()} for fig in ("ar_step_ms", "tree_step_ms")},
    }
    text = json.dumps(report, indent=1)
    print(text)
    print(engine_table(report), file=sys.stderr)
    if not dry:
        path = (args.out / RESULT.name) if args.out else RESULT
        path.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
