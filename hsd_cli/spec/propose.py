"""Step 1 and 2 of the loop: per row, candidates after its longest matching window, merged
into a trie and pruned to the node count the step's cost favours."""

from __future__ import annotations

from dataclasses import dataclass

from hsd_cli.config import SpecConfig
from hsd_cli.spec.align import MODEL, Origin, align_origins, resync_origins, starts_origins
from hsd_cli.spec.budget import CostModel, PassPrices, best_size, node_probs
from hsd_cli.spec.clock import PhaseClock
from hsd_cli.spec.row import DecodeOptions, Row, RowGroup
from hsd_cli.spec.tree import DraftTree, build_trie, linearize, root_tree

# A row whose trees the cost model cut to the root while a full window matched (k >= window)
# verifies a tree of EXPLORE_NODES once EXPLORE_EVERY such steps have passed: otherwise a prior or
# a cost curve too pessimistic is never corrected, since only verified trees record acceptance.
# The price is at most one 5-token step in 8 while the trees stay cut: 1.1x the AR time per step on
# a 1B model's CPU curve (K=4 1.85x K=1, measured at 5e5dbb6), 1.4x on the busy curve
# (K=1 1.05 s, K=8 5.0 s); each token an explored tree gets accepted pays part of it back.
# A batch explores on the same step for all its rows (`Exploration`): padded to its widest tree,
# a step costs rows x (EXPLORE_NODES + 1) tokens if any row explores, so rows exploring on steps
# of their own would widen nearly every step of a large batch.
EXPLORE_EVERY = 8
EXPLORE_NODES = 4
# Where the drafts' window match is short, the latest places the row's own output held its last
# tokens offer their continuations too (prompt lookup over the output: table markup, LaTeX and
# repeated phrases that no draft holds). Three: on the dev corpus (flat regime, oracle) 1, 3 and 4
# gave page steps 3965, 3865 and 3850.
OWN_CANDIDATES = 3
# The first candidate is the window match nearest the draft position the output is expected at
# (or the draft at that position): it weighs as LEAD candidates in the tree's acceptance estimate,
# so the tree goes deep on it before it spreads over the others. On the dev corpus (oracle, page
# method, model-free) 1, 3 and 8 gave 3861, 3778 and 3789 flat-regime steps, and 8492, 8101 and
# 8062 AR-step prices on a CPU-like cost curve (K=8 1.3x, K=64 2.9x a one-token step).
LEAD = 3.0
ROOT = (1.0,)  # node_probs of a root-only tree


@dataclass(slots=True)
class Exploration:
    """The batch's exploring steps: at most one in EXPLORE_EVERY, shared by every row that is due."""

    since: int = EXPLORE_EVERY  # steps since the batch last explored

    def now(self, wanted: bool) -> bool:
        """Whether this step explores, given that some row is due; counts the step."""
        self.since += 1
        go = wanted and self.since >= EXPLORE_EVERY
        self.since = 0 if go else self.since
        return go


