"""The per-sequence speculative loop (batched over rows) and the AR baseline."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import torch

from hsd_cli.config import SpecConfig
from hsd_cli.spec.accept import accept_path
from hsd_cli.spec.align import NgramIndex, align_window, build_index, region_starts
from hsd_cli.spec.stats import DecodeStats
from hsd_cli.spec.stop import StopReason, StopRule
from hsd_cli.spec.tree import DraftTree, build_tree, pack_trees


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


@dataclass(slots=True)
class RowResult:
    tokens: list[int]  # generated tokens, the stopping EOS included
    stop: StopReason
    stats: DecodeStats


@dataclass(slots=True)
class _Row:
    index: NgramIndex
    tokens: list[int] = field(default_factory=list)
    stop: StopReason = StopReason.NONE
    stats: DecodeStats = field(default_factory=DecodeStats)

    def push(self, new: list[int], rule: StopRule) -> None:
        # Token by token, so every method stops at exactly the same place.
        for tok in new:
            self.tokens.append(tok)
            self.stop = rule.check(self.tokens)
            if self.stop is not StopReason.NONE:
                return


def spec_decode(
    session: TargetSession,
    first_logits: torch.Tensor,  # [B, V] from the prefill
    drafts: list[list[list[int]]],  # per row: its draft token lists
    cfg: SpecConfig,
    rule: StopRule,
    starts: bool = False,  # offer draft beginnings after a boundary token
    boundary_ids: frozenset[int] = frozenset(),
) -> list[RowResult]:
    """Greedy decoding that verifies draft trees; with tau = 1 it equals `ar_decode`."""
    assert first_logits.ndim == 2 and first_logits.shape[0] == len(drafts)
    rows = [_Row(build_index(d, cfg.window, cfg.min_window)) for d in drafts]
    for row, tok in zip(rows, first_logits.argmax(-1).tolist()):
        row.push([tok], rule)
    active = _drop_finished(session, list(range(len(rows))), rows)
    while active:
        # 1. align + 2. build tree, per row
        trees = [_propose(rows[i], cfg, starts, boundary_ids) for i in active]
        # 3. one forward pass over all rows' trees
        logits = session.step(*pack_trees(trees))
        # 4. accept, per row
        keep = []
        for i, tree, row_logits in zip(active, trees, logits):
            acc = accept_path(tree, row_logits[: tree.num_nodes], cfg.tau)
            rows[i].stats.observe_step(tree.num_nodes - 1, len(acc.tokens))
            rows[i].push(acc.tokens + [acc.bonus], rule)
            keep.append(acc.path)
        # 5. commit the accepted paths in the KV cache
        session.commit(keep)
        active = _drop_finished(session, active, rows)
    return [RowResult(r.tokens, r.stop, r.stats) for r in rows]


def ar_decode(session: TargetSession, first_logits: torch.Tensor, rule: StopRule) -> list[RowResult]:
    """Plain greedy decoding, one token per step: the same loop with no drafts."""
    cfg = SpecConfig(window=1, max_new_tokens=rule.max_new_tokens)
    return spec_decode(session, first_logits, [[] for _ in range(first_logits.shape[0])], cfg, rule)


def _propose(row: _Row, cfg: SpecConfig, starts: bool, boundary_ids: frozenset[int]) -> DraftTree:
    cands = align_window(row.index, row.tokens, cfg.max_depth, cfg.max_candidates)
    room = cfg.max_candidates - len(cands)
    if starts and room > 0 and (not cands or row.tokens[-1] in boundary_ids):
        cands += region_starts(row.index, cfg.max_depth, room)
    return build_tree(row.tokens[-1], cands)


def _drop_finished(session: TargetSession, active: list[int], rows: list[_Row]) -> list[int]:
    still = [j for j, i in enumerate(active) if rows[i].stop is StopReason.NONE]
    if len(still) < len(active) and still:
        session.select_rows(still)
    return [active[j] for j in still]
