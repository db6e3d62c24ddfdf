"""The per-sequence speculative loop, batched over rows: the target session it steps and `SpecStepper`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

import torch

from hsd_cli.config import SpecConfig
from hsd_cli.spec.accept import accept_nodes
from hsd_cli.spec.align import MODEL, Origin, OutputIndex, TokenDrafts, build_index
from hsd_cli.spec.budget import DEFAULT_PRIOR, AcceptStats, PassPrices
from hsd_cli.spec.clock import PhaseClock
from hsd_cli.spec.penalty import penalize, seen_matrix
from hsd_cli.spec.propose import Exploration, propose, step_cost
from hsd_cli.spec.row import NO_OPTIONS, DecodeOptions, Row, RowGroup
from hsd_cli.spec.stats import DecodeStats
from hsd_cli.spec.stop import StopReason, StopRule
from hsd_cli.spec.tree import pack_trees


class TargetSession(Protocol):
    """A prefilled batch of sequences on the target; the core sees the model only through it."""

    priced: bool  # the last step ran as the cost model prices it (not on cores a drafting worker took)

    def step(self, ids: torch.Tensor, ancestry: torch.Tensor, depth: torch.Tensor) -> torch.Tensor:
        """One forward over packed trees: [B, K], [B, K, K], [B, K] -> logits [B, K, V]."""
        ...

    def commit(self, keep: list[list[int]]) -> None:
        """Keep in the cache, per row, only these tree nodes (root first); drop the rest."""
        ...

    def select_rows(self, rows: list[int]) -> None:
        """Drop finished rows; `rows` are the positions of the rows that go on."""
        ...

    def extend(self, other: TargetSession) -> None:
        """Append another prefilled batch's rows after these."""
        ...

    def rollback(self) -> None:
        """Undo a step whose forward pass failed midway."""
        ...

    def slots(self) -> int:
        """Cache slots each row's attention reads (rows padded to the longest)."""
        ...


@dataclass(slots=True)
class RowResult:
    tokens: list[int]  # generated tokens, the stopping EOS included
    stop: StopReason
    stats: DecodeStats
    # Per token: the (draft, position) it was accepted from; MODEL for the model's own tokens.
    origins: list[Origin] = field(default_factory=list)


