"""Full-size cost curve: one AR step vs one tree verification of K tokens, and the prefill.

An image-free prompt of `prompt_tokens` random ids fills the KV cache (text positions, equal on
every M-RoPE axis). Each measurement is one session step + commit (the mask, the forward and the
KV gather: what our decode loop pays per step, on the engine it decodes on: on CUDA hsd's static
cache replayed as CUDA graphs unless --no-graphs); the tree is dropped again after it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from hsd_cli.bench.machine import machine_info, machine_line
from hsd_cli.targets.runtime.costs import ROW_CONTEXT, batch_price, measure_session, prefill_text, sync
from hsd_cli.targets.runtime.load import LoadClock


@dataclass(frozen=True, slots=True)
class CostPoint:
    nodes: int  # K: tokens in the verification forward (1 = a plain AR step)
    ms: float  # fastest wall time of step + commit over the repetitions
    ratio_to_ar: float  # ms / ms of the AR step: a tree pays off if a step yields more tokens


@dataclass(frozen=True, slots=True)
class CostCurve:
    family: str
    hub_id: str
    text_params: int
    device: str
    dtype: str
    prompt_tokens: int
    reps: int
    prefill_ms: float
    points: tuple[CostPoint, ...]
    batches: tuple[CostPoint, ...]  # nodes = rows of one token each, caches of ROW_CONTEXT tokens
    slot_us: float  # what a step pays per cache slot of a row (CostModel.slot), microseconds


def measure_curve(
    model, prompt_tokens: int, reps: int, n_axes: int = 3, engine=None
) -> tuple[float, list[CostPoint], list[CostPoint], float]:
    """Prefill time (ms), the step cost for K = 1 and every tree size, one-token steps of
    batches of rows, and a cache slot's price in microseconds (targets/runtime/costs.py), on
    `engine` (static_session.StaticEngine) where decoding would run on one."""
    # The first prefill pays the device's warm-up (kernels loaded, the static pool allocated): on
    # the H200 it took 263 ms for 1024 tokens; the one timed is the second.
    prefill_text(model, prompt_tokens, n_axes, engine)  # dropped at once: a static session frees its rows
    sync(model.device)
    t0 = time.perf_counter()
    session = prefill_text(model, prompt_tokens, n_axes, engine)
    sync(model.device)
    prefill_ms = (time.perf_counter() - t0) * 1000
    points = measure_session(session, reps=reps)
    cost = batch_price(model, n_axes, points, engine=engine)
    ar = points[0][1]
    batches = [CostPoint(n, cost.step(n, 1) * 1000, cost.step(n, 1) / ar) for n, _ in cost.rows[1:]]
    return prefill_ms, [CostPoint(k, t * 1000, t / ar) for k, t in points], batches, cost.slot * 1e6


def run_cost(cfg, clock: LoadClock) -> int:
    """`hsd bench --full-size FAMILY`: build, measure, print, write JSON and the results section."""
    from dataclasses import asdict

    from hsd_cli.bench.fullsize import decode_model, text_params
    from hsd_cli.bench.report import markdown_table, print_table, section_header, write_outputs
    from hsd_cli.targets.runtime.gemm import weight_layout
    from hsd_cli.targets.runtime.registry import FAMILIES, resolve_device, resolve_dtype
    from hsd_cli.targets.runtime.static_session import engine_for

    device = resolve_device(cfg.device)
    dtype = resolve_dtype(cfg.dtype, device)
    torch.manual_seed(cfg.seed)
    hub_id, model = decode_model(cfg.full_size, device, dtype, shrink_vision=True)
    n_axes = FAMILIES[cfg.full_size][0].n_axes
    engine = engine_for(device, cfg.graphs)  # the step decoding pays: on CUDA, replayed graphs
    prefill_ms, points, batches, slot_us = measure_curve(model, cfg.cost_prompt, cfg.cost_reps, n_axes, engine)
    curve = CostCurve(
        cfg.full_size,
        hub_id,
        text_params(model),
        device,
        str(dtype).removeprefix("torch."),
        cfg.cost_prompt,
        cfg.cost_reps,
        prefill_ms,
        tuple(points),
        tuple(batches),
        slot_us,
    )
    wall = clock.elapsed()
    title = f"Full-size cost curve: {hub_id} language model, random weights, {curve.dtype} on {device}"
    columns = ("tokens in forward (K)", "ms per step", "x AR step")
    rows = [[("1 (AR step)" if p.nodes == 1 else str(p.nodes)), f"{p.ms:.1f}", f"{p.ratio_to_ar:.2f}"] for p in points]
    rows += [[f"{b.nodes} rows x 1 token", f"{b.ms:.1f}", f"{b.ratio_to_ar:.2f}"] for b in batches]
    rows.append([f"prefill ({cfg.cost_prompt} tokens)", f"{prefill_ms:.0f}", f"{prefill_ms / points[0].ms:.1f}"])
    print_table(title, columns, rows)
    info = machine_info(device, clock)
    notes = _notes(curve, weight_layout(model))
    body = section_header(title, cfg.command_line(), machine_line(info), wall, notes)
    body += "\n" + markdown_table(columns, rows) + "\n"
    data = {"command": cfg.command_line(), "machine": info, "wall_s": wall, "curve": asdict(curve)}
    write_outputs(cfg.json_path, cfg.markdown_path, f"cost-{cfg.full_size}", body, data, device)
    return 0


def _notes(curve: CostCurve, layout: str) -> list[str]:
    """What the cost table measured and how to read it."""
    return [
        f"{curve.text_params / 1e9:.2f}B language-model parameters (vision tower shrunk to one block, not timed); "
        f"linear weights {layout}, as the decode loop runs them",
        f"KV cache holds an image-free prompt of {curve.prompt_tokens} random tokens; fastest of {curve.reps} "
        "runs of step + commit (mask, forward, KV gather; others' load on shared cores only adds time); "
        "prefill timed once",
        "a tree of K tokens pays off when a step accepts more than (x AR step - 1) draft tokens on average",
        f"N rows x 1 token: one step of N rows whose caches hold {ROW_CONTEXT} tokens each (batched pages); "
        "what it costs beyond one row of N tokens is the per-row price that sizes trees under batching",
        f"a cache slot costs a step {curve.slot_us:.1f} us per row (one-token steps of the most rows over caches of "
        "two lengths): a step is priced at its rows' cache length",
    ]
