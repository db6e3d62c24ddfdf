"""What one verification forward costs on this device: measured once per model, device, dtype.

An image-free prompt fills the KV cache; each point is the fastest of a few `step + commit`
runs (mask, forward, KV gather: what the decode loop pays per step) for a tree of K tokens.
The curve is cached as JSON under $HSD_CACHE_DIR (default ~/.cache/hsd) so a run measures it
once; trees are then sized by it (spec/budget.py) and `--method auto` reads it (methods/hsd.py).
A second curve, an image's prefill against its pixels, prices hsd's Stage-1 crops.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

import torch

from hsd_cli.config import cache_dir
from hsd_cli.spec.budget import CostModel
from hsd_cli.spec.tree import build_tree, pack_trees
from hsd_cli.targets.runtime.attention import describe
from hsd_cli.targets.runtime.curve import (
    CHECK_REPS,
    CHECK_SIZES,
    Points,
    cached_curve,
    fastest,
    monotone,
    robust_curve,
)
from hsd_cli.targets.runtime.gemm import weight_layout
from hsd_cli.targets.runtime.session import HFSession
from hsd_cli.targets.runtime.static_cache import BUCKETS

SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# A batch's prices (CostModel.rows, .slot): one-token steps of this many rows, each row's cache
# holding ROW_CONTEXT tokens (a page's prompt: image tokens of a page near 1M pixels, and its
# text), and the most rows over PROMPT_TOKENS-token caches too, for the price of a cache slot.
ROW_COUNTS = (4, 16)
ROW_CONTEXT = 1024
PREFILL_SIDES = (32, 256, 1024)  # square images: a word's crop, a paragraph's, a page's (capped by max_pixels)
PROMPT_TOKENS = 256
REPS = 3
BRANCH_DEPTH = 16  # measured trees are chains of this depth off the root, like merged candidates
# Bumped when the way a curve is measured changes: 2 retries outliers and fits the curve monotone,
# so a curve cached by version 1 (possibly measured under load and never checked) is measured
# again; 3 adds the per-row price of a batch; 4 the price of a row's cache slot.
CURVE_VERSION = 4


def cost_model(model, n_axes: int, engine=None) -> CostModel:
    """The cached curve of `model` on its device and dtype, measuring it on first use; on
    `engine` (static_session.StaticEngine: the static cache and its graphs) where the target has one."""
    # A cached curve is checked by a quick run of CHECK_SIZES first (curve.py): one measured while
    # the machine was busy would otherwise price trees out of every later run.
    key = _key(model) + ("" if engine is None else f"|static-{engine.mode}")
    curve = cached_curve(
        _cache_path(model, key),
        key,
        lambda: measure(model, n_axes, engine=engine),
        lambda: measure(model, n_axes, sizes=CHECK_SIZES, reps=CHECK_REPS, engine=engine),
        lambda curve: batch_price(model, n_axes, curve, engine=engine),
    )
    return replace(curve, measured=True, buckets=None if engine is None else BUCKETS)


def prefill_model(target) -> CostModel:
    """Seconds of one image's prefill (processor, vision tower, prompt) against the image's pixels,
    on `target`'s model and device: measured once, cached and checked like the step curve."""
    # Measured, not estimated from pixels: a processor may upscale a small crop to its minimum
    # image size (HunyuanOCR: 262144 pixels, more than a page capped at 250000), so on a CPU every
    # crop of a line cost about a page's prefill (8 s) where the estimate said 0.5 s.
    key = f"{_key(target.model)}|prefill|{PREFILL_SIDES}|{target.family.max_pixels}"
    return cached_curve(
        _cache_path(target.model, key),
        key,
        lambda: measure_prefill(target, PREFILL_SIDES),
        lambda: measure_prefill(target, PREFILL_SIDES[:1]),
    )


