"""Trees sized by what a forward pass costs: expected accepted tokens per second, maximised.

A step over a tree yields 1 + (accepted draft tokens) tokens. The expected number of accepted
draft tokens is the sum over nodes of P(node is accepted), because the accepted nodes are one
root path. P(node) = P(parent) * p(node | parent), where p is the row's observed acceptance rate
(first token after a window match of length k, or a continuation) times the share of candidates
that agree on the node. Nodes sorted by P form valid subtrees at every prefix (P falls along a
path), so the best tree of n nodes is the top n, and the batch takes the n that maximises
sum over rows of (1 + E_b(n)) / cost of B rows of n + 1 tokens.
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass, field
from itertools import accumulate
from operator import add

from hsd_cli.spec.tree import DraftTree, Trie

PRIOR_WEIGHT = 4.0  # a prior weighs as this many observations


def bucket(n: int, ladder: tuple[int, ...]) -> int:
    """The smallest bucket >= n; past the ladder, n rounded up to a multiple of its last step."""
    for b in ladder:
        if b >= n:
            return b
    step = ladder[-1] - ladder[-2]
    return -(-n // step) * step


@dataclass(frozen=True, slots=True)
class Buckets:
    """The shapes an engine runs a step at: rows, tree widths and cache slots each padded up to
    one of these (targets/runtime/static_cache.py), so a step costs what its bucket costs."""

    rows: tuple[int, ...]
    widths: tuple[int, ...]
    slots: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class AcceptPrior:
    """Prior acceptance of a candidate's first token by window length (0: a region start), and of a continuation."""

    first: tuple[float, float, float, float]  # window length 0, 1, 2, 3 or more
    cont: float


# What a row believes before it has seen a tree verified, whatever made its drafts (the
# driver picks a draft source's own prior where it knows one: driver/priors.py).
DEFAULT_PRIOR = AcceptPrior((0.3, 0.2, 0.4, 0.6), 0.8)


@dataclass(frozen=True, slots=True)
class CostModel:
    """Seconds of one forward: over `tokens` tree tokens of one row (`__call__`), or of a batch (`step`)."""

    points: tuple[tuple[int, float], ...]  # (tokens, seconds), sorted by tokens, first = 1
    # (rows, seconds) a batch of that many one-token rows takes beyond one row of as many tokens
    # and beyond the `slot` price of their caches: each row has its own mask and cache gather.
    # A 1B model on a CPU: 0.05 s at 4 rows, 0.09 s at 16 (16 one-token rows over 1024-token
    # caches: 1.1 s, against 0.45 s for one row of 16 tokens, the slots making most of the gap).
    rows: tuple[tuple[int, float], ...] = ((1, 0.0),)
    # Seconds a step spends per cache slot a row attends over (reading that slot's keys and
    # values), beyond the `base` slots of the curve's own row. The same model: ~30 us a slot,
    # so 8 rows over 512-slot caches cost 0.12 s less a step than over 1024.
    slot: float = 0.0
    base: int = 0
    context: int = 0  # a row's cache slots, where a caller does not know them
    # Measured on this device: the run's own passes then correct its shape (PassPrices). A
    # made-up model (flat, a test's) prices every run the same.
    measured: bool = False
    # The engine pads a step to these shapes (None: it runs each step at its own): a tree is
    # priced at its bucket, so the sizing fills a bucket it pays for anyway.
    buckets: Buckets | None = None

    def __call__(self, tokens: int) -> float:
        return _interpolate(self.points, tokens)

    def step(self, rows: int, width: int, context: int | None = None) -> float:
        """Seconds of one forward over `rows` rows padded to trees of `width` tokens, each row's
        cache holding `context` slots (padding included; default: `self.context`)."""
        extra, slot = self._fixed(rows, context)
        return self._tokens(rows, width) + extra + slot

    def steps(self, rows: int, widths: int, context: int | None = None) -> list[float]:
        """`step(rows, width, context)` for every width 1 .. `widths`, each the same float (the
        same sum); the tokens' part, the same every pass of a batch's size, priced once."""
        extra, slot = self._fixed(rows, context)
        return [tokens + extra + slot for tokens in _token_prices(self, rows, widths)]

    def _tokens(self, rows: int, width: int) -> float:
        """The curve's price of the step's tokens, at the shapes the engine runs."""
        if self.buckets is not None:
            rows, width = bucket(rows, self.buckets.rows), bucket(width, self.buckets.widths)
        return self(rows * width)

    def _fixed(self, rows: int, context: int | None) -> tuple[float, float]:
        """The step's price beyond its tokens: (its rows', its cache slots')."""
        context = self.context if context is None else context
        if self.buckets is not None:
            rows, context = bucket(rows, self.buckets.rows), bucket(context, self.buckets.slots) if context else 0
        return _interpolate(self.rows, rows), self.slot * max(rows * context - self.base, 0)


