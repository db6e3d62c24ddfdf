"""The per-sequence speculative loop (batched over rows) and the AR baseline."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import torch

from hsd_cli.config import SpecConfig
from hsd_cli.spec.accept import accept_nodes
from hsd_cli.spec.align import (
    MODEL,
    NgramIndex,
    Origin,
    align_origins,
    build_index,
    starts_origins,
)
from hsd_cli.spec.budget import DEFAULT_PRIOR, AcceptPrior, AcceptStats, CostModel, best_size, node_probs
from hsd_cli.spec.penalty import path_tokens, penalize
from hsd_cli.spec.stats import DecodeStats
from hsd_cli.spec.stop import StopReason, StopRule
from hsd_cli.spec.tree import DraftTree, build_trie, linearize, pack_trees

# A row whose trees the cost model cut to the root while a full window matched (k >= window)
# verifies a tree of EXPLORE_NODES every EXPLORE_EVERY-th such step: otherwise a prior or a cost
# curve too pessimistic is never corrected, since only verified trees record acceptance. The price
# is at most one 5-token step in 8 while the trees stay cut: 1.1x the AR time per step on a 1B
# model's CPU curve (RESULTS.md gemm-layout, K=4 1.85x K=1), 1.4x on the busy curve
# (K=1 1.05 s, K=8 5.0 s); each token an explored tree gets accepted pays part of it back.
EXPLORE_EVERY = 8
EXPLORE_NODES = 4


class TargetSession(Protocol):
    """A prefilled batch of sequences on the target; the core sees the model only through it."""

    def step(self, ids: torch.Tensor, ancestry: torch.Tensor, depth: torch.Tensor) -> torch.Tensor:
        """One forward over packed trees: [B, K], [B, K, K], [B, K] -> logits [B, K, V]."""
        ...

    def commit(self, keep: list[list[int]]) -> None:
        """Keep in the cache, per row, only these tree nodes (root first); drop the rest."""
        ...

    def select_rows(self, rows: list[int]) -> None:
        """Drop finished rows; `rows` are the positions of the rows that go on."""
        ...


@dataclass(frozen=True, slots=True)
class DecodeOptions:
    """What the loop needs besides the spec settings; all optional."""

    starts: bool = False  # offer draft beginnings after a boundary token
    boundary_ids: frozenset[int] = frozenset()
    cost: CostModel | None = None  # the device's forward cost; None: trees up to max_nodes
    penalty: float = 1.0  # the checkpoint's repetition penalty (1.0 = none)
    prompts: list[list[int]] | None = None  # per row: prompt token ids (needed with a penalty)
    batch_stop: Callable[[list[DecodeStats]], bool] | None = None  # running rows' stats -> cut them all
    prior: AcceptPrior | None = None  # acceptance believed before any is seen; None: DEFAULT_PRIOR


@dataclass(slots=True)
class RowResult:
    tokens: list[int]  # generated tokens, the stopping EOS included
    stop: StopReason
    stats: DecodeStats
    # Per token: the (draft, position) it was accepted from; MODEL for the model's own tokens.
    origins: list[Origin] = field(default_factory=list)


@dataclass(slots=True)
class _Row:
    index: NgramIndex
    tokens: list[int] = field(default_factory=list)
    stop: StopReason = StopReason.NONE
    stats: DecodeStats = field(default_factory=DecodeStats)
    accept: AcceptStats = field(default_factory=AcceptStats)
    seen: set[int] = field(default_factory=set)  # prompt + generated tokens (repetition penalty)
    origins: list[Origin] = field(default_factory=list)  # per token; may run past `tokens` at a stop
    cut_streak: int = 0  # steps in a row whose full-window candidates the cost cut to the root
    # Where the output stands in the drafts: the last accepted draft token's origin, and the
    # tokens written since (a window match near it is the likeliest continuation).
    last: Origin | None = None
    since: int = 0

    def expected(self) -> Origin | None:
        """The draft position the next token most likely continues from."""
        return None if self.last is None else (self.last[0], self.last[1] + 1 + self.since)

    def track(self, accepted: Origin | None) -> None:
        """Move the draft position on: to the last accepted draft token, plus the bonus token."""
        self.last, self.since = (accepted, 1) if accepted is not None else (self.last, self.since + 1)

    def push(self, new: list[int], rule: StopRule) -> None:
        # Token by token, so every method stops at exactly the same place.
        for tok in new:
            self.tokens.append(tok)
            self.seen.add(tok)
            self.stop = rule.check(self.tokens)
            if self.stop is not StopReason.NONE:
                return


class SpecStepper:
    """The loop of `spec_decode`, one verification step per `step()`, so that a scheduler can
    drive the steps of several batches; `results()` once `done`."""

    def __init__(
        self,
        session: TargetSession,
        first_logits: torch.Tensor,
        drafts: list[list[list[int]]],
        cfg: SpecConfig,
        rule: StopRule,
        opts: DecodeOptions = DecodeOptions(),
    ) -> None:
        assert first_logits.ndim == 2 and first_logits.shape[0] == len(drafts)
        self.session, self.cfg, self.rule, self.opts = session, cfg, rule, opts
        prior = opts.prior or DEFAULT_PRIOR
        self.rows = [_Row(build_index(d, cfg.window, cfg.min_window), accept=AcceptStats(prior=prior)) for d in drafts]
        if opts.penalty != 1.0:
            for row, prompt in zip(self.rows, opts.prompts, strict=False):
                row.seen.update(prompt)
            seen = [sorted(r.seen) for r in self.rows]
            first_logits = penalize(first_logits[:, None], seen, [[[]] for _ in self.rows], opts.penalty)[:, 0]
        for row, tok in zip(self.rows, first_logits.argmax(-1).tolist(), strict=False):
            row.origins.append(MODEL)
            row.push([tok], rule)
        self.active = _drop_finished(session, list(range(len(self.rows))), self.rows)

    @property
    def done(self) -> bool:
        return not self.active

    def step(self) -> None:
        """One forward pass over every active row's draft tree, then accept and commit."""
        rows, active, cfg, opts = self.rows, self.active, self.cfg, self.opts
        # 1. align + 2. build trees sized by the step's cost
        trees, ks, offered = _propose([rows[i] for i in active], cfg, opts)
        # 3. one forward pass over all rows' trees
        logits = self.session.step(*pack_trees(trees))
        if opts.penalty != 1.0:
            seen = [sorted(rows[i].seen) for i in active]
            extra = [path_tokens(t, rows[i].seen) for i, t in zip(active, trees, strict=False)]
            logits = penalize(logits, seen, extra, opts.penalty)
        u_hat = logits.argmax(-1).tolist()  # [B, K]: the step's one device sync
        logp = torch.log_softmax(logits.float(), -1) if cfg.tau < 1.0 else None
        # 4. accept, per row
        keep = []
        for b, (i, tree) in enumerate(zip(active, trees, strict=False)):
            acc = accept_nodes(tree, u_hat[b], cfg.tau, None if logp is None else logp[b])
            rows[i].stats.observe_step(tree.num_nodes - 1, len(acc.tokens), offered[b] > 0)
            rows[i].accept.observe(tree, ks[b], acc.path)
            rows[i].origins += [tree.origin[n] for n in acc.path[1:]] + [MODEL]  # provenance only
            rows[i].track(tree.origin[acc.path[-1]] if len(acc.path) > 1 and tree.origin else None)
            rows[i].push(acc.tokens + [acc.bonus], self.rule)
            keep.append(acc.path)
        running = [rows[i] for i in active if rows[i].stop is StopReason.NONE]
        if opts.batch_stop and opts.batch_stop([r.stats for r in running]):
            for row in running:
                row.stop = StopReason.CUT
        # 5. commit the accepted paths in the KV cache
        self.session.commit(keep)
        self.active = _drop_finished(self.session, active, rows)

    def results(self) -> list[RowResult]:
        return [RowResult(r.tokens, r.stop, r.stats, r.origins[: len(r.tokens)]) for r in self.rows]