def measure_prefill(target, sides=PREFILL_SIDES, reps: int = 1) -> list:
    """[(pixels, seconds)]: the fastest prefill of a blank square image of each side (at most the
    target's max_pixels), fitted monotone; one untimed prefill first."""
    from PIL import Image

    cap = target.family.max_pixels or max(sides) ** 2
    prompt = target.family.prompt_for("text")
    images = {min(s * s, cap): Image.new("RGB", (s, s), "white") for s in sides}
    target.prefill([images[min(images)]], prompt)  # warm-up: kernels, allocator, processor

    def timer(pixels: int) -> float:
        sync(target.device)
        t0 = time.perf_counter()
        target.prefill([images[pixels]], prompt)
        sync(target.device)
        return time.perf_counter() - t0

    return monotone(fastest(timer, sorted(images), reps))


def measure(
    model, n_axes: int, sizes=SIZES, reps: int = REPS, prompt_tokens: int = PROMPT_TOKENS, fit: bool = True, engine=None
) -> list:
    """[(K, seconds)] for every tree size: the fastest of `reps` runs, round robin, fitted monotone."""
    return measure_session(prefill_text(model, prompt_tokens, n_axes, engine), sizes, reps, fit)


def measure_session(session: HFSession, sizes=SIZES, reps: int = REPS, fit: bool = True) -> list:
    """`measure` on an already prefilled session (fit=False: the raw fastest runs, bumps and all)."""
    time_step(session, 1)  # warm-up
    timer = partial(time_step, session)
    return robust_curve(timer, sizes, reps) if fit else fastest(timer, sizes, reps)


def batch_price(model, n_axes: int, curve: Points, counts=ROW_COUNTS, reps: int = 2, engine=None) -> CostModel:
    """`curve` with a batch's prices: per cache slot a row reads (one-token steps of the most
    rows over caches of PROMPT_TOKENS and ROW_CONTEXT slots), then per row beyond the curve and
    the slots (one-token steps of each count of rows; at least 0, fitted monotone, 0 at one row)."""
    times = {n: fastest_step(_batch(model, ROW_CONTEXT, n_axes, n, engine), reps) for n in counts}
    most = max(counts)
    short = fastest_step(_batch(model, PROMPT_TOKENS, n_axes, most, engine), reps)
    slot = max(0.0, (times[most] - short) / (most * (ROW_CONTEXT - PROMPT_TOKENS)))
    priced = CostModel(tuple(curve), slot=slot, base=PROMPT_TOKENS, context=ROW_CONTEXT)
    rows = monotone([(1, 0.0)] + [(n, max(0.0, t - priced.step(n, 1))) for n, t in times.items()])
    return replace(priced, rows=tuple(rows))


def fastest_step(session: HFSession, reps: int, k: int = 1) -> float:
    """The fastest of `reps` steps of `k` tree tokens a row over `session`, after an untimed one
    (this batch shape's kernels and cache slots)."""
    time_step(session, k)
    return min(time_step(session, k) for _ in range(reps))


def _copies(session: HFSession, rows: int) -> HFSession:
    """A session of `rows` copies of `session`'s one row (its cache copied, not shared)."""
    out = HFSession(session.model, _clone(session.cache), session.valid, session.next_pos, session.n_axes)
    while len(out.valid) < rows:
        out.extend(HFSession(out.model, _clone(out.cache), out.valid, out.next_pos, out.n_axes))
    if len(out.valid) > rows:
        out.select_rows(list(range(rows)))
    return out


def _batch(model, prompt_tokens: int, n_axes: int, rows: int, engine=None):
    """A session of `rows` rows of `prompt_tokens` random tokens (copies of one row without `engine`)."""
    if engine is None:
        return _copies(prefill_text(model, prompt_tokens, n_axes), rows)
    out = prefill_text(model, prompt_tokens, n_axes, engine)
    for _ in range(rows - 1):
        out.extend(prefill_text(model, prompt_tokens, n_axes, engine))
    return out