def propose(
    rows: list[Row],
    groups: list[RowGroup],
    exploration: Exploration | None = None,
    context: int | None = None,
    prices: PassPrices | None = None,
    clock: PhaseClock | None = None,
) -> tuple[list[DraftTree], list[int], list[int]]:
    """Per row: its trie pruned to the node count the step's cost favours, window length k, candidate nodes.

    One node budget for the whole batch: the step costs what all rows' padded trees cost together
    over their caches of `context` slots, so trees shrink as rows join (spec/budget.best_size);
    `prices` corrects that cost by what the run's passes took."""
    clock = clock or PhaseClock()
    found = [_candidates(row, groups[row.group].cfg, groups[row.group].opts) for row in rows]
    clock.lap("align")
    # A row with no candidates is its root alone (None here): no trie, no probabilities to work out.
    tries = [
        build_trie(row.tokens[-1], cands, origins, LEAD) if cands else None
        for row, (cands, origins, _) in zip(rows, found, strict=True)
    ]
    ks = [k for _, _, k in found]
    clock.lap("trie")
    probs = [
        node_probs(t, r.accept.p_first(k), r.accept.p_cont()) if t is not None else ROOT
        for t, r, k in zip(tries, rows, ks, strict=True)
    ]
    clock.lap("probs")
    order = [sorted(range(1, len(p)), key=p.__getitem__, reverse=True) for p in probs]  # stable: ties by node
    gains = [[p[i] for i in o] for p, o in zip(probs, order, strict=False)]
    used = [groups[g] for g in dict.fromkeys(r.group for r in rows)]
    n = best_size(gains, step_cost(rows, groups), max(g.cfg.max_nodes for g in used), context, prices)
    cfgs = [groups[row.group].cfg for row in rows]
    cut = [_cut(row, n, len(o), k, cfg) for row, o, k, cfg in zip(rows, order, ks, cfgs, strict=True)]
    due = any(c and row.cut_streak >= EXPLORE_EVERY for row, c in zip(rows, cut, strict=True))
    explore = (exploration or Exploration()).now(due)
    sizes = [_size(row, n, c and explore, cfg) for row, c, cfg in zip(rows, cut, cfgs, strict=True)]
    clock.lap("sizing")
    trees = [
        linearize(t, {0, *o[:m]}) if t is not None else root_tree(row.tokens[-1])
        for row, t, o, m in zip(rows, tries, order, sizes, strict=True)
    ]
    clock.lap("linearize")
    return trees, ks, [len(o) for o in order]


def step_cost(rows: list[Row], groups: list[RowGroup]) -> CostModel | None:
    """The cost model that sizes the trees of a step over `rows` (None: trees up to max_nodes)."""
    used = [groups[g] for g in dict.fromkeys(r.group for r in rows)]
    return next((g.opts.cost for g in used if g.cfg.cost_aware and g.opts.cost is not None), None)


def _cut(row: Row, n: int, offered: int, k: int, cfg: SpecConfig) -> bool:
    """Whether the batch's n cut this row's full-window match to the root; counts such steps in a row."""
    if n > 0 or not offered or k < cfg.window:
        row.cut_streak = 0 if n > 0 else row.cut_streak
        return False
    row.cut_streak += 1
    return True


def _size(row: Row, n: int, explore: bool, cfg: SpecConfig) -> int:
    """The row's draft nodes: the batch's n, or a small tree on an exploring step where n cut it."""
    # Lossless: it only changes which tree is verified; deterministic: counts, no randomness.
    if not explore:
        return min(n, cfg.max_nodes)
    row.cut_streak = 0
    return min(EXPLORE_NODES, cfg.max_nodes)


def _candidates(row: Row, cfg: SpecConfig, opts: DecodeOptions) -> tuple[list[list[int]], list[Origin], int]:
    """Continuations after the longest matching window, their origins, and the window length k
    (0 = region starts); beside them, after a misread, the draft where the output should be, and
    where the window is short, what followed it in the row's own output."""
    if not row.index.drafts and not opts.own:  # nothing to align with: `ar`'s rows, drafts still to come
        return [], [], 0
    near = row.expected()
    cands, origins, k = align_origins(row.index, row.tokens, cfg.max_depth, cfg.max_candidates, near)
    if near is not None and near not in origins:
        more, at = resync_origins(row.index, near, cfg.max_depth, cands)
        cands, origins = cands + more, origins + at
    if opts.own and k < cfg.window:
        own = row.own.continuations(row.tokens, cfg.max_depth, OWN_CANDIDATES)
        cands, origins = cands + own, origins + [MODEL] * len(own)  # the model's tokens: no draft position
    free = cfg.max_candidates - len(cands)
    if opts.starts and free > 0 and (not cands or row.tokens[-1] in opts.boundary_ids):
        starts, at = starts_origins(row.index, cfg.max_depth, free)
        cands, origins, k = cands + starts, origins + at, (k if cands else 0)
    return cands, origins, k
