"""One decode step's time on each engine: transformers eager (HFSession) against hsd's static KV
cache, eager and (on CUDA) replayed as CUDA graphs, on a full-size random-weight model.

    python benchmarks/engine_step.py                       # CUDA: results/gpu-engine.json
    python benchmarks/engine_step.py --dry-run             # CPU, a tiny model, seconds; prints the JSON
    python benchmarks/engine_step.py --inductor            # also graphs of the inductor-compiled step

`ar_step_ms`: a one-token step (+ commit) of 1, 8 and 32 rows; `tree_step_ms`: a step of a 16- and
a 64-node tree at one row; `mixed_step_ms`: the one-token step of 32 rows of which one holds a
prompt MIXED times as long (a page image beside text pages: a dense mask reads every row to its
slots). Each is the fastest of --reps steps after an untimed one (on graphs the bucket's eager
first use; the first timed step captures it), over caches of --prompt tokens. Engines: transformers
eager, the static cache eager, its CUDA graphs, and those with ragged attention (runtime/ragged.py;
a dry run times its mixed step only: each bucket compiles FlexAttention). `engine_s`: each engine's
whole measurement, its compiles and captures included; `errors`: an engine that failed. The JSON is
written after each engine (with --inductor once complete). The figures the
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
MIXED = 4  # the mixed step's long row: this many prompts long
FIGURES = ("ar_step_ms", "tree_step_ms", "mixed_step_ms")
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


def session(model, engine: StaticEngine | None, prompts: list[int], n_axes: int):
    """A row of random tokens per prompt length: an HFSession (engine None) or a static one."""
    out = prefill_text(model, prompts[0], n_axes, engine)
    for prompt in prompts[1:]:
        out.extend(prefill_text(model, prompt, n_axes, engine))
    return out


def time_engine(model, mode: tuple | None, n_axes: int, prompt: int, reps: int, figures=FIGURES) -> dict:
    """{figure: {rows or width: ms}} on one engine: StaticEngine(*mode), or None for HFSession."""
    engine = None if mode is None else StaticEngine(*mode)
    runs = {  # figure -> key -> (prompt of each row, tree width)
        "ar_step_ms": {str(rows): ([prompt] * rows, 1) for rows in AR_ROWS},
        "tree_step_ms": {str(width): ([prompt], width) for width in TREE_WIDTHS},
        "mixed_step_ms": {str(AR_ROWS[-1]): ([MIXED * prompt] + [prompt] * (AR_ROWS[-1] - 1), 1)},
    }
    out = {}
    for figure in figures:
        out[figure] = {}
        for key, (prompts, width) in runs[figure].items():
            s = session(model, engine, prompts, n_axes)
            out[figure][key] = round(1e3 * fastest_step(s, reps, width), 3)
            del s
    return out


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
    engines["static+ragged" if dry else "graphs+ragged"] = ("eager" if dry else "graphs", None, False, True)
    if args.inductor and not dry:  # compiled for any shapes: three compiles (rows 1, rows 8 and 32, trees)
        engines["graphs+inductor"] = ("graphs", "inductor", True)
    head = {
        "schema_version": 1,
        "device": torch.cuda.get_device_name(0) if device == "cuda" else "cpu",
        "model": hub_id,
        "family": args.family,
        "dtype": str(dtype).removeprefix("torch."),
        **record.header("engine_step.py", sys.argv[1:] if argv is None else argv, device),
        "prompt_tokens": prompt,
        "reps": reps,
    }
    path = None if dry else (args.out / RESULT.name) if args.out else RESULT
    times, setup, errors = {}, {}, {}
    for name, mode in engines.items():
        t0 = time.perf_counter()
        figures = FIGURES[-1:] if dry and "ragged" in name else FIGURES  # CPU compiles: its one bucket
        try:
            times[name] = time_engine(model, mode, n_axes, prompt, reps, figures)
        except Exception as e:  # noqa: BLE001 - one engine's failure keeps the others' figures
            errors[name] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        setup[name] = round(time.perf_counter() - t0, 1)
        result = report(head, times, setup, errors)
        text = json.dumps(result, indent=1)
        # After each engine, so a run stopped early keeps the engines it timed; --inductor's run
        # replaces a complete JSON (gpu.py's last step) and so writes only once it is complete.
        if path is not None and (not args.inductor or len(times) + len(errors) == len(engines)):
            path.write_text(text + "\n", encoding="utf-8")
    print(text)
    print(engine_table(result), file=sys.stderr)
    return 0


def report(head: dict, times: dict, setup: dict, errors: dict) -> dict:
    """The JSON: `head`, each engine's setup seconds (compiles and captures included) and failure,
    then figure -> engine -> rows (ar, mixed) or tree width at one row (tree) -> ms."""
    figures = {fig: {name: t[fig] for name, t in times.items() if fig in t} for fig in FIGURES}
    return {**head, "engine_s": setup, "errors": errors, **figures}


if __name__ == "__main__":
    raise SystemExit(main())