def _clone(cache):
    """A cache whose layers' keys and values are copies (steps append into a session's cache)."""
    import copy

    out = copy.copy(cache)
    out.layers = [copy.copy(layer) for layer in cache.layers]
    for layer in out.layers:
        layer.keys, layer.values = layer.keys.clone(), layer.values.clone()
    return out


def prefill_text(model, prompt_tokens: int, n_axes: int, engine=None) -> HFSession:
    """A session whose cache holds `prompt_tokens` random text tokens (on `engine`'s static cache if given)."""
    from transformers import DynamicCache

    dev = model.device
    vocab = model.config.get_text_config().vocab_size
    ids = torch.randint(min(100, vocab // 2), vocab - 1, (1, prompt_tokens), device=dev)
    pos = torch.arange(prompt_tokens, device=dev)[None]  # [1, S]; M-RoPE: equal on every axis
    pos = pos.expand(n_axes, 1, prompt_tokens) if n_axes else pos
    cache = DynamicCache(config=model.config)
    with torch.inference_mode():
        model(input_ids=ids, position_ids=pos, past_key_values=cache, use_cache=True, logits_to_keep=1)
    valid = torch.ones(1, prompt_tokens, dtype=torch.bool, device=dev)
    next_pos = torch.tensor([prompt_tokens], device=dev)
    if engine is not None:
        return engine.session(model, cache, valid, next_pos, n_axes, None)
    return HFSession(model, cache, valid, next_pos, n_axes)


def time_step(session: HFSession, k: int) -> float:
    """Seconds of one step + commit over a tree of `k` tokens in every row (the trees are dropped again)."""
    rows = len(session.live)
    ids, anc, depth = tree_of(k, session.model.config.get_text_config().vocab_size)
    ids, anc, depth = ids.expand(rows, -1), anc.expand(rows, -1, -1), depth.expand(rows, -1)
    sync(session.model.device)
    t0 = time.perf_counter()
    session.step(ids, anc, depth).argmax(-1).tolist()  # the loop's one sync per step
    session.commit([[0]] * rows)
    sync(session.model.device)
    return time.perf_counter() - t0


def tree_of(num_nodes: int, vocab: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A packed tree of exactly `num_nodes` nodes: root + chains of BRANCH_DEPTH tokens."""
    drafts = num_nodes - 1
    cands, left = [], drafts
    for b in range(math.ceil(drafts / BRANCH_DEPTH) if drafts else 0):
        n = min(BRANCH_DEPTH, left)
        cands.append([(1000 + b * BRANCH_DEPTH + j) % vocab for j in range(n)])
        left -= n
    tree = build_tree(7, cands)
    assert tree.num_nodes == num_nodes
    return pack_trees([tree])


def sync(device) -> None:
    """Wait for the device, so a timer read after it counts the work queued before it."""
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def _key(model) -> str:
    config = model.config.to_json_string(use_diff=False)
    threads = torch.get_num_threads() if model.device.type == "cpu" else 0
    # A CPU's kernels follow its vector instructions, and VM hosts of one CPU name differ in them
    # (an 8-token step took 0.20 s one night, 0.31-0.36 s on an AVX2-only host later); a faster
    # host's cached curve would pass the load check on a slower one.
    name = torch.cuda.get_device_name(model.device) if model.device.type == "cuda" else f"cpu|{cpu_isa()}"
    layout = weight_layout(model)
    # The attention path (attention.attention_for) changes what a step costs.
    attention = describe(model.device.type)
    sizes = f"{SIZES}|{PROMPT_TOKENS}|v{CURVE_VERSION}"
    return f"{config}|{name}|{model.dtype}|{layout}|{attention}|{torch.__version__}|{threads}|{sizes}"


def cpu_isa() -> str:
    """The vector instructions torch's CPU kernels use here (AVX2, AVX512, ...)."""
    return torch.backends.cpu.get_cpu_capability()


def _cache_path(model, key: str | None = None) -> Path:
    return cache_dir() / "costs" / (hashlib.sha256((key or _key(model)).encode()).hexdigest()[:20] + ".json")