def _interpolate(points: tuple[tuple[int, float], ...], x: int) -> float:
    """Piecewise linear through `points`, extended linearly past the last; never below the first."""
    if len(points) == 1:
        return points[0][1]
    ks = [k for k, _ in points]
    i = min(max(bisect.bisect_left(ks, x), 1), len(ks) - 1)
    (k0, t0), (k1, t1) = points[i - 1], points[i]
    return max(t0 + (t1 - t0) * (x - k0) / (k1 - k0), points[0][1])


@dataclass(slots=True)
class AcceptStats:
    """One row's observed acceptance: first tokens by window length, and continuations."""

    first: dict[int, list[float]] = field(default_factory=dict)  # k -> [hits, trials]
    cont: list[float] = field(default_factory=lambda: [0.0, 0.0])
    prior: AcceptPrior = DEFAULT_PRIOR

    def p_first(self, k: int) -> float:
        k = min(k, 3)
        hits, trials = self.first.get(k, (0.0, 0.0))
        return (hits + PRIOR_WEIGHT * self.prior.first[k]) / (trials + PRIOR_WEIGHT)

    def p_cont(self) -> float:
        return (self.cont[0] + PRIOR_WEIGHT * self.prior.cont) / (self.cont[1] + PRIOR_WEIGHT)

    def observe(self, tree: DraftTree, k: int, path: list[int]) -> None:
        """Record which levels of `tree` (found with window length k) were accepted."""
        if tree.num_nodes <= 1:
            return
        rec = self.first.setdefault(min(k, 3), [0.0, 0.0])
        rec[1] += 1
        rec[0] += len(path) > 1
        for node in path[1:]:
            if tree.children[node]:
                self.cont[1] += 1
                self.cont[0] += node != path[-1]


PRICE_WEIGHT = 4.0  # a shape of passes seen this few times weighs as much as the run's overall ratio
PRICE_CLIP = (0.5, 2.0)  # one pass's measured / priced, before it counts: a stall is not a price


