"""Full-size cost curve: one AR step vs one tree verification of K tokens, and the prefill.

An image-free prompt of `prompt_tokens` random ids fills the KV cache (text positions, equal on
every M-RoPE axis). Each measurement is one `HFSession.step` + `commit` (the mask, the forward
and the KV gather: what our decode loop pays per step); the tree is dropped again after it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch

from hsd_cli.spec.tree import build_tree, pack_trees
from hsd_cli.targets.session import HFSession

TREE_SIZES = (8, 16, 32, 64, 128)
BRANCH_DEPTH = 16  # trees are chains of this depth hanging off the root, like merged candidates


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


def measure_curve(
    model, prompt_tokens: int, reps: int, n_axes: int = 3, sizes=TREE_SIZES
) -> tuple[float, list[CostPoint]]:
    """Prefill time (ms) and the step cost for K = 1 and every tree size."""
    session, prefill_ms = _prefill(model, prompt_tokens, n_axes)
    _time_step(session, 1, model.device)  # warm-up
    times: dict[int, list[float]] = {k: [] for k in (1, *sizes)}
    for _ in range(reps):  # round robin: a burst of others' load hits every size alike
        for k in times:
            times[k].append(_time_step(session, k, model.device))
    ar_ms = min(times[1])
    points = [CostPoint(k, min(ts), min(ts) / ar_ms) for k, ts in times.items()]
    return prefill_ms, points


def tree_of(num_nodes: int, vocab: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A packed tree of exactly `num_nodes` nodes: root + chains of BRANCH_DEPTH tokens."""
    drafts = num_nodes - 1
    branches = math.ceil(drafts / BRANCH_DEPTH) if drafts else 0
    cands, left = [], drafts
    for b in range(branches):
        n = min(BRANCH_DEPTH, left)
        cands.append([(1000 + b * BRANCH_DEPTH + j) % vocab for j in range(n)])
        left -= n
    tree = build_tree(7, cands)
    assert tree.num_nodes == num_nodes
    return pack_trees([tree])


def _prefill(model, prompt_tokens: int, n_axes: int) -> tuple[HFSession, float]:
    from transformers import DynamicCache

    dev = model.device
    vocab = model.config.get_text_config().vocab_size
    ids = torch.randint(100, vocab - 100, (1, prompt_tokens), device=dev)
    pos = torch.arange(prompt_tokens, device=dev)[None]  # [1, S]; M-RoPE: equal on every axis
    pos = pos.expand(n_axes, 1, prompt_tokens) if n_axes else pos
    cache = DynamicCache(config=model.config)
    _sync(dev)
    t0 = time.perf_counter()
    with torch.inference_mode():
        model(input_ids=ids, position_ids=pos, past_key_values=cache, use_cache=True, logits_to_keep=1)
    _sync(dev)
    ms = (time.perf_counter() - t0) * 1000
    valid = torch.ones(1, prompt_tokens, dtype=torch.bool, device=dev)
    return HFSession(model, cache, valid, torch.tensor([prompt_tokens], device=dev), n_axes), ms


def _time_step(session: HFSession, k: int, dev) -> float:
    ids, anc, depth = tree_of(k, session.model.config.get_text_config().vocab_size)
    _sync(dev)
    t0 = time.perf_counter()
    session.step(ids, anc, depth)
    session.commit([[0]])  # keep the root only: the cache grows by one token per measurement
    _sync(dev)
    return (time.perf_counter() - t0) * 1000


def _sync(dev) -> None:
    if torch.device(dev).type == "cuda":
        torch.cuda.synchronize(dev)



def run_cost(cfg) -> int:
    """`hsd bench --full-size FAMILY`: build, measure, print, write JSON and the results section."""
    from dataclasses import asdict

    from hsd_cli.bench.fullsize import build_language_model, text_params
    from hsd_cli.bench.machine import machine_info, machine_line
    from hsd_cli.bench.report import markdown_table, print_table, section_header, write_outputs
    from hsd_cli.targets.registry import FAMILIES, resolve_device, resolve_dtype

    t0 = time.perf_counter()
    device = resolve_device(cfg.device)
    dtype = resolve_dtype(cfg.dtype, device)
    torch.manual_seed(cfg.seed)
    hub_id, model = build_language_model(cfg.full_size, device, dtype)
    n_axes = FAMILIES[cfg.full_size][0].n_axes
    prefill_ms, points = measure_curve(model, cfg.cost_prompt, cfg.cost_reps, n_axes)
    curve = CostCurve(cfg.full_size, hub_id, text_params(model), device, str(dtype).removeprefix("torch."),
                      cfg.cost_prompt, cfg.cost_reps, prefill_ms, tuple(points))
    wall = time.perf_counter() - t0
    title = f"Full-size cost curve: {hub_id} language model, random weights, {curve.dtype} on {device}"
    columns = ("tokens in forward (K)", "ms per step", "x AR step")
    rows = [[("1 (AR step)" if p.nodes == 1 else str(p.nodes)), f"{p.ms:.1f}", f"{p.ratio_to_ar:.2f}"]
            for p in points]
    rows.append([f"prefill ({cfg.cost_prompt} tokens)", f"{prefill_ms:.0f}", f"{prefill_ms / points[0].ms:.1f}"])
    print_table(title, columns, rows)
    info = machine_info(device)
    notes = [f"{curve.text_params / 1e9:.2f}B language-model parameters (vision tower shrunk to one block, not timed)",
             f"KV cache holds an image-free prompt of {cfg.cost_prompt} random tokens; fastest of {cfg.cost_reps} "
             "runs of step + commit (mask, forward, KV gather; others' load on shared cores only adds time); "
             "prefill timed once",
             "a tree of K tokens pays off when a step accepts more than (x AR step - 1) draft tokens on average"]
    body = section_header(title, cfg.command_line(), machine_line(info), wall, notes)
    body += "\n" + markdown_table(columns, rows) + "\n"
    data = {"command": cfg.command_line(), "machine": info, "wall_s": wall, "curve": asdict(curve)}
    write_outputs(cfg.json_path, cfg.markdown_path, f"cost-{cfg.full_size}", body, data)
    return 0
