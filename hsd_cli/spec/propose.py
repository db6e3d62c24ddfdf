"""Step 1 and 2 of the loop: per row, candidates after its longest matching window, merged
into a trie and pruned to the node count the step's cost favours."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hsd_cli.config import SpecConfig
from hsd_cli.spec.align import Origin, align_origins, starts_origins
from hsd_cli.spec.budget import best_size, node_probs
from hsd_cli.spec.tree import DraftTree, build_trie, linearize

if TYPE_CHECKING:  # decode.py imports this module
    from hsd_cli.spec.decode import DecodeOptions, RowGroup, _Row

# A row whose trees the cost model cut to the root while a full window matched (k >= window)
# verifies a tree of EXPLORE_NODES every EXPLORE_EVERY-th such step: otherwise a prior or a cost
# curve too pessimistic is never corrected, since only verified trees record acceptance. The price
# is at most one 5-token step in 8 while the trees stay cut: 1.1x the AR time per step on a 1B
# model's CPU curve (RESULTS.md gemm-layout, K=4 1.85x K=1), 1.4x on the busy curve
# (K=1 1.05 s, K=8 5.0 s); each token an explored tree gets accepted pays part of it back.
EXPLORE_EVERY = 8
EXPLORE_NODES = 4


def propose(rows: list[_Row], groups: list[RowGroup]) -> tuple[list[DraftTree], list[int], list[int]]:
    """Per row: its trie pruned to the node count the step's cost favours, window length k, candidate nodes.

    One node budget for the whole batch: the step costs what all rows' padded trees cost together,
    so trees shrink as rows join (spec/budget.best_size)."""
    tries, ks, probs = [], [], []
    for row in rows:
        group = groups[row.group]
        cands, origins, k = _candidates(row, group.cfg, group.opts)
        trie = build_trie(row.tokens[-1], cands, origins)
        tries.append(trie)
        ks.append(k)
        probs.append(node_probs(trie, row.accept.p_first(k), row.accept.p_cont()))
    order = [sorted(range(1, len(p)), key=lambda i: -p[i]) for p in probs]
    gains = [[p[i] for i in o] for p, o in zip(probs, order, strict=False)]
    used = [groups[g] for g in dict.fromkeys(r.group for r in rows)]
    cost = next((g.opts.cost for g in used if g.cfg.cost_aware and g.opts.cost is not None), None)
    n = best_size(gains, cost, max(g.cfg.max_nodes for g in used))
    sizes = [
        _explore(row, min(n, groups[row.group].cfg.max_nodes), len(o), k, groups[row.group].cfg)
        for row, o, k in zip(rows, order, ks, strict=False)
    ]
    trees = [linearize(t, {0, *o[:m]}) for t, o, m in zip(tries, order, sizes, strict=False)]
    return trees, ks, [len(o) for o in order]


def _explore(row: _Row, n: int, offered: int, k: int, cfg: SpecConfig) -> int:
    """The row's draft nodes: the batch's n, or now and then a small tree where n cut a full-window match."""
    if n > 0 or not offered or k < cfg.window:
        row.cut_streak = 0 if n > 0 else row.cut_streak
        return n
    row.cut_streak += 1
    # Lossless: it only changes which tree is verified; deterministic: a count, no randomness.
    return min(EXPLORE_NODES, cfg.max_nodes) if row.cut_streak % EXPLORE_EVERY == 0 else 0


def _candidates(row: _Row, cfg: SpecConfig, opts: DecodeOptions) -> tuple[list[list[int]], list[Origin], int]:
    """Continuations after the longest matching window, their origins, and the window length k
    (0 = region starts)."""
    cands, origins, k = align_origins(row.index, row.tokens, cfg.max_depth, cfg.max_candidates, row.expected())
    room = cfg.max_candidates - len(cands)
    if opts.starts and room > 0 and (not cands or row.tokens[-1] in opts.boundary_ids):
        starts, at = starts_origins(row.index, cfg.max_depth, room)
        cands, origins, k = cands + starts, origins + at, (k if cands else 0)
    return cands, origins, k