def spec_decode(
    session: TargetSession,
    first_logits: torch.Tensor,  # [B, V] from the prefill
    drafts: list[list[list[int]]],  # per row: its draft token lists
    cfg: SpecConfig,
    rule: StopRule,
    opts: DecodeOptions = DecodeOptions(),
) -> list[RowResult]:
    """Greedy decoding that verifies draft trees; with tau = 1 it equals `ar_decode`."""
    stepper = SpecStepper(session, first_logits, drafts, cfg, rule, opts)
    while not stepper.done:
        stepper.step()
    return stepper.results()


def ar_decode(
    session: TargetSession, first_logits: torch.Tensor, rule: StopRule, opts: DecodeOptions = DecodeOptions()
) -> list[RowResult]:
    """Plain greedy decoding, one token per step: the same loop with no drafts."""
    cfg = SpecConfig(window=1, max_new_tokens=rule.max_new_tokens)
    empty = [[] for _ in range(first_logits.shape[0])]
    return spec_decode(
        session, first_logits, empty, cfg, rule, DecodeOptions(penalty=opts.penalty, prompts=opts.prompts)
    )


def _propose(rows: list[_Row], cfg: SpecConfig, opts: DecodeOptions) -> tuple[list[DraftTree], list[int], list[int]]:
    """Per row: its trie pruned to the node count the step's cost favours, window length k, candidate nodes."""
    tries, ks, probs = [], [], []
    for row in rows:
        cands, origins, k = _candidates(row, cfg, opts)
        trie = build_trie(row.tokens[-1], cands, origins)
        tries.append(trie)
        ks.append(k)
        probs.append(node_probs(trie, row.accept.p_first(k), row.accept.p_cont()))
    order = [sorted(range(1, len(p)), key=lambda i: -p[i]) for p in probs]
    gains = [[p[i] for i in o] for p, o in zip(probs, order, strict=False)]
    n = best_size(gains, opts.cost if cfg.cost_aware else None, cfg.max_nodes)
    sizes = [_explore(row, n, len(o), k, cfg) for row, o, k in zip(rows, order, ks, strict=False)]
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


def _drop_finished(session: TargetSession, active: list[int], rows: list[_Row]) -> list[int]:
    still = [j for j, i in enumerate(active) if rows[i].stop is StopReason.NONE]
    if len(still) < len(active) and still:
        session.select_rows(still)
    return [active[j] for j in still]