class SpecStepper:
    """The speculative loop, one verification step per `step()`, over rows of any number of
    requests: it starts empty, a request's rows join the running batch with `add` (continuous
    batching) and leave it when they stop, so one loop serves one page or many; `results()` once
    `done`. With no drafts and `own=False` it is plain greedy decoding, the AR baseline."""

    def __init__(self) -> None:
        self.session: TargetSession | None = None  # the batch's rows on the target; set by `add`
        self.rows: dict[int, Row] = {}  # by row id; a group's rows leave with `pop`
        self.groups: list[RowGroup] = []
        self._next_id = 0
        self.active: list[int] = []  # the rows still decoding, in the session's row order
        self.exploration = Exploration()
        self.prices = PassPrices()  # what the passes took against their price (the first request's)
        self.width = 0  # the last step's padded tree width: it computed rows x width tokens
        self._priced = False  # `prices` came with a request
        self.clock = PhaseClock()  # seconds by phase of the passes (benchmarks/host_step.py)

    @property
    def done(self) -> bool:
        return not self.active

    def add(
        self,
        session: TargetSession,
        first_logits: torch.Tensor,
        drafts: TokenDrafts,
        cfg: SpecConfig,
        rule: StopRule,
        opts: DecodeOptions = NO_OPTIONS,
    ) -> int:
        """A newly prefilled request's rows join the batch; returns their group."""
        if self.groups and opts.penalty != self.groups[0].opts.penalty:
            raise ValueError("rows of one batch share the target's repetition penalty")
        self._take_prices(opts)
        if self.active:
            self.session.extend(session)
        else:  # nothing runs: the newcomer's session is the batch
            self.session = session
        return self._admit(first_logits, drafts, RowGroup(cfg, rule, opts))

    def attach(self, group: int, drafts: TokenDrafts, cfg: SpecConfig, opts: DecodeOptions) -> None:
        """Drafts that arrived while `group`'s rows decode without them join those rows.

        Each row's index is built from its drafts now and alignment goes on from the row's output
        so far; the group takes the settings of a request that came with them (`cfg`, `opts`),
        its acceptance belief restarting from their prior. Lossless: drafts only change what the
        next steps propose, never what the target accepts."""
        old = self.groups[group]
        if opts.penalty != old.opts.penalty:
            raise ValueError("rows of one batch share the target's repetition penalty")
        rows = [r for r in self.rows.values() if r.group == group]
        assert len(rows) == len(drafts)
        self.groups[group] = RowGroup(cfg, old.rule, opts)
        self._take_prices(opts)
        for row, row_drafts in zip(rows, drafts, strict=True):
            row.index = build_index(row_drafts, cfg.window, cfg.min_window)
            row.own = OutputIndex(row.index.n)
            row.accept = AcceptStats(prior=opts.prior or DEFAULT_PRIOR)
            row.last, row.since, row.cut_streak = None, 0, 0

    def _take_prices(self, opts: DecodeOptions) -> None:
        """The first request that brings the run's prices sets them, shared by its loops (`ar`
        rows bring none)."""
        if not self._priced and opts.prices is not None:
            self.prices, self._priced = opts.prices, True

    def running_groups(self) -> set[int]:
        """The groups some row of which is still decoding (a batch's pages asked at once: asked
        per page, each would scan every row, 2,000 tests a pass at 32 rows)."""
        return {self.rows[i].group for i in self.active}

    def evict(self, group: int) -> None:
        """Drop `group`'s rows from the batch unfinished (their request is to be run again)."""
        keep = [j for j, i in enumerate(self.active) if self.rows[i].group != group]
        if keep and len(keep) < len(self.active):
            self.session.select_rows(keep)
        self.active = [self.active[j] for j in keep]

    def step(self) -> None:
        """One forward pass over every active row's draft tree, then accept and commit."""
        clock = self.clock
        clock.start()
        live = [self.rows[i] for i in self.active]
        # 1. align + 2. build trees sized by the step's cost
        slots = self.session.slots()
        trees, ks, offered = propose(live, self.groups, self.exploration, slots, self.prices, clock)
        packed = pack_trees(trees)  # 3. one forward pass over all rows' trees
        self.width = packed[0].shape[1]
        clock.lap("pack")
        t0 = time.perf_counter()
        logits = self.session.step(*packed)
        clock.lap("forward")
        penalty = self.groups[live[0].group].opts.penalty
        if penalty != 1.0:
            logits = penalize(logits, seen_matrix([r.seen for r in live]), packed[0], packed[1], penalty)
            clock.lap("penalty")
        u_hat = logits.argmax(-1)  # [B, K]
        clock.lap("argmax")
        u_hat = u_hat.tolist()  # the step's one device sync
        clock.lap("readback")
        if self.session.priced:
            self.prices.observe(step_cost(live, self.groups), len(live), self.width, slots, time.perf_counter() - t0)
        sampled = any(self.groups[r.group].cfg.tau < 1.0 for r in live)
        logp = torch.log_softmax(logits.float(), -1) if sampled else None
        # 4. accept, per row
        keep = []
        for b, (row, tree) in enumerate(zip(live, trees, strict=False)):
            group = self.groups[row.group]
            acc = accept_nodes(tree, u_hat[b], group.cfg.tau, None if logp is None else logp[b])
            ran_out = len(acc.path) > 1 and not tree.children[acc.path[-1]]
            row.stats.observe_step(tree.num_nodes - 1, len(acc.tokens), offered[b] > 0, ran_out)
            row.accept.observe(tree, ks[b], acc.path)
            row.origins += [tree.origin[n] for n in acc.path[1:]] + [MODEL]  # provenance only
            row.track(tree.origin[acc.path[-1]] if len(acc.path) > 1 and tree.origin else None, len(acc.path))
            row.push(acc.tokens + [acc.bonus], group.rule)
            keep.append(acc.path)
        self._cut(live)
        clock.lap("accept")
        # 5. commit the accepted paths in the KV cache
        self.session.commit(keep)
        self.active = self._drop(self.active)
        clock.lap("commit")

    def results(self, group: int | None = None) -> list[RowResult]:
        """The rows' results (of one group, or all), in the order they were added."""
        rows = [r for r in self.rows.values() if group is None or r.group == group]
        return [RowResult(r.tokens, r.stop, r.stats, r.origins[: len(r.tokens)]) for r in rows]

    def pop(self, group: int) -> list[RowResult]:
        """A stopped group's results; its rows are forgotten (a long run keeps no finished rows)."""
        out = self.results(group)
        self.rows = {i: r for i, r in self.rows.items() if r.group != group}
        return out

    def _admit(self, first_logits: torch.Tensor, drafts: TokenDrafts, group: RowGroup) -> int:
        """Take a prefilled request's rows: their first tokens, then into the active set."""
        assert first_logits.ndim == 2 and first_logits.shape[0] == len(drafts)
        g, cfg, opts = len(self.groups), group.cfg, group.opts
        self.groups.append(group)
        prior = opts.prior or DEFAULT_PRIOR
        limits = opts.limits or (None,) * len(drafts)
        new = [
            Row(build_index(d, cfg.window, cfg.min_window), accept=AcceptStats(prior=prior), group=g, limit=n)
            for d, n in zip(drafts, limits, strict=True)
        ]
        if opts.penalty != 1.0:
            for row, prompt in zip(new, opts.prompts, strict=False):
                row.seen.update(prompt)
            root = torch.zeros(len(new), 1, dtype=torch.long)  # one node, the root: no path tokens
            alone = torch.ones(len(new), 1, 1, dtype=torch.bool)
            first = first_logits[:, None].clone()  # the prefill's logits stay as they came
            first_logits = penalize(first, seen_matrix([r.seen for r in new]), root, alone, opts.penalty)[:, 0]
        for row, tok in zip(new, first_logits.argmax(-1).tolist(), strict=False):
            row.origins.append(MODEL)
            row.push([tok], group.rule)
        ids = list(range(self._next_id, self._next_id + len(new)))
        self._next_id += len(new)
        self.rows.update(zip(ids, new, strict=True))
        self.active = self._drop(self.active + ids)
        return g

    def _cut(self, live: list[Row]) -> None:
        """Per group with a batch-stop rule: cut its running rows once more steps do not pay."""
        for g in dict.fromkeys(r.group for r in live):
            stop = self.groups[g].opts.batch_stop
            running = [r for r in live if r.group == g and r.stop is StopReason.NONE]
            if stop and stop([r.stats for r in running]):
                for row in running:
                    row.stop = StopReason.CUT

    def _drop(self, active: list[int]) -> list[int]:
        """The rows that go on; the session keeps only theirs."""
        still = [j for j, i in enumerate(active) if self.rows[i].stop is StopReason.NONE]
        if len(still) < len(active) and still:
            self.session.select_rows(still)
        return [active[j] for j in still]