@dataclass(slots=True)
class PassPrices:
    """What the run's passes took against their price, by rows and tree tokens a row.

    The model prices a pass from a curve measured a few times at a few sizes, and a batch from
    per-row and per-slot prices measured with one token a row, so some shapes are off by more
    than others (a CPU: one row of 8 tokens 1.30x its price where one of 16 was 1.14x; 8 rows
    of 8 tokens 8-12% over, of one token on the price). The factor for a shape is its passes'
    measured / priced, shrunk to the run's overall ratio where few were seen; only how it differs
    between shapes changes a tree's size.
    """

    cells: dict[tuple[int, int], list[float]] = field(default_factory=dict)  # shape -> [seconds, price, passes]
    total: list[float] = field(default_factory=lambda: [0.0, 0.0])  # [seconds, price] of every pass

    def observe(self, cost: CostModel | None, rows: int, width: int, slots: int, seconds: float) -> None:
        """Record a pass of `rows` rows of `width` tokens over `slots` cache slots; only a cost
        model measured on the device is corrected (a made-up one prices every run alike)."""
        price = cost.step(rows, width, slots) if cost is not None and cost.measured else 0.0
        if price <= 0:
            return
        lo, hi = PRICE_CLIP
        taken = price * min(max(seconds / price, lo), hi)
        cell = self.cells.setdefault(_shape(rows, width), [0.0, 0.0, 0.0])
        cell[0], cell[1], cell[2] = cell[0] + taken, cell[1] + price, cell[2] + 1
        self.total[0] += taken
        self.total[1] += price

    def factor(self, rows: int, width: int) -> float:
        """Measured / priced for a pass of `rows` rows of `width` tokens (1.0 before any pass)."""
        if not self.total[1]:
            return 1.0
        overall = self.total[0] / self.total[1]
        seconds, price, passes = self.cells.get(_shape(rows, width), (0.0, 0.0, 0.0))
        if not passes:
            return overall
        mean = price / passes
        return (seconds + PRICE_WEIGHT * overall * mean) / (price + PRICE_WEIGHT * mean)

    def summary(self) -> list[dict[str, float]]:
        """Per shape seen: its smallest rows and width, passes, and measured / priced (raw and as used)."""
        return [
            {
                "rows": 1 << (r - 1),
                "width": 1 << (w - 1),
                "passes": int(n),
                "measured_over_priced": m / p,
                "factor": self.factor(1 << (r - 1), 1 << (w - 1)),
            }
            for (r, w), (m, p, n) in sorted(self.cells.items())
        ]


def _shape(rows: int, width: int) -> tuple[int, int]:
    """Rows and width to powers of two: passes of about the same shape share their prices."""
    return max(rows, 1).bit_length(), max(width, 1).bit_length()


def node_probs(tree: Trie | DraftTree, p_first: float, p_cont: float) -> list[float]:
    """P(node accepted) for every node of a tree whose parents come before their children (root = 1)."""
    parent, count = tree.parent, tree.count
    siblings = [0] * tree.num_nodes  # per node: its children's counts summed, in child order
    for i in range(1, len(parent)):
        siblings[parent[i]] += count[i]
    probs = [1.0] * len(parent)
    for i in range(1, len(parent)):
        j = parent[i]
        probs[i] = probs[j] * (p_first if j == 0 else p_cont) * count[i] / siblings[j]
    return probs


def best_size(
    gains: list[list[float]],
    cost: CostModel | None,
    max_nodes: int,
    context: int | None = None,
    prices: PassPrices | None = None,
) -> int:
    """Draft nodes per row (n) maximising sum_b (1 + E_b(n)) / cost.step(B, n + 1, context).

    `gains[b]` are row b's node probabilities, best first (root excluded); `context` the rows'
    cache slots (None: the cost model's typical row); `prices` the run's measured correction.
    """
    longest = min(max((len(g) for g in gains), default=0), max_nodes)
    if cost is None or longest == 0:
        return longest
    rows = len(gains)
    cum = [0.0] * (longest + 1)  # sum over rows of E_b(n), rows added in order
    for g in gains:
        run = list(accumulate(g[:longest], initial=0.0))  # E_b(n) for n = 0 .. len(g)
        cum = list(map(add, cum, run + [run[-1]] * (longest + 1 - len(run))))
    scale = prices.factor if prices is not None and cost.measured else lambda _rows, _width: 1.0
    costs = cost.steps(rows, longest + 1, context)
    rates = [(rows + cum[n]) / (costs[n] * scale(rows, n + 1)) for n in range(longest + 1)]
    return max(range(longest + 1), key=lambda n: (rates[n], -n))


def _token_prices(cost: CostModel, rows: int, widths: int) -> tuple[float, ...]:
    """cost(rows * width) for width 1 .. `widths` (cached where the model is hashable)."""
    try:
        return _cached_token_prices(cost, rows, widths)
    except TypeError:  # a cost model built with lists
        return _cached_token_prices.__wrapped__(cost, rows, widths)


@functools.lru_cache(maxsize=1024)
def _cached_token_prices(cost: CostModel, rows: int, widths: int) -> tuple[float, ...]:
    return tuple(cost._tokens(rows, width) for width in range(1, widths + 1))
